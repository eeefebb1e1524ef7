# =============================================================================
# 010_square_matrix_mul_shared.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_matmul.py,
#          kernel `cu_square_matrix_mul` (test_cuda_matmul)
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/numba_cuda/numba/cuda/tests/cudapy/test_matmul.py
# License: BSD-2-Clause (numba-cuda)
# What   : square float32 matmul with (tpb x tpb) shared tiles; module-level tile constants,
#          one shared shape given as a module-level tuple (SM_SIZE).
# Port   : spelling only -- YES (float32(0) -> f32(0); signature -> annotations)
# =============================================================================
# Original text: numba_cuda/numba/cuda/tests/cudapy/test_matmul.py lines 10-17 @ b18b944b2f88 (dedented)
# Original text: numba_cuda/numba/cuda/tests/cudapy/test_matmul.py lines 21-51 @ b18b944b2f88 (dedented)

ORIGINAL = r'''
# Ensure the test takes a reasonable amount of time in the simulator
if config.ENABLE_CUDASIM:
    bpg, tpb = 2, 8
else:
    bpg, tpb = 50, 32

n = bpg * tpb
SM_SIZE = (tpb, tpb)

# ...

@cuda.jit(void(float32[:, ::1], float32[:, ::1], float32[:, ::1]))
def cu_square_matrix_mul(A, B, C):
    sA = cuda.shared.array(shape=SM_SIZE, dtype=float32)
    sB = cuda.shared.array(shape=(tpb, tpb), dtype=float32)

    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bx = cuda.blockIdx.x
    by = cuda.blockIdx.y
    bw = cuda.blockDim.x
    bh = cuda.blockDim.y

    x = tx + bx * bw
    y = ty + by * bh

    acc = float32(0)  # forces all the math to be f32
    for i in range(bpg):
        if x < n and y < n:
            sA[ty, tx] = A[y, tx + i * tpb]
            sB[ty, tx] = B[ty + i * tpb, x]

        cuda.syncthreads()

        if x < n and y < n:
            for j in range(tpb):
                acc += sA[ty, j] * sB[j, tx]

        cuda.syncthreads()

    if x < n and y < n:
        C[y, x] = acc
'''

# ---- PORT --------------------------------------------------------------------
import numpy as np
from hybrid_runtime import kernel, gpu, Array, f32

bpg, tpb = 2, 8  # the test's simulator branch (50, 32 on a GPU): the Python path runs it too
n = bpg * tpb
SM_SIZE = (tpb, tpb)


@kernel
def cu_square_matrix_mul(A: Array[f32, 2], B: Array[f32, 2], C: Array[f32, 2]):
    sA = gpu.shared_array(f32, SM_SIZE)
    sB = gpu.shared_array(f32, (tpb, tpb))

    tx = gpu.thread_idx_x()
    ty = gpu.thread_idx_y()
    bx = gpu.block_idx_x()
    by = gpu.block_idx_y()
    bw = gpu.block_dim_x()
    bh = gpu.block_dim_y()

    x = tx + bx * bw
    y = ty + by * bh

    acc = f32(0)  # forces all the math to be f32
    for i in range(bpg):
        if x < n and y < n:
            sA[ty, tx] = A[y, tx + i * tpb]
            sB[ty, tx] = B[ty + i * tpb, x]

        gpu.syncthreads()

        if x < n and y < n:
            for j in range(tpb):
                acc += sA[ty, j] * sB[j, tx]

        gpu.syncthreads()

    if x < n and y < n:
        C[y, x] = acc


# ---- REFERENCE ---------------------------------------------------------------
def make_args(rng):
    A = rng.random((n, n)).astype(np.float32)
    B = rng.random((n, n)).astype(np.float32)
    return [A, B, np.empty_like(A)]


def reference(A, B, C):
    return {"C": (A.astype(np.float64) @ B.astype(np.float64)).astype(np.float32)}


CASE = dict(
    threads=(tpb, tpb), blocks=(bpg, bpg), shared_bytes=0,    # test: [(bpg, bpg), (tpb, tpb)]
    args=["A", "B", "C"], outputs=["C"],
    rtol=3e-5, atol=0.0,                                      # test: rtol=1e-5 vs float32 np.dot
    note=("Matrix size is baked in (n = 1600). The simulator branch of the same test uses "
          "bpg, tpb = 2, 8 (n = 16) -- handy for a quick run."),
)
