# =============================================================================
# 012_black_scholes.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_blackscholes.py,
#          kernel `black_scholes_cuda` + device function `cnd_cuda` (test_blackscholes)
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/numba_cuda/numba/cuda/tests/cudapy/test_blackscholes.py
# License: BSD-2-Clause (numba-cuda)
# What   : float64 Black-Scholes call/put pricing, polynomial CND approximation, module constants.
# Port   : spelling only -- NO
# NEEDS MORE THAN SPELLING: calls a @cuda.jit(double(double), device=True, inline="always")
#   helper `cnd_cuda`; the spelling table has no device-function decorator (left undecorated).
# =============================================================================
# Original text: numba_cuda/numba/cuda/tests/cudapy/test_blackscholes.py lines 11-19 @ b18b944b2f88 (dedented)
# Original text: numba_cuda/numba/cuda/tests/cudapy/test_blackscholes.py lines 88-125 @ b18b944b2f88 (dedented)

ORIGINAL = r'''
RISKFREE = 0.02
VOLATILITY = 0.30

A1 = 0.31938153
A2 = -0.356563782
A3 = 1.781477937
A4 = -1.821255978
A5 = 1.330274429
RSQRT2PI = 0.39894228040143267793994605993438

# ...

@cuda.jit(double(double), device=True, inline="always")
def cnd_cuda(d):
    K = 1.0 / (1.0 + 0.2316419 * math.fabs(d))
    ret_val = (
        RSQRT2PI
        * math.exp(-0.5 * d * d)
        * (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))))
    )
    if d > 0:
        ret_val = 1.0 - ret_val
    return ret_val

@cuda.jit(
    void(
        double[:],
        double[:],
        double[:],
        double[:],
        double[:],
        double,
        double,
    )
)
def black_scholes_cuda(callResult, putResult, S, X, T, R, V):
    i = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    if i >= S.shape[0]:
        return
    sqrtT = math.sqrt(T[i])
    d1 = (math.log(S[i] / X[i]) + (R + 0.5 * V * V) * T[i]) / (
        V * sqrtT
    )
    d2 = d1 - V * sqrtT
    cndd1 = cnd_cuda(d1)
    cndd2 = cnd_cuda(d2)

    expRT = math.exp((-1.0 * R) * T[i])
    callResult[i] = S[i] * cndd1 - X[i] * expRT * cndd2
    putResult[i] = X[i] * expRT * (1.0 - cndd2) - S[i] * (1.0 - cndd1)
'''

# ---- PORT --------------------------------------------------------------------
import math
import numpy as np
from hybrid_runtime import kernel, gpu, Array, f64

RISKFREE = 0.02
VOLATILITY = 0.30

A1 = 0.31938153
A2 = -0.356563782
A3 = 1.781477937
A4 = -1.821255978
A5 = 1.330274429
RSQRT2PI = 0.39894228040143267793994605993438


def cnd_cuda(d: f64) -> f64:                 # device helper -- decorator not in spelling table
    K = 1.0 / (1.0 + 0.2316419 * math.fabs(d))
    ret_val = (
        RSQRT2PI
        * math.exp(-0.5 * d * d)
        * (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))))
    )
    if d > 0:
        ret_val = 1.0 - ret_val
    return ret_val


@kernel
def black_scholes_cuda(callResult: Array[f64], putResult: Array[f64], S: Array[f64],
                       X: Array[f64], T: Array[f64], R: f64, V: f64):
    i = gpu.thread_idx_x() + gpu.block_idx_x() * gpu.block_dim_x()
    if i >= S.shape[0]:
        return
    sqrtT = math.sqrt(T[i])
    d1 = (math.log(S[i] / X[i]) + (R + 0.5 * V * V) * T[i]) / (
        V * sqrtT
    )
    d2 = d1 - V * sqrtT
    cndd1 = cnd_cuda(d1)
    cndd2 = cnd_cuda(d2)

    expRT = math.exp((-1.0 * R) * T[i])
    callResult[i] = S[i] * cndd1 - X[i] * expRT * cndd2
    putResult[i] = X[i] * expRT * (1.0 - cndd2) - S[i] * (1.0 - cndd1)


# ---- REFERENCE ---------------------------------------------------------------
OPT_N = 400                         # test value


def _randfloat(u, low, high):
    return (1.0 - u) * low + u * high


def make_args(rng):
    S = _randfloat(rng.random(OPT_N), 5.0, 30.0)
    X = _randfloat(rng.random(OPT_N), 1.0, 100.0)
    T = _randfloat(rng.random(OPT_N), 0.25, 10.0)
    return [np.zeros(OPT_N), -np.ones(OPT_N), S, X, T, RISKFREE, VOLATILITY]


def _cnd(d):
    K = 1.0 / (1.0 + 0.2316419 * np.abs(d))
    r = RSQRT2PI * np.exp(-0.5 * d * d) * (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))))
    return np.where(d > 0, 1.0 - r, r)


def reference(callResult, putResult, S, X, T, R, V):
    sqrtT = np.sqrt(T)
    d1 = (np.log(S / X) + (R + 0.5 * V * V) * T) / (V * sqrtT)
    d2 = d1 - V * sqrtT
    c1, c2 = _cnd(d1), _cnd(d2)
    expRT = np.exp(-R * T)
    return {"callResult": S * c1 - X * expRT * c2,
            "putResult": X * expRT * (1.0 - c2) - S * (1.0 - c1)}


CASE = dict(
    threads=512, blocks=1, shared_bytes=0,       # test: blockdim = 512, griddim = ceil(400/512)
    args=["callResult", "putResult", "S", "X", "T", "R", "V"],
    outputs=["callResult", "putResult"],
    rtol=0.0, atol=1e-12,                        # test: L1 norm and max abs error < 1e-13
)
