# =============================================================================
# Source : numba/numba-examples, notebooks/Numba_052_CUDA_Release_Demo.ipynb, cells 1 and 14:
#          kernels `trig_functions` and `fast_trig_functions` (libdevice fast_sinf/fast_cosf/fast_tanf)
#          https://github.com/numba/numba-examples/blob/c423f5419a459f5ab8874fda6d39bb5ea05d04b2/notebooks/Numba_052_CUDA_Release_Demo.ipynb
# License: BSD-2-Clause (numba-examples)
# Project: numba CUDA release demo notebooks (tutorial)
# What   : float32 sin*cos + tan through math.* and through numba.cuda.libdevice's fast intrinsics;
#          eager void(float32[::1] x3) signatures built from imported type objects.
# Port   : import line only (host lines of cell 14 dropped)
# =============================================================================

ORIGINAL = r'''
# The usual imports

from numba import cuda, float32, njit, void
import math
import numpy as np
import time

from numba.cuda import libdevice

# Implementation using the standard trigonometric functions
@cuda.jit(void(float32[::1], float32[::1], float32[::1]))
def trig_functions(r, x, y):
    i = cuda.grid(1)
    if i < len(r):
        r[i] = math.sin(x[i]) * math.cos(y[i]) + math.tan(x[i] + y[i])

# Implementation using the fast trigonometric functions
@cuda.jit(void(float32[::1], float32[::1], float32[::1]))
def fast_trig_functions(r, x, y):
    i = cuda.grid(1)
    if i < len(r):
        r[i] = libdevice.fast_sinf(x[i]) * libdevice.fast_cosf(y[i]) + libdevice.fast_tanf(x[i] + y[i])
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
# The usual imports

from hybrid_runtime import cuda, float32, njit, void
import math
import numpy as np
import time

from hybrid_runtime.cuda import libdevice

# Implementation using the standard trigonometric functions
@cuda.jit(void(float32[::1], float32[::1], float32[::1]))
def trig_functions(r, x, y):
    i = cuda.grid(1)
    if i < len(r):
        r[i] = math.sin(x[i]) * math.cos(y[i]) + math.tan(x[i] + y[i])

# Implementation using the fast trigonometric functions
@cuda.jit(void(float32[::1], float32[::1], float32[::1]))
def fast_trig_functions(r, x, y):
    i = cuda.grid(1)
    if i < len(r):
        r[i] = libdevice.fast_sinf(x[i]) * libdevice.fast_cosf(y[i]) + libdevice.fast_tanf(x[i] + y[i])


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
N = 1000


def make_args(rng):
    x = rng.random(N).astype(np.float32)
    y = rng.random(N).astype(np.float32)
    return [np.zeros(N, np.float32), np.zeros(N, np.float32), x, y]


def reference(r_math, r_libdevice, x, y):
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    want = np.sin(x64) * np.cos(y64) + np.tan(x64 + y64)
    return {"r_math": want, "r_libdevice": want}


def run(r_math, r_libdevice, x, y):
    n_threads = 256
    n_blocks = math.ceil(N / n_threads)
    trig_functions[n_blocks, n_threads](r_math, x, y)
    fast_trig_functions[n_blocks, n_threads](r_libdevice, x, y)


# the notebook compares the two at rtol=1.0e-2 (fast versions sacrifice accuracy)
CASE = dict(kernel="trig_functions", griddim=4, blockdim=256, args=["r_math", "r_libdevice", "x", "y"],
            outputs=["r_math", "r_libdevice"], rtol=1e-2)
