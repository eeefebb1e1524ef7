# =============================================================================
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_laplace.py, kernel
#          `jocabi_relax_core`, device function `get_max` (test_laplace_small; old corpus k011)
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/numba_cuda/numba/cuda/tests/cudapy/test_laplace.py
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda tests (tests)
# What   : 2-D Jacobi sweep + per-block max-reduction of the update in a 2-D float64 shared array
#          through an eager-typed inline device function; one error value per block.
# Port   : import line only (kernels dedented out of the test method; test-harness import dropped)
# =============================================================================

ORIGINAL = r'''
import numpy as np
from numba import cuda
from numba.cuda import float64, void
from numba.cuda.core import config

# NOTE: CUDA kernel does not return any value

if config.ENABLE_CUDASIM:
    tpb = 4
else:
    tpb = 16
SM_SIZE = tpb, tpb


@cuda.jit(float64(float64, float64), device=True, inline="always")
def get_max(a, b):
    if a > b:
        return a
    else:
        return b

@cuda.jit(void(float64[:, :], float64[:, :], float64[:, :]))
def jocabi_relax_core(A, Anew, error):
    err_sm = cuda.shared.array(SM_SIZE, dtype=float64)

    ty = cuda.threadIdx.x
    tx = cuda.threadIdx.y
    bx = cuda.blockIdx.x
    by = cuda.blockIdx.y

    n = A.shape[0]
    m = A.shape[1]

    i, j = cuda.grid(2)

    err_sm[ty, tx] = 0
    if j >= 1 and j < n - 1 and i >= 1 and i < m - 1:
        Anew[j, i] = 0.25 * (
            A[j, i + 1] + A[j, i - 1] + A[j - 1, i] + A[j + 1, i]
        )
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
import numpy as np
from hybrid_runtime import cuda
from hybrid_runtime.cuda import float64, void
from hybrid_runtime.cuda.core import config

# NOTE: CUDA kernel does not return any value

if config.ENABLE_CUDASIM:
    tpb = 4
else:
    tpb = 16
SM_SIZE = tpb, tpb


@cuda.jit(float64(float64, float64), device=True, inline="always")
def get_max(a, b):
    if a > b:
        return a
    else:
        return b

@cuda.jit(void(float64[:, :], float64[:, :], float64[:, :]))
def jocabi_relax_core(A, Anew, error):
    err_sm = cuda.shared.array(SM_SIZE, dtype=float64)

    ty = cuda.threadIdx.x
    tx = cuda.threadIdx.y
    bx = cuda.blockIdx.x
    by = cuda.blockIdx.y

    n = A.shape[0]
    m = A.shape[1]

    i, j = cuda.grid(2)

    err_sm[ty, tx] = 0
    if j >= 1 and j < n - 1 and i >= 1 and i < m - 1:
        Anew[j, i] = 0.25 * (
            A[j, i + 1] + A[j, i - 1] + A[j - 1, i] + A[j + 1, i]
        )
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
NN, NM = 2 * tpb, 2 * tpb


def make_args(rng):
    A = rng.random((NN, NM))
    Anew = np.zeros((NN, NM))
    error = np.zeros((NN // tpb, NM // tpb))
    return [A, Anew, error]


def reference(A, Anew, error):
    new = Anew.copy()
    new[1:-1, 1:-1] = 0.25 * (A[1:-1, 2:] + A[1:-1, :-2] + A[:-2, 1:-1] + A[2:, 1:-1])
    diff = np.zeros_like(A)
    diff[1:-1, 1:-1] = new[1:-1, 1:-1] - A[1:-1, 1:-1]
    err = np.zeros_like(error)
    for by in range(err.shape[0]):
        for bx in range(err.shape[1]):
            # block (bx, by) covers i (columns) in bx*tpb.., j (rows) in by*tpb..
            err[by, bx] = diff[by * tpb:(by + 1) * tpb, bx * tpb:(bx + 1) * tpb].max()
    return {"Anew": new, "error": err}


CASE = dict(kernel="jocabi_relax_core", griddim=(NN // tpb, NM // tpb), blockdim=(tpb, tpb),
            args=["A", "Anew", "error"], outputs=["Anew", "error"], rtol=1e-12)
