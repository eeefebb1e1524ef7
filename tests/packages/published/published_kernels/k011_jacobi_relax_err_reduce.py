# =============================================================================
# 011_jacobi_relax_err_reduce.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_laplace.py,
#          kernel `jocabi_relax_core` + device function `get_max` (test_laplace_small)
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/numba_cuda/numba/cuda/tests/cudapy/test_laplace.py
# License: BSD-2-Clause (numba-cuda)
# What   : 2-D Jacobi sweep + per-block max-reduction of the update in a 2-D shared array
#          (vertical then horizontal halving), one error value per block.
# Port   : spelling only -- NO
# NEEDS MORE THAN SPELLING: calls a @cuda.jit(device=True, inline="always") helper `get_max`
#   with an explicit signature; the spelling table gives no device-function decorator, so the
#   helper is left undecorated below (add hatch-hybrid's device-function marker, or inline max).
# =============================================================================
# Original text: numba_cuda/numba/cuda/tests/cudapy/test_laplace.py lines 12-16 @ b18b944b2f88 (dedented)
# Original text: numba_cuda/numba/cuda/tests/cudapy/test_laplace.py lines 21-68 @ b18b944b2f88 (dedented)

ORIGINAL = r'''
if config.ENABLE_CUDASIM:
    tpb = 4
else:
    tpb = 16
SM_SIZE = tpb, tpb

# ...

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

# ---- PORT --------------------------------------------------------------------
import numpy as np
from hybrid_runtime import kernel, gpu, Array, f64

tpb = 16
SM_SIZE = tpb, tpb


def get_max(a: f64, b: f64) -> f64:           # device helper -- decorator not in spelling table
    if a > b:
        return a
    else:
        return b


@kernel
def jocabi_relax_core(A: Array[f64, 2], Anew: Array[f64, 2], error: Array[f64, 2]):
    err_sm = gpu.shared_array(f64, SM_SIZE)

    ty = gpu.thread_idx_x()
    tx = gpu.thread_idx_y()
    bx = gpu.block_idx_x()
    by = gpu.block_idx_y()

    n = A.shape[0]
    m = A.shape[1]

    i = gpu.block_idx_x() * gpu.block_dim_x() + gpu.thread_idx_x()   # cuda.grid(2)[0]
    j = gpu.block_idx_y() * gpu.block_dim_y() + gpu.thread_idx_y()   # cuda.grid(2)[1]

    err_sm[ty, tx] = 0
    if j >= 1 and j < n - 1 and i >= 1 and i < m - 1:
        Anew[j, i] = 0.25 * (
            A[j, i + 1] + A[j, i - 1] + A[j - 1, i] + A[j + 1, i]
        )
        err_sm[ty, tx] = Anew[j, i] - A[j, i]

    gpu.syncthreads()

    # max-reduce err_sm vertically
    t = tpb // 2
    while t > 0:
        if ty < t:
            err_sm[ty, tx] = get_max(err_sm[ty, tx], err_sm[ty + t, tx])
        t //= 2
        gpu.syncthreads()

    # max-reduce err_sm horizontally
    t = tpb // 2
    while t > 0:
        if tx < t and ty == 0:
            err_sm[ty, tx] = get_max(err_sm[ty, tx], err_sm[ty, tx + t])
        t //= 2
        gpu.syncthreads()

    if tx == 0 and ty == 0:
        error[by, bx] = err_sm[0, 0]


# ---- REFERENCE ---------------------------------------------------------------
NN = NM = 64                     # test uses 256 x 256 (4 x 4 in the simulator)


def make_args(rng):
    A = rng.random((NN, NM))
    Anew = np.zeros((NN, NM))
    error = np.zeros((NN // tpb, NM // tpb))
    return [A, Anew, error]


def reference(A, Anew, error):
    new = Anew.copy()
    new[1:-1, 1:-1] = 0.25 * (A[1:-1, 2:] + A[1:-1, :-2] + A[:-2, 1:-1] + A[2:, 1:-1])
    d = np.zeros_like(A)                       # 0 where the stencil is not applied
    d[1:-1, 1:-1] = new[1:-1, 1:-1] - A[1:-1, 1:-1]
    err = d.reshape(NN // tpb, tpb, NM // tpb, tpb).max(axis=(1, 3))   # [row-block, col-block]
    return {"Anew": new, "error": err}


CASE = dict(
    threads=(tpb, tpb), blocks=(NN // tpb, NM // tpb), shared_bytes=0,
    args=["A", "Anew", "error"], outputs=["Anew", "error"],
    rtol=1e-12, atol=1e-12,
    note="threadIdx.x is named ty (and .y named tx) on purpose in the original.",
)
