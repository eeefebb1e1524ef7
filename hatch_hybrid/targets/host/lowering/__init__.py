"""Typed IR -> LLVM IR for host CPUs: the shared lowering (:mod:`hatch_hybrid.lower`) with a block's threads
as loops on one core. :mod:`.function` is the entry (:class:`~.function.HostFunctionLowerer`, which the
host flavour gives the module lowerer); :mod:`.fission` and its plan run threads that meet as loops
between meeting points, :mod:`.threads` as a state machine where they cannot; :mod:`.sanitize` is the
CPU sanitizer's instrumentation; :mod:`.context` the per-thread context the driver passes."""
