# =============================================================================
# Source : ContinuumIO/gtc2017-numba, 6 - Extra Topics.ipynb,
#          code cells 1 (its import lines) and 3, kernel `compute_pi`
#          https://github.com/ContinuumIO/gtc2017-numba/blob/6ddaeec9baecf07df1a22e3e685d5f6e3b4f33d9/6%20-%20Extra%20Topics.ipynb
# License: none stated (no LICENSE file in the repository)
# Project: ContinuumIO GTC 2017 Numba tutorial (tutorial)
# What   : Monte Carlo pi per thread from xoroshiro128p float32 draws.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
import numpy as np
from numba import cuda
from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32

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
import numpy as np
from hybrid_runtime import cuda
from hybrid_runtime.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32

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
import numpy as np  # noqa: E402


def make_args(rng):
    return [np.zeros(64 * 24, dtype=np.float32)]


def reference(out):
    # each thread's estimate of pi: 4 * inside / iterations, within a loose statistical tolerance
    return {"out": np.full(64 * 24, np.pi, np.float32)}


def run(out):
    # as cells 1 and 4
    threads_per_block = 64
    blocks = 24
    rng_states = create_xoroshiro128p_states(threads_per_block * blocks, seed=1)
    compute_pi[blocks, threads_per_block](rng_states, 200, out)


CASE = dict(kernel="compute_pi", griddim=24, blockdim=64, args=["out"], outputs=["out"], atol=0.9)
