"""The build's LLVM work in worker processes: each kernel's objects (optimise + emit per CPU target and
level, per GPU arch) are independent functions of text, so a build runs them on every core while the
front end goes on with the next kernel.

In: tasks submitted by the targets (a module-level function and its arguments: IR text, names).
Out: futures of their results (object bytes, PTX text); a target's code waits for them in ``finish()``.

``jobs`` is the hook's option, else ``$HYBRID_BUILD_JOBS``, else the cores this process may use. One job
runs every task at once in this process (no pool). The results are the same bytes either way: each task
is a pure function of its arguments.

llvmlite holds one lock around every call into LLVM, so threads would not help: the workers are
processes (forked on Linux, where it is cheap and safe before any thread starts; spawned elsewhere).
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from multiprocessing import get_context
from typing import Any, TypeVar

T = TypeVar("T")

JOBS_ENV = "HYBRID_BUILD_JOBS"


def usable_cores() -> int:
    """The cores this process may run on (its affinity where the system says, else every core)."""
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else os.cpu_count() or 1


def build_jobs(option: int | None = None) -> int:
    """How many worker processes a build uses: the ``jobs`` option, else ``$HYBRID_BUILD_JOBS``, else
    the usable cores. Raises ValueError for a value that is not a positive integer."""
    if option is not None:
        return option
    value = os.environ.get(JOBS_ENV, "").strip()
    if not value:
        return usable_cores()
    if not value.isdigit() or int(value) < 1:
        raise ValueError(f"${JOBS_ENV} must be a positive integer (the build's worker processes), not {value!r}")
    return int(value)


class Work:
    """Where a build's tasks run: in this process (one job) or in a pool of ``jobs`` worker processes,
    started on the first task (a build that compiles nothing, all from the cache, starts none)."""

    def __init__(self, jobs: int = 1) -> None:
        self.jobs = jobs
        self._pool: Executor | None = None

    def submit(self, fn: Callable[..., T], *args: Any) -> Future[T]:
        if self.jobs <= 1:
            return _run_here(fn, *args)
        if self._pool is None:
            self._pool = ProcessPoolExecutor(self.jobs, mp_context=get_context(_start_method()))
        return self._pool.submit(fn, *args)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def __enter__(self) -> Work:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _run_here(fn: Callable[..., T], *args: Any) -> Future[T]:
    future: Future[T] = Future()
    try:
        future.set_result(fn(*args))
    except BaseException as exc:  # the caller's result() raises it, as a worker's would
        future.set_exception(exc)
    return future


def _start_method() -> str:
    """fork where it is the platform's safe default (Linux, a process with one thread): no new
    interpreter imports the compiler again; spawn elsewhere (macOS, Windows, threaded hosts)."""
    return "fork" if sys.platform.startswith("linux") and threading.active_count() == 1 else "spawn"
