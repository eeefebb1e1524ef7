# =============================================================================
# Source : holoviz/datashader, datashader/transfer_functions/_cuda_utils.py, kernel `cuda_row_min_in_place`
#          https://github.com/holoviz/datashader/blob/b7ac59c5ad20412edbf9b12ee9dc6ff62d563f01/datashader/transfer_functions/_cuda_utils.py
# License: BSD-3-Clause (datashader)
# Project: datashader (real)
# What   : element-wise min of two int64 row-index aggregates where -1 means empty, 3-D grid with shape unpacking.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda


@cuda.jit
def cuda_row_min_in_place(ret, other):
    """CUDA equivalent of row_min_in_place.
    """
    ny, nx, ncat = ret.shape
    x, y, cat = cuda.grid(3)
    if x < nx and y < ny and cat < ncat:
        if other[y, x, cat] > -1 and (ret[y, x, cat] == -1 or other[y, x, cat] < ret[y, x, cat]):
            ret[y, x, cat] = other[y, x, cat]
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda


@cuda.jit
def cuda_row_min_in_place(ret, other):
    """CUDA equivalent of row_min_in_place.
    """
    ny, nx, ncat = ret.shape
    x, y, cat = cuda.grid(3)
    if x < nx and y < ny and cat < ncat:
        if other[y, x, cat] > -1 and (ret[y, x, cat] == -1 or other[y, x, cat] < ret[y, x, cat]):
            ret[y, x, cat] = other[y, x, cat]


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    ret = rng.integers(-1, 50, (6, 7, 3))
    other = rng.integers(-1, 50, (6, 7, 3))
    return [ret, other]


def reference(ret, other):
    want = ret.copy()
    take = (other > -1) & ((ret == -1) | (other < ret))
    want[take] = other[take]
    return {"ret": want}


CASE = dict(kernel="cuda_row_min_in_place", griddim=(1, 1, 1), blockdim=(8, 8, 4), args=["ret", "other"], outputs=["ret"])
