# =============================================================================
# Source : rapidsai/cudf, python/cudf/cudf/utils/cudautils.py, kernel `gpu_diff`
#          https://github.com/rapidsai/cudf/blob/42d86c478961abaf19736ac8caebbf21c42d8015/python/cudf/cudf/utils/cudautils.py
# License: Apache-2.0 (cuDF)
# Project: cuDF (real)
# What   : Series.diff: out[i] = in[i] - in[i - N] with a boolean validity output (N > 0; negative-index wraparound).
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda


@cuda.jit
def gpu_diff(in_col, out_col, out_mask, N):
    """Calculate the difference between values at positions i and i - N in an
    array and store the output in a new array.
    """
    i = cuda.grid(1)

    if N > 0:
        if i < in_col.size:
            out_col[i] = in_col[i] - in_col[i - N]
            out_mask[i] = True
        if i < N:
            out_mask[i] = False
    else:
        if i <= (in_col.size + N):
            out_col[i] = in_col[i] - in_col[i - N]
            out_mask[i] = True
        if i >= (in_col.size + N) and i < in_col.size:
            out_mask[i] = False
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda


@cuda.jit
def gpu_diff(in_col, out_col, out_mask, N):
    """Calculate the difference between values at positions i and i - N in an
    array and store the output in a new array.
    """
    i = cuda.grid(1)

    if N > 0:
        if i < in_col.size:
            out_col[i] = in_col[i] - in_col[i - N]
            out_mask[i] = True
        if i < N:
            out_mask[i] = False
    else:
        if i <= (in_col.size + N):
            out_col[i] = in_col[i] - in_col[i - N]
            out_mask[i] = True
        if i >= (in_col.size + N) and i < in_col.size:
            out_mask[i] = False


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    a = rng.standard_normal(40)
    return [a, np.zeros(40), np.ones(40, np.bool_), 3, a.copy(), np.zeros(40), np.ones(40, np.bool_), 7]


def _diff(x, n):
    # rows i < N compute x[i] - x[i - N] with numba's negative-index wraparound, and are masked out
    return x - np.roll(x, n), np.arange(x.size) >= n


def reference(in_a, out_a, mask_a, n_a, in_b, out_b, mask_b, n_b):
    want_a, mask_a_want = _diff(in_a, n_a)
    want_b, mask_b_want = _diff(in_b, n_b)
    return {"out_a": want_a, "mask_a": mask_a_want, "out_b": want_b, "mask_b": mask_b_want}


def run(in_a, out_a, mask_a, n_a, in_b, out_b, mask_b, n_b):
    # N > 0 only: for N < 0 the published kernel reads in_col[size] (one past the end)
    gpu_diff[1, 64](in_a, out_a, mask_a, n_a)
    gpu_diff[1, 64](in_b, out_b, mask_b, n_b)


CASE = dict(kernel="gpu_diff", args=["in_a", "out_a", "mask_a", "n_a", "in_b", "out_b", "mask_b", "n_b"],
            outputs=["out_a", "mask_a", "out_b", "mask_b"])
