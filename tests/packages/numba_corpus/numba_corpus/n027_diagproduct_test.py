# =============================================================================
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_nondet.py, kernel `diagproduct`
#          (test_for_pre; old corpus k024)
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/numba_cuda/numba/cuda/tests/cudapy/test_nondet.py
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda tests (tests)
# What   : 2-D grid-stride loops c[y, x] = a[y, x] * b[x]; eager void(float32[:, :], float32[:, :],
#          float32[:]) signature.
# Port   : import line only (kernel dedented out of the test; test-harness import dropped)
# =============================================================================

ORIGINAL = r'''
import numpy as np
from numba import cuda
from numba.cuda import float32, void


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

# ---- PORT: the published text, its import line changed --------------------------------------------
import numpy as np
from hybrid_runtime import cuda
from hybrid_runtime.cuda import float32, void


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


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
def make_args(rng):
    N = 40   # the test uses N = 8 with a (32, 8) block; 40 makes the y loop stride
    A = np.array(np.arange(N * N).reshape(N, N), dtype=np.float32)
    B = np.array(np.arange(N) + 0, dtype=A.dtype)
    return [np.empty(A.shape, dtype=A.dtype), A, B]


def reference(F, A, B):
    return {"F": A * B[None, :]}


CASE = dict(kernel="diagproduct", griddim=(1, 1), blockdim=(32, 8), args=["F", "A", "B"], outputs=["F"])
