# =============================================================================
# Source : NVIDIA/numba-cuda, docs/source/user/random.rst ("A simple example"), kernel `compute_pi`
#          (old corpus k009)
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/docs/source/user/random.rst
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda docs (docs)
# What   : Monte Carlo pi: per-thread xoroshiro128+ states, uniform float32 draws, 4*inside/iterations.
# Port   : import line only (the sample's first line `from __future__ import print_function,
#          absolute_import` dropped: it cannot follow other statements in a module; host lines dropped)
# =============================================================================

ORIGINAL = r'''
from numba import cuda
from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32
import numpy as np

@cuda.jit
def compute_pi(rng_states, iterations, out):
    """Find the maximum value in values and store in result[0]"""
    thread_id = cuda.grid(1)

    # Compute pi by drawing random (x, y) points and finding what
    # fraction lie inside a unit circle
    inside = 0
    for i in range(iterations):
        x = xoroshiro128p_uniform_float32(rng_states, thread_id)
        y = xoroshiro128p_uniform_float32(rng_states, thread_id)
        if x**2 + y**2 <= 1.0:
            inside += 1

    out[thread_id] = 4.0 * inside / iterations
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda
from hybrid_runtime.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32
import numpy as np

@cuda.jit
def compute_pi(rng_states, iterations, out):
    """Find the maximum value in values and store in result[0]"""
    thread_id = cuda.grid(1)

    # Compute pi by drawing random (x, y) points and finding what
    # fraction lie inside a unit circle
    inside = 0
    for i in range(iterations):
        x = xoroshiro128p_uniform_float32(rng_states, thread_id)
        y = xoroshiro128p_uniform_float32(rng_states, thread_id)
        if x**2 + y**2 <= 1.0:
            inside += 1

    out[thread_id] = 4.0 * inside / iterations


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
threads_per_block = 64
blocks = 24
ITERS = 40   # the docs draw 10000 per thread; the Python path runs every draw


def make_args(rng):
    rng_states = create_xoroshiro128p_states(threads_per_block * blocks, seed=1)
    out = np.zeros(threads_per_block * blocks, dtype=np.float32)
    return [rng_states, ITERS, out]


def _next(s0, s1):
    """xoroshiro128+ on arrays of states: (result, s0, s1)."""
    result = s0 + s1
    s1 = s1 ^ s0

    def rot(x, k):
        return (x << np.uint64(k)) | (x >> np.uint64(64 - k))

    return result, rot(s0, 55) ^ s1 ^ (s1 << np.uint64(14)), rot(s1, 36)


def reference(rng_states, iterations, out):
    s0, s1 = rng_states["s0"].copy(), rng_states["s1"].copy()
    inside = np.zeros(len(out), dtype=np.int64)
    with np.errstate(over="ignore"):
        for _ in range(iterations):
            bits_x, s0, s1 = _next(s0, s1)
            bits_y, s0, s1 = _next(s0, s1)
            x = ((bits_x >> np.uint64(11)) * (1.0 / 2.0**53)).astype(np.float32).astype(np.float64)
            y = ((bits_y >> np.uint64(11)) * (1.0 / 2.0**53)).astype(np.float32).astype(np.float64)
            inside += x**2 + y**2 <= 1.0
    return {"out": (4.0 * inside / iterations).astype(np.float32)}


CASE = dict(kernel="compute_pi", griddim=blocks, blockdim=threads_per_block,
            args=["rng_states", "iterations", "out"], outputs=["out"])
