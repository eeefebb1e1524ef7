# =============================================================================
# Source : numba/numba-examples, legacy/cudajit/sum.py,
#          kernel `cuda_sum` (eager signature without a return type, launched via .configure())
#          https://github.com/numba/numba-examples/blob/c423f5419a459f5ab8874fda6d39bb5ea05d04b2/legacy/cudajit/sum.py
# License: BSD-2-Clause (numba-examples)
# Project: numba-examples (docs)
# What   : c = a + b in float32, one thread per element.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
import numpy as np

from numba import cuda


@cuda.jit('(f4[:], f4[:], f4[:])')
def cuda_sum(a, b, c):
    i = cuda.grid(1)
    c[i] = a[i] + b[i]
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
import numpy as np

from hybrid_runtime import cuda


@cuda.jit('(f4[:], f4[:], f4[:])')
def cuda_sum(a, b, c):
    i = cuda.grid(1)
    c[i] = a[i] + b[i]


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    N = 50 * 32
    return [rng.random(N).astype(np.float32), rng.random(N).astype(np.float32), np.zeros(N, np.float32)]


def reference(a, b, c):
    return {"c": a + b}


def run(a, b, c):
    # as the published script
    griddim = 50, 1
    blockdim = 32, 1, 1
    cuda_sum_configured = cuda_sum.configure(griddim, blockdim)
    cuda_sum_configured(a, b, c)


CASE = dict(kernel="cuda_sum", griddim=(50, 1), blockdim=(32, 1, 1), args=["a", "b", "c"], outputs=["c"])
