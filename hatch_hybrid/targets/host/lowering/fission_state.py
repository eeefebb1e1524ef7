"""What the lowerers of one block function share when its threads run as loops (:mod:`.fission`): the
per-thread slots, laid out one array per local, and the block's state while it is lowered."""

from __future__ import annotations

from typing import Any

from llvmlite import ir as llir

from ....lower.ops import I8, I64
from .fission_pieces import Plan
from .threads import Frame

_ZERO = llir.Constant(I64, 0)


class ThreadFrame(Frame):
    """Per-thread slots, one array of ``threads`` values per local (structure of arrays)."""

    def __init__(self, entry: llir.Block, base: llir.Value) -> None:
        super().__init__(entry, base)
        self.offsets: dict[tuple[Any, ...], int] = {}

    def pointer(
        self,
        b: llir.IRBuilder,
        key: tuple[Any, ...],
        ty: llir.Type,
        threads: llir.Value,
        t: llir.Value,
        room: llir.Type | None = None,
    ) -> llir.Value:
        """Slot ``t`` of the array of ``key`` (``room``: each thread's share of it, if more than ``ty``)."""
        offset = self.offsets.get(key)
        if offset is None:
            offset = self.offsets[key] = self.place(room or ty)  # times threads: the local's array
        base = b.gep(self.base, [b.mul(llir.Constant(I64, offset), threads)], source_etype=I8)
        ptr = b.gep(base, [t], source_etype=ty)
        ptr.allocated_type = ty
        self.slots.add(id(ptr))
        return ptr


class FissionState:
    """What every lowerer of one block function shares (the kernel's and those of helpers inlined)."""

    def __init__(self, frame: ThreadFrame, plan: Plan) -> None:
        self.frame = frame
        self.exits = plan.exits
        self.threads: llir.Value = _ZERO
        self.post_shift: llir.Value = _ZERO  # where the warp calls' posts start in their arrays (post_slot)
        self.dims: list[llir.Value] = []
        self.thread: llir.Value | None = None  # the linear index of the thread being lowered for
        self.mask: tuple[Any, ...] | None = None  # the per-thread flags of the innermost masked if
        self.region_next: llir.Block | None = None  # where a thread that returns goes on
        self.types: dict[tuple[str, str], list[llir.Type]] = {}  # (function, local) -> its parts' types
        self.local_arrays = 0  # gpu.local_array storage slots made so far
        self.drift: dict[str, llir.Value] = {}  # a LaneLoop's stepped local -> the block's sum of steps
        # sanitized: the pieces whose segment writes no shared memory (lowering/sanitize_segments.py), and while
        # one of them is lowered, whether the block had written all its shared memory when it began (an i1;
        # its reads of shared memory then need no check, else only their granule's mark)
        self.quiet: set[int] = set()
        self.quiet_all: llir.Value | None = None
