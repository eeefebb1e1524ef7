# =============================================================================
# Source : ContinuumIO/gtc2017-numba, 6 - Extra Topics.ipynb,
#          code cells 6 and 10 (the import line from cell 1), kernels `transpose`, `tile_transpose` (shared tile typed numba.types.int32)
#          https://github.com/ContinuumIO/gtc2017-numba/blob/6ddaeec9baecf07df1a22e3e685d5f6e3b4f33d9/6%20-%20Extra%20Topics.ipynb
# License: none stated (no LICENSE file in the repository)
# Project: ContinuumIO GTC 2017 Numba tutorial (tutorial)
# What   : naive and shared-memory tiled (padded) matrix transpose of int32, 32x8 blocks each covering a 32x32 tile.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda

TILE_DIM = 32
BLOCK_ROWS = 8

@cuda.jit
def transpose(a_in, a_out):
    x = cuda.blockIdx.x * TILE_DIM + cuda.threadIdx.x
    y = cuda.blockIdx.y * TILE_DIM + cuda.threadIdx.y

    for j in range(0, TILE_DIM, BLOCK_ROWS):
        a_out[x, y + j] = a_in[y + j, x]

import numba.types

TILE_DIM_PADDED = TILE_DIM + 1  # Read Mark Harris' blog post to find out why this improves performance!

@cuda.jit
def tile_transpose(a_in, a_out):
    # THIS CODE ASSUMES IT IS RUNNING WITH A BLOCK DIMENSION OF (TILE_SIZE x TILE_SIZE)
    # AND INPUT IS A MULTIPLE OF TILE_SIZE DIMENSIONS
    tile = cuda.shared.array((TILE_DIM, TILE_DIM_PADDED), numba.types.int32)

    x = cuda.blockIdx.x * TILE_DIM + cuda.threadIdx.x
    y = cuda.blockIdx.y * TILE_DIM + cuda.threadIdx.y
    
    for j in range(0, TILE_DIM, BLOCK_ROWS):
        tile[cuda.threadIdx.y + j, cuda.threadIdx.x] = a_in[y + j, x] # transpose tile into shared memory

    cuda.syncthreads()  # wait for all threads in the block to finish updating shared memory

    #Compute transposed offsets
    x = cuda.blockIdx.y * TILE_DIM + cuda.threadIdx.x
    y = cuda.blockIdx.x * TILE_DIM + cuda.threadIdx.y

    for j in range(0, TILE_DIM, BLOCK_ROWS):
        a_out[y + j, x] = tile[cuda.threadIdx.x, cuda.threadIdx.y + j];
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda

TILE_DIM = 32
BLOCK_ROWS = 8

@cuda.jit
def transpose(a_in, a_out):
    x = cuda.blockIdx.x * TILE_DIM + cuda.threadIdx.x
    y = cuda.blockIdx.y * TILE_DIM + cuda.threadIdx.y

    for j in range(0, TILE_DIM, BLOCK_ROWS):
        a_out[x, y + j] = a_in[y + j, x]

import hybrid_runtime as numba

TILE_DIM_PADDED = TILE_DIM + 1  # Read Mark Harris' blog post to find out why this improves performance!

@cuda.jit
def tile_transpose(a_in, a_out):
    # THIS CODE ASSUMES IT IS RUNNING WITH A BLOCK DIMENSION OF (TILE_SIZE x TILE_SIZE)
    # AND INPUT IS A MULTIPLE OF TILE_SIZE DIMENSIONS
    tile = cuda.shared.array((TILE_DIM, TILE_DIM_PADDED), numba.types.int32)

    x = cuda.blockIdx.x * TILE_DIM + cuda.threadIdx.x
    y = cuda.blockIdx.y * TILE_DIM + cuda.threadIdx.y
    
    for j in range(0, TILE_DIM, BLOCK_ROWS):
        tile[cuda.threadIdx.y + j, cuda.threadIdx.x] = a_in[y + j, x] # transpose tile into shared memory

    cuda.syncthreads()  # wait for all threads in the block to finish updating shared memory

    #Compute transposed offsets
    x = cuda.blockIdx.y * TILE_DIM + cuda.threadIdx.x
    y = cuda.blockIdx.x * TILE_DIM + cuda.threadIdx.y

    for j in range(0, TILE_DIM, BLOCK_ROWS):
        a_out[y + j, x] = tile[cuda.threadIdx.x, cuda.threadIdx.y + j];


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    size = 64
    a_in = np.arange(size * size, dtype=np.int32).reshape((size, size))
    return [a_in, np.zeros_like(a_in), np.zeros_like(a_in)]


def reference(a_in, a_out, a_out2):
    return {"a_out": a_in.T.copy(), "a_out2": a_in.T.copy()}


def run(a_in, a_out, a_out2):
    # as cells 7, 8 and 11 (size 64 here, 1024 there)
    size = a_in.shape[0]
    grid_shape = (int(size / TILE_DIM), int(size / TILE_DIM))
    transpose[grid_shape, (TILE_DIM, BLOCK_ROWS)](a_in, a_out)
    tile_transpose[grid_shape, (TILE_DIM, BLOCK_ROWS)](a_in, a_out2)


CASE = dict(kernel="transpose", griddim=(2, 2), blockdim=(32, 8), args=["a_in", "a_out", "a_out2"],
            outputs=["a_out", "a_out2"])
