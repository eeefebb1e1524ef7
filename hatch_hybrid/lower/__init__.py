"""Stage 3, lowering: turns the typed IR of a kernel and every helper it reaches into one LLVM IR
module, built with ``llvmlite.ir`` (:mod:`.function` drives it; calls, loops, memory access, operators
and intrinsics each have a module of their own). In: :class:`~hatch_hybrid.typecheck.typed.TypedFunction`
objects. Out: an LLVM IR module (text) for the target whose :class:`~.flavour.Flavour` it was given (NVPTX,
:mod:`hatch_hybrid.targets.ptx`; host CPUs, :mod:`hatch_hybrid.targets.host.lowering`), plus the
kernel's launch ABI and check sites."""
