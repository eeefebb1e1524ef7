# =============================================================================
# Source : numba/numba (old examples dir, text from 9e2115ff), examples/laplace2d/
#          laplace2d-numba-cuda-smem.py, kernel `jacobi_relax_core` (old corpus k028)
#          https://github.com/numba/numba/blob/9e2115ff12857c1676f6ed5cd748aa4d6ee248ee/examples/laplace2d/laplace2d-numba-cuda-smem.py
# License: BSD-2-Clause (numba)
# Project: numba examples (samples)
# What   : Jacobi sweep staged through a (32+2)x(32+2) float64 shared tile with a 1-wide halo
#          (dtype f8 from `from numba import cuda, f8`); string signature without return type.
# Note   : as published, threads with tx == 31 in the last block column read A[j, i + 1] one past the
#          row end (the value is never used); numba's CUDA simulator raises IndexError there.
# Port   : import line only (module docstring and `from __future__` line dropped; main() dropped)
# =============================================================================

ORIGINAL = r'''
import time

import numpy as np

from numba import cuda, f8


# NOTE: CUDA kernel does not return any value

@cuda.jit("(f8[:,:], f8[:,:], f8[:,:])")
def jacobi_relax_core(A, Anew, error):
    smem = cuda.shared.array(shape=(32 + 2, 32 + 2), dtype=f8)
    n = A.shape[0]
    m = A.shape[1]

    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y

    j = ty + cuda.blockIdx.y * cuda.blockDim.y
    i = tx + cuda.blockIdx.x * cuda.blockDim.x

    sy = ty + 1
    sx = tx + 1

    smem[sy, sx] = A[j, i]
    if tx == 0 and i >= 1:
        smem[sy, 0] = A[j, i - 1]

    if ty == 0 and j < m - 1:
        smem[0, sx] = A[j - 1, i]

    if tx == 31 and j >= 1:
        smem[sy, 33] = A[j, i + 1]

    if ty == 31 and j < n - 1:
        smem[33, sx] = A[j + 1, i]

    cuda.syncthreads() # ensure smem is visible by all threads in the block

    if j >= 1 and j < n - 1 and i >= 1 and i < m - 1:
        Anew[j, i] = 0.25 * ( smem[sy, sx + 1] + smem[sy, sx - 1] \
                            + smem[sy - 1, sx] + smem[sy + 1, sx])
        error[j, i] = Anew[j, i] - A[j, i]
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
import time

import numpy as np

from hybrid_runtime import cuda, f8


# NOTE: CUDA kernel does not return any value

@cuda.jit("(f8[:,:], f8[:,:], f8[:,:])")
def jacobi_relax_core(A, Anew, error):
    smem = cuda.shared.array(shape=(32 + 2, 32 + 2), dtype=f8)
    n = A.shape[0]
    m = A.shape[1]

    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y

    j = ty + cuda.blockIdx.y * cuda.blockDim.y
    i = tx + cuda.blockIdx.x * cuda.blockDim.x

    sy = ty + 1
    sx = tx + 1

    smem[sy, sx] = A[j, i]
    if tx == 0 and i >= 1:
        smem[sy, 0] = A[j, i - 1]

    if ty == 0 and j < m - 1:
        smem[0, sx] = A[j - 1, i]

    if tx == 31 and j >= 1:
        smem[sy, 33] = A[j, i + 1]

    if ty == 31 and j < n - 1:
        smem[33, sx] = A[j + 1, i]

    cuda.syncthreads() # ensure smem is visible by all threads in the block

    if j >= 1 and j < n - 1 and i >= 1 and i < m - 1:
        Anew[j, i] = 0.25 * ( smem[sy, sx + 1] + smem[sy, sx - 1] \
                            + smem[sy - 1, sx] + smem[sy + 1, sx])
        error[j, i] = Anew[j, i] - A[j, i]


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
NN, NM = 64, 64


def make_args(rng):
    A = rng.random((NN, NM))
    A[:, 0] = 1.0
    return [A, np.zeros((NN, NM)), np.zeros((NN, NM))]


def reference(A, Anew, error):
    new = Anew.copy()
    new[1:-1, 1:-1] = 0.25 * (A[1:-1, 2:] + A[1:-1, :-2] + A[:-2, 1:-1] + A[2:, 1:-1])
    err = error.copy()
    err[1:-1, 1:-1] = new[1:-1, 1:-1] - A[1:-1, 1:-1]
    return {"Anew": new, "error": err}


# main(): blockdim = (32, 32); griddim = (NN//blockdim[0], NM//blockdim[1])
CASE = dict(kernel="jacobi_relax_core", griddim=(NN // 32, NM // 32), blockdim=(32, 32),
            args=["A", "Anew", "error"], outputs=["Anew", "error"], rtol=1e-12)
