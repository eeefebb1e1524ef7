"""Host code: LLVM's O3 pipeline (with both vectorisers) for a CPU target, then an object file.

Targets that run on the same CPU (x86-64 Linux, macOS and Windows at one level) share one optimised
module where LLVM's optimiser added no call to a C library function (which another system may lack,
or name differently): one O3 run, then an object per target. Otherwise each target is optimised for
its own system, as a target of its own CPU always is."""

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
    return _optimised(llvm.parse_assembly(llvm_ir), entries, name, level)


def _optimised(mod: llvm.ModuleRef, entries: set[str], name: str, level: str) -> llvm.ModuleRef:
    """``mod`` (as lowered) optimised in place for target ``name`` at ``level``."""
    mod = _retarget(mod, entries, name, level)
    for fn in mod.functions:
        if fn.name not in entries and not fn.is_declaration:
            fn.linkage = "internal"
    mod.verify()
    pto = llvm.create_pipeline_tuning_options(speed_level=3)
    pto.loop_vectorization = True
    pto.slp_vectorization = True
    pb = llvm.create_pass_builder(target_machine(name, level), pto)
    pb.getModulePassManager().run(mod, pb)
    return mod


def _retarget(mod: llvm.ModuleRef, entries: set[str], name: str, level: str) -> llvm.ModuleRef:
    """The module for target ``name`` (the IR is lowered once, for the first target): its triple and
    data layout, and on Windows its entries exported."""
    mod.triple = TARGETS[name].triple
    mod.data_layout = str(target_machine(name, level).target_data)
    if "windows" in mod.triple:
        for fn in mod.functions:
            if fn.name in entries:
                fn.storage_class = "dllexport"  # a DLL exports only these (llvmlite's ir.Function writes none)
    return mod


def same_cpu(names: list[str]) -> list[list[str]]:
    """The targets grouped by the CPU their code runs on (LLVM's architecture, CPU, levels and
    features), in the order given: x86-64 Linux, macOS and Windows are one group."""
    groups: dict[tuple[object, ...], list[str]] = {}
    for name in names:
        t = TARGETS[name]
        cpus = [(level, t.cpu_for(level), LEVEL_FEATURES.get(level, "")) for level in ["", *dict(t.levels)]]
        groups.setdefault((t.triple.split("-")[0], t.cpu, tuple(cpus)), []).append(name)
    return list(groups.values())


def emit_object(mod: llvm.ModuleRef, name: str, level: str = "") -> bytes:
    return bytes(target_machine(name, level).emit_object(mod))


def object_files(llvm_ir: str, entry: str, names: list[str], level: str, keep_ir: bool) -> list[tuple[bytes, str]]:
    """The object file of each of ``names``, targets of one CPU (a task of the build's workers): the
    module optimised at ``level`` with ``entry`` its only exported function, then emitted for each; and
    each one's optimised IR when ``keep_ir`` (for dumps, else ""). The first target's module is shared
    where optimising it declared no new external function (see the module's docstring)."""
    found = []
    shared = ""  # the first target's optimised IR, where the others may share it
    for k, name in enumerate(names):
        if k == 0 or not shared:
            mod = llvm.parse_assembly(llvm_ir)
            declared = _declared(mod)
            mod = _optimised(mod, {entry}, name, level)
        else:
            mod = _retarget(llvm.parse_assembly(shared), {entry}, name, level)
        optimised = str(mod) if keep_ir or (k == 0 and len(names) > 1) else ""  # (emitting changes the module)
        if k == 0 and len(names) > 1 and not _declared(mod) - declared:
            shared = optimised
        found.append((emit_object(mod, name, level), optimised if keep_ir else ""))
    return found


def _declared(mod: llvm.ModuleRef) -> set[str]:
    """The external functions ``mod`` declares, LLVM's intrinsics excluded: each target's code generator
    lowers those for its own system."""
    return {fn.name for fn in mod.functions if fn.is_declaration and not fn.name.startswith("llvm.")}
