# =============================================================================
# Source : rapidsai/cudf, python/cudf/cudf/utils/cudautils.py, kernel(s) `gpu_shift`
#          https://github.com/rapidsai/cudf/blob/94c9eb1c9061b1f1195ebd5d31e5167dcec1eb02/python/cudf/cudf/utils/cudautils.py
# License: Apache-2.0 (cuDF)
# Project: cuDF (real)
# What   : shift a column forward by N positions, zero-filling; rows i < N read in_col[i - N] (negative, wrapping) first.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda


@cuda.jit
def gpu_shift(in_col, out_col, N):
    """Shift value at index i of an input array forward by N positions and
    store the output in a new array.
    """
    i = cuda.grid(1)
    if N > 0:
        if i < in_col.size:
            out_col[i] = in_col[i - N]
        if i < N:
            out_col[i] = 0
    else:
        if i <= (in_col.size + N):
            out_col[i] = in_col[i - N]
        if i >= (in_col.size + N) and i < in_col.size:
            out_col[i] = 0
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda


@cuda.jit
def gpu_shift(in_col, out_col, N):
    """Shift value at index i of an input array forward by N positions and
    store the output in a new array.
    """
    i = cuda.grid(1)
    if N > 0:
        if i < in_col.size:
            out_col[i] = in_col[i - N]
        if i < N:
            out_col[i] = 0
    else:
        if i <= (in_col.size + N):
            out_col[i] = in_col[i - N]
        if i >= (in_col.size + N) and i < in_col.size:
            out_col[i] = 0


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    a = rng.integers(-100, 100, 40).astype(np.int64)
    return [a, np.full(40, 77, np.int64), 3, a.copy(), np.full(40, 77, np.int64), 7]


def reference(in_a, out_a, n_a, in_b, out_b, n_b):
    want_a = np.zeros(40, np.int64)
    want_a[n_a:] = in_a[:-n_a]
    want_b = np.zeros(40, np.int64)
    want_b[n_b:] = in_b[:-n_b]
    return {"out_a": want_a, "out_b": want_b}


def run(in_a, out_a, n_a, in_b, out_b, n_b):
    # N > 0 only: for N < 0 the published kernel reads in_col[size] (one past the end) before masking it
    gpu_shift[1, 64](in_a, out_a, n_a)
    gpu_shift[1, 64](in_b, out_b, n_b)


CASE = dict(kernel="gpu_shift", args=["in_a", "out_a", "n_a", "in_b", "out_b", "n_b"], outputs=["out_a", "out_b"])
