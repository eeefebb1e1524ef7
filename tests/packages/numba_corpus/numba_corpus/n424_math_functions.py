# =============================================================================
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_math.py,
#          kernels `math_acosh`, `math_erf`, `math_gamma`, `math_lgamma`, `math_log1p`, `math_atan2`, `math_hypot`, `math_remainder` (compiled by the tests with cuda.jit((arytype, restype))(func))
#          https://github.com/NVIDIA/numba-cuda/blob/124e6d050a7427ddac9cfeb8a2a395b8179ef906/numba_cuda/numba/cuda/tests/cudapy/test_math.py
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda tests (tests)
# What   : math.* unary and binary functions elementwise over float32 / float64 / int64 arrays.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda, float32, float64, int32, vectorize, void, int64
import math


def math_acosh(A, B):
    i = cuda.grid(1)
    B[i] = math.acosh(A[i])


def math_erf(A, B):
    i = cuda.grid(1)
    B[i] = math.erf(A[i])


def math_gamma(A, B):
    i = cuda.grid(1)
    B[i] = math.gamma(A[i])


def math_lgamma(A, B):
    i = cuda.grid(1)
    B[i] = math.lgamma(A[i])


def math_log1p(A, B):
    i = cuda.grid(1)
    B[i] = math.log1p(A[i])


def math_atan2(A, B, C):
    i = cuda.grid(1)
    C[i] = math.atan2(A[i], B[i])


def math_hypot(A, B, C):
    i = cuda.grid(1)
    C[i] = math.hypot(A[i], B[i])


def math_remainder(A, B, C):
    i = cuda.grid(1)
    C[i] = math.remainder(A[i], B[i])
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda, float32, float64, int32, vectorize, void, int64
import math


def math_acosh(A, B):
    i = cuda.grid(1)
    B[i] = math.acosh(A[i])


def math_erf(A, B):
    i = cuda.grid(1)
    B[i] = math.erf(A[i])


def math_gamma(A, B):
    i = cuda.grid(1)
    B[i] = math.gamma(A[i])


def math_lgamma(A, B):
    i = cuda.grid(1)
    B[i] = math.lgamma(A[i])


def math_log1p(A, B):
    i = cuda.grid(1)
    B[i] = math.log1p(A[i])


def math_atan2(A, B, C):
    i = cuda.grid(1)
    C[i] = math.atan2(A[i], B[i])


def math_hypot(A, B, C):
    i = cuda.grid(1)
    C[i] = math.hypot(A[i], B[i])


def math_remainder(A, B, C):
    i = cuda.grid(1)
    C[i] = math.remainder(A[i], B[i])


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    n = 50
    f32 = np.linspace(0, 1, n).astype(np.float32)
    f64 = np.linspace(0.1, 1, n)
    i64 = np.linspace(1, 50, n).astype(np.int64)
    return [np.linspace(1, 2, n).astype(np.float32), np.empty(n, np.float32), f64, np.empty(n), i64,
            np.empty(n), f32, np.empty(n, np.float32), f64, np.empty(n), f32, np.empty(n, np.float32),
            f64, np.empty(n), i64, np.empty(n)]


def reference(a1, b1, a2, b2, a3, b3, a4, b4, a5, b5, a6, b6, a7, b7, a8, b8):
    from math import erf, gamma, lgamma
    return {"b1": np.arccosh(a1), "b2": np.array([erf(v) for v in a2]), "b3": np.array([gamma(v) for v in a3]),
            "b4": np.array([lgamma(v) if v else np.inf for v in a4], np.float32), "b5": np.log1p(a5), "b6": np.arctan2(a6, a6),
            "b7": np.hypot(a7, a7), "b8": np.remainder(a8, a8).astype(np.float64)}


def run(a1, b1, a2, b2, a3, b3, a4, b4, a5, b5, a6, b6, a7, b7, a8, b8):
    # as unary_template / binary_template: cfunc = cuda.jit((arytype, restype))(func); cfunc[1, nelem](A, B)
    f4, f8, i8 = float32[::1], float64[::1], int64[::1]
    cuda.jit((f4, f4))(math_acosh)[1, 50](a1, b1)
    cuda.jit((f8, f8))(math_erf)[1, 50](a2, b2)
    cuda.jit((i8, f8))(math_gamma)[1, 50](a3, b3)
    cuda.jit((f4, f4))(math_lgamma)[1, 50](a4, b4)
    cuda.jit((f8, f8))(math_log1p)[1, 50](a5, b5)
    cuda.jit((f4, f4, f4))(math_atan2)[1, 50](a6, a6, b6)
    cuda.jit((f8, f8, f8))(math_hypot)[1, 50](a7, a7, b7)
    cuda.jit((i8, i8, f8))(math_remainder)[1, 50](a8, a8, b8)


CASE = dict(kernel="math_erf", griddim=1, blockdim=50,
            args=["a1", "b1", "a2", "b2", "a3", "b3", "a4", "b4", "a5", "b5", "a6", "b6", "a7", "b7", "a8", "b8"],
            outputs=["b1", "b2", "b3", "b4", "b5", "b6", "b7", "b8"], rtol=1e-6)
