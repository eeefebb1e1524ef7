# =============================================================================
# Source : rapidsai/cudf, python/cudf/cudf/utils/cudautils.py, kernel(s) `gpu_mark_segment_begins_float`, `gpu_scatter_segment_begins`;
#          and from python/cudf/cudf/utils/utils.py (same commit) the @njit helpers `check_equals_float` and `mask_bitsize`
#          (the module imports them from cudf.utils.utils)
#          https://github.com/rapidsai/cudf/blob/e73e0fc161c1a373b52fc23169cfe2fe6b9971f2/python/cudf/cudf/utils/cudautils.py
# License: Apache-2.0 (cuDF)
# Project: cuDF (real)
# What   : find run starts in a sorted float column (chained 0 < i < n, `not` of an @njit NaN-aware compare), then scatter.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from math import ceil, floor, isinf, isnan

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


from numba import cuda, int32, numpy_support


@cuda.jit
def gpu_mark_segment_begins_float(arr, markers):
    i = cuda.grid(1)
    if i == 0:
        markers[0] = 1
    elif 0 < i < markers.size:
        if not markers[i]:
            markers[i] = not check_equals_float(arr[i], arr[i - 1])


@cuda.jit
def gpu_scatter_segment_begins(markers, scanned, begins):
    i = cuda.grid(1)
    if i < markers.size:
        if markers[i]:
            idx = scanned[i]
            begins[idx] = i
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from math import ceil, floor, isinf, isnan

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


from hybrid_runtime import cuda, int32, numpy_support


@cuda.jit
def gpu_mark_segment_begins_float(arr, markers):
    i = cuda.grid(1)
    if i == 0:
        markers[0] = 1
    elif 0 < i < markers.size:
        if not markers[i]:
            markers[i] = not check_equals_float(arr[i], arr[i - 1])


@cuda.jit
def gpu_scatter_segment_begins(markers, scanned, begins):
    i = cuda.grid(1)
    if i < markers.size:
        if markers[i]:
            idx = scanned[i]
            begins[idx] = i


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    arr = np.sort(rng.integers(0, 12, 100)).astype(np.float64)
    arr[-7:] = np.nan
    markers = np.zeros(100, np.int32)
    nseg = 1 + int(np.sum(arr[1:] != arr[:-1]) - 6)   # NaN == NaN for cudf, so the NaN tail is one run
    begins = np.zeros(nseg, np.int32)
    return [arr, markers, begins]


def reference(arr, markers, begins):
    same = (arr[1:] == arr[:-1]) | (np.isnan(arr[1:]) & np.isnan(arr[:-1]))
    want = np.concatenate([[1], ~same]).astype(np.int32)
    return {"markers": want, "begins": np.nonzero(want)[0].astype(np.int32)}


def run(arr, markers, begins):
    # as published (find_segments): mark, exclusive prefix sum on the host side, scatter
    gpu_mark_segment_begins_float[2, 64](arr, markers)
    m = markers.copy_to_host() if hasattr(markers, "copy_to_host") else markers
    scanned = np.concatenate([[0], np.cumsum(m)[:-1]]).astype(np.int32)
    gpu_scatter_segment_begins[2, 64](markers, scanned, begins)


CASE = dict(kernel="gpu_mark_segment_begins_float", args=["arr", "markers", "begins"], outputs=["markers", "begins"])
