"""What lowering one kernel for the host records of it: the facts its build (``targets/host/target.py``:
the manifest entry, the entry point's driver) reads after lowering. The module's
:class:`~..flavour.HostFlavour` keeps one (a flavour lowers one module), so that the lowering shared with
the GPU (:class:`~hatch_hybrid.lower.function.ModuleLowerer`, :class:`~hatch_hybrid.lower.ops.Ops`) holds
nothing of the host's."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class HostRecord:
    # the module is the kernel's sanitized entry: every array access reports to the sanitizer and barriers
    # count the thread's epoch (sanitize.py)
    sanitize: bool = False
    # the block's static shared memory, laid out per call site (flavour.shared_offset)
    shared_bytes: int = 0
    shared_offsets: dict[tuple[str, int], int] = field(default_factory=dict)
    shared_items: set[int] = field(default_factory=set)  # the item sizes of the block's shared arrays
    shared_arrays: dict[int, dict[str, Any]] = field(default_factory=dict)  # sanitized: each by its offset
    yield_sites: list[int] = field(default_factory=list)  # the check site of each place a thread stops, in order
    frame_bytes: int = 0  # the bytes a thread's locals take when saved at a barrier (or its slots, in loops)
    fission: bool = False  # the kernel's threads meet, and run as loops between meeting points
    fission_reason: str = ""  # why a kernel whose threads meet runs as a state machine
    lane_loops: list[str] = field(default_factory=list)  # where grid-stride loops run with the threads as lanes
    ctx_reads: set[str] = field(default_factory=set)  # the thread-context words any function reads
    warp_calls: bool = False  # the kernel's threads stop at warp calls (not only at barriers)
    # the kernel's tile forwarded (tile_forward.py; Any: a Forwarding), and whether its function is being lowered
    forward: Any = None
    forwarding: bool = False
    # the kernel's atomics that its entry combines (aggregate.py; Any: Aggregated), in slot order
    aggregated: list[Any] = field(default_factory=list)


def sanitizing(lowerer: Any) -> bool:
    """Is ``lowerer`` (a module lowerer) lowering the kernel's sanitized entry?"""
    return host_record(lowerer.flavour).sanitize


def host_record(flavour: Any) -> HostRecord:
    """The record a host flavour keeps (``flavour``: a module lowerer's, typed as any flavour)."""
    record = getattr(flavour, "record", None)
    assert isinstance(record, HostRecord), "not a host CPU lowering"
    return record
