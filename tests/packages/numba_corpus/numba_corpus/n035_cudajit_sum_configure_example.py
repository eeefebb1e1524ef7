# =============================================================================
# Source : numba/numba (old examples dir, text from 9e2115ff), examples/cudajit/sum.py, kernel `cuda_sum`
#          https://github.com/numba/numba/blob/9e2115ff12857c1676f6ed5cd748aa4d6ee248ee/examples/cudajit/sum.py
# License: BSD-2-Clause (numba)
# Project: numba examples (samples)
# What   : float32 c = a + b, string signature '(f4[:], f4[:], f4[:])', launched through the old
#          kernel.configure(griddim, blockdim) API with host arrays and a 3-tuple blockdim.
# Port   : import line only (`from __future__` line and the script's host code dropped; run() is the
#          script's launch)
# =============================================================================

ORIGINAL = r'''
from timeit import default_timer as time

import numpy as np

from numba import cuda


@cuda.jit('(f4[:], f4[:], f4[:])')
def cuda_sum(a, b, c):
    i = cuda.grid(1)
    c[i] = a[i] + b[i]
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from timeit import default_timer as time

import numpy as np

from hybrid_runtime import cuda


@cuda.jit('(f4[:], f4[:], f4[:])')
def cuda_sum(a, b, c):
    i = cuda.grid(1)
    c[i] = a[i] + b[i]


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
griddim = 50, 1
blockdim = 32, 1, 1
N = griddim[0] * blockdim[0]


def make_args(rng):
    a = np.array(rng.random(N), dtype=np.float32)
    b = np.array(rng.random(N), dtype=np.float32)
    return [a, b, np.empty_like(a)]


def reference(a, b, c):
    return {"c": a + b}


def run(a, b, c):
    # the script's launch
    cuda_sum_configured = cuda_sum.configure(griddim, blockdim)
    cuda_sum_configured(a, b, c)


CASE = dict(kernel="cuda_sum", griddim=griddim, blockdim=blockdim, args=["a", "b", "c"], outputs=["c"])
