# =============================================================================
# Source : numba/numba (old examples dir, text from 9e2115ff), examples/cudajit/matmul.py, kernel
#          `cu_square_matrix_mul`
#          https://github.com/numba/numba/blob/9e2115ff12857c1676f6ed5cd748aa4d6ee248ee/examples/cudajit/matmul.py
# License: BSD-2-Clause (numba)
# Project: numba examples (samples)
# What   : naive float32 matmul accumulating straight into C[y, x] (C[y, x] += ... in the loop), size n
#          from module constants (bpg * tpb = 1600); early return out of range.
# Port   : import line only (`from __future__` line and the script's host code dropped)
# =============================================================================

ORIGINAL = r'''
from timeit import default_timer as time

import numpy as np

from numba import cuda


bpg = 50
tpb = 32
n = bpg * tpb


@cuda.jit('(float32[:,:], float32[:,:], float32[:,:])')
def cu_square_matrix_mul(A, B, C):
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bx = cuda.blockIdx.x
    by = cuda.blockIdx.y
    bw = cuda.blockDim.x
    bh = cuda.blockDim.y

    x = tx + bx * bw
    y = ty + by * bh

    if x >= n or y >= n:
        return

    C[y, x] = 0
    for i in range(n):
        C[y, x] += A[y, i] * B[i, x]
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from timeit import default_timer as time

import numpy as np

from hybrid_runtime import cuda


bpg = 50
tpb = 32
n = bpg * tpb


@cuda.jit('(float32[:,:], float32[:,:], float32[:,:])')
def cu_square_matrix_mul(A, B, C):
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bx = cuda.blockIdx.x
    by = cuda.blockIdx.y
    bw = cuda.blockDim.x
    bh = cuda.blockDim.y

    x = tx + bx * bw
    y = ty + by * bh

    if x >= n or y >= n:
        return

    C[y, x] = 0
    for i in range(n):
        C[y, x] += A[y, i] * B[i, x]


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
# The script launches [(bpg, bpg), (tpb, tpb)] on n x n = 1600 x 1600; the check launches one 8x8 block
# (the Python path runs every thread), which fills C[:8, :8].
def make_args(rng):
    A = np.array(rng.random((n, n)), dtype=np.float32)
    B = np.array(rng.random((n, n)), dtype=np.float32)
    return [A, B, np.zeros_like(A)]


def reference(A, B, C):
    C = C.copy()
    C[:8, :8] = A[:8, :].astype(np.float64) @ B[:, :8].astype(np.float64)
    return {"C": C}


CASE = dict(kernel="cu_square_matrix_mul", griddim=(1, 1), blockdim=(8, 8), args=["A", "B", "C"],
            outputs=["C"], rtol=1e-4)
