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
