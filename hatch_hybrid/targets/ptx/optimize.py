"""Stage 4: LLVM optimisation for the NVPTX target machine.

Parses the IR built by :mod:`hatch_hybrid.lower`, links libdevice when math functions need it, internalises
everything but the kernel (so unused libdevice code is dropped) and runs LLVM's O3 pipeline with
the NVPTX target's own passes (NVVMReflect, address-space inference, ...).
"""

from __future__ import annotations

from functools import cache

import llvmlite.binding as llvm

from ...lower.abi import ERROR_SLOT, PRINT_BUFFER
from .flavour import TRIPLE
from .libdevice import libdevice_bitcode


@cache
def target_machine(arch: str) -> llvm.TargetMachine:
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    target = llvm.Target.from_triple(TRIPLE)
    # below sm_75 LLVM would write the arch's oldest PTX version, which has no `shfl.sync`/`vote.sync`
    # below sm_70 and no `activemask` below sm_75 (LLVM then aborts the process); PTX 6.2 (CUDA 9.2) has
    # them for every arch since sm_30
    features = "+ptx62" if int(arch[3:].rstrip("a")) < 75 else ""
    return target.create_target_machine(cpu=arch, features=features, opt=3)


def data_layout(arch: str = "sm_70") -> str:
    return str(target_machine(arch).target_data)


def optimise(llvm_ir: str, kernel_symbols: set[str], arch: str, needs_libdevice: bool) -> llvm.ModuleRef:
    tm = target_machine(arch)
    mod = llvm.parse_assembly(llvm_ir)
    if needs_libdevice:
        lib = llvm.parse_bitcode(libdevice_bitcode())
        lib.triple = mod.triple
        lib.data_layout = mod.data_layout
        mod.link_in(lib)
    for fn in mod.functions:
        if fn.name not in kernel_symbols and not fn.is_declaration:
            fn.linkage = "internal"
    for gv in mod.global_variables:
        if not gv.is_declaration and gv.name not in (ERROR_SLOT, PRINT_BUFFER):  # the runtime reads these by name
            gv.linkage = "internal"
    mod.verify()
    pto = llvm.create_pipeline_tuning_options(speed_level=3)
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(mod, pb)
    return mod
