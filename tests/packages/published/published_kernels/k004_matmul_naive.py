# =============================================================================
# 004_matmul_naive.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/doc_examples/test_matmul.py,
#          kernel `matmul` (docs "Examples > Matrix multiplication")
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/numba_cuda/numba/cuda/tests/doc_examples/test_matmul.py
# License: BSD-2-Clause (numba-cuda)
# What   : naive one-thread-per-output matmul C = A @ B with a float accumulator.
# Port   : spelling only -- YES (cuda.grid(2) expanded to per-axis gpu.* intrinsics)
# =============================================================================
# Original text: numba_cuda/numba/cuda/tests/doc_examples/test_matmul.py lines 30-39 @ b18b944b2f88 (dedented)

ORIGINAL = r'''
@cuda.jit
def matmul(A, B, C):
    """Perform square matrix multiplication of C = A * B."""
    i, j = cuda.grid(2)
    if i < C.shape[0] and j < C.shape[1]:
        tmp = 0.0
        for k in range(A.shape[1]):
            tmp += A[i, k] * B[k, j]
        C[i, j] = tmp
'''

# ---- PORT --------------------------------------------------------------------
import math
import numpy as np
from hybrid_runtime import kernel, gpu, Array, f64, i64


# The doc example feeds A = np.arange(16).reshape(4, 4) (int64) and float64 B, C,
# so the port keeps that mixed-dtype signature.
@kernel
def matmul(A: Array[i64, 2], B: Array[f64, 2], C: Array[f64, 2]):
    """Perform square matrix multiplication of C = A * B."""
    i = gpu.block_idx_x() * gpu.block_dim_x() + gpu.thread_idx_x()   # cuda.grid(2)[0]
    j = gpu.block_idx_y() * gpu.block_dim_y() + gpu.thread_idx_y()   # cuda.grid(2)[1]
    if i < C.shape[0] and j < C.shape[1]:
        tmp = 0.0
        for k in range(A.shape[1]):
            tmp += A[i, k] * B[k, j]
        C[i, j] = tmp


# ---- REFERENCE ---------------------------------------------------------------
M, K, N = 20, 13, 17      # non-square, not multiples of 16


def make_args(rng):
    A = rng.integers(0, 10, size=(M, K), dtype=np.int64)
    B = rng.random((K, N))
    C = np.zeros((M, N))
    return [A, B, C]


def reference(A, B, C):
    return {"C": A.astype(np.float64) @ B}


CASE = dict(
    threads=(16, 16),                                    # doc: threadsperblock = (16, 16)
    blocks=(math.ceil(M / 16), math.ceil(N / 16)),       # x covers rows (C.shape[0])
    shared_bytes=0,
    args=["A", "B", "C"], outputs=["C"],
    rtol=1e-12, atol=1e-12,
    note="Doc case itself: A=arange(16).reshape(4,4) int64, B=ones((4,4)), C=zeros((4,4)).",
)
