"""Where the CPU path keeps the position of the thread that is running the kernel."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
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


@dataclass
class WarpState:
    """32 lanes exchanging values (``shfl_*``, votes): a slot per lane and a barrier among them."""

    barrier: BlockBarrier
    values: list[Any] = field(default_factory=lambda: [None] * 32)


@dataclass
class BlockState:
    barrier: BlockBarrier
    shared: dict[Any, Any] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    warps: list[WarpState] = field(default_factory=list)
    dynamic: bytearray = field(default_factory=bytearray)  # dynamic shared memory (shared_bytes=)

    @classmethod
    def for_threads(cls, n: int, shared_bytes: int = 0) -> BlockState:
        warps = [WarpState(BlockBarrier(min(32, n - 32 * w))) for w in range((n + 31) // 32)]
        return cls(BlockBarrier(n), warps=warps, dynamic=bytearray(shared_bytes))


@dataclass
class ThreadState:
    tid: tuple[int, int, int] = (0, 0, 0)
    bid: tuple[int, int, int] = (0, 0, 0)
    bdim: tuple[int, int, int] = (1, 1, 1)
    gdim: tuple[int, int, int] = (1, 1, 1)
    linear: int = 0  # thread index within the block, x fastest
    block: BlockState = field(default_factory=lambda: BlockState(BlockBarrier(1)))


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
