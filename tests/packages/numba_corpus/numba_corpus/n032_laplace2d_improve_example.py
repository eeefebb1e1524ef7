# =============================================================================
# Source : numba/numba (old examples dir, text from 9e2115ff), examples/laplace2d/
#          laplace2d-numba-cuda-improve.py, kernel `jacobi_relax_core`, device function `get_max`
#          https://github.com/numba/numba/blob/9e2115ff12857c1676f6ed5cd748aa4d6ee248ee/examples/laplace2d/laplace2d-numba-cuda-improve.py
# License: BSD-2-Clause (numba)
# Project: numba examples (samples)
# What   : Jacobi sweep + per-block max-reduction in a (tpb, tpb) f8 shared array through an
#          untyped inline device function (one-line `if a > b : return a` / `else: return b`).
# Port   : import line only (module docstring and `from __future__` line dropped; main() dropped)
# =============================================================================

ORIGINAL = r'''
import time

import numpy as np

from numba import cuda, f8


# NOTE: CUDA kernel does not return any value

tpb = 16

@cuda.jit(device=True, inline=True)
def get_max(a, b):
    if a > b : return a
    else: return b

@cuda.jit("(f8[:,:], f8[:,:], f8[:,:])")
def jacobi_relax_core(A, Anew, error):
    err_sm = cuda.shared.array((tpb, tpb), dtype=f8)

    ty = cuda.threadIdx.x
    tx = cuda.threadIdx.y
    bx = cuda.blockIdx.x
    by = cuda.blockIdx.y

    n = A.shape[0]
    m = A.shape[1]

    i, j = cuda.grid(2)

    err_sm[ty, tx] = 0
    if j >= 1 and j < n - 1 and i >= 1 and i < m - 1:
        Anew[j, i] = 0.25 * ( A[j, i + 1] + A[j, i - 1] \
                            + A[j - 1, i] + A[j + 1, i])
        err_sm[ty, tx] = Anew[j, i] - A[j, i]

    cuda.syncthreads()

    # max-reduce err_sm vertically
    t = tpb // 2
    while t > 0:
        if ty < t:
            err_sm[ty, tx] = get_max(err_sm[ty, tx], err_sm[ty + t, tx])
        t //= 2
        cuda.syncthreads()

    # max-reduce err_sm horizontally
    t = tpb // 2
    while t > 0:
        if tx < t and ty == 0:
            err_sm[ty, tx] = get_max(err_sm[ty, tx], err_sm[ty, tx + t])
        t //= 2
        cuda.syncthreads()


    if tx == 0 and ty == 0:
        error[by, bx] = err_sm[0, 0]
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
import time

import numpy as np

from hybrid_runtime import cuda, f8


# NOTE: CUDA kernel does not return any value

tpb = 16

@cuda.jit(device=True, inline=True)
def get_max(a, b):
    if a > b : return a
    else: return b

@cuda.jit("(f8[:,:], f8[:,:], f8[:,:])")
def jacobi_relax_core(A, Anew, error):
    err_sm = cuda.shared.array((tpb, tpb), dtype=f8)

    ty = cuda.threadIdx.x
    tx = cuda.threadIdx.y
    bx = cuda.blockIdx.x
    by = cuda.blockIdx.y

    n = A.shape[0]
    m = A.shape[1]

    i, j = cuda.grid(2)

    err_sm[ty, tx] = 0
    if j >= 1 and j < n - 1 and i >= 1 and i < m - 1:
        Anew[j, i] = 0.25 * ( A[j, i + 1] + A[j, i - 1] \
                            + A[j - 1, i] + A[j + 1, i])
        err_sm[ty, tx] = Anew[j, i] - A[j, i]

    cuda.syncthreads()

    # max-reduce err_sm vertically
    t = tpb // 2
    while t > 0:
        if ty < t:
            err_sm[ty, tx] = get_max(err_sm[ty, tx], err_sm[ty + t, tx])
        t //= 2
        cuda.syncthreads()

    # max-reduce err_sm horizontally
    t = tpb // 2
    while t > 0:
        if tx < t and ty == 0:
            err_sm[ty, tx] = get_max(err_sm[ty, tx], err_sm[ty, tx + t])
        t //= 2
        cuda.syncthreads()


    if tx == 0 and ty == 0:
        error[by, bx] = err_sm[0, 0]


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
NN, NM = 48, 48


def make_args(rng):
    A = rng.random((NN, NM))
    A[:, 0] = 1.0
    return [A, np.zeros((NN, NM)), np.zeros((NN // tpb, NM // tpb))]


def reference(A, Anew, error):
    new = Anew.copy()
    new[1:-1, 1:-1] = 0.25 * (A[1:-1, 2:] + A[1:-1, :-2] + A[:-2, 1:-1] + A[2:, 1:-1])
    diff = np.zeros_like(A)
    diff[1:-1, 1:-1] = new[1:-1, 1:-1] - A[1:-1, 1:-1]
    err = np.zeros_like(error)
    for by in range(err.shape[0]):
        for bx in range(err.shape[1]):
            err[by, bx] = diff[by * tpb:(by + 1) * tpb, bx * tpb:(bx + 1) * tpb].max()
    return {"Anew": new, "error": err}


# main(): blockdim = (tpb, tpb); griddim = (NN//blockdim[0], NM//blockdim[1])
CASE = dict(kernel="jacobi_relax_core", griddim=(NN // tpb, NM // tpb), blockdim=(tpb, tpb),
            args=["A", "Anew", "error"], outputs=["Anew", "error"], rtol=1e-12)
