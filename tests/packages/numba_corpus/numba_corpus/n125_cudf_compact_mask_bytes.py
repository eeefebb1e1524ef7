# =============================================================================
# Source : rapidsai/cudf, python/cudf/cudf/utils/cudautils.py, kernel(s) `gpu_fill_value`, `gpu_compact_mask_bytes`;
#          and from python/cudf/cudf/utils/utils.py (same commit) the @njit helpers `mask_set` and `mask_bitsize`
#          (the module imports them from cudf.utils.utils)
#          https://github.com/rapidsai/cudf/blob/e73e0fc161c1a373b52fc23169cfe2fe6b9971f2/python/cudf/cudf/utils/cudautils.py
# License: Apache-2.0 (cuDF)
# Project: cuDF (real)
# What   : pack a byte-per-row boolean array into a 32-bit bitmask (fill 0, then @njit mask_set with |=, loop with break).
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from math import ceil, floor, isinf, isnan

import numpy as np
from numba import njit

mask_dtype = np.dtype(np.int32)
mask_bitsize = mask_dtype.itemsize * 8


@njit
def mask_set(mask, pos):
    mask[pos // mask_bitsize] |= 1 << (pos % mask_bitsize)


from numba import cuda, int32, numpy_support


@cuda.jit
def gpu_fill_value(data, value):
    tid = cuda.grid(1)
    if tid < data.size:
        data[tid] = value


@cuda.jit
def gpu_compact_mask_bytes(bools, bits):
    tid = cuda.grid(1)
    base = tid * mask_bitsize
    for i in range(base, base + mask_bitsize):
        if i >= bools.size:
            break
        if bools[i]:
            mask_set(bits, i)
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from math import ceil, floor, isinf, isnan

import numpy as np
from hybrid_runtime import njit

mask_dtype = np.dtype(np.int32)
mask_bitsize = mask_dtype.itemsize * 8


@njit
def mask_set(mask, pos):
    mask[pos // mask_bitsize] |= 1 << (pos % mask_bitsize)


from hybrid_runtime import cuda, int32, numpy_support


@cuda.jit
def gpu_fill_value(data, value):
    tid = cuda.grid(1)
    if tid < data.size:
        data[tid] = value


@cuda.jit
def gpu_compact_mask_bytes(bools, bits):
    tid = cuda.grid(1)
    base = tid * mask_bitsize
    for i in range(base, base + mask_bitsize):
        if i >= bools.size:
            break
        if bools[i]:
            mask_set(bits, i)


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
    bools = rng.random(150) < 0.5
    bits = np.full(5, -1, np.int32)
    return [bools, bits]


def reference(bools, bits):
    return {"bits": _pack(bools)}


def run(bools, bits):
    # as published (compact_mask_bytes): fill zero, then compact, one thread per mask word
    gpu_fill_value[1, 32](bits, 0)
    gpu_compact_mask_bytes[1, 32](bools, bits)


CASE = dict(kernel="gpu_compact_mask_bytes", args=["bools", "bits"], outputs=["bits"])
