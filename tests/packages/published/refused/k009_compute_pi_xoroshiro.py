# =============================================================================
# 009_compute_pi_xoroshiro.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA/numba-cuda, docs/source/user/random.rst ("A simple example"), kernel `compute_pi`
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/docs/source/user/random.rst
# License: BSD-2-Clause (numba-cuda)
# What   : Monte Carlo pi, per-thread xoroshiro128+ RNG state array, 4*inside/iterations per thread.
# Port   : spelling only -- NO
# NEEDS MORE THAN SPELLING: uses numba.cuda.random (xoroshiro128p_uniform_float32 and an
#   array of RNG-state records created on the host by create_xoroshiro128p_states).
#   See 029_mc_pricer_lcg.py and 049_pcg_hash.py for deterministic integer-hash/LCG RNGs.
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

# ---- PORT (best effort; lines marked <<< have no hatch-hybrid spelling) -------
import numpy as np
from hybrid_runtime import kernel, gpu, Array, f32, i32


@kernel
def compute_pi(rng_states, iterations: i32, out: Array[f32]):   # <<< rng_states: record array, no type
    """Find the maximum value in values and store in result[0]"""
    thread_id = gpu.global_tid_x()

    # Compute pi by drawing random (x, y) points and finding what
    # fraction lie inside a unit circle
    inside = 0
    for i in range(iterations):
        x = xoroshiro128p_uniform_float32(rng_states, thread_id)   # <<< numba.cuda.random
        y = xoroshiro128p_uniform_float32(rng_states, thread_id)   # <<< numba.cuda.random
        if x**2 + y**2 <= 1.0:
            inside += 1

    out[thread_id] = 4.0 * inside / iterations


# ---- REFERENCE (statistical) -------------------------------------------------
THREADS, BLOCKS, ITERS = 64, 24, 10000      # doc values


def make_args(rng):
    # rng_states would come from create_xoroshiro128p_states(THREADS*BLOCKS, seed=1)
    return [None, ITERS, np.zeros(THREADS * BLOCKS, dtype=np.float32)]


def reference(rng_states, iterations, out):
    return {"out.mean()": np.pi}


CASE = dict(
    threads=THREADS, blocks=BLOCKS, shared_bytes=0,
    args=["rng_states", "iterations", "out"], outputs=["out"],
    rtol=0.0, atol=5e-3,            # compare out.mean() with pi; 1.5e7 samples -> sigma ~ 4e-4
    statistical=True,
    note="Outputs are random; check out.mean() against pi and that every out[i] is in [0, 4].",
)

# The error hatch-hybrid gives for this port (tests/test_published.py checks it):
EXPECTED_ERROR = "needs a type annotation"
