# =============================================================================
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_constmem.py,
#          kernels `cuconst`, `cuconst2d`, `cuconst3d`, `cuconstAlign` (compiled by the tests with cuda.jit(sig)(func))
#          https://github.com/NVIDIA/numba-cuda/blob/124e6d050a7427ddac9cfeb8a2a395b8179ef906/numba_cuda/numba/cuda/tests/cudapy/test_constmem.py
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda tests (tests)
# What   : cuda.const.array_like of module-level float64 1-D, Fortran int32 2-D, complex64 3-D and uint8 arrays.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
import numpy as np

from numba import cuda, complex64, int32, float64

CONST1D = np.arange(10, dtype=np.float64) / 2.0
CONST2D = np.asfortranarray(np.arange(100, dtype=np.int32).reshape(10, 10))
CONST3D = (np.arange(5 * 5 * 5, dtype=np.complex64).reshape(5, 5, 5) + 1j) / 2j
CONST3BYTES = np.arange(3, dtype=np.uint8)


def cuconst(A):
    C = cuda.const.array_like(CONST1D)
    i = cuda.grid(1)

    # +1 or it'll be loaded & stored as a u32
    A[i] = C[i] + 1.0


def cuconst2d(A):
    C = cuda.const.array_like(CONST2D)
    i, j = cuda.grid(2)
    A[i, j] = C[i, j]


def cuconst3d(A):
    C = cuda.const.array_like(CONST3D)
    i = cuda.threadIdx.x
    j = cuda.threadIdx.y
    k = cuda.threadIdx.z
    A[i, j, k] = C[i, j, k]


def cuconstAlign(z):
    a = cuda.const.array_like(CONST3BYTES)
    b = cuda.const.array_like(CONST1D)
    i = cuda.grid(1)
    z[i] = a[i] + b[i]
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
import numpy as np

from hybrid_runtime import cuda, complex64, int32, float64

CONST1D = np.arange(10, dtype=np.float64) / 2.0
CONST2D = np.asfortranarray(np.arange(100, dtype=np.int32).reshape(10, 10))
CONST3D = (np.arange(5 * 5 * 5, dtype=np.complex64).reshape(5, 5, 5) + 1j) / 2j
CONST3BYTES = np.arange(3, dtype=np.uint8)


def cuconst(A):
    C = cuda.const.array_like(CONST1D)
    i = cuda.grid(1)

    # +1 or it'll be loaded & stored as a u32
    A[i] = C[i] + 1.0


def cuconst2d(A):
    C = cuda.const.array_like(CONST2D)
    i, j = cuda.grid(2)
    A[i, j] = C[i, j]


def cuconst3d(A):
    C = cuda.const.array_like(CONST3D)
    i = cuda.threadIdx.x
    j = cuda.threadIdx.y
    k = cuda.threadIdx.z
    A[i, j, k] = C[i, j, k]


def cuconstAlign(z):
    a = cuda.const.array_like(CONST3BYTES)
    b = cuda.const.array_like(CONST1D)
    i = cuda.grid(1)
    z[i] = a[i] + b[i]


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    return [np.zeros(10), np.zeros((10, 10), np.int32), np.zeros((5, 5, 5), np.complex64, order="F"),
            np.full(3, np.nan)]


def reference(A1, A2, A3, A4):
    c1 = np.arange(10, dtype=np.float64) / 2.0
    c3 = (np.arange(125, dtype=np.complex64).reshape(5, 5, 5) + 1j) / 2j
    return {"A1": c1 + 1, "A2": np.arange(100, dtype=np.int32).reshape(10, 10), "A3": c3,
            "A4": np.arange(3, dtype=np.uint8) + c1[:3]}


def run(A1, A2, A3, A4):
    # as test_const_array, test_const_array_2d, test_const_array_3d, test_const_align
    jcuconst = cuda.jit((float64[:],))(cuconst)
    jcuconst[2, 5](A1)
    jcuconst2d = cuda.jit((int32[:, :],))(cuconst2d)
    jcuconst2d[(2, 2), (5, 5)](A2)
    jcuconst3d = cuda.jit((complex64[:, :, :],))(cuconst3d)
    jcuconst3d[1, (5, 5, 5)](A3)
    jcuconstAlign = cuda.jit("void(float64[:])")(cuconstAlign)
    jcuconstAlign[1, 3](A4)


CASE = dict(kernel="cuconst", griddim=2, blockdim=5, args=["A1", "A2", "A3", "A4"], outputs=["A1", "A2", "A3", "A4"])
