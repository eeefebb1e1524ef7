# =============================================================================
# 009_compute_pi_xoroshiro.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA/numba-cuda, docs/source/user/random.rst ("A simple example"), kernel `compute_pi`
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/docs/source/user/random.rst
# License: BSD-2-Clause (numba-cuda)
# What   : Monte Carlo pi, per-thread xoroshiro128+ RNG state array, 4*inside/iterations per thread.
# Port   : spelling only -- YES (numba.cuda.random -> hybrid_runtime.random, same names and the
#   same generator states for a seed; cuda.grid(1) -> gpu.grid(1); the state array annotated
#   Array[Xoroshiro128pState], numba's xoroshiro128p_dtype record).
# =============================================================================
# Original text: docs/source/user/random.rst lines 48-62 @ b18b944b2f88 (dedented)

ORIGINAL = r'''
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

# ---- PORT --------------------------------------------------------------------
import numpy as np
from hybrid_runtime import kernel, gpu, Array, f32, i32
from hybrid_runtime.random import (
    Xoroshiro128pState,
    create_xoroshiro128p_states,
    xoroshiro128p_uniform_float32,
)


@kernel
def compute_pi(rng_states: Array[Xoroshiro128pState], iterations: i32, out: Array[f32]):
    """Find the maximum value in values and store in result[0]"""
    thread_id = gpu.grid(1)
    # Compute pi by drawing random (x, y) points and finding what
    # fraction lie inside a unit circle
    inside = 0
    for i in range(iterations):
        x = xoroshiro128p_uniform_float32(rng_states, thread_id)
        y = xoroshiro128p_uniform_float32(rng_states, thread_id)
        if x**2 + y**2 <= 1.0:
            inside += 1
    out[thread_id] = 4.0 * inside / iterations


# ---- REFERENCE (the same generator in NumPy, all threads at once) --------------
THREADS, BLOCKS = 64, 24          # doc values
ITERS = 40                        # the docs draw 10000 per thread; the Python path runs every draw


def make_args(rng):
    return [create_xoroshiro128p_states(THREADS * BLOCKS, seed=1), ITERS, np.zeros(THREADS * BLOCKS, dtype=np.float32)]


def _next(s0, s1):
    """xoroshiro128+ on arrays of states: (result, s0, s1)."""
    result = s0 + s1
    s1 = s1 ^ s0
    rot = lambda x, k: (x << np.uint64(k)) | (x >> np.uint64(64 - k))  # noqa: E731
    return result, rot(s0, 55) ^ s1 ^ (s1 << np.uint64(14)), rot(s1, 36)


def reference(rng_states, iterations, out):
    s0, s1 = rng_states["s0"].copy(), rng_states["s1"].copy()
    inside = np.zeros(len(out), dtype=np.int64)
    with np.errstate(over="ignore"):
        for _ in range(iterations):
            bits_x, s0, s1 = _next(s0, s1)
            bits_y, s0, s1 = _next(s0, s1)
            x = ((bits_x >> np.uint64(11)) * (1.0 / 2.0**53)).astype(np.float32)
            y = ((bits_y >> np.uint64(11)) * (1.0 / 2.0**53)).astype(np.float32)
            inside += x**2 + y**2 <= 1.0
    return {"out": (4.0 * inside / iterations).astype(np.float32), "rng_states": None}


CASE = dict(
    threads=THREADS, blocks=BLOCKS, shared_bytes=0,
    args=["rng_states", "iterations", "out"], outputs=["out"],
    rtol=0.0, atol=0.0,
    note="compute_pi[blocks, threads_per_block](rng_states, 10000, out) in the docs; out.mean() is close to pi.",
)
