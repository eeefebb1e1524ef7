# =============================================================================
# Source : rapidsai/cudf, python/cudf/cudf/utils/cudautils.py, kernel(s) `gpu_mark_found_float`;
#          and from python/cudf/cudf/utils/utils.py (same commit) the @njit helpers `check_equals_float` and `mask_bitsize`
#          (the module imports them from cudf.utils.utils)
#          https://github.com/rapidsai/cudf/blob/94c9eb1c9061b1f1195ebd5d31e5167dcec1eb02/python/cudf/cudf/utils/cudautils.py
# License: Apache-2.0 (cuDF)
# Project: cuDF (real)
# What   : mark rows equal to a value (NaN == NaN, -inf == -inf, inf == inf) via an @njit helper using math.isnan/isinf.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from math import floor, isinf, isnan

import numpy as np
from numba import njit

mask_dtype = np.dtype(np.int32)
mask_bitsize = mask_dtype.itemsize * 8


@njit
def check_equals_float(a, b):
    return (
        a == b
        or (isnan(a) and isnan(b))
        or ((isinf(a) and a < 0) and (isinf(b) and b < 0))
        or ((isinf(a) and a > 0) and (isinf(b) and b > 0))
    )


from numba import cuda


@cuda.jit
def gpu_mark_found_float(arr, val, out, not_found):
    i = cuda.grid(1)
    if i < arr.size:
        if check_equals_float(arr[i], val):
            out[i] = i
        else:
            out[i] = not_found
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from math import floor, isinf, isnan

import numpy as np
from hybrid_runtime import njit

mask_dtype = np.dtype(np.int32)
mask_bitsize = mask_dtype.itemsize * 8


@njit
def check_equals_float(a, b):
    return (
        a == b
        or (isnan(a) and isnan(b))
        or ((isinf(a) and a < 0) and (isinf(b) and b < 0))
        or ((isinf(a) and a > 0) and (isinf(b) and b > 0))
    )


from hybrid_runtime import cuda


@cuda.jit
def gpu_mark_found_float(arr, val, out, not_found):
    i = cuda.grid(1)
    if i < arr.size:
        if check_equals_float(arr[i], val):
            out[i] = i
        else:
            out[i] = not_found


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    arr = rng.integers(0, 5, 80).astype(np.float64)
    arr[rng.random(80) < 0.1] = np.nan
    arr[rng.random(80) < 0.1] = np.inf
    out_a = np.zeros(80, np.int64)
    out_b = np.zeros(80, np.int64)
    out_c = np.zeros(80, np.int64)
    return [arr, out_a, out_b, out_c]


def _mark(arr, hit):
    return np.where(hit, np.arange(arr.size), arr.size)


def reference(arr, out_a, out_b, out_c):
    return {"out_a": _mark(arr, arr == 3.0), "out_b": _mark(arr, np.isnan(arr)), "out_c": _mark(arr, arr == np.inf)}


def run(arr, out_a, out_b, out_c):
    gpu_mark_found_float[2, 64](arr, 3.0, out_a, arr.size)
    gpu_mark_found_float[2, 64](arr, float("nan"), out_b, arr.size)
    gpu_mark_found_float[2, 64](arr, float("inf"), out_c, arr.size)


CASE = dict(kernel="gpu_mark_found_float", args=["arr", "out_a", "out_b", "out_c"], outputs=["out_a", "out_b", "out_c"])
