# =============================================================================
# Source : rapidsai/cudf, python/cudf/cudf/utils/cudautils.py, kernel(s) `gpu_window_sizes_from_offset`
#          https://github.com/rapidsai/cudf/blob/94c9eb1c9061b1f1195ebd5d31e5167dcec1eb02/python/cudf/cudf/utils/cudautils.py
# License: Apache-2.0 (cuDF)
# Project: cuDF (real)
# What   : rolling window by time offset: per row, walk back while arr[i] - arr[j] < offset (while/break); int32 sizes.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda


@cuda.jit
def gpu_window_sizes_from_offset(arr, window_sizes, offset):
    i = cuda.grid(1)
    j = i
    if i < arr.size:
        while j > -1:
            if (arr[i] - arr[j]) >= offset:
                break
            j -= 1
        window_sizes[i] = i - j
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda


@cuda.jit
def gpu_window_sizes_from_offset(arr, window_sizes, offset):
    i = cuda.grid(1)
    j = i
    if i < arr.size:
        while j > -1:
            if (arr[i] - arr[j]) >= offset:
                break
            j -= 1
        window_sizes[i] = i - j


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    arr = np.cumsum(rng.integers(0, 4, 100)).astype(np.int64)
    return [arr, np.zeros(100, np.int32), 6]


def reference(arr, window_sizes, offset):
    want = np.array([i - np.searchsorted(arr, arr[i] - offset, side="right") + 1 for i in range(arr.size)], np.int32)
    return {"window_sizes": want}


CASE = dict(kernel="gpu_window_sizes_from_offset", griddim=2, blockdim=64, args=["arr", "window_sizes", "offset"],
            outputs=["window_sizes"])
