"""Issue 19: Python that is ordinary in published kernels compiles as written, with one meaning on the
native CPU, the Python path and the GPU, checked against NumPy."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import DEVICES, KERNEL_PRELUDE

# Locals and parameters named like builtins: Python makes them local to the whole function, and only a
# call of the builtin there would be a problem (tests/test_errors.py)
BUILTIN_NAMES = (
    KERNEL_PRELUDE
    + '''
@kernel
def selection_sort(x: Array[f32], n: i32):
    """Sorts each row of 16 in place (a selection sort, as in tutorials: `min` is the index)."""
    row = gpu.global_tid_x()
    if row < n:
        base = row * 16
        for i in range(16):
            min = base + i
            for j in range(base + i + 1, base + 16):
                if x[j] < x[min]:
                    min = j
            t = x[base + i]
            x[base + i] = x[min]
            x[min] = t


@kernel
def row_sums(input: Array[f32, 2], out: Array[f32]):
    """`sum` accumulates and `input` is a parameter, as in numba-cuda's reduction examples."""
    i = gpu.global_tid_x()
    if i < input.shape[0]:
        sum = f32(0)
        for j in range(input.shape[1]):
            sum += input[i, j]
        max = input[i, 0]
        for j in range(input.shape[1]):
            if input[i, j] > max:
                max = input[i, j]
        out[i] = sum + max
'''
)


@pytest.mark.parametrize("device", DEVICES)
def test_locals_named_like_builtins(build, device):
    b = build(BUILTIN_NAMES)
    rng = np.random.default_rng(19)
    x = rng.standard_normal(40 * 16).astype(np.float32)
    got = x.copy()
    b.module.selection_sort.launch(32, 2, got, np.int32(40), device=device)
    assert np.array_equal(got.reshape(40, 16), np.sort(x.reshape(40, 16), axis=1))
    m = rng.standard_normal((50, 7)).astype(np.float32)
    out = np.zeros(50, np.float32)
    b.module.row_sums.launch(32, 2, m, out, device=device)
    expected = np.array([np.float32(sum(row, np.float32(0))) + row.max() for row in m], np.float32)
    assert np.array_equal(out, expected)


# A Python literal meeting a NumPy scalar in a conditional expression or min/max adopts its type where the
# type holds it exactly (as a variable assigned in two branches does): the warp-reduction idiom
LITERALS = (
    KERNEL_PRELUDE
    + """
BLOCK = 64


@kernel
def block_sums(x: Array[i32], out: Array[i32], n: i32):
    sh = gpu.shared_array(i32, BLOCK)
    lane = gpu.thread_idx_x()
    i = gpu.global_tid_x()
    sh[lane] = x[i] if i < n else 0
    gpu.syncthreads()
    s = BLOCK // 2
    while s > 0:
        if lane < s:
            sh[lane] += sh[lane + s]
        gpu.syncthreads()
        s //= 2
    if lane == 0:
        out[gpu.block_idx_x()] = sh[0]


@kernel
def clamp_mix(x: Array[f32], k: Array[u8], out: Array[f32], kout: Array[u8]):
    i = gpu.global_tid_x()
    if i < x.size:
        v = x[i] if x[i] > 0 else 0.5
        w = max(k[i], 7)
        if i % 2 == 0:
            z = x[i]
        else:
            z = -1
        out[i] = v * 3 + z + min(x[i], -2)
        kout[i] = w * u8(37)
"""
)


@pytest.mark.parametrize("device", DEVICES)
def test_literals_adopt_the_numpy_type(build, device):
    b = build(LITERALS)
    rng = np.random.default_rng(7)
    x = rng.integers(-1000, 1000, 300).astype(np.int32)
    out = np.zeros(5, np.int32)
    b.module.block_sums.launch(64, 5, x, out, np.int32(len(x)), device=device)
    assert np.array_equal(out, [x[k * 64 : (k + 1) * 64].sum(dtype=np.int32) for k in range(5)])
    f = rng.standard_normal(40).astype(np.float32)
    k = rng.integers(0, 256, 40).astype(np.uint8)
    got, kgot = np.zeros_like(f), np.zeros_like(k)
    with np.errstate(over="ignore"):
        b.module.clamp_mix.launch(64, 1, f, k, got, kgot, device=device)
    f32 = np.float32
    v = np.where(f > 0, f, f32(0.5))
    z = np.where(np.arange(40) % 2 == 0, f, f32(-1))
    want = v * f32(3) + z + np.minimum(f, f32(-2))  # f32 throughout, as NumPy's f32 with weak literals
    assert got.dtype == np.float32 and np.array_equal(got, want)
    with np.errstate(over="ignore"):
        assert np.array_equal(kgot, np.maximum(k, np.uint8(7)) * np.uint8(37))
