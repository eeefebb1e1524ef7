# =============================================================================
# Source : numba/numba-examples, notebooks/Numba_052_CUDA_Release_Demo.ipynb, cells 1, 7, 16, 18, 20:
#          kernels `initialize_array`, `subtract_example`, `cuda_frexp_ldexp`, `complex_power`
#          https://github.com/numba/numba-examples/blob/c423f5419a459f5ab8874fda6d39bb5ea05d04b2/notebooks/Numba_052_CUDA_Release_Demo.ipynb
# License: BSD-2-Clause (numba-examples)
# Project: numba CUDA release demo notebooks (tutorial)
# What   : grid-stride fill with 0xAB (uint8), float32 cuda.atomic.sub, math.frexp/math.ldexp tuple
#          return, complex128 ** complex128.
# Port   : import line only (kernels taken out of their cells; host lines dropped)
# =============================================================================

ORIGINAL = r'''
# The usual imports

from numba import cuda, float32, njit, void
import math
import numpy as np
import time

@cuda.jit
def initialize_array(x):
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for i in range(start, len(x), stride):
        x[i] = 0xAB

@cuda.jit
def subtract_example(x, values):
    i = cuda.grid(1)
    cuda.atomic.sub(x, 0, values[i])

@cuda.jit
def cuda_frexp_ldexp(x, y):    
    i = cuda.grid(1)
    if i < len(x):
        fractional, exponent = math.frexp(x[i])
        y[i] = math.ldexp(fractional, exponent)

@cuda.jit
def complex_power(r, x, y):
    i = cuda.grid(1)
    if i < len(r):
        r[i] = x[i] ** y[i]
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
# The usual imports

from hybrid_runtime import cuda, float32, njit, void
import math
import numpy as np
import time

@cuda.jit
def initialize_array(x):
    start, stride = cuda.grid(1), cuda.gridsize(1)
    for i in range(start, len(x), stride):
        x[i] = 0xAB

@cuda.jit
def subtract_example(x, values):
    i = cuda.grid(1)
    cuda.atomic.sub(x, 0, values[i])

@cuda.jit
def cuda_frexp_ldexp(x, y):    
    i = cuda.grid(1)
    if i < len(x):
        fractional, exponent = math.frexp(x[i])
        y[i] = math.ldexp(fractional, exponent)

@cuda.jit
def complex_power(r, x, y):
    i = cuda.grid(1)
    if i < len(r):
        r[i] = x[i] ** y[i]


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
n_values = 1024
n_threads = 256
n_blocks = n_values // n_threads


def make_args(rng):
    def random_complex():
        return rng.random(n_values) + rng.random(n_values) * 1j
    x = np.zeros(1, dtype=np.float32)
    x[0] = 12345.0
    return [np.zeros(5000, dtype=np.uint8), x, np.arange(128, dtype=np.float32),
            rng.random(n_values).astype(np.float32), np.zeros(n_values, np.float32),
            np.zeros(n_values, np.complex128), random_complex(), random_complex()]


def reference(big, x, values, fvals, fres, r, cx, cy):
    return {"big": np.full(5000, 0xAB), "x": [12345.0 - values.astype(np.float64).sum()], "fres": fvals,
            "r": cx ** cy}


def run(big, x, values, fvals, fres, r, cx, cy):
    initialize_array[4, 64](big)
    subtract_example[4, 32](x, values)
    cuda_frexp_ldexp[n_blocks, n_threads](fvals, fres)
    complex_power[n_blocks, n_threads](r, cx, cy)


# atomic.sub on float32 depends on the order of the subtractions (the notebook uses assert_allclose)
CASE = dict(kernel="complex_power", griddim=n_blocks, blockdim=n_threads,
            args=["big", "x", "values", "fvals", "fres", "r", "cx", "cy"], outputs=["big", "x", "fres", "r"],
            rtol=1e-6)
