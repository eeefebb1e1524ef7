# =============================================================================
# Source : rapidsai/cuspatial, python/cuspatial/cuspatial/utils/join_utils.py, kernel `binarize`
#          https://github.com/rapidsai/cuspatial/blob/2ea9d2b8d426064d1fe0a6f90bb869e27c8db8be/python/cuspatial/cuspatial/utils/join_utils.py
# License: Apache-2.0 (cuSpatial)
# Project: cuSpatial (real)
# What   : expand point-in-polygon bitmaps into a 2-D int8 0/1 matrix (MSB first) with operator.mod / operator.rshift in a while loop.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
import operator

from numba import cuda


@cuda.jit
def binarize(in_col, out, width):
    """Convert any positive integer to a binary array."""
    i = cuda.grid(1)
    if i < in_col.size:
        n = in_col[i]
        idx = width - 1

        out[i, idx] = operator.mod(n, 2)
        idx -= 1

        while n > 1:
            n = operator.rshift(n, 1)
            out[i, idx] = operator.mod(n, 2)
            idx -= 1
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
import operator

from hybrid_runtime import cuda


@cuda.jit
def binarize(in_col, out, width):
    """Convert any positive integer to a binary array."""
    i = cuda.grid(1)
    if i < in_col.size:
        n = in_col[i]
        idx = width - 1

        out[i, idx] = operator.mod(n, 2)
        idx -= 1

        while n > 1:
            n = operator.rshift(n, 1)
            out[i, idx] = operator.mod(n, 2)
            idx -= 1


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    width = 12
    in_col = rng.integers(0, 2 ** width, 100).astype(np.uint32)
    in_col[:4] = [0, 1, 2 ** width - 1, 2 ** (width - 1)]
    out = np.zeros((100, width), np.int8)
    return [in_col, out, width]


def reference(in_col, out, width):
    bits = (in_col[:, None] >> np.arange(width - 1, -1, -1, dtype=np.uint32)) & 1
    return {"out": bits.astype(np.int8)}


CASE = dict(kernel="binarize", griddim=2, blockdim=64, args=["in_col", "out", "width"], outputs=["out"])
