# =============================================================================
# Source : rapidsai/cudf, python/cudf/cudf/utils/cudautils.py, kernel(s) `gpu_copy_to_dense`;
#          and from python/cudf/cudf/utils/utils.py (same commit) the @njit helpers `mask_get` and `mask_bitsize`
#          (the module imports them from cudf.utils.utils)
#          https://github.com/rapidsai/cudf/blob/e73e0fc161c1a373b52fc23169cfe2fe6b9971f2/python/cudf/cudf/utils/cudautils.py
# License: Apache-2.0 (cuDF)
# Project: cuDF (real)
# What   : stream compaction: copy rows whose validity bit is set to out[slots[i]] (slots = exclusive prefix sum).
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from math import ceil, floor, isinf, isnan

import numpy as np
from numba import njit

mask_dtype = np.dtype(np.int32)
mask_bitsize = mask_dtype.itemsize * 8


@njit
def mask_get(mask, pos):
    return (mask[pos // mask_bitsize] >> (pos % mask_bitsize)) & 1


from numba import cuda, int32, numpy_support


@cuda.jit
def gpu_copy_to_dense(data, mask, slots, out):
    tid = cuda.grid(1)
    if tid < data.size and mask_get(mask, tid):
        idx = slots[tid]
        out[idx] = data[tid]
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from math import ceil, floor, isinf, isnan

import numpy as np
from hybrid_runtime import njit

mask_dtype = np.dtype(np.int32)
mask_bitsize = mask_dtype.itemsize * 8


@njit
def mask_get(mask, pos):
    return (mask[pos // mask_bitsize] >> (pos % mask_bitsize)) & 1


from hybrid_runtime import cuda, int32, numpy_support


@cuda.jit
def gpu_copy_to_dense(data, mask, slots, out):
    tid = cuda.grid(1)
    if tid < data.size and mask_get(mask, tid):
        idx = slots[tid]
        out[idx] = data[tid]


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
    n = 120
    valid = rng.random(n) < 0.6
    data = rng.standard_normal(n)
    mask = _pack(valid)
    slots = np.concatenate([[0], np.cumsum(valid)]).astype(np.int32)
    out = np.zeros(int(valid.sum()))
    return [data, mask, slots, out, valid]


def reference(data, mask, slots, out, valid):
    return {"out": data[valid]}


def run(data, mask, slots, out, valid):
    gpu_copy_to_dense[2, 64](data, mask, slots, out)


CASE = dict(kernel="gpu_copy_to_dense", args=["data", "mask", "slots", "out", "valid"], outputs=["out"])
