# =============================================================================
# Source : rapidsai/cusignal, python/cusignal/_signaltools.py, kernel `_correlate2d_even`
#          https://github.com/rapidsai/cusignal/blob/c18a66b81c8cd879c57790ff4f42c4a3d49b0e39/python/cusignal/_signaltools.py
# License: Apache-2.0 (cuSignal at that commit)
# Project: cuSignal (real)
# What   : 2-D correlation with a square even (2S)^2 kernel over a pre-padded input (tuple indexing, annotated accumulator).
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda


# For square/even kernels
@cuda.jit(fastmath=True)
def _correlate2d_even(inp, inpW, inpH, kernel, S, out, outW, outH):

    x, y = cuda.grid(2)
    j = x + S
    i = y + S

    if ((x >= 0) and (x < outW) and (y >= 0) and (y < outH)):
        oPixelPos = (y, x)
        temp: out.dtype = 0

        for k in range(-S, S):
            for l in range(-S, S):
                iPixelPos = ((i + k), (j + l))
                coefPos = (k + S, l + S)
                temp += inp[iPixelPos] * kernel[coefPos]

        out[oPixelPos] = temp
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda


# For square/even kernels
@cuda.jit(fastmath=True)
def _correlate2d_even(inp, inpW, inpH, kernel, S, out, outW, outH):

    x, y = cuda.grid(2)
    j = x + S
    i = y + S

    if ((x >= 0) and (x < outW) and (y >= 0) and (y < outH)):
        oPixelPos = (y, x)
        temp: out.dtype = 0

        for k in range(-S, S):
            for l in range(-S, S):
                iPixelPos = ((i + k), (j + l))
                coefPos = (k + S, l + S)
                temp += inp[iPixelPos] * kernel[coefPos]

        out[oPixelPos] = temp


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    S = 2
    outH, outW = 20, 24
    inp = rng.standard_normal((outH + 2 * S - 1, outW + 2 * S - 1))
    kernel = rng.standard_normal((2 * S, 2 * S))
    out = np.zeros((outH, outW))
    return [inp, inp.shape[1], inp.shape[0], kernel, S, out, outW, outH]


def reference(inp, inpW, inpH, kernel, S, out, outW, outH):
    # valid correlation of the padded input
    ker = kernel
    kh, kw = ker.shape
    want = np.zeros((outH, outW))
    for a in range(kh):
        for b in range(kw):
            want += inp[a:a + outH, b:b + outW] * ker[a, b]
    return {"out": want}


CASE = dict(kernel="_correlate2d_even", griddim=(2, 2), blockdim=(16, 16),
            args=["inp", "inpW", "inpH", "kernel", "S", "out", "outW", "outH"],
            outputs=["out"], rtol=1e-12, atol=1e-12)
