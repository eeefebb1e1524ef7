# =============================================================================
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_localmem.py, functions
#          `culocal`, `culocalcomplex`, `culocal1tuple` (test_local_array*; old corpus k023)
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/numba_cuda/numba/cuda/tests/cudapy/test_localmem.py
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda tests (tests)
# What   : per-thread local arrays: 1000 int32, 100 complex128, a (5,) 1-tuple shape; copy in, copy out.
# Port   : import line only (test-harness and error imports dropped; run() applies cuda.jit as the tests do)
# =============================================================================

ORIGINAL = r'''
import numpy as np

from numba import cuda
from numba.cuda import int32, complex128, void
from numba.cuda import types


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
import numpy as np

from hybrid_runtime import cuda
from hybrid_runtime.cuda import int32, complex128, void
from hybrid_runtime.cuda import types


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
def make_args(rng):
    A = np.arange(1000, dtype="int32")
    Ac = rng.standard_normal(100) + 1j * rng.standard_normal(100)
    A5 = np.arange(5, dtype="int32")
    return [A, np.zeros_like(A), Ac, np.zeros_like(Ac), A5, np.zeros_like(A5)]


def reference(A, B, Ac, Bc, A5, B5):
    return {"B": A, "Bc": Ac, "B5": A5}


def run(A, B, Ac, Bc, A5, B5):
    # the tests' host lines (test_local_array, test_local_array_complex, test_local_array_1_tuple)
    sig = (int32[:], int32[:])
    jculocal = cuda.jit(sig)(culocal)
    jculocal[1, 1](A, B)
    sig = "void(complex128[:], complex128[:])"
    jculocalcomplex = cuda.jit(sig)(culocalcomplex)
    jculocalcomplex[1, 1](Ac, Bc)
    jculocal = cuda.jit("void(int32[:], int32[:])")(culocal1tuple)
    jculocal[1, 1](A5, B5)


CASE = dict(kernel="culocal", griddim=1, blockdim=1, args=["A", "B", "Ac", "Bc", "A5", "B5"],
            outputs=["B", "Bc", "B5"])
