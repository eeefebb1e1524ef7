# =============================================================================
# Source : rapidsai/cuml, python/cuml/utils/numba_utils.py, kernels `gpu_zeros_1d`, `gpu_zeros_2d`
#          https://github.com/rapidsai/cuml/blob/4890fb38c69647e11151bd010a817f0c268a87c3/python/cuml/utils/numba_utils.py
# License: Apache-2.0 (cuML)
# Project: cuML (real)
# What   : zero-fill device arrays; the 2-D kernel uses cuda.grid(2), out[i][j] chained indexing, launched 1-D as published.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda


@cuda.jit
def gpu_zeros_1d(out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = 0


@cuda.jit
def gpu_zeros_2d(out):
    i, j = cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        out[i][j] = 0
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda


@cuda.jit
def gpu_zeros_1d(out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = 0


@cuda.jit
def gpu_zeros_2d(out):
    i, j = cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        out[i][j] = 0


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    a = rng.standard_normal(300)
    b = np.asfortranarray(rng.standard_normal((150, 4)))   # cuml's zeros() allocates order='F'
    return [a, b]


def reference(a, b):
    want_b = b.copy()
    want_b[:, 0] = 0.0   # a 1-D launch of gpu_zeros_2d has j == 0 in every thread: only column 0 is zeroed
    return {"a": np.zeros(300), "b": want_b}


def run(a, b):
    gpu_zeros_1d[3, 128](a)
    # as published (zeros() for a tuple size): bpg = ceil(nrows / tpb), a 1-D launch
    tpb = 128
    nrows = b.shape[0]
    bpg = (nrows + tpb - 1) // tpb
    gpu_zeros_2d[bpg, tpb](b)


CASE = dict(kernel="gpu_zeros_2d", args=["a", "b"], outputs=["a", "b"])
