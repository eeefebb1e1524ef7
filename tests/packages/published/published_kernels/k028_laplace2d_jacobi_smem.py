# =============================================================================
# 028_laplace2d_jacobi_smem.py -- hatch-hybrid kernel corpus candidate
# Source : numba/numba @ 9e2115ff (old examples dir), examples/laplace2d/laplace2d-numba-cuda-smem.py,
#          kernel `jacobi_relax_core`
#          https://github.com/numba/numba/blob/9e2115ff12857c1676f6ed5cd748aa4d6ee248ee/examples/laplace2d/laplace2d-numba-cuda-smem.py
# License: BSD-2-Clause (numba)
# What   : Jacobi step staged through a (32+2)x(32+2) float64 shared tile with halo loads
#          by the edge threads of each 32x32 block.
# Port   : spelling only -- YES
# =============================================================================
# Original text: examples/laplace2d/laplace2d-numba-cuda-smem.py lines 17-50 @ 9e2115ff1285 (dedented)

ORIGINAL = r'''
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

# NEEDS MORE THAN SPELLING: the published halo guards read out of bounds (A[-1, i], A[j, m]), which
# the CPU paths report as IndexError; the two guards are corrected below.
# ---- PORT --------------------------------------------------------------------
import numpy as np
from hybrid_runtime import kernel, gpu, Array, f64


@kernel
def jacobi_relax_core(A: Array[f64, 2], Anew: Array[f64, 2], error: Array[f64, 2]):
    smem = gpu.shared_array(f64, (32 + 2, 32 + 2))
    n = A.shape[0]
    m = A.shape[1]

    tx = gpu.thread_idx_x()
    ty = gpu.thread_idx_y()

    j = ty + gpu.block_idx_y() * gpu.block_dim_y()
    i = tx + gpu.block_idx_x() * gpu.block_dim_x()

    sy = ty + 1
    sx = tx + 1

    smem[sy, sx] = A[j, i]
    if tx == 0 and i >= 1:
        smem[sy, 0] = A[j, i - 1]

    if ty == 0 and j >= 1:  # published: `j < m - 1`, which reads A[-1, i]
        smem[0, sx] = A[j - 1, i]

    if tx == 31 and i < m - 1:  # published: `j >= 1`, which reads A[j, m]
        smem[sy, 33] = A[j, i + 1]

    if ty == 31 and j < n - 1:
        smem[33, sx] = A[j + 1, i]

    gpu.syncthreads() # ensure smem is visible by all threads in the block

    if j >= 1 and j < n - 1 and i >= 1 and i < m - 1:
        Anew[j, i] = 0.25 * ( smem[sy, sx + 1] + smem[sy, sx - 1] \
                            + smem[sy - 1, sx] + smem[sy + 1, sx])
        error[j, i] = Anew[j, i] - A[j, i]


# ---- REFERENCE ---------------------------------------------------------------
NN = NM = 128


def make_args(rng):
    A = rng.random((NN, NM))
    A[:, 0] = 1.0
    return [A, np.zeros((NN, NM)), np.zeros((NN, NM))]


def reference(A, Anew, error):
    new, err = Anew.copy(), error.copy()
    new[1:-1, 1:-1] = 0.25 * (A[1:-1, 2:] + A[1:-1, :-2] + A[:-2, 1:-1] + A[2:, 1:-1])
    err[1:-1, 1:-1] = new[1:-1, 1:-1] - A[1:-1, 1:-1]
    return {"Anew": new, "error": err}


CASE = dict(
    threads=(32, 32), blocks=(NN // 32, NM // 32), shared_bytes=0,
    args=["A", "Anew", "error"], outputs=["Anew", "error"],
    rtol=1e-12, atol=1e-12,
    note=("AS PUBLISHED the halo guards are sloppy: at j == 0 the top-halo load reads "
          "A[-1, i] (numba wraps negative indices -> last row; value unused), and at "
          "i == m-1 the right-halo load reads A[j, m] (one past the row; for the last row "
          "one element past the buffer; value unused). Results are still correct, but a "
          "bounds-checked or non-wrapping backend must tolerate these dead loads. Requires "
          "blockDim == (32, 32) (hard-coded 31/33)."),
)
