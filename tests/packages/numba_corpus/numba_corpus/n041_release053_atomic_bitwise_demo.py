# =============================================================================
# Source : numba/numba-examples, notebooks/Numba_053_CUDA_Release_Demo.ipynb, cells 1, 3, 9, 15, 25, 31:
#          kernels `and_demo`, `or_demo`, `inc_demo`, `exch_demo`, `log2_remainder_demo`
#          https://github.com/numba/numba-examples/blob/c423f5419a459f5ab8874fda6d39bb5ea05d04b2/notebooks/Numba_053_CUDA_Release_Demo.ipynb
# License: BSD-2-Clause (numba-examples)
# Project: numba CUDA release demo notebooks (tutorial)
# What   : cuda.atomic.and_/or_/inc/exch on uint32 returning the old value; math.log2 and
#          math.remainder on float32.
# Port   : import line only (kernels taken out of their cells; host lines dropped)
# =============================================================================

ORIGINAL = r'''
from collections import namedtuple
from numba import cuda, void, int32
import math
import numpy as np

@cuda.jit
def and_demo(x, old, val):
    old[0] = cuda.atomic.and_(x, 0, val)

@cuda.jit
def or_demo(x, old, val):
    old[0] = cuda.atomic.or_(x, 0, val)

@cuda.jit
def inc_demo(x, old, val):
    old[0] = cuda.atomic.inc(x, 0, val)

@cuda.jit
def exch_demo(x, old, val):
    old[0] = cuda.atomic.exch(x, 0, val)

@cuda.jit
def log2_remainder_demo(y, x):
    y[0] = math.log2(x[0])
    y[1] = math.remainder(x[0], 3)
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from collections import namedtuple
from hybrid_runtime import cuda, void, int32
import math
import numpy as np

@cuda.jit
def and_demo(x, old, val):
    old[0] = cuda.atomic.and_(x, 0, val)

@cuda.jit
def or_demo(x, old, val):
    old[0] = cuda.atomic.or_(x, 0, val)

@cuda.jit
def inc_demo(x, old, val):
    old[0] = cuda.atomic.inc(x, 0, val)

@cuda.jit
def exch_demo(x, old, val):
    old[0] = cuda.atomic.exch(x, 0, val)

@cuda.jit
def log2_remainder_demo(y, x):
    y[0] = math.log2(x[0])
    y[1] = math.remainder(x[0], 3)


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
def make_args(rng):
    u = np.uint32
    return [np.array([4], u), np.zeros(1, u), np.array([4], u), np.zeros(1, u),
            np.array([10], u), np.zeros(1, u), np.array([10], u), np.zeros(1, u),
            np.array([10], u), np.zeros(1, u), np.zeros(2, np.float32), np.array([4], dtype=np.float32)]


def reference(xa, oa, xo, oo, xi1, oi1, xi2, oi2, xe, oe, y, x):
    # inc: old >= val ? 0 : old + 1
    return {"xa": [4 & 3], "oa": [4], "xo": [4 | 3], "oo": [4], "xi1": [11], "oi1": [10], "xi2": [0],
            "oi2": [10], "xe": [15], "oe": [10], "y": [2.0, 1.0]}


def run(xa, oa, xo, oo, xi1, oi1, xi2, oi2, xe, oe, y, x):
    # the notebook's launches
    and_demo[1, 1](xa, oa, 3)
    or_demo[1, 1](xo, oo, 3)
    inc_demo[1, 1](xi1, oi1, 20)
    inc_demo[1, 1](xi2, oi2, 10)
    exch_demo[1, 1](xe, oe, 15)
    log2_remainder_demo[1, 1](y, x)


CASE = dict(kernel="and_demo", griddim=1, blockdim=1,
            args=["xa", "oa", "xo", "oo", "xi1", "oi1", "xi2", "oi2", "xe", "oe", "y", "x"],
            outputs=["xa", "oa", "xo", "oo", "xi1", "oi1", "xi2", "oi2", "xe", "oe", "y"])
