# =============================================================================
# Source : IntelPython/dpbench, dpbench/benchmarks/default/pairwise_distance/pairwise_distance_numba_cuda.py, kernel `_pairwise_distance_kernel`
#          https://github.com/IntelPython/dpbench/blob/0b59bd251543e0e3ab6dc53c07f694757d32f3b3/dpbench/benchmarks/default/pairwise_distance/pairwise_distance_numba_cuda.py
# License: Apache-2.0
# Project: dpbench (real)
# What   : Euclidean distance matrix on a 2-D grid (`X1.dtype.type(0.0)` accumulator, no bounds guard).
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from math import ceil, sqrt

from numba import cuda


@cuda.jit
def _pairwise_distance_kernel(X1, X2, D):
    i, j = cuda.grid(2)

    X2_cols = X2.shape[1]

    d = X1.dtype.type(0.0)
    for k in range(X2_cols):
        tmp = X1[i, k] - X2[j, k]
        d += tmp * tmp
    D[i, j] = sqrt(d)
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from math import ceil, sqrt

from hybrid_runtime import cuda


@cuda.jit
def _pairwise_distance_kernel(X1, X2, D):
    i, j = cuda.grid(2)

    X2_cols = X2.shape[1]

    d = X1.dtype.type(0.0)
    for k in range(X2_cols):
        tmp = X1[i, k] - X2[j, k]
        d += tmp * tmp
    D[i, j] = sqrt(d)

# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    X1 = rng.random((32, 3)).astype(np.float32)
    X2 = rng.random((48, 3)).astype(np.float32)
    return [X1, X2, np.zeros((32, 48), np.float32)]


def reference(X1, X2, D):
    a, b = X1.astype(np.float64), X2.astype(np.float64)
    return {"D": np.sqrt(((a[:, None, :] - b[None, :, :]) ** 2).sum(-1))}


def run(X1, X2, D):
    threadsperblock = (16, 16)
    blockspergrid_x = ceil(X1.shape[0] / threadsperblock[0])
    blockspergrid_y = ceil(X2.shape[0] / threadsperblock[1])
    blockspergrid = (blockspergrid_x, blockspergrid_y)
    _pairwise_distance_kernel[blockspergrid, threadsperblock](X1, X2, D)


CASE = dict(kernel="_pairwise_distance_kernel", args=["X1", "X2", "D"], outputs=["D"], rtol=2e-6, atol=1e-6)
