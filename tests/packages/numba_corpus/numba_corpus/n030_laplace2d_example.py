# =============================================================================
# Source : numba/numba (old examples dir, removed in 3aa6ed0e "Remove examples dir"; text from its
#          parent 9e2115ff), examples/laplace2d/laplace2d-numba-cuda.py, kernel `jacobi_relax_core`
#          (old corpus k027)
#          https://github.com/numba/numba/blob/9e2115ff12857c1676f6ed5cd748aa4d6ee248ee/examples/laplace2d/laplace2d-numba-cuda.py
# License: BSD-2-Clause (numba)
# Project: numba examples (samples)
# What   : one Jacobi sweep on a 2-D float64 grid, per-point update difference in `error`; string
#          signature "(f8[:,:], f8[:,:], f8[:,:])" with no return type.
# Port   : import line only (the module docstring and `from __future__ import print_function` dropped:
#          neither can sit inside this file's ORIGINAL/after other statements; main() dropped)
# =============================================================================

ORIGINAL = r'''
import time

import numpy as np

from numba import cuda


# NOTE: CUDA kernel does not return any value

@cuda.jit("(f8[:,:], f8[:,:], f8[:,:])")
def jacobi_relax_core(A, Anew, error):
    n = A.shape[0]
    m = A.shape[1]

    j = cuda.threadIdx.y + cuda.blockIdx.y * cuda.blockDim.y
    i = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    if j >= 1 and j < n - 1 and i >= 1 and i < m - 1:
        Anew[j, i] = 0.25 * ( A[j, i + 1] + A[j, i - 1] \
                            + A[j - 1, i] + A[j + 1, i])
        error[j, i] = Anew[j, i] - A[j, i]
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
import time

import numpy as np

from hybrid_runtime import cuda


# NOTE: CUDA kernel does not return any value

@cuda.jit("(f8[:,:], f8[:,:], f8[:,:])")
def jacobi_relax_core(A, Anew, error):
    n = A.shape[0]
    m = A.shape[1]

    j = cuda.threadIdx.y + cuda.blockIdx.y * cuda.blockDim.y
    i = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    if j >= 1 and j < n - 1 and i >= 1 and i < m - 1:
        Anew[j, i] = 0.25 * ( A[j, i + 1] + A[j, i - 1] \
                            + A[j - 1, i] + A[j + 1, i])
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
