# =============================================================================
# Source : numba/numba-examples, notebooks/Numba_054_CUDA_Release_Demo.ipynb, cells 1, 3, 5: kernel
#          `axpy` and host function `create_and_add_vectors`
#          https://github.com/numba/numba-examples/blob/c423f5419a459f5ab8874fda6d39bb5ea05d04b2/notebooks/Numba_054_CUDA_Release_Demo.ipynb
# License: BSD-2-Clause (numba-examples)
# Project: numba CUDA release demo notebooks (tutorial)
# What   : r = a * x + y (float scalar a, float64 arrays) launched from a host function through
#          to_device/device_array_like/copy_to_host; math.ceil grid sizing.
# Port   : import line only (cells 1, 3, 5 concatenated)
# =============================================================================

ORIGINAL = r'''
from numba import cuda, guvectorize, vectorize, void, int32, float64, uint32
import math
import numpy as np
np.random.seed(1)

@cuda.jit
def axpy(r, a, x, y):
    i = cuda.grid(1)
    if i < len(r):
        r[i] = a * x[i] + y[i]

def create_and_add_vectors(N):
    # Create input data and transfer to GPU
    x = np.random.random(N)
    y = np.random.random(N)
    d_x = cuda.to_device(x)
    d_y = cuda.to_device(y)
    d_r = cuda.device_array_like(d_x)
    a = 4.5

    # Compute grid dimensions
    
    # An arbitrary reasonable choice of block size
    block_dim = 256
    # Enough blocks to cover the input
    grid_dim = math.ceil(len(d_x) / block_dim)

    # Launch the kernel
    axpy[grid_dim, block_dim](d_r, a, d_x, d_y)
    
    # Return the result
    return d_r.copy_to_host()
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda, guvectorize, vectorize, void, int32, float64, uint32
import math
import numpy as np
np.random.seed(1)

@cuda.jit
def axpy(r, a, x, y):
    i = cuda.grid(1)
    if i < len(r):
        r[i] = a * x[i] + y[i]

def create_and_add_vectors(N):
    # Create input data and transfer to GPU
    x = np.random.random(N)
    y = np.random.random(N)
    d_x = cuda.to_device(x)
    d_y = cuda.to_device(y)
    d_r = cuda.device_array_like(d_x)
    a = 4.5

    # Compute grid dimensions
    
    # An arbitrary reasonable choice of block size
    block_dim = 256
    # Enough blocks to cover the input
    grid_dim = math.ceil(len(d_x) / block_dim)

    # Launch the kernel
    axpy[grid_dim, block_dim](d_r, a, d_x, d_y)
    
    # Return the result
    return d_r.copy_to_host()


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
def make_args(rng):
    return [np.zeros(1000)]


def reference(r):
    np.random.seed(1234)
    x = np.random.random(1000)
    y = np.random.random(1000)
    return {"r": 4.5 * x + y}


def run(r):
    np.random.seed(1234)       # create_and_add_vectors draws x and y from np.random
    r[:] = create_and_add_vectors(1000)


CASE = dict(kernel="axpy", griddim=4, blockdim=256, args=["r"], outputs=["r"])
