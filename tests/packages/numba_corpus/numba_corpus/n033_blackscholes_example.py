# =============================================================================
# Source : numba/numba (old examples dir, text from 9e2115ff), examples/blackscholes/blackscholes_cuda.py,
#          kernel `black_scholes_cuda`, device function `cnd_cuda` (basis of numba_ports/blackscholes.py)
#          https://github.com/numba/numba/blob/9e2115ff12857c1676f6ed5cd748aa4d6ee248ee/examples/blackscholes/blackscholes_cuda.py
# License: BSD-2-Clause (numba)
# Project: numba examples (samples)
# What   : float64 Black-Scholes call/put; untyped device function with local float constants; string
#          signature without return type; early return.
# Port   : import line only (`from __future__` line dropped; `from blackscholes_numba import ...`, a
#          sibling script used only by main(), dropped; randfloat/main dropped)
# =============================================================================

ORIGINAL = r'''
import math
import time

import numpy as np

from numba import cuda


RISKFREE = 0.02
VOLATILITY = 0.30


@cuda.jit(device=True)
def cnd_cuda(d):
    A1 = 0.31938153
    A2 = -0.356563782
    A3 = 1.781477937
    A4 = -1.821255978
    A5 = 1.330274429
    RSQRT2PI = 0.39894228040143267793994605993438
    K = 1.0 / (1.0 + 0.2316419 * math.fabs(d))
    ret_val = (RSQRT2PI * math.exp(-0.5 * d * d) *
               (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5))))))
    if d > 0:
        ret_val = 1.0 - ret_val
    return ret_val


# FIXME: There is a bug in how Numba computes the first line of a
# decorated function, such that it doesn't account for a decorator
# that occupies more than one line.  The following decorator should
# comply with PEP 8, and not go past the 79-th column.

@cuda.jit("(double[:], double[:], double[:], double[:], double[:], double, double)")
def black_scholes_cuda(callResult, putResult, S, X,
                       T, R, V):
    #    S = stockPrice
    #    X = optionStrike
    #    T = optionYears
    #    R = Riskfree
    #    V = Volatility
    i = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    if i >= S.shape[0]:
        return
    sqrtT = math.sqrt(T[i])
    d1 = (math.log(S[i] / X[i]) + (R + 0.5 * V * V) * T[i]) / (V * sqrtT)
    d2 = d1 - V * sqrtT
    cndd1 = cnd_cuda(d1)
    cndd2 = cnd_cuda(d2)

    expRT = math.exp((-1. * R) * T[i])
    callResult[i] = (S[i] * cndd1 - X[i] * expRT * cndd2)
    putResult[i] = (X[i] * expRT * (1.0 - cndd2) - S[i] * (1.0 - cndd1))
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
import math
import time

import numpy as np

from hybrid_runtime import cuda


RISKFREE = 0.02
VOLATILITY = 0.30


@cuda.jit(device=True)
def cnd_cuda(d):
    A1 = 0.31938153
    A2 = -0.356563782
    A3 = 1.781477937
    A4 = -1.821255978
    A5 = 1.330274429
    RSQRT2PI = 0.39894228040143267793994605993438
    K = 1.0 / (1.0 + 0.2316419 * math.fabs(d))
    ret_val = (RSQRT2PI * math.exp(-0.5 * d * d) *
               (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5))))))
    if d > 0:
        ret_val = 1.0 - ret_val
    return ret_val


# FIXME: There is a bug in how Numba computes the first line of a
# decorated function, such that it doesn't account for a decorator
# that occupies more than one line.  The following decorator should
# comply with PEP 8, and not go past the 79-th column.

@cuda.jit("(double[:], double[:], double[:], double[:], double[:], double, double)")
def black_scholes_cuda(callResult, putResult, S, X,
                       T, R, V):
    #    S = stockPrice
    #    X = optionStrike
    #    T = optionYears
    #    R = Riskfree
    #    V = Volatility
    i = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    if i >= S.shape[0]:
        return
    sqrtT = math.sqrt(T[i])
    d1 = (math.log(S[i] / X[i]) + (R + 0.5 * V * V) * T[i]) / (V * sqrtT)
    d2 = d1 - V * sqrtT
    cndd1 = cnd_cuda(d1)
    cndd2 = cnd_cuda(d2)

    expRT = math.exp((-1. * R) * T[i])
    callResult[i] = (S[i] * cndd1 - X[i] * expRT * cndd2)
    putResult[i] = (X[i] * expRT * (1.0 - cndd2) - S[i] * (1.0 - cndd1))


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
OPT_N = 3000


def make_args(rng):
    def randfloat(r, low, high):
        return (1.0 - r) * low + r * high
    return [np.zeros(OPT_N), -np.ones(OPT_N), randfloat(rng.random(OPT_N), 5.0, 30.0),
            randfloat(rng.random(OPT_N), 1.0, 100.0), randfloat(rng.random(OPT_N), 0.25, 10.0),
            RISKFREE, VOLATILITY]


def _cnd(d):
    K = 1.0 / (1.0 + 0.2316419 * np.abs(d))
    r = 0.39894228040143267793994605993438 * np.exp(-0.5 * d * d) * (
        K * (0.31938153 + K * (-0.356563782 + K * (1.781477937 + K * (-1.821255978 + K * 1.330274429)))))
    return np.where(d > 0, 1.0 - r, r)


def reference(callResult, putResult, S, X, T, R, V):
    sqrtT = np.sqrt(T)
    d1 = (np.log(S / X) + (R + 0.5 * V * V) * T) / (V * sqrtT)
    d2 = d1 - V * sqrtT
    c1, c2 = _cnd(d1), _cnd(d2)
    expRT = np.exp(-R * T)
    return {"callResult": S * c1 - X * expRT * c2, "putResult": X * expRT * (1.0 - c2) - S * (1.0 - c1)}


# main(): blockdim = 1024, 1; griddim = int(math.ceil(float(OPT_N)/blockdim[0])), 1
CASE = dict(kernel="black_scholes_cuda", griddim=(int(math.ceil(float(OPT_N) / 1024)), 1), blockdim=(1024, 1),
            args=["callResult", "putResult", "S", "X", "T", "R", "V"], outputs=["callResult", "putResult"],
            rtol=1e-12, atol=1e-12)
