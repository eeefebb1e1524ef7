"""The CPU path: the kernel's own Python function, run for every thread of the grid.

Values are NumPy scalars, so arithmetic is NumPy's and matches the compiled kernel bit for bit
(IEEE operations). Kernels that call ``gpu.syncthreads`` (or warp shuffles and votes) run each block's
threads as OS threads that take turns: one runs at a time, in thread order, until it waits at a
barrier (_cpu_state.Turns), and each is traced as the launching thread is, so pdb's breakpoints stop
in any of them. All others run thread by thread on the calling thread, which is much faster.
"""

from __future__ import annotations

import sys
import threading
import types
from collections.abc import Callable
from typing import Any

import numpy as np

from ._cpu_state import BlockBarrier, BlockState, ThreadState, Turns, set_current
from .config import LaunchConfig
from .python_math import with_ieee_math

_BARRIER_NAMES = {
    "syncthreads",
    "shfl_down",
    "shfl_up",
    "shfl_xor",
    "shfl_idx",
    "ballot",
    "all_",
    "any_",
    "match_any",
    "activemask",
    "syncwarp",
    "syncthreads_count",
    "syncthreads_and",
    "syncthreads_or",
}


#: what a kernel that waits at a grid-wide barrier calls (numba's ``cuda.cg.this_grid()``, ``gpu.grid_sync``)
_GRID_NAMES = {"grid_sync", "this_grid"}
#: the most threads a cooperative launch runs on the Python path (each is an OS thread)
MAX_COOPERATIVE_THREADS = 4096


def needs_threads(func: Callable[..., Any], names: set[str] = _BARRIER_NAMES) -> bool:
    """Does the kernel (or a helper it calls) use ``syncthreads`` (or another of ``names``)? Found from the
    code objects."""
    seen: set[int] = set()
    stack: list[tuple[types.CodeType, dict[str, Any]]] = []
    pushed: set[int] = set()

    def push(fn: types.FunctionType) -> None:
        if id(fn.__code__) in pushed:
            return
        pushed.add(id(fn.__code__))
        stack.append((fn.__code__, fn.__globals__))
        for cell in fn.__closure__ or ():  # a kernel factory's helpers
            try:
                value = cell.cell_contents
            except ValueError:
                continue
            if isinstance(value, types.FunctionType):
                push(value)

    push(getattr(func, "__wrapped__", func))  # type: ignore[arg-type]  # a typed copy: its source function
    while stack:
        code, globs = stack.pop()
        if id(code) in seen:
            continue
        seen.add(id(code))
        if names & set(code.co_names):
            return True
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                stack.append((const, globs))
        for name in code.co_names:
            value = globs.get(name)
            target = getattr(value, "py_func", value)
            if isinstance(target, types.FunctionType):
                push(target)
            elif isinstance(value, types.ModuleType):
                for attr in code.co_names:
                    member = vars(value).get(attr)  # (not getattr: no module __getattr__, no lazy imports)
                    member = getattr(member, "py_func", member)
                    if isinstance(member, types.FunctionType) and member.__module__ == value.__name__:
                        stack.append((member.__code__, member.__globals__))
    return False


def _blocks(config: LaunchConfig) -> list[tuple[int, int, int]]:
    gx, gy, gz = config.grid
    return [(x, y, z) for z in range(gz) for y in range(gy) for x in range(gx)]


def _threads(config: LaunchConfig) -> list[tuple[int, int, int]]:
    bx, by, bz = config.block
    return [(x, y, z) for z in range(bz) for y in range(by) for x in range(bx)]


def run_grid(func: Callable[..., Any], config: LaunchConfig, args: list[Any]) -> None:
    """Run ``func(*args)`` once per thread of the grid (its ``math`` gives IEEE results, as the GPU's)."""
    if isinstance(func, types.FunctionType):
        func = with_ieee_math(func)
    if needs_threads(func, _GRID_NAMES):
        _run_cooperative(func, config, args)
        return
    if needs_threads(func):
        _run_threaded(func, config, args)
        return
    state = ThreadState(bdim=config.block, gdim=config.grid)
    set_current(state)
    threads = _threads(config)
    bx, by, _ = config.block
    try:
        with np.errstate(all="ignore"):  # wrap-around and inf/nan are results here, as on the GPU
            for bid in _blocks(config):
                state.bid = bid
                state.block = BlockState(BlockBarrier(1), dynamic=bytearray(config.shared_bytes))
                for tid in threads:
                    state.tid = tid
                    state.linear = tid[0] + bx * (tid[1] + by * tid[2])  # lane_id() reads it
                    func(*args)
    finally:
        set_current(ThreadState())


def _run_cooperative(func: Callable[..., Any], config: LaunchConfig, args: list[Any]) -> None:
    """A kernel that waits at a grid-wide barrier: every thread of the grid at once (the blocks are
    co-resident, as a cooperative launch makes them on a GPU), taking turns in one order across the grid;
    ``syncthreads`` meets a block's threads, ``grid_sync`` all of them."""
    threads, blocks = _threads(config), _blocks(config)
    n = len(threads) * len(blocks)
    if n > MAX_COOPERATIVE_THREADS:
        raise ValueError(
            f"a kernel that waits at a grid-wide barrier runs every thread of the grid at once; on the Python "
            f"path at most {MAX_COOPERATIVE_THREADS} threads, not {n} ({len(blocks)} blocks of {len(threads)}). "
            "Launch fewer blocks, or run it on a GPU"
        )
    turns = Turns(n)
    grid = BlockBarrier(n, turns)
    states = [BlockState.for_threads(len(threads), config.shared_bytes, turns) for _ in blocks]
    for s in states:
        s.grid = grid
    errors: list[BaseException] = []
    trace = sys.gettrace() if threading.gettrace() is None else None
    bx, by, _ = config.block

    def worker(b: int, tid: tuple[int, int, int]) -> None:
        if trace is not None:
            sys.settrace(trace)
        linear = tid[0] + bx * (tid[1] + by * tid[2])
        block = states[b]
        state = ThreadState(tid=tid, bid=blocks[b], bdim=config.block, gdim=config.grid, linear=linear, block=block)
        state.slot = b * len(threads) + linear
        set_current(state)
        try:
            with np.errstate(all="ignore"):
                turns.start(state.slot)
                func(*args)
                block.thread_returned(linear)
                grid.leave()
                turns.finish(state.slot)
        except threading.BrokenBarrierError:
            pass
        except BaseException as exc:  # report the first failure, stop the others
            errors.append(exc)
            with turns.lock:
                turns.break_all()

    _run_all(
        [threading.Thread(target=worker, args=(b, tid), daemon=True) for b in range(len(blocks)) for tid in threads],
        errors,
    )


def _run_threaded(func: Callable[..., Any], config: LaunchConfig, args: list[Any]) -> None:
    threads = _threads(config)
    blocks = _blocks(config)
    errors: list[BaseException] = []
    current_block: list[BlockState] = []

    def next_block() -> None:
        current_block[:] = [BlockState.for_threads(len(threads), config.shared_bytes)]

    between_blocks = threading.Barrier(len(threads), action=next_block)
    next_block()

    # a debugger's trace function (pdb's breakpoints): each simulated thread is traced as the caller is
    # (coverage.py and others that register with threading.settrace reach new threads themselves)
    trace = sys.gettrace() if threading.gettrace() is None else None

    def worker(tid: tuple[int, int, int]) -> None:
        if trace is not None:
            sys.settrace(trace)
        bx, by, _ = config.block
        linear = tid[0] + bx * (tid[1] + by * tid[2])
        state = ThreadState(tid=tid, bdim=config.block, gdim=config.grid, linear=linear)
        set_current(state)
        try:
            with np.errstate(all="ignore"):
                for bid in blocks:
                    block = current_block[0]
                    state.bid, state.block = bid, block
                    block.barrier.turns.start(linear)  # one simulated thread runs at a time (see Turns)
                    func(*args)
                    block.thread_returned(linear)
                    block.barrier.turns.finish(linear)
                    between_blocks.wait()
        except threading.BrokenBarrierError:
            pass
        except BaseException as exc:  # report the first failure, stop the others
            errors.append(exc)
            current_block[0].barrier.abort()
            between_blocks.abort()

    _run_all([threading.Thread(target=worker, args=(tid,), daemon=True) for tid in threads], errors)


def _run_all(pool: list[threading.Thread], errors: list[BaseException]) -> None:
    """Start the simulated threads, wait for them all, raise the first failure they reported."""
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    if errors:
        raise errors[0]
