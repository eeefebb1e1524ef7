# =============================================================================
# Source : IntelPython/dpbench, dpbench/benchmarks/default/l2_norm/l2_norm_numba_cuda.py, kernel `l2_norm_kernel`
#          https://github.com/IntelPython/dpbench/blob/0b59bd251543e0e3ab6dc53c07f694757d32f3b3/dpbench/benchmarks/default/l2_norm/l2_norm_numba_cuda.py
# License: Apache-2.0
# Project: dpbench (real)
# What   : row-wise L2 norm accumulated in the global output element (`d[i] += ...`, then `d[i] = sqrt(d[i])`).
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from math import ceil, sqrt

from numba import cuda


@cuda.jit
def l2_norm_kernel(a, d):
    i = cuda.grid(1)

    a_rows = a.shape[1]
    d[i] = 0.0
    for k in range(a_rows):
        d[i] += a[i, k] * a[i, k]
    d[i] = sqrt(d[i])
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from math import ceil, sqrt

from hybrid_runtime import cuda


@cuda.jit
def l2_norm_kernel(a, d):
    i = cuda.grid(1)

    a_rows = a.shape[1]
    d[i] = 0.0
    for k in range(a_rows):
        d[i] += a[i, k] * a[i, k]
    d[i] = sqrt(d[i])

# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    return [rng.standard_normal((512, 7)).astype(np.float32), np.zeros(512, np.float32)]


def reference(a, d):
    return {"d": np.sqrt((a.astype(np.float64) ** 2).sum(axis=1))}


def run(a, d):
    nthreads = 256
    nblocks = ceil(a.shape[0] // nthreads)
    l2_norm_kernel[nblocks, nthreads](a, d)


CASE = dict(kernel="l2_norm_kernel", args=["a", "d"], outputs=["d"], rtol=2e-6, atol=1e-6)
