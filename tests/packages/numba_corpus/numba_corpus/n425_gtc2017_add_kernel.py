# =============================================================================
# Source : ContinuumIO/gtc2017-numba, 4 - Writing CUDA Kernels.ipynb,
#          code cell 2, kernel `add_kernel` (explicit threadIdx/blockIdx/blockDim/gridDim stride loop)
#          https://github.com/ContinuumIO/gtc2017-numba/blob/6ddaeec9baecf07df1a22e3e685d5f6e3b4f33d9/4%20-%20Writing%20CUDA%20Kernels.ipynb
# License: none stated (no LICENSE file in the repository)
# Project: ContinuumIO GTC 2017 Numba tutorial (tutorial)
# What   : elementwise out = x + y with a grid-stride loop computed by hand.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda

@cuda.jit
def add_kernel(x, y, out):
    tx = cuda.threadIdx.x # this is the unique thread ID within a 1D block
    ty = cuda.blockIdx.x  # Similarly, this is the unique block ID within the 1D grid

    block_size = cuda.blockDim.x  # number of threads per block
    grid_size = cuda.gridDim.x    # number of blocks in the grid
    
    start = tx + ty * block_size
    stride = block_size * grid_size

    # assuming x and y inputs are same length
    for i in range(start, x.shape[0], stride):
        out[i] = x[i] + y[i]
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda

@cuda.jit
def add_kernel(x, y, out):
    tx = cuda.threadIdx.x # this is the unique thread ID within a 1D block
    ty = cuda.blockIdx.x  # Similarly, this is the unique block ID within the 1D grid

    block_size = cuda.blockDim.x  # number of threads per block
    grid_size = cuda.gridDim.x    # number of blocks in the grid
    
    start = tx + ty * block_size
    stride = block_size * grid_size

    # assuming x and y inputs are same length
    for i in range(start, x.shape[0], stride):
        out[i] = x[i] + y[i]


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    n = 5000
    return [rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32),
            np.zeros(n, np.float32)]


def reference(x, y, out):
    return {"out": x + y}


CASE = dict(kernel="add_kernel", griddim=8, blockdim=128, args=["x", "y", "out"], outputs=["out"])
