# =============================================================================
# Source : rapidsai/cudf, python/cudf/cudf/utils/cudautils.py, kernel(s) `gpu_mark_gt`, `gpu_mark_lt`
#          https://github.com/rapidsai/cudf/blob/94c9eb1c9061b1f1195ebd5d31e5167dcec1eb02/python/cudf/cudf/utils/cudautils.py
# License: Apache-2.0 (cuDF)
# Project: cuDF (real)
# What   : find_first/find_last helpers: write the row index where arr > val (resp. < val), else a not-found sentinel.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda


@cuda.jit
def gpu_mark_gt(arr, val, out, not_found):
    i = cuda.grid(1)
    if i < arr.size:
        if arr[i] > val:
            out[i] = i
        else:
            out[i] = not_found


@cuda.jit
def gpu_mark_lt(arr, val, out, not_found):
    i = cuda.grid(1)
    if i < arr.size:
        if arr[i] < val:
            out[i] = i
        else:
            out[i] = not_found
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda


@cuda.jit
def gpu_mark_gt(arr, val, out, not_found):
    i = cuda.grid(1)
    if i < arr.size:
        if arr[i] > val:
            out[i] = i
        else:
            out[i] = not_found


@cuda.jit
def gpu_mark_lt(arr, val, out, not_found):
    i = cuda.grid(1)
    if i < arr.size:
        if arr[i] < val:
            out[i] = i
        else:
            out[i] = not_found


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    arr = rng.integers(-20, 20, 90).astype(np.int32)
    return [arr, np.zeros(90, np.int32), np.zeros(90, np.int32)]


def reference(arr, gt, lt):
    idx = np.arange(arr.size)
    return {"gt": np.where(arr > 5, idx, arr.size), "lt": np.where(arr < -3, idx, -1)}


def run(arr, gt, lt):
    gpu_mark_gt[2, 64](arr, 5, gt, arr.size)
    gpu_mark_lt[2, 64](arr, -3, lt, -1)


CASE = dict(kernel="gpu_mark_gt", args=["arr", "gt", "lt"], outputs=["gt", "lt"])
