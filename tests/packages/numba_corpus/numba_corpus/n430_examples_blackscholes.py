# =============================================================================
# Source : numba/numba-examples, examples/finance/blackscholes/blackscholes_cuda.py,
#          kernel `black_scholes_cuda_kernel`, device function `cnd_cuda`
#          https://github.com/numba/numba-examples/blob/c423f5419a459f5ab8874fda6d39bb5ea05d04b2/examples/finance/blackscholes/blackscholes_cuda.py
# License: BSD-2-Clause (numba-examples)
# Project: numba-examples (docs)
# What   : Black-Scholes call/put prices, float64, launched on a stream with device arrays as the published host code does.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
import math

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
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
import math

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


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    n = 1000
    S = (1.0 - rng.random(n)) * 5.0 + rng.random(n) * 30.0
    X = (1.0 - rng.random(n)) * 1.0 + rng.random(n) * 100.0
    T = (1.0 - rng.random(n)) * 0.25 + rng.random(n) * 10.0
    return [np.zeros(n), np.zeros(n), S, X, T, 0.02, 0.30]


def _cnd(d):
    K = 1.0 / (1.0 + 0.2316419 * np.abs(d))
    r = 0.39894228040143267793994605993438 * np.exp(-0.5 * d * d) * (
        K * (0.31938153 + K * (-0.356563782 + K * (1.781477937 + K * (-1.821255978 + K * 1.330274429)))))
    return np.where(d > 0, 1.0 - r, r)


def reference(call, put, S, X, T, R, V):
    sqrtT = np.sqrt(T)
    d1 = (np.log(S / X) + (R + 0.5 * V * V) * T) / (V * sqrtT)
    d2 = d1 - V * sqrtT
    expRT = np.exp(-R * T)
    return {"call": S * _cnd(d1) - X * expRT * _cnd(d2), "put": X * expRT * (1.0 - _cnd(d2)) - S * (1.0 - _cnd(d1))}


def run(call, put, S, X, T, R, V):
    # as black_scholes_cuda(stockPrice, optionStrike, optionYears, Riskfree, Volatility)
    import math
    blockdim = 1024, 1
    griddim = int(math.ceil(float(len(S)) / blockdim[0])), 1
    stream = cuda.stream()
    d_callResult = cuda.device_array_like(S, stream)
    d_putResult = cuda.device_array_like(S, stream)
    d_stockPrice = cuda.to_device(S, stream)
    d_optionStrike = cuda.to_device(X, stream)
    d_optionYears = cuda.to_device(T, stream)
    black_scholes_cuda_kernel[griddim, blockdim, stream](
        d_callResult, d_putResult, d_stockPrice, d_optionStrike, d_optionYears, R, V)
    call[:] = d_callResult.copy_to_host(stream=stream)
    put[:] = d_putResult.copy_to_host(stream=stream)
    stream.synchronize()


CASE = dict(kernel="black_scholes_cuda_kernel", griddim=(1, 1), blockdim=(1024, 1),
            args=["call", "put", "S", "X", "T", "R", "V"], outputs=["call", "put"], rtol=1e-12, atol=1e-12)
