# =============================================================================
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_localmem.py,
#          kernels `culocal`, `culocalcomplex`, `culocal1tuple` (compiled by the tests with cuda.jit(sig)(func))
#          https://github.com/NVIDIA/numba-cuda/blob/124e6d050a7427ddac9cfeb8a2a395b8179ef906/numba_cuda/numba/cuda/tests/cudapy/test_localmem.py
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda tests (tests)
# What   : copies through local arrays: 1000 int32, 100 complex128, a (5,)-shaped int32.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda, int32, complex128, void


def culocal(A, B):
    C = cuda.local.array(1000, dtype=int32)
    for i in range(C.shape[0]):
        C[i] = A[i]
    for i in range(C.shape[0]):
        B[i] = C[i]


def culocalcomplex(A, B):
    C = cuda.local.array(100, dtype=complex128)
    for i in range(C.shape[0]):
        C[i] = A[i]
    for i in range(C.shape[0]):
        B[i] = C[i]


def culocal1tuple(A, B):
    C = cuda.local.array((5,), dtype=int32)
    for i in range(C.shape[0]):
        C[i] = A[i]
    for i in range(C.shape[0]):
        B[i] = C[i]
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda, int32, complex128, void


def culocal(A, B):
    C = cuda.local.array(1000, dtype=int32)
    for i in range(C.shape[0]):
        C[i] = A[i]
    for i in range(C.shape[0]):
        B[i] = C[i]


def culocalcomplex(A, B):
    C = cuda.local.array(100, dtype=complex128)
    for i in range(C.shape[0]):
        C[i] = A[i]
    for i in range(C.shape[0]):
        B[i] = C[i]


def culocal1tuple(A, B):
    C = cuda.local.array((5,), dtype=int32)
    for i in range(C.shape[0]):
        C[i] = A[i]
    for i in range(C.shape[0]):
        B[i] = C[i]


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    A = np.arange(1000, dtype="int32")
    Ac = (np.arange(100, dtype="complex128") - 1) / 2j
    A5 = np.arange(5, dtype="int32")
    return [A, np.zeros_like(A), Ac, np.zeros_like(Ac), A5, np.zeros_like(A5)]


def reference(A, B, Ac, Bc, A5, B5):
    return {"B": A.copy(), "Bc": Ac.copy(), "B5": A5.copy()}


def run(A, B, Ac, Bc, A5, B5):
    # as test_local_array, test_local_array_complex, test_local_array_1_tuple
    sig = (int32[:], int32[:])
    jculocal = cuda.jit(sig)(culocal)
    jculocal[1, 1](A, B)
    jculocalcomplex = cuda.jit("void(complex128[:], complex128[:])")(culocalcomplex)
    jculocalcomplex[1, 1](Ac, Bc)
    jculocal = cuda.jit("void(int32[:], int32[:])")(culocal1tuple)
    jculocal[1, 1](A5, B5)


CASE = dict(kernel="culocal", griddim=1, blockdim=1, args=["A", "B", "Ac", "Bc", "A5", "B5"],
            outputs=["B", "Bc", "B5"])
