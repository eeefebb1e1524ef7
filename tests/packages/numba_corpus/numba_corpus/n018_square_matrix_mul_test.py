# =============================================================================
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_matmul.py, kernel
#          `cu_square_matrix_mul` (test_cuda_matmul; old corpus k010)
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/numba_cuda/numba/cuda/tests/cudapy/test_matmul.py
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda tests (tests)
# What   : square float32 matmul with (tpb x tpb) shared tiles, eager void(float32[:, ::1] x3) signature,
#          module-level tile constants chosen by config.ENABLE_CUDASIM, SM_SIZE tuple shape.
# Port   : import line only (kernel dedented out of the test function; host lines dropped)
# =============================================================================

ORIGINAL = r'''
import numpy as np

from numba import cuda
from numba.cuda import float32, void
from numba.cuda.core import config

# Ensure the test takes a reasonable amount of time in the simulator
if config.ENABLE_CUDASIM:
    bpg, tpb = 2, 8
else:
    bpg, tpb = 50, 32

n = bpg * tpb
SM_SIZE = (tpb, tpb)


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

# ---- PORT: the published text, its import line changed --------------------------------------------
import numpy as np

from hybrid_runtime import cuda
from hybrid_runtime.cuda import float32, void
from hybrid_runtime.cuda.core import config

# Ensure the test takes a reasonable amount of time in the simulator
if config.ENABLE_CUDASIM:
    bpg, tpb = 2, 8
else:
    bpg, tpb = 50, 32

n = bpg * tpb
SM_SIZE = (tpb, tpb)


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


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
def make_args(rng):
    A = np.array(rng.random((n, n)), dtype=np.float32)
    B = np.array(rng.random((n, n)), dtype=np.float32)
    return [A, B, np.empty_like(A)]


def reference(A, B, C):
    return {"C": np.dot(A.astype(np.float64), B.astype(np.float64))}


def run(A, B, C):
    # the test's launch (stream, to_device, copy_to_host into C)
    stream = cuda.stream()
    with stream.auto_synchronize():
        dA = cuda.to_device(A, stream)
        dB = cuda.to_device(B, stream)
        dC = cuda.to_device(C, stream)
        cu_square_matrix_mul[(bpg, bpg), (tpb, tpb), stream](dA, dB, dC)
        dC.copy_to_host(C, stream)


CASE = dict(kernel="cu_square_matrix_mul", griddim=(bpg, bpg), blockdim=(tpb, tpb), args=["A", "B", "C"],
            too_slow_for_python="config.ENABLE_CUDASIM is off (kernels are compiled), so the published test "
            "multiplies 1600 x 1600 matrices on a 50 x 50 grid of 32 x 32 blocks",
            outputs=["C"], rtol=1e-5)
