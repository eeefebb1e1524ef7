# =============================================================================
# Source : IntelPython/dpbench, dpbench/benchmarks/default/black_scholes/black_scholes_numba_cuda.py, kernel `_black_scholes_kernel`
#          https://github.com/IntelPython/dpbench/blob/0b59bd251543e0e3ab6dc53c07f694757d32f3b3/dpbench/benchmarks/default/black_scholes/black_scholes_numba_cuda.py
# License: Apache-2.0
# Project: dpbench (real)
# What   : Black-Scholes call/put prices (math.erf/exp/log/sqrt, `price.dtype.type(...)` casts, no bounds guard).
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from math import ceil, erf, exp, log, sqrt

from numba import cuda


@cuda.jit
def _black_scholes_kernel(nopt, price, strike, t, rate, volatility, call, put):
    dtype = price.dtype
    mr = -rate
    sig_sig_two = volatility * volatility * dtype.type(2)

    i = cuda.grid(1)

    P = price[i]
    S = strike[i]
    T = t[i]

    a = log(P / S)
    b = T * mr

    z = T * sig_sig_two
    c = dtype.type(0.25) * z
    y = dtype.type(1.0) / sqrt(z)

    w1 = (a - b + c) * y
    w2 = (a - b - c) * y

    d1 = dtype.type(0.5) + dtype.type(0.5) * erf(w1)
    d2 = dtype.type(0.5) + dtype.type(0.5) * erf(w2)

    Se = exp(b) * S

    r = P * d1 - Se * d2
    call[i] = r
    put[i] = r - P + Se
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from math import ceil, erf, exp, log, sqrt

from hybrid_runtime import cuda


@cuda.jit
def _black_scholes_kernel(nopt, price, strike, t, rate, volatility, call, put):
    dtype = price.dtype
    mr = -rate
    sig_sig_two = volatility * volatility * dtype.type(2)

    i = cuda.grid(1)

    P = price[i]
    S = strike[i]
    T = t[i]

    a = log(P / S)
    b = T * mr

    z = T * sig_sig_two
    c = dtype.type(0.25) * z
    y = dtype.type(1.0) / sqrt(z)

    w1 = (a - b + c) * y
    w2 = (a - b - c) * y

    d1 = dtype.type(0.5) + dtype.type(0.5) * erf(w1)
    d2 = dtype.type(0.5) + dtype.type(0.5) * erf(w2)

    Se = exp(b) * S

    r = P * d1 - Se * d2
    call[i] = r
    put[i] = r - P + Se

# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import math  # noqa: E402

import numpy as np  # noqa: E402


def make_args(rng):
    n = 512
    price = rng.uniform(10.0, 50.0, n)
    strike = rng.uniform(10.0, 50.0, n)
    t = rng.uniform(1.0, 2.0, n)
    return [n, price, strike, t, 0.1, 0.2, np.zeros(n), np.zeros(n)]


def reference(n, price, strike, t, rate, vol, call, put):
    erf = np.vectorize(math.erf)
    z = t * vol * vol * 2
    y = 1 / np.sqrt(z)
    a = np.log(price / strike)
    b = -rate * t
    w1 = (a - b + 0.25 * z) * y
    w2 = (a - b - 0.25 * z) * y
    d1 = 0.5 + 0.5 * erf(w1)
    d2 = 0.5 + 0.5 * erf(w2)
    se = np.exp(b) * strike
    call[:] = price * d1 - se * d2
    put[:] = call - price + se
    return {"call": call, "put": put}


def run(nopt, price, strike, t, rate, volatility, call, put):
    nthreads = 256
    nblocks = ceil(nopt // nthreads)
    _black_scholes_kernel[nblocks, nthreads](nopt, price, strike, t, rate, volatility, call, put)


CASE = dict(kernel="_black_scholes_kernel", args=["n", "price", "strike", "t", "rate", "vol", "call", "put"],
            outputs=["call", "put"], rtol=1e-12, atol=1e-12)
