# =============================================================================
# Source : rapidsai/cudf, python/cudf/cudf/utils/cudautils.py, kernel(s) `gpu_set_mask_from_stride`
#          https://github.com/rapidsai/cudf/blob/e73e0fc161c1a373b52fc23169cfe2fe6b9971f2/python/cudf/cudf/utils/cudautils.py
# License: Apache-2.0 (cuDF)
# Project: cuDF (real)
# What   : build a bitmask with every `stride`-th bit set: bool << shift accumulated with |= over 32 bits per thread.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from math import ceil, floor, isinf, isnan

import numpy as np
from numba import njit

mask_dtype = np.dtype(np.int32)
mask_bitsize = mask_dtype.itemsize * 8


from numba import cuda, int32, numpy_support


@cuda.jit
def gpu_set_mask_from_stride(mask, stride):
    bitsize = mask_bitsize
    tid = cuda.grid(1)
    if tid < mask.size:
        base = tid * bitsize
        val = 0
        for shift in range(bitsize):
            idx = base + shift
            bit = (idx % stride) == 0
            val |= bit << shift
        mask[tid] = val
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from math import ceil, floor, isinf, isnan

import numpy as np
from hybrid_runtime import njit

mask_dtype = np.dtype(np.int32)
mask_bitsize = mask_dtype.itemsize * 8


from hybrid_runtime import cuda, int32, numpy_support


@cuda.jit
def gpu_set_mask_from_stride(mask, stride):
    bitsize = mask_bitsize
    tid = cuda.grid(1)
    if tid < mask.size:
        base = tid * bitsize
        val = 0
        for shift in range(bitsize):
            idx = base + shift
            bit = (idx % stride) == 0
            val |= bit << shift
        mask[tid] = val


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def _pack(bools):
    # little-endian 32-bit validity words, as cudf's mask_set/mask_get lay them out
    nwords = (bools.size + 31) // 32
    words = np.zeros(nwords, np.uint32)
    for i in np.nonzero(bools)[0]:
        words[i // 32] |= np.uint32(1) << np.uint32(i % 32)
    return words.view(np.int32)


def make_args(rng):
    return [np.zeros(8, np.int32), 5]


def reference(mask, stride):
    return {"mask": _pack(np.arange(mask.size * 32) % stride == 0)}


CASE = dict(kernel="gpu_set_mask_from_stride", griddim=1, blockdim=32, args=["mask", "stride"], outputs=["mask"])
