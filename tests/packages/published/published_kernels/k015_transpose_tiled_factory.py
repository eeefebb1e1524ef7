# =============================================================================
# 015_transpose_tiled_factory.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/kernels/transpose.py, inner `kernel`
#          of `transpose()` (exercised by tests/cudapy/test_transpose.py)
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/numba_cuda/numba/cuda/kernels/transpose.py
# License: BSD-2-Clause (numba-cuda)
# What   : shared-tile transpose with a padded (+1 column) tile, after the NVIDIA
#          "Efficient Matrix Transpose" blog post.
# Port   : spelling, and the factory's run-time lines moved out -- the kernel and its tile
#   computation are kept as published, inside a kernel factory; `transpose()` computed `dt` from
#   the input's dtype and `tpb` from the device at run time and launched in the same function:
#   the port takes both as factory arguments, called at module level with build-time values
#   (1024 threads, float64), as hatch-hybrid compiles factories when the package is built.
# =============================================================================
# Original text: numba_cuda/numba/cuda/kernels/transpose.py lines 33-63 @ b18b944b2f88 (dedented)

ORIGINAL = r'''
dt = nps.from_dtype(a.dtype)

tpb = driver.get_device().MAX_THREADS_PER_BLOCK
# we need to factor available threads into x and y axis
tile_width = int(math.pow(2, math.log(tpb, 2) / 2))
tile_height = int(tpb / tile_width)

tile_shape = (tile_height, tile_width + 1)

@cuda.jit
def kernel(input, output):
    tile = cuda.shared.array(shape=tile_shape, dtype=dt)

    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bx = cuda.blockIdx.x * cuda.blockDim.x
    by = cuda.blockIdx.y * cuda.blockDim.y
    x = by + tx
    y = bx + ty

    if by + ty < input.shape[0] and bx + tx < input.shape[1]:
        tile[ty, tx] = input[by + ty, bx + tx]
    cuda.syncthreads()
    if y < output.shape[0] and x < output.shape[1]:
        output[y, x] = tile[tx, ty]

# one block per tile, plus one for remainders
blocks = int(b.shape[0] / tile_height + 1), int(b.shape[1] / tile_width + 1)
# one thread per tile element
threads = tile_height, tile_width
kernel[blocks, threads, stream](a, b)
'''

# ---- PORT --------------------------------------------------------------------
import math

import hybrid_runtime
import numpy as np
from hybrid_runtime import gpu, Array, f64


def make_transpose(tpb, dt):
    # we need to factor available threads into x and y axis
    tile_width = int(math.pow(2, math.log(tpb, 2) / 2))
    tile_height = int(tpb / tile_width)

    tile_shape = (tile_height, tile_width + 1)

    @hybrid_runtime.kernel  # `@kernel` would name the function defined here (Python: UnboundLocalError)
    def kernel(input: Array[dt, 2], output: Array[dt, 2]):
        tile = gpu.shared_array(shape=tile_shape, dtype=dt)

        tx = gpu.thread_idx_x()
        ty = gpu.thread_idx_y()
        bx = gpu.block_idx_x() * gpu.block_dim_x()
        by = gpu.block_idx_y() * gpu.block_dim_y()
        x = by + tx
        y = bx + ty

        if by + ty < input.shape[0] and bx + tx < input.shape[1]:
            tile[ty, tx] = input[by + ty, bx + tx]
        gpu.syncthreads()
        if y < output.shape[0] and x < output.shape[1]:
            output[y, x] = tile[tx, ty]

    return kernel


# the device's MAX_THREADS_PER_BLOCK and the input's dtype, known when the package is built
transpose_kernel = make_transpose(1024, f64)
tile_width = 32                   # as the factory computes them for 1024 threads
tile_height = 32


# ---- REFERENCE ---------------------------------------------------------------
ROWS, COLS = 45, 37               # test variants: (5, 6), (1025, 512) ...


def make_args(rng):
    a = np.arange(ROWS * COLS, dtype=np.float64).reshape(COLS, ROWS)   # as in the test
    b = np.zeros((ROWS, COLS), dtype=np.float64)
    return [a, b]


def reference(input, output):
    return {"output": input.T.copy()}


CASE = dict(
    # transpose(): blocks = (int(b.shape[0]/tile_height + 1), int(b.shape[1]/tile_width + 1))
    threads=(tile_height, tile_width),
    blocks=(int(ROWS / tile_height + 1), int(COLS / tile_width + 1)),
    shared_bytes=0,
    args=["input", "output"], outputs=["output"],
    rtol=0.0, atol=0.0,
    note="threads.x == tile_height; correct only because tile is square (32 x 32).",
)
