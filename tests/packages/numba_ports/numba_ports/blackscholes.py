"""numba's Black-Scholes CUDA example (examples/blackscholes/blackscholes_cuda.py), with the
cumulative normal distribution through math.erf. Ported from ``from numba import cuda`` /
``@cuda.jit`` (``@cuda.jit(device=True)`` for the helper) / unannotated parameters."""

import math

from hybrid_runtime import Array, cuda, f64, kernel

RISKFREE = 0.02
VOLATILITY = 0.30


def cnd_cuda(d):
    return 0.5 * (1.0 + math.erf(d / math.sqrt(2.0)))


@kernel
def black_scholes_cuda(callResult: Array[f64], putResult: Array[f64], S: Array[f64], X: Array[f64],
                       T: Array[f64], R: f64, V: f64):
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
