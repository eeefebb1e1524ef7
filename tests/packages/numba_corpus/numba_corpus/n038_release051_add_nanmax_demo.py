# =============================================================================
# Source : numba/numba-examples, notebooks/Numba_051_CUDA_Release_Demo.ipynb, cells 1, 3, 13, 17:
#          kernels `add_kernel`, `add`, `atomic_max_array`, `atomic_nanmax_array`
#          https://github.com/numba/numba-examples/blob/c423f5419a459f5ab8874fda6d39bb5ea05d04b2/notebooks/Numba_051_CUDA_Release_Demo.ipynb
# License: BSD-2-Clause (numba-examples)
# Project: numba CUDA release demo notebooks (tutorial)
# What   : vector add launched on a stream; eager void(float32[::1] x3) add; cuda.atomic.max vs
#          cuda.atomic.nanmax on a float32 array holding a NaN.
# Port   : import line only (code cells concatenated; the callback function in cell 3 and host cells dropped)
# =============================================================================

ORIGINAL = r'''
# A couple of useful imports
from numba import cuda
import numpy as np

# A simple kernel to add two arrays
@cuda.jit
def add_kernel(r, x, y):
    i = cuda.grid(1)
    
    if i < len(r):
        r[i] = x[i] + y[i]

@cuda.jit('void(float32[::1], float32[::1], float32[::1])')
def add(r, x, y):
    i = cuda.grid(1)
    
    if i < len(r):
        r[i] = x[i] + y[i]

@cuda.jit
def atomic_max_array(val, arr):
    i = cuda.grid(1)
    cuda.atomic.max(arr, i, val[0])

@cuda.jit
def atomic_nanmax_array(val, arr):
    i = cuda.grid(1)
    cuda.atomic.nanmax(arr, i, val[0])
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
# A couple of useful imports
from hybrid_runtime import cuda
import numpy as np

# A simple kernel to add two arrays
@cuda.jit
def add_kernel(r, x, y):
    i = cuda.grid(1)
    
    if i < len(r):
        r[i] = x[i] + y[i]

@cuda.jit('void(float32[::1], float32[::1], float32[::1])')
def add(r, x, y):
    i = cuda.grid(1)
    
    if i < len(r):
        r[i] = x[i] + y[i]

@cuda.jit
def atomic_max_array(val, arr):
    i = cuda.grid(1)
    cuda.atomic.max(arr, i, val[0])

@cuda.jit
def atomic_nanmax_array(val, arr):
    i = cuda.grid(1)
    cuda.atomic.nanmax(arr, i, val[0])


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
n_elements = 256


def make_args(rng):
    x_max = np.arange(8, dtype=np.float32)
    x_max[5] = np.nan
    return [rng.random(n_elements), rng.random(n_elements), np.zeros(n_elements),
            rng.random(100).astype(np.float32), rng.random(100).astype(np.float32), np.zeros(100, np.float32),
            np.ones(1, dtype=np.float32) + 2, x_max, x_max.copy()]


def reference(x, y, r, xf, yf, rf, val, x_max, x_nanmax):
    mx = np.array([3, 3, 3, 3, 4, np.nan, 6, 7], dtype=np.float32)    # max(NaN, 3) is NaN
    nmx = np.array([3, 3, 3, 3, 4, 3, 6, 7], dtype=np.float32)        # nanmax ignores the NaN
    return {"r": x + y, "rf": xf + yf, "x_max": mx, "x_nanmax": nmx}


def run(x, y, r, xf, yf, rf, val, x_max, x_nanmax):
    # cell 5: the stream launch
    s1 = cuda.stream()
    dx = cuda.to_device(x, stream=s1)
    dy = cuda.to_device(y, stream=s1)
    dr = cuda.device_array_like(dx, stream=s1)
    add_kernel[1, n_elements, s1](dr, dx, dy)
    s1.synchronize()
    r[:] = dr.copy_to_host()
    add[1, 128](rf, xf, yf)
    # cell 21
    atomic_max_array[1, 8](val, x_max)
    atomic_nanmax_array[1, 8](val, x_nanmax)


CASE = dict(kernel="add_kernel", griddim=1, blockdim=n_elements,
            args=["x", "y", "r", "xf", "yf", "rf", "val", "x_max", "x_nanmax"],
            outputs=["r", "rf", "x_max", "x_nanmax"])
