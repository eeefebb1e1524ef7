# =============================================================================
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_random.py,
#          kernels `rng_kernel_float32`, `rng_kernel_float64`, module constants `UNIFORM`, `NORMAL`
#          https://github.com/NVIDIA/numba-cuda/blob/124e6d050a7427ddac9cfeb8a2a395b8179ef906/numba_cuda/numba/cuda/tests/cudapy/test_random.py
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda tests (tests)
# What   : xoroshiro128p uniform and normal draws (float32 / float64) per thread, checked by their statistics as the tests do.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
import math
import numpy as np
from numba import cuda
from numba.cuda.random import (
    xoroshiro128p_uniform_float32,
    xoroshiro128p_normal_float32,
    xoroshiro128p_uniform_float64,
    xoroshiro128p_normal_float64,
)

UNIFORM = 1
NORMAL = 2


@cuda.jit
def rng_kernel_float32(states, out, count, distribution):
    thread_id = cuda.grid(1)

    for i in range(count):
        idx = thread_id * count + i

        if distribution == UNIFORM:
            out[idx] = xoroshiro128p_uniform_float32(states, thread_id)
        elif distribution == NORMAL:
            out[idx] = xoroshiro128p_normal_float32(states, thread_id)


@cuda.jit
def rng_kernel_float64(states, out, count, distribution):
    thread_id = cuda.grid(1)

    for i in range(count):
        idx = thread_id * count + i

        if distribution == UNIFORM:
            out[idx] = xoroshiro128p_uniform_float64(states, thread_id)
        elif distribution == NORMAL:
            out[idx] = xoroshiro128p_normal_float64(states, thread_id)
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
import math
import numpy as np
from hybrid_runtime import cuda
from hybrid_runtime.cuda.random import (
    xoroshiro128p_uniform_float32,
    xoroshiro128p_normal_float32,
    xoroshiro128p_uniform_float64,
    xoroshiro128p_normal_float64,
)

UNIFORM = 1
NORMAL = 2


@cuda.jit
def rng_kernel_float32(states, out, count, distribution):
    thread_id = cuda.grid(1)

    for i in range(count):
        idx = thread_id * count + i

        if distribution == UNIFORM:
            out[idx] = xoroshiro128p_uniform_float32(states, thread_id)
        elif distribution == NORMAL:
            out[idx] = xoroshiro128p_normal_float32(states, thread_id)


@cuda.jit
def rng_kernel_float64(states, out, count, distribution):
    thread_id = cuda.grid(1)

    for i in range(count):
        idx = thread_id * count + i

        if distribution == UNIFORM:
            out[idx] = xoroshiro128p_uniform_float64(states, thread_id)
        elif distribution == NORMAL:
            out[idx] = xoroshiro128p_normal_float64(states, thread_id)


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    return [np.zeros(4), np.zeros(2), np.zeros(2)]


def reference(uniform_stats, normal_stats, normal64_stats):
    return {"uniform_stats": np.array([0.0, 1.0, 0.5, 1.0 / (2 * math.sqrt(3))]),
            "normal_stats": np.array([0.0, 1.0]), "normal64_stats": np.array([0.0, 1.0])}


def run(uniform_stats, normal_stats, normal64_stats):
    # as check_uniform(rng_kernel_float32) and check_normal(rng_kernel_float32 / rng_kernel_float64): the statistics
    # the tests assert on (min, max, mean, std; mean, std)
    states = cuda.random.create_xoroshiro128p_states(32 * 2, seed=1)
    out = np.zeros(2 * 32 * 32, dtype=np.float32)
    rng_kernel_float32[2, 32](states, out, 32, UNIFORM)
    uniform_stats[:] = [out.min(), out.max(), out.mean(), out.std()]
    states = cuda.random.create_xoroshiro128p_states(32 * 2, seed=1)
    out = np.zeros(2 * 32 * 32, dtype=np.float32)
    rng_kernel_float32[2, 32](states, out, 32, NORMAL)
    normal_stats[:] = [out.mean(), out.std()]
    states = cuda.random.create_xoroshiro128p_states(32 * 2, seed=1)
    out = np.zeros(2 * 32 * 32, dtype=np.float64)
    rng_kernel_float64[2, 32](states, out, 32, NORMAL)
    normal64_stats[:] = [out.mean(), out.std()]


CASE = dict(kernel="rng_kernel_float32", griddim=2, blockdim=32,
            args=["uniform_stats", "normal_stats", "normal64_stats"],
            outputs=["uniform_stats", "normal_stats", "normal64_stats"], atol=0.05)
