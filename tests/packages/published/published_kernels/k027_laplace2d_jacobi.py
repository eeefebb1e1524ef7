# =============================================================================
# 027_laplace2d_jacobi.py -- hatch-hybrid kernel corpus candidate
# Source : numba/numba (old examples dir, removed in 3aa6ed0e "Remove examples dir"; text taken
#          from its parent 9e2115ff), examples/laplace2d/laplace2d-numba-cuda.py,
#          kernel `jacobi_relax_core`
#          https://github.com/numba/numba/blob/9e2115ff12857c1676f6ed5cd748aa4d6ee248ee/examples/laplace2d/laplace2d-numba-cuda.py
# License: BSD-2-Clause (numba)
# What   : 2-D 5-point Jacobi relaxation step plus per-point update (error) field.
# Port   : spelling only -- YES (string signature -> annotations)
# =============================================================================
# Original text: examples/laplace2d/laplace2d-numba-cuda.py lines 17-27 @ 9e2115ff1285 (dedented)

ORIGINAL = r'''
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

# ---- PORT --------------------------------------------------------------------
import numpy as np
from hybrid_runtime import kernel, gpu, Array, f64


@kernel
def jacobi_relax_core(A: Array[f64, 2], Anew: Array[f64, 2], error: Array[f64, 2]):
    n = A.shape[0]
    m = A.shape[1]

    j = gpu.thread_idx_y() + gpu.block_idx_y() * gpu.block_dim_y()
    i = gpu.thread_idx_x() + gpu.block_idx_x() * gpu.block_dim_x()
    if j >= 1 and j < n - 1 and i >= 1 and i < m - 1:
        Anew[j, i] = 0.25 * ( A[j, i + 1] + A[j, i - 1] \
                            + A[j - 1, i] + A[j + 1, i])
        error[j, i] = Anew[j, i] - A[j, i]


# ---- REFERENCE ---------------------------------------------------------------
NN = NM = 128                 # example: 512 x 512 (4096 in an older revision)


def make_args(rng):
    A = rng.random((NN, NM))
    A[:, 0] = 1.0                      # example's boundary condition
    return [A, np.zeros((NN, NM)), np.zeros((NN, NM))]


def reference(A, Anew, error):
    new, err = Anew.copy(), error.copy()
    new[1:-1, 1:-1] = 0.25 * (A[1:-1, 2:] + A[1:-1, :-2] + A[:-2, 1:-1] + A[2:, 1:-1])
    err[1:-1, 1:-1] = new[1:-1, 1:-1] - A[1:-1, 1:-1]
    return {"Anew": new, "error": err}


CASE = dict(
    threads=(32, 32), blocks=(NN // 32, NM // 32), shared_bytes=0,   # blockdim (32, 32)
    args=["A", "Anew", "error"], outputs=["Anew", "error"],
    rtol=1e-12, atol=1e-12,
    note="Grid covers the array exactly (no tail blocks) as in the example.",
)
