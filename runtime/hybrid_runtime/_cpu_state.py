"""Where the CPU path keeps the position of the thread that is running the kernel."""

from __future__ import annotations

import threading
from typing import Any


class BlockBarrier:
    """``syncthreads`` for one block of simulated threads. A thread that has returned from the
    kernel no longer takes part, as on the GPU."""

    def __init__(self, parties: int, timeout: float = 120.0) -> None:
        self.parties = parties
        self.count = 0
        self.generation = 0
        self.broken = False
        self.timeout = timeout
        self.cond = threading.Condition()

    def wait(self) -> None:
        with self.cond:
            if self.broken:
                raise threading.BrokenBarrierError
            generation = self.generation
            self.count += 1
            if self.count >= self.parties:
                self._release()
                return
            while generation == self.generation and not self.broken:
                if not self.cond.wait(self.timeout):
                    self.broken = True
                    self.cond.notify_all()
                    raise RuntimeError(
                        "syncthreads(): threads of a block never met at the barrier "
                        "(is syncthreads() inside a branch that not every thread takes?)"
                    )
            if self.broken:
                raise threading.BrokenBarrierError

    def leave(self) -> None:
        with self.cond:
            self.parties -= 1
            if self.count and self.count >= self.parties:
                self._release()

    def abort(self) -> None:
        with self.cond:
            self.broken = True
            self.cond.notify_all()

    def _release(self) -> None:
        self.count = 0
        self.generation += 1
        self.cond.notify_all()


class WarpState:
    """32 lanes exchanging values (``shfl_*``, votes): a slot per lane and a barrier among them."""

    def __init__(self, barrier: BlockBarrier) -> None:
        self.barrier = barrier
        self.values: list[Any] = [None] * 32


class BlockState:
    def __init__(
        self, barrier: BlockBarrier, warps: list[WarpState] | None = None, dynamic: bytearray | None = None
    ) -> None:
        self.barrier = barrier
        self.shared: dict[Any, Any] = {}
        self.lock = threading.Lock()
        self.warps = warps if warps is not None else []
        self.dynamic = dynamic if dynamic is not None else bytearray()  # dynamic shared memory (shared_bytes=)

    @classmethod
    def for_threads(cls, n: int, shared_bytes: int = 0) -> BlockState:
        warps = [WarpState(BlockBarrier(min(32, n - 32 * w))) for w in range((n + 31) // 32)]
        return cls(BlockBarrier(n), warps=warps, dynamic=bytearray(shared_bytes))


class ThreadState:
    def __init__(
        self,
        tid: tuple[int, int, int] = (0, 0, 0),
        bid: tuple[int, int, int] = (0, 0, 0),
        bdim: tuple[int, int, int] = (1, 1, 1),
        gdim: tuple[int, int, int] = (1, 1, 1),
        linear: int = 0,  # thread index within the block, x fastest
        block: BlockState | None = None,
    ) -> None:
        self.tid, self.bid, self.bdim, self.gdim, self.linear = tid, bid, bdim, gdim, linear
        self.block = block if block is not None else BlockState(BlockBarrier(1))


_local = threading.local()


def current() -> ThreadState:
    """The simulated thread running on this OS thread (outside a launch: thread 0 of block 0)."""
    try:
        return _local.state  # type: ignore[no-any-return]
    except AttributeError:
        _local.state = ThreadState()
        return _local.state  # type: ignore[no-any-return]


def set_current(state: ThreadState) -> None:
    _local.state = state
