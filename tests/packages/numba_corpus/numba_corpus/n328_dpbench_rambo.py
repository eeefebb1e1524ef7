# =============================================================================
# Source : IntelPython/dpbench, dpbench/benchmarks/default/rambo/rambo_numba_cuda.py, kernel `_rambo`
#          https://github.com/IntelPython/dpbench/blob/0b59bd251543e0e3ab6dc53c07f694757d32f3b3/dpbench/benchmarks/default/rambo/rambo_numba_cuda.py
# License: Apache-2.0
# Project: dpbench (real)
# What   : RAMBO phase-space momenta generation: 3-D output, sin/cos/log/sqrt, `dtype.type(2.0 * pi)`.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from math import ceil, cos, log, pi, sin, sqrt

from numba import cuda


@cuda.jit
def _rambo(C1, F1, Q1, nout, output):
    dtype = C1.dtype
    i = cuda.grid(1)
    for j in range(nout):
        C = dtype.type(2.0) * C1[i, j] - dtype.type(1.0)
        S = sqrt(dtype.type(1) - C * C)
        F = dtype.type(2.0 * pi) * F1[i, j]
        Q = -log(Q1[i, j])

        output[i, j, 0] = Q
        output[i, j, 1] = Q * S * sin(F)
        output[i, j, 2] = Q * S * cos(F)
        output[i, j, 3] = Q * C
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from math import ceil, cos, log, pi, sin, sqrt

from hybrid_runtime import cuda


@cuda.jit
def _rambo(C1, F1, Q1, nout, output):
    dtype = C1.dtype
    i = cuda.grid(1)
    for j in range(nout):
        C = dtype.type(2.0) * C1[i, j] - dtype.type(1.0)
        S = sqrt(dtype.type(1) - C * C)
        F = dtype.type(2.0 * pi) * F1[i, j]
        Q = -log(Q1[i, j])

        output[i, j, 0] = Q
        output[i, j, 1] = Q * S * sin(F)
        output[i, j, 2] = Q * S * cos(F)
        output[i, j, 3] = Q * C

# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    nevts, nout = 256, 4
    C1, F1 = rng.random((nevts, nout)), rng.random((nevts, nout))
    Q1 = rng.random((nevts, nout)) * rng.random((nevts, nout)) + 1e-3
    return [nevts, nout, C1, F1, Q1, np.zeros((nevts, nout, 4))]


def reference(nevts, nout, C1, F1, Q1, output):
    C = 2.0 * C1 - 1.0
    S = np.sqrt(1 - C * C)
    F = 2.0 * np.pi * F1
    Q = -np.log(Q1)
    return {"output": np.stack([Q, Q * S * np.sin(F), Q * S * np.cos(F), Q * C], axis=-1)}


def run(nevts, nout, C1, F1, Q1, output):
    nthreads = 256
    nblocks = ceil(nevts // nthreads)
    _rambo[nblocks, nthreads](C1, F1, Q1, nout, output)


CASE = dict(kernel="_rambo", args=["nevts", "nout", "C1", "F1", "Q1", "output"], outputs=["output"],
            rtol=1e-12, atol=1e-13)
