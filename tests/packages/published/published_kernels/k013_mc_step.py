# =============================================================================
# 013_mc_step.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_montecarlo.py,
#          kernel `step` (test_montecarlo)
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/numba_cuda/numba/cuda/tests/cudapy/test_montecarlo.py
# License: BSD-2-Clause (numba-cuda)
# What   : one geometric-Brownian-motion time step, paths[i] = last[i]*exp(c0*dt + c1*noise[i]),
#          early return for out-of-range threads.
# Port   : spelling only -- YES (string signature -> annotations)
# =============================================================================
# Original text: numba_cuda/numba/cuda/tests/cudapy/test_montecarlo.py lines 13-21 @ b18b944b2f88 (dedented)

ORIGINAL = r'''
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

# ---- PORT --------------------------------------------------------------------
import math
import numpy as np
from hybrid_runtime import kernel, gpu, Array, f64


@kernel
def step(last: Array[f64], paths: Array[f64], dt: f64, c0: f64, c1: f64, normdist: Array[f64]):
    i = gpu.global_tid_x()
    if i >= paths.shape[0]:
        return
    noise = normdist[i]
    paths[i] = last[i] * math.exp(c0 * dt + c1 * noise)


# ---- REFERENCE ---------------------------------------------------------------
N = 1000
DT, INTEREST, VOL = 1.0 / 252, 0.05, 0.2


def make_args(rng):
    last = 100.0 * (1.0 + 0.1 * rng.random(N))
    c0 = INTEREST - 0.5 * VOL ** 2
    c1 = VOL * np.sqrt(DT)
    return [last, np.zeros(N), DT, c0, c1, rng.standard_normal(N)]


def reference(last, paths, dt, c0, c1, normdist):
    return {"paths": last * np.exp(c0 * dt + c1 * normdist)}


CASE = dict(
    threads=128, blocks=(N + 127) // 128, shared_bytes=0,
    args=["last", "paths", "dt", "c0", "c1", "normdist"], outputs=["paths"],
    rtol=1e-14, atol=0.0,
    note="The original test only compiles the kernel; sizes here are ours.",
)
