# =============================================================================
# 024_diagproduct_grid_stride_2d.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_nondet.py, kernel
#          `diagproduct` (test_for_pre)
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/numba_cuda/numba/cuda/tests/cudapy/test_nondet.py
# License: BSD-2-Clause (numba-cuda)
# What   : 2-D grid-stride loops computing c = a @ diag(b); regression test for a bad
#          sign-extension in the for-loop precondition.
# Port   : spelling only -- YES (cuda.grid(2) expanded to per-axis gpu.* intrinsics)
# =============================================================================
# Original text: numba_cuda/numba/cuda/tests/cudapy/test_nondet.py lines 22-32 @ b18b944b2f88 (dedented)

ORIGINAL = r'''
@cuda.jit(void(float32[:, :], float32[:, :], float32[:]))
def diagproduct(c, a, b):
    startX, startY = cuda.grid(2)
    gridX = cuda.gridDim.x * cuda.blockDim.x
    gridY = cuda.gridDim.y * cuda.blockDim.y
    height = c.shape[0]
    width = c.shape[1]

    for x in range(startX, width, (gridX)):
        for y in range(startY, height, (gridY)):
            c[y, x] = a[y, x] * b[x]
'''

# ---- PORT --------------------------------------------------------------------
import numpy as np
from hybrid_runtime import kernel, gpu, Array, f32


@kernel
def diagproduct(c: Array[f32, 2], a: Array[f32, 2], b: Array[f32]):
    startX = gpu.block_idx_x() * gpu.block_dim_x() + gpu.thread_idx_x()   # cuda.grid(2)[0]
    startY = gpu.block_idx_y() * gpu.block_dim_y() + gpu.thread_idx_y()   # cuda.grid(2)[1]
    gridX = gpu.grid_dim_x() * gpu.block_dim_x()
    gridY = gpu.grid_dim_y() * gpu.block_dim_y()
    height = c.shape[0]
    width = c.shape[1]

    for x in range(startX, width, (gridX)):
        for y in range(startY, height, (gridY)):
            c[y, x] = a[y, x] * b[x]


# ---- REFERENCE ---------------------------------------------------------------
N = 8


def make_args(rng):
    A = np.arange(N * N).reshape(N, N).astype(np.float32)     # generate_input(n)
    B = (np.arange(N) + 0).astype(np.float32)
    return [np.empty(A.shape, dtype=np.float32), A, B]


def reference(c, a, b):
    return {"c": a * b[np.newaxis, :]}


CASE = dict(
    threads=(32, 8), blocks=(1, 1), shared_bytes=0,   # blockdim = (32, 8); griddim = (1, 1)
    args=["c", "a", "b"], outputs=["c"],
    rtol=0.0, atol=0.0,
    note=("Most x-threads start beyond width, so their loop must run zero times; a larger "
          "variant (e.g. 100 x 70 with grid (1, 1)) makes each thread stride several times."),
)
