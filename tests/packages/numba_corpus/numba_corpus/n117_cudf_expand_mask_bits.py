# =============================================================================
# Source : rapidsai/cudf, python/cudf/cudf/utils/cudautils.py, kernel(s) `gpu_expand_mask_bits`;
#          and from python/cudf/cudf/utils/utils.py (same commit) the @njit helpers `mask_get` and `mask_bitsize`
#          (the module imports them from cudf.utils.utils)
#          https://github.com/rapidsai/cudf/blob/94c9eb1c9061b1f1195ebd5d31e5167dcec1eb02/python/cudf/cudf/utils/cudautils.py
# License: Apache-2.0 (cuDF)
# Project: cuDF (real)
# What   : expand a 32-bit validity bitmask into one byte per row; grid-stride loop; @njit helper called from the kernel.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from math import floor, isinf, isnan

import numpy as np
from numba import njit

mask_dtype = np.dtype(np.int32)
mask_bitsize = mask_dtype.itemsize * 8


@njit
def mask_get(mask, pos):
    return (mask[pos // mask_bitsize] >> (pos % mask_bitsize)) & 1


from numba import cuda


@cuda.jit
def gpu_expand_mask_bits(bits, out):
    """Expand each bits in bitmask *bits* into an element in out.
    This is a flexible kernel that can be launch with any number of blocks
    and threads.
    """
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        if i < bits.size * mask_bitsize:
            out[i] = mask_get(bits, i)
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from math import floor, isinf, isnan

import numpy as np
from hybrid_runtime import njit

mask_dtype = np.dtype(np.int32)
mask_bitsize = mask_dtype.itemsize * 8


@njit
def mask_get(mask, pos):
    return (mask[pos // mask_bitsize] >> (pos % mask_bitsize)) & 1


from hybrid_runtime import cuda


@cuda.jit
def gpu_expand_mask_bits(bits, out):
    """Expand each bits in bitmask *bits* into an element in out.
    This is a flexible kernel that can be launch with any number of blocks
    and threads.
    """
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        if i < bits.size * mask_bitsize:
            out[i] = mask_get(bits, i)


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    size = 150
    bools = rng.random(size) < 0.6
    nwords = (size + 31) // 32
    bits = np.zeros(nwords, np.int32)
    for i in np.nonzero(bools)[0]:
        bits[i // 32] |= np.int32(1 << (i % 32)) if i % 32 != 31 else np.int32(-2**31)
    out = np.zeros(size, np.bool_)
    return [bits, out, bools]


def reference(bits, out, bools):
    return {"out": bools}


def run(bits, out, bools):
    # as published (expand_mask_bits): numtasks = min(1024, size); forall(numtasks)
    numtasks = min(1024, out.size)
    gpu_expand_mask_bits.forall(numtasks)(bits, out)


CASE = dict(kernel="gpu_expand_mask_bits", args=["bits", "out", "bools"], outputs=["out"])
