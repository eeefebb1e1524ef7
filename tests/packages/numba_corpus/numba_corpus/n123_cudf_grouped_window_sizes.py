# =============================================================================
# Source : rapidsai/cudf, python/cudf/cudf/utils/cudautils.py, kernel(s) `gpu_grouped_window_sizes_from_offset`
#          https://github.com/rapidsai/cudf/blob/94c9eb1c9061b1f1195ebd5d31e5167dcec1eb02/python/cudf/cudf/utils/cudautils.py
# License: Apache-2.0 (cuDF)
# Project: cuDF (real)
# What   : grouped rolling window by offset: walk back to the row's group start or until the offset is reached.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda


@cuda.jit
def gpu_grouped_window_sizes_from_offset(
    arr, window_sizes, group_starts, offset
):
    i = cuda.grid(1)
    j = i
    if i < arr.size:
        while j > (group_starts[i] - 1):
            if (arr[i] - arr[j]) >= offset:
                break
            j -= 1
        window_sizes[i] = i - j
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda


@cuda.jit
def gpu_grouped_window_sizes_from_offset(
    arr, window_sizes, group_starts, offset
):
    i = cuda.grid(1)
    j = i
    if i < arr.size:
        while j > (group_starts[i] - 1):
            if (arr[i] - arr[j]) >= offset:
                break
            j -= 1
        window_sizes[i] = i - j


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    n = 100
    starts = np.sort(rng.choice(np.arange(1, n), 6, replace=False))
    group_starts = np.zeros(n, np.int64)
    for s in starts:
        group_starts[s:] = s
    arr = np.cumsum(rng.integers(0, 4, n)).astype(np.int64)
    return [arr, np.zeros(n, np.int32), group_starts, 7]


def reference(arr, window_sizes, group_starts, offset):
    want = np.zeros(arr.size, np.int32)
    for i in range(arr.size):
        lo = group_starts[i]
        first = lo + np.searchsorted(arr[lo: i + 1], arr[i] - offset, side="right")
        want[i] = i - first + 1
    return {"window_sizes": want}


CASE = dict(kernel="gpu_grouped_window_sizes_from_offset", griddim=2, blockdim=64,
            args=["arr", "window_sizes", "group_starts", "offset"], outputs=["window_sizes"])
