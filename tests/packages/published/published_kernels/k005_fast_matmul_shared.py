# =============================================================================
# 005_fast_matmul_shared.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/doc_examples/test_matmul.py,
#          kernel `fast_matmul` (docs "Examples > Matrix multiplication", shared-memory version)
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/numba_cuda/numba/cuda/tests/doc_examples/test_matmul.py
# License: BSD-2-Clause (numba-cuda)
# What   : TPBxTPB shared-memory tiled matmul, float32 tiles, zero-padded edge tiles.
# Port   : spelling only -- YES (cuda.grid(2) expanded; float32(...) cast -> f32(...))
# =============================================================================
# Original text: numba_cuda/numba/cuda/tests/doc_examples/test_matmul.py lines 63-109 @ b18b944b2f88 (dedented)

ORIGINAL = r'''
# Controls threads per block and shared memory usage.
# The computation will be done on blocks of TPBxTPB elements.
# TPB should not be larger than 32 in this example
TPB = 16

@cuda.jit
def fast_matmul(A, B, C):
    """
    Perform matrix multiplication of C = A * B using CUDA shared memory.

    Reference: https://stackoverflow.com/a/64198479/13697228 by @RobertCrovella
    """
    # Define an array in the shared memory
    # The size and type of the arrays must be known at compile time
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    sB = cuda.shared.array(shape=(TPB, TPB), dtype=float32)

    x, y = cuda.grid(2)

    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bpg = cuda.gridDim.x  # blocks per grid

    # Each thread computes one element in the result matrix.
    # The dot product is chunked into dot products of TPB-long vectors.
    tmp = float32(0.0)
    for i in range(bpg):
        # Preload data into shared memory
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < A.shape[0] and (tx + i * TPB) < A.shape[1]:
            sA[ty, tx] = A[y, tx + i * TPB]
        if x < B.shape[1] and (ty + i * TPB) < B.shape[0]:
            sB[ty, tx] = B[ty + i * TPB, x]

        # Wait until all threads finish preloading
        cuda.syncthreads()

        # Computes partial product on the shared memory
        for j in range(TPB):
            tmp += sA[ty, j] * sB[j, tx]

        # Wait until all threads finish computing
        cuda.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = tmp
'''

# ---- PORT --------------------------------------------------------------------
import math
import numpy as np
from hybrid_runtime import kernel, gpu, Array, f32, f64, i64

# Controls threads per block and shared memory usage.
# The computation will be done on blocks of TPBxTPB elements.
# TPB should not be larger than 32 in this example
TPB = 16


@kernel
def fast_matmul(A: Array[i64, 2], B: Array[f64, 2], C: Array[f64, 2]):
    # Define an array in the shared memory
    # The size and type of the arrays must be known at compile time
    sA = gpu.shared_array(f32, (TPB, TPB))
    sB = gpu.shared_array(f32, (TPB, TPB))

    x = gpu.block_idx_x() * gpu.block_dim_x() + gpu.thread_idx_x()   # cuda.grid(2)[0]
    y = gpu.block_idx_y() * gpu.block_dim_y() + gpu.thread_idx_y()   # cuda.grid(2)[1]

    tx = gpu.thread_idx_x()
    ty = gpu.thread_idx_y()
    bpg = gpu.grid_dim_x()  # blocks per grid

    # Each thread computes one element in the result matrix.
    # The dot product is chunked into dot products of TPB-long vectors.
    tmp = f32(0.0)
    for i in range(bpg):
        # Preload data into shared memory
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < A.shape[0] and (tx + i * TPB) < A.shape[1]:
            sA[ty, tx] = A[y, tx + i * TPB]
        if x < B.shape[1] and (ty + i * TPB) < B.shape[0]:
            sB[ty, tx] = B[ty + i * TPB, x]

        # Wait until all threads finish preloading
        gpu.syncthreads()

        # Computes partial product on the shared memory
        for j in range(TPB):
            tmp += sA[ty, j] * sB[j, tx]

        # Wait until all threads finish computing
        gpu.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = tmp


# ---- REFERENCE ---------------------------------------------------------------
# Exactly the doc's "non-square" case (ex_run_nonsquare): results are small
# integers, so float32 tiles reproduce them exactly.
def make_args(rng):
    A = np.arange(115).reshape([5, 23])        # int64
    B = np.ones([23, 7])
    C = np.zeros([5, 7])
    return [A, B, C]


def reference(A, B, C):
    return {"C": A.astype(np.float64) @ B}


_grid_y_max = max(5, 23)     # max(x_h.shape[0], y_h.shape[0])
_grid_x_max = max(23, 7)     # max(x_h.shape[1], y_h.shape[1])
CASE = dict(
    threads=(TPB, TPB),
    blocks=(math.ceil(_grid_x_max / TPB), math.ceil(_grid_y_max / TPB)),   # (2, 2)
    shared_bytes=0,
    args=["A", "B", "C"], outputs=["C"],
    rtol=0.0, atol=0.0,
    note=("Loop trip count is gridDim.x, so the grid must be wide enough to cover "
          "A.shape[1]/TPB tiles -- the doc sizes it from max(dims). syncthreads sits in "
          "a loop whose trip count is uniform across the block."),
)
