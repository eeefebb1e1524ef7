# =============================================================================
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_montecarlo.py,
#          kernel `step` (nested in TestCudaMonteCarlo.test_montecarlo, dedented)
#          https://github.com/NVIDIA/numba-cuda/blob/124e6d050a7427ddac9cfeb8a2a395b8179ef906/numba_cuda/numba/cuda/tests/cudapy/test_montecarlo.py
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda tests (tests)
# What   : one geometric-Brownian step of Monte Carlo paths: last * exp(c0*dt + c1*noise), eager string signature with double.
# Port   : import line only
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
    n = 300
    return [rng.random(n) + 1.0, np.zeros(n), 0.01, 0.05, 0.2, rng.standard_normal(n)]


def reference(last, paths, dt, c0, c1, normdist):
    return {"paths": last * np.exp(c0 * dt + c1 * normdist)}


CASE = dict(kernel="step", griddim=3, blockdim=128, args=["last", "paths", "dt", "c0", "c1", "normdist"],
            outputs=["paths"], rtol=1e-14)
