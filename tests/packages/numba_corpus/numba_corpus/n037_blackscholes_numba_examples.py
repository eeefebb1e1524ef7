# =============================================================================
# Source : numba/numba-examples, examples/finance/blackscholes/blackscholes_cuda.py, kernel
#          `black_scholes_cuda_kernel`, device function `cnd_cuda`, host function `black_scholes_cuda`
#          https://github.com/numba/numba-examples/blob/c423f5419a459f5ab8874fda6d39bb5ea05d04b2/examples/finance/blackscholes/blackscholes_cuda.py
# License: BSD-2-Clause (numba-examples)
# Project: numba-examples (samples)
# What   : float64 Black-Scholes (lazily typed kernel) driven by a host function using a stream,
#          device_array_like(..., stream), to_device and copy_to_host(stream=...).
# Port   : import line only (`from __future__ import print_function` dropped: it cannot follow other
#          statements in this module)
# =============================================================================

ORIGINAL = r'''
import math
import time

import numpy as np

from numba import cuda


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


@cuda.jit
def black_scholes_cuda_kernel(callResult, putResult, S, X,
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


def black_scholes_cuda(stockPrice, optionStrike,
                        optionYears, Riskfree, Volatility):

    blockdim = 1024, 1
    griddim = int(math.ceil(float(len(stockPrice))/blockdim[0])), 1

    stream = cuda.stream()

    d_callResult = cuda.device_array_like(stockPrice, stream)
    d_putResult = cuda.device_array_like(stockPrice, stream)
    d_stockPrice = cuda.to_device(stockPrice, stream)
    d_optionStrike = cuda.to_device(optionStrike, stream)
    d_optionYears = cuda.to_device(optionYears, stream)

    black_scholes_cuda_kernel[griddim, blockdim, stream](
            d_callResult, d_putResult, d_stockPrice, d_optionStrike,
            d_optionYears, Riskfree, Volatility)
    callResult = d_callResult.copy_to_host(stream=stream)
    putResult= d_putResult.copy_to_host(stream=stream)
    stream.synchronize()

    return callResult, putResult
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
import math
import time

import numpy as np

from hybrid_runtime import cuda


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


@cuda.jit
def black_scholes_cuda_kernel(callResult, putResult, S, X,
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


def black_scholes_cuda(stockPrice, optionStrike,
                        optionYears, Riskfree, Volatility):

    blockdim = 1024, 1
    griddim = int(math.ceil(float(len(stockPrice))/blockdim[0])), 1

    stream = cuda.stream()

    d_callResult = cuda.device_array_like(stockPrice, stream)
    d_putResult = cuda.device_array_like(stockPrice, stream)
    d_stockPrice = cuda.to_device(stockPrice, stream)
    d_optionStrike = cuda.to_device(optionStrike, stream)
    d_optionYears = cuda.to_device(optionYears, stream)

    black_scholes_cuda_kernel[griddim, blockdim, stream](
            d_callResult, d_putResult, d_stockPrice, d_optionStrike,
            d_optionYears, Riskfree, Volatility)
    callResult = d_callResult.copy_to_host(stream=stream)
    putResult= d_putResult.copy_to_host(stream=stream)
    stream.synchronize()

    return callResult, putResult


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
OPT_N = 2000


def make_args(rng):
    def randfloat(r, low, high):
        return (1.0 - r) * low + r * high
    return [randfloat(rng.random(OPT_N), 5.0, 30.0), randfloat(rng.random(OPT_N), 1.0, 100.0),
            randfloat(rng.random(OPT_N), 0.25, 10.0), np.zeros(OPT_N), np.zeros(OPT_N)]


def _cnd(d):
    K = 1.0 / (1.0 + 0.2316419 * np.abs(d))
    r = 0.39894228040143267793994605993438 * np.exp(-0.5 * d * d) * (
        K * (0.31938153 + K * (-0.356563782 + K * (1.781477937 + K * (-1.821255978 + K * 1.330274429)))))
    return np.where(d > 0, 1.0 - r, r)


def reference(S, X, T, call, put):
    R, V = 0.02, 0.30
    sqrtT = np.sqrt(T)
    d1 = (np.log(S / X) + (R + 0.5 * V * V) * T) / (V * sqrtT)
    d2 = d1 - V * sqrtT
    c1, c2 = _cnd(d1), _cnd(d2)
    expRT = np.exp(-R * T)
    return {"call": S * c1 - X * expRT * c2, "put": X * expRT * (1.0 - c2) - S * (1.0 - c1)}


def run(S, X, T, call, put):
    c, p = black_scholes_cuda(S, X, T, 0.02, 0.30)
    call[:] = c
    put[:] = p


CASE = dict(kernel="black_scholes_cuda_kernel", griddim=2, blockdim=1024, args=["S", "X", "T", "call", "put"],
            outputs=["call", "put"], rtol=1e-12, atol=1e-12)
