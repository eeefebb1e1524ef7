"""Where the CPU path keeps the position of the thread that is running the kernel."""

from __future__ import annotations

import threading
from typing import Any

DEADLOCK = (
    "syncthreads(): threads of a block never met at the barrier "
    "(is syncthreads() inside a branch that not every thread takes?)"
)


class Turns:
    """The threads of a block take turns: one runs at a time, in thread order, until it waits at a barrier
    (or returns); then the next that can run does. So the Python path's barrier kernels run one
    simulated thread at a time, deterministically, and a debugger stepping through one thread sees no
    other move (pdb and coverage trace each thread: see cpu.py). ``state``: per thread "ready",
    "waiting" (at a barrier) or "done"."""

    def __init__(self, n: int) -> None:
        self.lock = threading.Lock()
        self.waits = [threading.Condition(self.lock) for _ in range(n)]  # each thread waits on its own
        self.turn = 0
        self.state = ["ready"] * n
        self.broken = False

    def start(self, me: int) -> None:
        """Block until it is thread ``me``'s turn."""
        with self.lock:
            self._await(me)

    def _await(self, me: int) -> None:
        while (self.turn != me or self.state[me] != "ready") and not self.broken:
            self.waits[me].wait()
        if self.broken:
            raise threading.BrokenBarrierError

    def give(self, j: int) -> None:
        """(``lock`` held) Thread ``j``'s turn now."""
        self.turn = j
        self.waits[j].notify()

    def break_all(self) -> None:
        """(``lock`` held) Every waiting thread gives up."""
        self.broken = True
        for w in self.waits:
            w.notify()

    def finish(self, me: int) -> None:
        """Thread ``me`` returned (and left its barriers): the next thread's turn."""
        with self.lock:
            self.state[me] = "done"
            if self.turn != me and self.state[self.turn] == "ready":
                return  # leaving released a barrier: its first thread's turn
            if not self.pass_on() and "waiting" in self.state and not self.broken:
                self.break_all()
                raise RuntimeError(DEADLOCK)

    def pass_on(self) -> bool:
        """(``lock`` held) Give the turn to the next thread that can run; False when none can."""
        n = len(self.state)
        for k in range(1, n + 1):
            j = (self.turn + k) % n
            if self.state[j] == "ready":
                self.give(j)
                return True
        return False


class BlockBarrier:
    """``syncthreads`` (or a warp's exchange) for simulated threads taking :class:`Turns`. A thread that
    has returned from the kernel no longer takes part, as on the GPU. Threads that can never meet (a
    barrier in a branch some threads skip) are an error at once."""

    def __init__(self, parties: int, turns: Turns | None = None) -> None:
        self.parties = parties
        self.waiting: list[int] = []
        self.turns = turns if turns is not None else Turns(parties)

    def wait(self) -> None:
        turns, me = self.turns, current().slot
        with turns.lock:
            if turns.broken:
                raise threading.BrokenBarrierError
            self.waiting.append(me)
            turns.state[me] = "waiting"
            if len(self.waiting) >= self.parties:
                self._release()
            elif not turns.pass_on():
                self._deadlock()
            turns._await(me)

    def leave(self) -> None:
        """The running thread returned from the kernel (then :meth:`Turns.finish`)."""
        with self.turns.lock:
            self.parties -= 1
            if self.waiting and len(self.waiting) >= self.parties:
                self._release()

    def abort(self) -> None:
        with self.turns.lock:
            self.turns.break_all()

    def _release(self) -> None:
        """Every thread has arrived: they go on in thread order, the first one's turn now."""
        for t in self.waiting:
            self.turns.state[t] = "ready"
        self.turns.give(min(self.waiting))
        self.waiting = []

    def _deadlock(self) -> None:
        self.turns.break_all()
        raise RuntimeError(DEADLOCK)


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
        self.grid: BlockBarrier | None = None  # a cooperative launch: the barrier of every thread of the grid

    def thread_returned(self, linear: int) -> None:
        """Thread ``linear`` returned from the kernel: it no longer takes part in the block's or its warp's
        meetings (and a lane that returned posts nothing)."""
        self.barrier.leave()
        warp = self.warps[linear // 32]
        warp.values[linear % 32] = None
        warp.barrier.leave()

    @classmethod
    def for_threads(cls, n: int, shared_bytes: int = 0, turns: Turns | None = None) -> BlockState:
        """A block of ``n`` threads taking ``turns`` (their own, or the grid's in a cooperative launch)."""
        turns = turns if turns is not None else Turns(n)
        warps = [WarpState(BlockBarrier(min(32, n - 32 * w), turns)) for w in range((n + 31) // 32)]
        return cls(BlockBarrier(n, turns), warps=warps, dynamic=bytearray(shared_bytes))


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
        self.slot = linear  # its place in the turns it takes (in a cooperative launch: in the whole grid)
        self.votes = 0  # the block votes (syncthreads_count & co.) this thread has taken part in
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
