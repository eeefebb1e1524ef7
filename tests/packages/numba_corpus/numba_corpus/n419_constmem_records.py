# =============================================================================
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_constmem.py,
#          kernels `cuconstRec`, `cuconstRecAlign` (compiled by the tests with cuda.jit(func).specialize(...))
#          https://github.com/NVIDIA/numba-cuda/blob/124e6d050a7427ddac9cfeb8a2a395b8179ef906/numba_cuda/numba/cuda/tests/cudapy/test_constmem.py
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda tests (tests)
# What   : cuda.const.array_like of module-level record arrays (packed and aligned), fields read by name.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
import numpy as np

from numba import cuda, complex64, int32, float64

CONST_RECORD = np.array([(1.0, 2), (3.0, 4)], dtype=[("x", float), ("y", int)])
CONST_RECORD_ALIGN = np.array(
    [(1, 2, 3, 0xDEADBEEF, 8), (4, 5, 6, 0xBEEFDEAD, 10)],
    dtype=np.dtype(
        dtype=[
            ("a", np.uint8),
            ("b", np.uint8),
            ("x", np.uint8),
            ("y", np.uint32),
            ("z", np.uint8),
        ],
        align=True,
    ),
)


def cuconstRec(A, B):
    C = cuda.const.array_like(CONST_RECORD)
    i = cuda.grid(1)
    A[i] = C[i]["x"]
    B[i] = C[i]["y"]


def cuconstRecAlign(A, B, C, D, E):
    Z = cuda.const.array_like(CONST_RECORD_ALIGN)
    i = cuda.grid(1)
    A[i] = Z[i]["a"]
    B[i] = Z[i]["b"]
    C[i] = Z[i]["x"]
    D[i] = Z[i]["y"]
    E[i] = Z[i]["z"]
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
import numpy as np

from hybrid_runtime import cuda, complex64, int32, float64

CONST_RECORD = np.array([(1.0, 2), (3.0, 4)], dtype=[("x", float), ("y", int)])
CONST_RECORD_ALIGN = np.array(
    [(1, 2, 3, 0xDEADBEEF, 8), (4, 5, 6, 0xBEEFDEAD, 10)],
    dtype=np.dtype(
        dtype=[
            ("a", np.uint8),
            ("b", np.uint8),
            ("x", np.uint8),
            ("y", np.uint32),
            ("z", np.uint8),
        ],
        align=True,
    ),
)


def cuconstRec(A, B):
    C = cuda.const.array_like(CONST_RECORD)
    i = cuda.grid(1)
    A[i] = C[i]["x"]
    B[i] = C[i]["y"]


def cuconstRecAlign(A, B, C, D, E):
    Z = cuda.const.array_like(CONST_RECORD_ALIGN)
    i = cuda.grid(1)
    A[i] = Z[i]["a"]
    B[i] = Z[i]["b"]
    C[i] = Z[i]["x"]
    D[i] = Z[i]["y"]
    E[i] = Z[i]["z"]


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    return [np.zeros(2, dtype=float), np.zeros(2, dtype=int)] + [np.zeros(2, dtype=np.float64) for _ in range(5)]


def reference(A, B, A2, B2, C2, D2, E2):
    return {"A": np.array([1.0, 3.0]), "B": np.array([2, 4]), "A2": np.array([1.0, 4.0]), "B2": np.array([2.0, 5.0]),
            "C2": np.array([3.0, 6.0]), "D2": np.array([0xDEADBEEF, 0xBEEFDEAD], np.float64),
            "E2": np.array([8.0, 10.0])}


def run(A, B, A2, B2, C2, D2, E2):
    # as test_const_record and test_const_record_align
    jcuconst = cuda.jit(cuconstRec).specialize(A, B)
    jcuconst[2, 1](A, B)
    jcuconst = cuda.jit(cuconstRecAlign).specialize(A2, B2, C2, D2, E2)
    jcuconst[2, 1](A2, B2, C2, D2, E2)


CASE = dict(kernel="cuconstRec", griddim=2, blockdim=1, args=["A", "B", "A2", "B2", "C2", "D2", "E2"],
            outputs=["A", "B", "A2", "B2", "C2", "D2", "E2"])
