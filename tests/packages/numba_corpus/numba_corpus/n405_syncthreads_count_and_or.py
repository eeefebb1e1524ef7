# =============================================================================
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_sync.py,
#          kernels `use_syncthreads_count`, `use_syncthreads_and`, `use_syncthreads_or` (compiled by the tests with cuda.jit(func))
#          https://github.com/NVIDIA/numba-cuda/blob/124e6d050a7427ddac9cfeb8a2a395b8179ef906/numba_cuda/numba/cuda/tests/cudapy/test_sync.py
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda tests (tests)
# What   : block-wide predicate barriers syncthreads_count / _and / _or over int32 and int16 inputs.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda, int32, float32


def use_syncthreads_count(ary_in, ary_out):
    i = cuda.grid(1)
    ary_out[i] = cuda.syncthreads_count(ary_in[i])


def use_syncthreads_and(ary_in, ary_out):
    i = cuda.grid(1)
    ary_out[i] = cuda.syncthreads_and(ary_in[i])


def use_syncthreads_or(ary_in, ary_out):
    i = cuda.grid(1)
    ary_out[i] = cuda.syncthreads_or(ary_in[i])
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda, int32, float32


def use_syncthreads_count(ary_in, ary_out):
    i = cuda.grid(1)
    ary_out[i] = cuda.syncthreads_count(ary_in[i])


def use_syncthreads_and(ary_in, ary_out):
    i = cuda.grid(1)
    ary_out[i] = cuda.syncthreads_and(ary_in[i])


def use_syncthreads_or(ary_in, ary_out):
    i = cuda.grid(1)
    ary_out[i] = cuda.syncthreads_or(ary_in[i])


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    c_in = np.ones(72, dtype=np.int32)
    c_in[31] = 0
    c_in[42] = 0
    and_in = np.ones(100, dtype=np.int16)
    and_in[31] = 0
    or_in = np.zeros(100, dtype=np.int64)
    or_in[31] = 1
    return [c_in, np.zeros(72, np.int32), and_in, np.zeros(100, np.int32), or_in, np.zeros(100, np.int32)]


def reference(c_in, c_out, and_in, and_out, or_in, or_out):
    return {"c_out": np.full(72, 70, np.int32), "and_out": np.zeros(100, np.int32),
            "or_out": np.ones(100, np.int32)}


def run(c_in, c_out, and_in, and_out, or_in, or_out):
    # as _test_syncthreads_count / _and (upcast) / _or (downcast): compiled = cuda.jit(func)
    compiled = cuda.jit(use_syncthreads_count)
    compiled[1, 72](c_in, c_out)
    compiled = cuda.jit(use_syncthreads_and)
    compiled[1, 100](and_in, and_out)
    compiled = cuda.jit(use_syncthreads_or)
    compiled[1, 100](or_in, or_out)


CASE = dict(kernel="use_syncthreads_count", griddim=1, blockdim=72,
            args=["c_in", "c_out", "and_in", "and_out", "or_in", "or_out"], outputs=["c_out", "and_out", "or_out"])
