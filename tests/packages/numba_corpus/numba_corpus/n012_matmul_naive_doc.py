# =============================================================================
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/doc_examples/test_matmul.py, kernel `matmul`
#          (docs "Examples > Matrix multiplication"; old corpus k004)
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/numba_cuda/numba/cuda/tests/doc_examples/test_matmul.py
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda docs (docs)
# What   : naive one-thread-per-output matmul C = A @ B (int64 A, float64 B) with a 0.0 accumulator.
# Port   : import line only (dedented out of the test; magictoken comments dropped)
# =============================================================================

ORIGINAL = r'''
from numba import cuda
from numba.cuda import float32
import numpy as np
import math


@cuda.jit
def matmul(A, B, C):
    """Perform square matrix multiplication of C = A * B."""
    i, j = cuda.grid(2)
    if i < C.shape[0] and j < C.shape[1]:
        tmp = 0.0
        for k in range(A.shape[1]):
            tmp += A[i, k] * B[k, j]
        C[i, j] = tmp
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda
from hybrid_runtime.cuda import float32
import numpy as np
import math


@cuda.jit
def matmul(A, B, C):
    """Perform square matrix multiplication of C = A * B."""
    i, j = cuda.grid(2)
    if i < C.shape[0] and j < C.shape[1]:
        tmp = 0.0
        for k in range(A.shape[1]):
            tmp += A[i, k] * B[k, j]
        C[i, j] = tmp


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
def make_args(rng):
    # the doc's ex_run_matmul data
    return [np.arange(16).reshape([4, 4]), np.ones([4, 4]), np.zeros([4, 4])]


def reference(A, B, C):
    return {"C": A.astype(np.float64) @ B}


def run(x_h, y_h, z_h):
    # the doc's ex_run_matmul host code
    x_d = cuda.to_device(x_h)
    y_d = cuda.to_device(y_h)
    z_d = cuda.to_device(z_h)

    threadsperblock = (16, 16)
    blockspergrid_x = math.ceil(z_h.shape[0] / threadsperblock[0])
    blockspergrid_y = math.ceil(z_h.shape[1] / threadsperblock[1])
    blockspergrid = (blockspergrid_x, blockspergrid_y)

    matmul[blockspergrid, threadsperblock](x_d, y_d, z_d)
    z_h[:] = z_d.copy_to_host()


CASE = dict(kernel="matmul", griddim=(1, 1), blockdim=(16, 16), args=["A", "B", "C"], outputs=["C"])
