"""Kernels whose threads meet, run natively as loops over a block's threads (lower/fission*.py):
every shape the plan handles (barriers in uniform loops and branches, branches on a thread's own
condition, warp calls in partial warps, early returns, helpers that meet, per-thread arrays across a
barrier) gives the Python path's result bit for bit; shapes it does not handle keep the state machine
and say why in the manifest."""

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
    for name in ("helper_meets", "early_return", "uniform_loop", "warp_votes", "masked_barrier_region", "three_d"):
        cpu = built.kernels[name].cpu
        assert cpu.barriers and not cpu.state_machine, (name, cpu.state_machine)
    why = built.kernels["breaks_out"].cpu.state_machine
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


def test_masked_branch_with_a_warp_call_and_local_arrays(built) -> None:  # type: ignore[no-untyped-def]
    x = np.random.default_rng(2).random(64 * 3, dtype=np.float32)
    (_, n), (_, p) = both(built.module.masked_barrier_region, 64, 3, x, np.zeros(64 * 3, np.float32))
    assert np.array_equal(n, p)


def test_three_dimensional_blocks(built) -> None:  # type: ignore[no-untyped-def]
    (n,), (p,) = both(built.module.three_d, (4, 3, 2), 3, np.zeros(72, np.int32))
    assert np.array_equal(n, p)


def test_state_machine_fallback_still_runs(built) -> None:  # type: ignore[no-untyped-def]
    x = np.arange(32, dtype=np.int32) - 1
    (_, n), (_, p) = both(built.module.breaks_out, 32, 1, x, np.zeros(32, np.int32))
    assert np.array_equal(n, p)
