# =============================================================================
# 029_mc_pricer_lcg.py -- hatch-hybrid kernel corpus candidate
# Source : numba/numba git history (NumbaPro-era commit 3c0e745c "Cleanup monte carlo example",
#          2013), examples/monte_carlo_pricer/pricer_cuda.py, kernel `cu_monte_carlo_pricer`
#          https://github.com/numba/numba/blob/3c0e745c02f13486c5efc12d53ed26e3fd7fa96f/examples/monte_carlo_pricer/pricer_cuda.py
# License: unclear -- no license file in the tree at that commit (the numba/numba repository
#          itself is BSD-2-Clause); treat as reference material until confirmed.
# What   : Monte Carlo path simulation; each thread walks its path with a deterministic LCG
#          (randnum = randnum*1664525 + 1013904223) that indexes a table of normal draws.
# Port   : spelling only -- YES (@jit(..., target='gpu') -> @kernel, signature -> annotations).
#          Integer-typing-sensitive, see CASE note.
# =============================================================================
# Original text: examples/monte_carlo_pricer/pricer_cuda.py lines 11-28 @ 3c0e745c02f1 (dedented)

ORIGINAL = r'''
# PRNG constants
A = 1664525
C = 1013904223

@jit(void(double[:,:], double, double, double, double[:], uint32[:]), target='gpu')
def cu_monte_carlo_pricer(paths, dt, interest, volatility, normdist, seed):
    i = cuda.grid(1)
    if i >= paths.shape[0]:
        return
    c0 = interest - 0.5 * volatility ** 2
    c1 = volatility * math.sqrt(dt)
    randnum = seed[i]
    for j in range(1, paths.shape[1]):         # foreach time step
        elt = abs(randnum % normdist.shape[0])
        noise = normdist[elt]
        paths[i, j] = paths[i, j - 1] * math.exp(c0 * dt + c1 * noise)
        # generate next random number
        randnum = randnum * A + C
'''

# ---- PORT --------------------------------------------------------------------
import math
import numpy as np
from hybrid_runtime import kernel, gpu, Array, f64, u32

# PRNG constants
A = 1664525
C = 1013904223


@kernel
def cu_monte_carlo_pricer(paths: Array[f64, 2], dt: f64, interest: f64, volatility: f64,
                          normdist: Array[f64], seed: Array[u32]):
    i = gpu.global_tid_x()
    if i >= paths.shape[0]:
        return
    c0 = interest - 0.5 * volatility ** 2
    c1 = volatility * math.sqrt(dt)
    randnum = seed[i]
    for j in range(1, paths.shape[1]):         # foreach time step
        elt = abs(randnum % normdist.shape[0])
        noise = normdist[elt]
        paths[i, j] = paths[i, j - 1] * math.exp(c0 * dt + c1 * noise)
        # generate next random number
        randnum = randnum * A + C


# ---- REFERENCE ---------------------------------------------------------------
NPATHS, NSTEPS = 2000, 16
DT, INTEREST, VOL = 1.0 / 252, 0.05, 0.2


def make_args(rng):
    paths = np.zeros((NPATHS, NSTEPS))
    paths[:, 0] = 100.0
    normdist = rng.standard_normal(NPATHS)          # host fills it with curand normals
    seed = rng.integers(0, 2**32, NPATHS, dtype=np.uint64).astype(np.uint32)  # host: Sobol32
    return [paths, DT, INTEREST, VOL, normdist, seed]


def reference(paths, dt, interest, volatility, normdist, seed, int_model="u32"):  # NumPy 2 keeps uint32 (numba: int64)
    """int_model="numba": uint32 seed * int64 constant promotes to int64 (numba typing rule),
    wrapping at 2**64, Python-style %.  int_model="u32": everything wraps at 2**32 (C-like)."""
    out = paths.copy()
    c0 = interest - 0.5 * volatility ** 2
    c1 = volatility * np.sqrt(dt)
    n = normdist.shape[0]
    with np.errstate(over="ignore"):
        r = seed.astype(np.int64) if int_model == "numba" else seed.copy()
        for j in range(1, out.shape[1]):
            elt = np.abs(r % n).astype(np.int64)
            out[:, j] = out[:, j - 1] * np.exp(c0 * dt + c1 * normdist[elt])
            if int_model == "numba":
                r = r * np.int64(A) + np.int64(C)
            else:
                r = (r * np.uint32(A) + np.uint32(C)).astype(np.uint32)
    return {"paths": out}


CASE = dict(
    threads=1024, blocks=(NPATHS + 1023) // 1024, shared_bytes=0,   # blksz = 1024
    args=["paths", "dt", "interest", "volatility", "normdist", "seed"], outputs=["paths"],
    rtol=1e-12, atol=0.0,
    note=("Good integer-typing probe: numba types `randnum` as int64 after the first LCG "
          "step (uint32 * int64 -> int64); a backend that keeps it uint32 matches "
          "reference(..., int_model='u32') instead. Step 1 agrees under both models."),
)
