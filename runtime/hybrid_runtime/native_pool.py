"""The worker pool that runs native CPU launches, and the threads it runs on.

Every native library carries the same pool (``hatch_hybrid/targets/host/pool.c``): one exported
function runs a launch's blocks on the calling thread and on persistent worker threads, which
take chunks of blocks from their own part of the grid first (the same part at every launch, so
that its data is still in that core's caches), then from the others' parts; they spin for about
50 µs after a launch, then sleep. The
pool of the first library loaded serves the kernels of every package (it calls each kernel's entry
through a function pointer), so a process has one set of workers. They are Python threads
(``hybrid-cpu-N``, daemons) started here as launches need them, each calling the pool's worker
loop through ctypes, which releases the GIL, and never coming back: Python threads, so their stack
is the size Python gives its threads. A library of an older build without the pool runs its
launches on the calling thread alone.
"""

from __future__ import annotations

import ctypes
import os
import threading

#: the pool's functions (their number changes with their interface)
LAUNCH, WORK, RESET = "hybrid_pool1_launch", "hybrid_pool1_work", "hybrid_pool1_reset"


class Pool:
    """One library's pool: ``launch(job_address) -> int32`` (nonzero: an entry failed a check)."""

    def __init__(self, lib: ctypes.CDLL) -> None:
        self.launch = getattr(lib, LAUNCH)
        self.launch.argtypes = [ctypes.c_void_p]
        self.launch.restype = ctypes.c_int32
        self._work = getattr(lib, WORK)
        self._work.argtypes = []
        self._work.restype = None
        self._reset = getattr(lib, RESET)
        self._reset.argtypes = []
        self._reset.restype = None
        self.started = 0  # worker threads
        self._lock = threading.Lock()

    def start(self, workers: int) -> None:
        """Have at least ``workers`` worker threads (a launch goes on with those there are: the blocks
        are shared among whoever joins)."""
        with self._lock:
            while self.started < workers:
                thread = threading.Thread(target=self._work, name=f"hybrid-cpu-{self.started}", daemon=True)
                try:
                    thread.start()
                except RuntimeError:  # no new threads (the interpreter is shutting down): fewer workers
                    return
                self.started += 1

    def after_fork(self) -> None:
        """In a child process: its workers were not forked with it."""
        self._reset()
        self.started = 0
        self._lock = threading.Lock()


_pool: Pool | None = None


def adopt(lib: ctypes.CDLL) -> None:
    """Serve every launch with ``lib``'s pool if none serves them yet and it has one (called as each
    library is loaded, under the loader's lock)."""
    global _pool
    if _pool is None and all(hasattr(lib, name) for name in (LAUNCH, WORK, RESET)):
        _pool = Pool(lib)


def current() -> Pool | None:
    """The pool that serves launches (None: no library loaded so far has one)."""
    return _pool


def _after_fork_in_child() -> None:
    if _pool is not None:
        _pool.after_fork()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
