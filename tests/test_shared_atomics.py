"""Atomics on shared memory: natively an ordinary read-modify-write (a block runs on one worker, its threads
one after another, so the atomic's order is the thread loop's), everywhere else an atomic; the same result
on every path (the differential fuzzer's atomics class compares them on random kernels too)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import DEVICES, HOST_TARGETS, KERNEL_PRELUDE

from hatch_hybrid.cache import KernelCache
from hatch_hybrid.pipeline import Options, compile_packages

SOURCE = (
    KERNEL_PRELUDE
    + """

@kernel
def histogram(keys: Array[u32], bins: Array[u32], low: Array[i64]):
    counts = gpu.shared_array(u32, 256)
    lowest = gpu.shared_array(i64, 1)
    tile = counts[:]  # a view of shared memory is shared memory
    t = gpu.thread_idx_x()
    counts[t] = u32(0)
    if t == 0:
        lowest[0] = 1 << 40
    gpu.syncthreads()
    i = gpu.global_tid_x()
    while i < len(keys):
        gpu.atomic_add(tile, keys[i] & u32(255), u32(1))
        gpu.atomic_min(lowest, 0, i64(keys[i]))
        i += gpu.block_dim_x() * gpu.grid_dim_x()
    gpu.syncthreads()
    gpu.atomic_add(bins, t, counts[t])
    if t == 0:
        gpu.atomic_min(low, 0, lowest[0])


@kernel
def float_sums(x: Array[f32], sums: Array[f32]):
    acc = gpu.shared_array(f32, 4)
    t = gpu.thread_idx_x()
    if t < 4:
        acc[t] = f32(0)
    gpu.syncthreads()
    i = gpu.global_tid_x()
    while i < len(x):
        gpu.atomic_add(acc, i % 4, x[i])  # a float sum: its rounding depends on the order
        i += gpu.block_dim_x() * gpu.grid_dim_x()
    gpu.syncthreads()
    if t < 4:
        sums[gpu.block_idx_x() * 4 + t] = acc[t]
"""
)


@pytest.mark.parametrize("device", DEVICES)
def test_a_shared_memory_histogram_counts_every_key(build, device: str) -> None:
    kern = build(SOURCE).module
    keys = np.random.default_rng(3).integers(0, 2**32, 100_000, dtype=np.uint32)
    bins, low = np.zeros(256, np.uint32), np.full(1, 2**62, np.int64)
    kern.histogram.launch(256, 16, keys, bins, low, device=device)
    np.testing.assert_array_equal(bins, np.bincount(keys & 255, minlength=256))
    assert low[0] == keys.min()


@pytest.mark.parametrize("device", ["cpu", "cpu-python"])
def test_shared_float_sums_keep_the_python_paths_order(build, device: str) -> None:
    """A float sum's bits depend on the order of its terms: natively the grid-stride loop keeps each
    thread's loop whole (as the Python path runs it), where integer counts run with the threads as lanes."""
    kern = build(SOURCE).module
    x = np.random.default_rng(4).standard_normal(50_000).astype(np.float32)
    sums = np.zeros(64, np.float32)
    kern.float_sums.launch(128, 16, x, sums, device=device)
    expected = np.zeros(64, np.float32)
    for block in range(16):  # each thread's whole loop in turn, as the Python path runs the block
        for t in range(128):
            for i in range(block * 128 + t, len(x), 128 * 16):
                expected[block * 4 + i % 4] += x[i]
    assert sums.tobytes() == expected.tobytes()


@pytest.mark.skipif(not HOST_TARGETS, reason="no native CPU target here (zig)")
def test_native_code_makes_shared_atomics_plain_and_keeps_global_ones(tmp_path: Path) -> None:
    pkg = tmp_path / "sharedatomics"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "kern.py").write_text(SOURCE)
    dump = tmp_path / "dump"
    options = Options(["sm_90"], cubin=False, cpu=HOST_TARGETS, cpu_sanitize=False, cache=KernelCache(None))
    options.dump_dir = dump
    compile_packages([pkg], options=options)
    native = next(dump.glob("*histogram.host.ll")).read_text()  # (before LLVM unrolls the thread loops)
    ptx = next(dump.glob("*histogram.sm_90.ptx")).read_text()
    assert native.count("atomicrmw") == 2  # bins and low (global); counts and lowest (shared): none
    # the histogram's grid-stride loop runs with the threads as lanes (its integer shared atomics commute);
    # the float sums' loop does not
    assert "lane.head" in native
    assert "lane.head" not in next(dump.glob("*float_sums.host.ll")).read_text()
    assert "atom.shared" in ptx and "atom.global" in ptx
