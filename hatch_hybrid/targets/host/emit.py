"""Host code: LLVM's O3 pipeline (with both vectorisers) for a CPU target, then an object file."""

from __future__ import annotations

from functools import cache

import llvmlite.binding as llvm

from .cpus import LEVEL_FEATURES, TARGETS, CpuTarget


@cache
def target_machine(name: str, level: str = "") -> llvm.TargetMachine:
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    t: CpuTarget = TARGETS[name]
    target = llvm.Target.from_triple(t.triple)
    features = LEVEL_FEATURES.get(level, "") if t.levels else ""
    return target.create_target_machine(cpu=t.cpu_for(level), features=features, opt=3, reloc="pic")


def data_layout(name: str) -> str:
    return str(target_machine(name).target_data)


def optimise(llvm_ir: str, entries: set[str], name: str, level: str = "") -> llvm.ModuleRef:
    tm = target_machine(name, level)
    mod = llvm.parse_assembly(llvm_ir)
    mod.triple = TARGETS[name].triple  # the IR is lowered once, for the first target
    mod.data_layout = str(tm.target_data)
    for fn in mod.functions:
        if fn.name not in entries and not fn.is_declaration:
            fn.linkage = "internal"
        elif fn.name in entries and "windows" in mod.triple:
            fn.storage_class = "dllexport"  # a DLL exports only these (llvmlite's ir.Function writes no storage class)
    mod.verify()
    pto = llvm.create_pipeline_tuning_options(speed_level=3)
    pto.loop_vectorization = True
    pto.slp_vectorization = True
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(mod, pb)
    return mod


def emit_object(mod: llvm.ModuleRef, name: str, level: str = "") -> bytes:
    return bytes(target_machine(name, level).emit_object(mod))
