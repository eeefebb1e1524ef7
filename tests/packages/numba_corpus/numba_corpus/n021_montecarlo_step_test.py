# =============================================================================
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_montecarlo.py, kernel `step`
#          (test_montecarlo; old corpus k013)
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/numba_cuda/numba/cuda/tests/cudapy/test_montecarlo.py
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda tests (tests)
# What   : one geometric-Brownian-motion step paths[i] = last[i]*exp(c0*dt + c1*noise[i]); string
#          signature "void(double[:], double[:], double, double, double, double[:])"; early return.
# Port   : import line only (kernel dedented out of the test; test-harness import dropped)
# =============================================================================

ORIGINAL = r'''
import math
from numba import cuda


@cuda.jit(
    "void(double[:], double[:], double, double, double, double[:])"
)
def step(last, paths, dt, c0, c1, normdist):
    i = cuda.grid(1)
    if i >= paths.shape[0]:
        return
    noise = normdist[i]
    paths[i] = last[i] * math.exp(c0 * dt + c1 * noise)
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
import math
from hybrid_runtime import cuda


@cuda.jit(
    "void(double[:], double[:], double, double, double, double[:])"
)
def step(last, paths, dt, c0, c1, normdist):
    i = cuda.grid(1)
    if i >= paths.shape[0]:
        return
    noise = normdist[i]
    paths[i] = last[i] * math.exp(c0 * dt + c1 * noise)


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    n = 1000
    return [rng.random(n) + 10.0, np.zeros(n), 1.0 / 365, 0.01, 0.3, rng.standard_normal(n)]


def reference(last, paths, dt, c0, c1, normdist):
    return {"paths": last * np.exp(c0 * dt + c1 * normdist)}


CASE = dict(kernel="step", griddim=4, blockdim=256, args=["last", "paths", "dt", "c0", "c1", "normdist"],
            outputs=["paths"], rtol=1e-14)
