"""Kernels whose threads meet, run natively as loops over a block's threads (targets/host/lowering/fission*.py):
every shape the plan handles (barriers in uniform loops and branches, branches on a thread's own
condition, warp calls in partial warps, early returns, helpers that meet, per-thread arrays across a
barrier, grid-stride loops run with the threads as vector lanes) gives the Python path's result bit for
bit; shapes it does not handle keep the state machine and say why in the manifest."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from types import ModuleType

import numpy as np
import pytest
from conftest import KERNEL_PRELUDE as HEADER
from conftest import built_package

from hatch_hybrid.pipeline import CompiledKernel

SOURCE = (
    HEADER
    + """
TILE = 8


def tile_sum(x: Array[f32], out: Array[f32], base: int):
    buf = gpu.shared_array(f32, 64)
    t = gpu.thread_idx_x()
    buf[t] = x[base + t]
    gpu.syncthreads()
    s = gpu.block_dim_x() // 2
    while s > 0:
        if t < s:
            buf[t] += buf[t + s]
        gpu.syncthreads()
        s //= 2
    if t == 0:
        out[gpu.block_idx_x()] = buf[0]


@kernel
def helper_meets(x: Array[f32], out: Array[f32]):
    tile_sum(x, out, gpu.block_idx_x() * gpu.block_dim_x())


@kernel
def early_return(x: Array[i32], out: Array[i32]):
    buf = gpu.shared_array(i32, 64)
    t = gpu.thread_idx_x()
    i = gpu.global_tid_x()
    buf[t] = x[i] if i < len(x) else i32(-1)
    if t % 5 == 3:
        return
    gpu.syncthreads()
    acc = i32(0)
    for k in range(gpu.block_dim_x()):
        if k % 5 != 3:
            acc += buf[k]
    if i < len(x):
        out[i] = acc * 10 + t


@kernel
def uniform_loop(a: Array[f32, 2], b: Array[f32, 2], c: Array[f32, 2]):
    sa = gpu.shared_array(f32, (TILE, TILE))
    sb = gpu.shared_array(f32, (TILE, TILE))
    tx = gpu.thread_idx_x()
    ty = gpu.thread_idx_y()
    row = gpu.block_idx_y() * TILE + ty
    col = gpu.block_idx_x() * TILE + tx
    acc = f32(0)
    for t0 in range(0, a.shape[1], TILE):
        sa[ty, tx] = a[row, t0 + tx]
        sb[ty, tx] = b[t0 + ty, col]
        gpu.syncthreads()
        for k in range(TILE):
            acc += sa[ty, k] * sb[k, tx]
        gpu.syncthreads()
    c[row, col] = acc + f32(t0)


@kernel
def warp_votes(x: Array[i32], out: Array[i64]):
    t = gpu.thread_idx_x()
    v = x[gpu.global_tid_x()]
    s = v
    k = 16
    while k > 0:
        s += gpu.shfl_down(s, k)
        k //= 2
    up = gpu.shfl_up(v, 1)
    odd = gpu.ballot(v % 2 == 1)
    if t < 40:
        anyneg = gpu.any_(v < 0)
        allpos = gpu.all_(v > 0)
        out[gpu.global_tid_x()] = s * 1000 + up * 10 + i64(anyneg) * 3 + i64(allpos) * 5 + odd % 97
    else:
        out[gpu.global_tid_x()] = s * 1000 + up * 10 + odd % 89


@kernel
def shuffle_offsets(x: Array[i32], out: Array[i64]):
    t = gpu.thread_idx_x()
    v = x[gpu.global_tid_x()]
    a = gpu.shfl_down(v, t % 5)  # offsets that differ between lanes: read lane by lane
    b = gpu.shfl_up(v, t % 3)
    c = gpu.shfl_xor(v, 3)  # the same offset, not a power of two
    d = gpu.shfl_xor(v, 16)  # the same power of two: contiguous reads
    e = gpu.shfl_down(v, 40)  # past the warp: every lane keeps its own
    f = gpu.shfl_idx(v, 5)
    g = gpu.shfl_up(v, 7)
    if t % 2 == 0:
        h = gpu.shfl_xor(v, 2)  # in a branch: even lanes read even lanes (the odd ones do not post)
    else:
        h = i32(-1)
    out[gpu.global_tid_x()] = ((((((a * 3 + b) * 5 + c) * 7 + d) * 11 + e) * 13 + f) * 17 + g) * 19 + h


@kernel
def masked_barrier_region(x: Array[f32], out: Array[f32]):
    buf = gpu.shared_array(f32, 64)
    tmp = gpu.local_array(f32, 3)
    t = gpu.thread_idx_x()
    for q in range(3):
        tmp[q] = x[gpu.global_tid_x()] * f32(q + 1)
    buf[t] = tmp[0]
    gpu.syncthreads()
    if t // 32 == 0:
        v = buf[t] + buf[(t + 1) % gpu.block_dim_x()]
        v += gpu.shfl_xor(v, 1)
        out[gpu.global_tid_x()] = v + tmp[2]
    else:
        out[gpu.global_tid_x()] = tmp[1] - buf[0]


@kernel
def three_d(out: Array[i32]):
    buf = gpu.shared_array(i32, 64)
    tid = gpu.thread_idx_x() + gpu.block_dim_x() * (gpu.thread_idx_y() + gpu.block_dim_y() * gpu.thread_idx_z())
    n = gpu.block_dim_x() * gpu.block_dim_y() * gpu.block_dim_z()
    buf[tid] = i32(tid * 3 + gpu.block_idx_x())
    gpu.syncthreads()
    out[gpu.block_idx_x() * n + tid] = buf[n - 1 - tid] + i32(gpu.thread_idx_z() * 100)


@kernel
def grid_sum(x: Array[f32], partial: Array[f32]):
    acc = gpu.shared_array(f32, 64)
    t = gpu.thread_idx_x()
    i = gpu.global_tid_x()
    stride = gpu.global_size_x()
    n = len(x)
    s = x[i] * f32(0.5) if i < n else f32(0)  # the stepped local read before its loop
    while i < n:
        s += x[i]
        i += stride
    k = 16
    while k > 0:
        s += gpu.shfl_down(s, k)
        k //= 2
    acc[t] = s
    gpu.syncthreads()
    if t == 0:
        total = f32(0)
        for w in range(0, gpu.block_dim_x(), 32):
            total += acc[w]
        partial[gpu.block_idx_x()] = total


@kernel
def two_walkers(x: Array[i32], out: Array[i32]):
    buf = gpu.shared_array(i32, 64)
    t = gpu.thread_idx_x()
    i = gpu.global_tid_x()
    n = len(x)
    j = n - 1 - gpu.global_tid_x()
    step = gpu.global_size_x()
    acc = i32(0)
    rounds = 0
    while i < len(x) and x[i] != 7:  # reads memory: tested only for the threads still in the loop
        acc += x[i] * i32(3) - x[j - 1]  # j - 1 is -1 for the last element: counted from the end
        rounds += 1  # read after the loop: stays in the body
        i += step
        j -= step
    buf[t] = acc + i32(rounds)
    gpu.syncthreads()
    out[gpu.global_tid_x()] = buf[t] * 2 + buf[(t + 1) % gpu.block_dim_x()]


@kernel
def stepped_after_return(x: Array[f32], out: Array[f32]):
    buf = gpu.shared_array(f32, 64)
    t = gpu.thread_idx_x()
    if t % 7 == 5:
        return
    i = gpu.global_tid_x() * 2 + 1
    s = f32(0)
    while i < len(x):
        s = s * f32(0.5) + x[i]
        i += gpu.global_size_x() * 2
    buf[t] = s
    gpu.syncthreads()
    out[gpu.global_tid_x()] = buf[t] - buf[0]


@kernel
def rows_2d(a: Array[f32, 2], out: Array[f32, 2]):
    tile = gpu.shared_array(f32, (4, 8))
    tx = gpu.thread_idx_x()
    ty = gpu.thread_idx_y()
    r = gpu.global_tid_y()
    c = gpu.global_tid_x()
    acc = f32(0)
    while c < a.shape[1]:
        acc += a[r, c] if r < a.shape[0] else f32(1)
        c += gpu.global_size_x()
    tile[ty, tx] = acc
    gpu.syncthreads()
    if r < out.shape[0]:
        out[r, gpu.global_tid_x()] = tile[ty, tx] + tile[ty, (tx + 1) % 8]


@kernel
def read_after_loop(x: Array[i32], out: Array[i32]):
    buf = gpu.shared_array(i32, 32)
    t = gpu.thread_idx_x()
    i = gpu.global_tid_x()
    while i < len(x):
        i += gpu.global_size_x()
    buf[t] = i32(i)  # where this thread left the loop: its own last step, not the block's
    gpu.syncthreads()
    out[gpu.global_tid_x()] = buf[t] + buf[(t + 1) % 32]


@kernel
def compact(x: Array[i32], out: Array[i32], count: Array[i32]):
    seen = gpu.shared_array(i32, 32)
    t = gpu.thread_idx_x()
    i = gpu.global_tid_x()
    mine = i32(0)
    while i < len(x):
        if x[i] > 0:
            out[gpu.atomic_add(count, 0, 1)] = x[i]  # the slot depends on the order threads run in
            mine += 1
        i += gpu.global_size_x()
    seen[t] = mine
    gpu.syncthreads()
    if t == 0:
        total = i32(0)
        for k in range(gpu.block_dim_x()):
            total += seen[k]
        gpu.atomic_add(count, 1 + gpu.block_idx_x(), total)


@kernel
def breaks_out(x: Array[i32], out: Array[i32]):
    buf = gpu.shared_array(i32, 32)
    t = gpu.thread_idx_x()
    buf[t] = x[t]
    for k in range(4):
        gpu.syncthreads()
        stop = buf[0] > k
        gpu.syncthreads()  # every thread has read buf[0] before thread 0 changes it
        if stop:
            break
        buf[t] += 1
    gpu.syncthreads()
    out[t] = buf[t]
"""
)


@dataclass
class Compiled:
    module: ModuleType
    kernels: dict[str, CompiledKernel]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Compiled]:
    kernels: dict[str, CompiledKernel] = {}
    with built_package(tmp_path_factory.mktemp("block_loops"), "hk_block_loops", SOURCE, True, kernels) as module:
        yield Compiled(module, kernels)


def both(kernel, block, grid, *args):  # type: ignore[no-untyped-def]
    """Launch natively and on the Python path with copies of the arguments; the outputs."""
    native = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    python = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    kernel.launch(block, grid, *native, device="cpu")
    kernel.launch(block, grid, *python, device="cpu-python")
    return native, python


def test_block_loops_are_planned_for_structured_kernels(built) -> None:  # type: ignore[no-untyped-def]
    for name in (
        "helper_meets",
        "early_return",
        "uniform_loop",
        "warp_votes",
        "shuffle_offsets",
        "masked_barrier_region",
        "three_d",
    ):
        cpu = built.kernels[name].codes.get("cpu")
        assert cpu.barriers and not cpu.state_machine, (name, cpu.state_machine)
    why = built.kernels["breaks_out"].codes.get("cpu").state_machine
    assert "`break` out of a loop that meets other threads" in why and "kern.py:" in why


def test_helper_that_meets(built) -> None:  # type: ignore[no-untyped-def]
    x = np.random.default_rng(0).random(64 * 5, dtype=np.float32)
    (_, n), (_, p) = both(built.module.helper_meets, 64, 5, x, np.zeros(5, np.float32))
    assert np.array_equal(n, p) and np.allclose(n, x.reshape(5, 64).sum(1), rtol=1e-5)


def test_early_return_before_a_barrier(built) -> None:  # type: ignore[no-untyped-def]
    x = np.arange(100, dtype=np.int32)
    (_, n), (_, p) = both(built.module.early_return, 64, 2, x, np.full(100, -7, np.int32))
    assert np.array_equal(n, p)
    assert n[3] == -7 and n[0] == sum(v for v in range(64) if v % 5 != 3) * 10


def test_uniform_loop_with_barriers_and_its_variable_after(built) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(1)
    a, b = rng.random((16, 24), dtype=np.float32), rng.random((24, 16), dtype=np.float32)
    (_, _, n), (_, _, p) = both(built.module.uniform_loop, (8, 8), (2, 2), a, b, np.zeros((16, 16), np.float32))
    assert np.array_equal(n, p) and np.allclose(n, a @ b + 16, rtol=1e-5)


@pytest.mark.parametrize("threads", [64, 48, 37])
def test_warp_calls_in_full_and_partial_warps(built, threads: int) -> None:  # type: ignore[no-untyped-def]
    x = np.random.default_rng(threads).integers(-50, 50, threads * 3).astype(np.int32)
    (_, n), (_, p) = both(built.module.warp_votes, threads, 3, x, np.zeros(threads * 3, np.int64))
    assert np.array_equal(n, p)


@pytest.mark.parametrize("threads", [64, 45, 16])
def test_shuffles_with_one_offset_and_with_many(built, threads: int) -> None:  # type: ignore[no-untyped-def]
    x = np.random.default_rng(threads).integers(-50, 50, threads * 3).astype(np.int32)
    (_, n), (_, p) = both(built.module.shuffle_offsets, threads, 3, x, np.zeros(threads * 3, np.int64))
    assert np.array_equal(n, p)


def test_masked_branch_with_a_warp_call_and_local_arrays(built) -> None:  # type: ignore[no-untyped-def]
    x = np.random.default_rng(2).random(64 * 3, dtype=np.float32)
    (_, n), (_, p) = both(built.module.masked_barrier_region, 64, 3, x, np.zeros(64 * 3, np.float32))
    assert np.array_equal(n, p)


def test_three_dimensional_blocks(built) -> None:  # type: ignore[no-untyped-def]
    (n,), (p,) = both(built.module.three_d, (4, 3, 2), 3, np.zeros(72, np.int32))
    assert np.array_equal(n, p)


def test_grid_stride_loops_run_with_threads_as_lanes(built) -> None:  # type: ignore[no-untyped-def]
    for name in ("grid_sum", "two_walkers", "stepped_after_return", "rows_2d"):
        where = built.kernels[name].codes.get("cpu").lane_loops
        assert len(where) == 1 and "kern.py:" in where[0], (name, where)
    # a stepped local read after its loop keeps the loop inside each thread's iteration
    assert built.kernels["read_after_loop"].codes.get("cpu").lane_loops == []
    assert built.kernels["early_return"].codes.get("cpu").lane_loops == []
    # nor does one with atomics: which slot each thread gets depends on the order threads run in
    assert built.kernels["compact"].codes.get("cpu").lane_loops == []


@pytest.mark.parametrize("threads, blocks, n", [(64, 4, 64 * 4 * 9 + 17), (48, 3, 100), (64, 2, 50)])
def test_grid_stride_sum(built, threads: int, blocks: int, n: int) -> None:  # type: ignore[no-untyped-def]
    x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    (_, got), (_, want) = both(built.module.grid_sum, threads, blocks, x, np.zeros(blocks, np.float32))
    assert np.array_equal(got, want)
    if threads % 32 == 0:  # (in a partial warp, lanes past the block's end shuffle their own value)
        assert np.isclose(
            got.sum(dtype=np.float64), x.sum(dtype=np.float64) + 0.5 * x[: threads * blocks].sum(), rtol=1e-4
        )


@pytest.mark.parametrize("n", [64 * 3 * 5 + 11, 40])
def test_grid_stride_loop_with_a_memory_test_and_two_steps(built, n: int) -> None:  # type: ignore[no-untyped-def]
    x = np.random.default_rng(n).integers(-9, 9, n).astype(np.int32)
    x[n // 2] = 7  # the thread that reads it leaves the loop early
    (_, got), (_, want) = both(built.module.two_walkers, 64, 3, x, np.zeros(64 * 3, np.int32))
    assert np.array_equal(got, want)


def test_grid_stride_loop_after_an_early_return(built) -> None:  # type: ignore[no-untyped-def]
    x = np.random.default_rng(5).random(1000, dtype=np.float32)
    (_, got), (_, want) = both(built.module.stepped_after_return, 64, 3, x, np.full(64 * 3, -1, np.float32))
    assert np.array_equal(got, want)


def test_grid_stride_loop_in_two_dimensional_blocks(built) -> None:  # type: ignore[no-untyped-def]
    a = np.random.default_rng(6).random((10, 53), dtype=np.float32)
    (_, got), (_, want) = both(built.module.rows_2d, (8, 4), (2, 3), a, np.zeros((12, 16), np.float32))
    assert np.array_equal(got, want)


def test_stepped_local_read_after_its_loop(built) -> None:  # type: ignore[no-untyped-def]
    (_, got), (_, want) = both(built.module.read_after_loop, 32, 3, np.zeros(70, np.int32), np.zeros(96, np.int32))
    assert np.array_equal(got, want)


def test_atomics_in_a_grid_stride_loop_keep_the_python_paths_order(built) -> None:  # type: ignore[no-untyped-def]
    x = np.random.default_rng(8).integers(-5, 5, 300).astype(np.int32)
    (_, got, got_count), (_, want, want_count) = both(
        built.module.compact, 32, 1, x, np.zeros(300, np.int32), np.zeros(2, np.int32)
    )  # one block (blocks run in parallel natively: their atomics interleave as on a GPU)
    assert np.array_equal(got, want) and np.array_equal(got_count, want_count)
    assert got_count[0] == (x > 0).sum() == got_count[1:].sum()


def test_state_machine_fallback_still_runs(built) -> None:  # type: ignore[no-untyped-def]
    x = np.arange(32, dtype=np.int32) - 1
    (_, n), (_, p) = both(built.module.breaks_out, 32, 1, x, np.zeros(32, np.int32))
    assert np.array_equal(n, p)
