# =============================================================================
# Source : rapidsai/cusignal, python/cusignal/_signaltools.py, kernel `_convolve2d_ns`
#          https://github.com/rapidsai/cusignal/blob/c18a66b81c8cd879c57790ff4f42c4a3d49b0e39/python/cusignal/_signaltools.py
# License: Apache-2.0 (cuSignal at that commit)
# Project: cuSignal (real)
# What   : 2-D convolution (flipped kernel) with a non-square S x S1 kernel over a pre-padded input.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda


# For non-square kernels
@cuda.jit(fastmath=True)
def _convolve2d_ns(inp, inpW, inpH, kernel, S, S1, out, outW, outH):

    x, y = cuda.grid(2)
    j = x + S
    i = y + S1

    if ((x >= 0) and (x < outW) and (y >= 0) and (y < outH)):
        oPixelPos = (y, x)
        temp: out.dtype = 0

        for k in range(S):
            for l in range(S1):
                iPixelPos = ((i + k - S1), (j + l - S))
                coefPos = (-k + (S - 1), -l + (S1 - 1))
                temp += inp[iPixelPos] * kernel[coefPos]

        out[oPixelPos] = temp
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda


# For non-square kernels
@cuda.jit(fastmath=True)
def _convolve2d_ns(inp, inpW, inpH, kernel, S, S1, out, outW, outH):

    x, y = cuda.grid(2)
    j = x + S
    i = y + S1

    if ((x >= 0) and (x < outW) and (y >= 0) and (y < outH)):
        oPixelPos = (y, x)
        temp: out.dtype = 0

        for k in range(S):
            for l in range(S1):
                iPixelPos = ((i + k - S1), (j + l - S))
                coefPos = (-k + (S - 1), -l + (S1 - 1))
                temp += inp[iPixelPos] * kernel[coefPos]

        out[oPixelPos] = temp


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    S, S1 = 3, 5
    outH, outW = 20, 24
    inp = rng.standard_normal((outH + S - 1, outW + S1 - 1))
    kernel = rng.standard_normal((S, S1))
    out = np.zeros((outH, outW))
    return [inp, inp.shape[1], inp.shape[0], kernel, S, S1, out, outW, outH]


def reference(inp, inpW, inpH, kernel, S, S1, out, outW, outH):
    # convolution: correlation with the kernel flipped in both axes
    ker = kernel[::-1, ::-1]
    kh, kw = ker.shape
    want = np.zeros((outH, outW))
    for a in range(kh):
        for b in range(kw):
            want += inp[a:a + outH, b:b + outW] * ker[a, b]
    return {"out": want}


CASE = dict(kernel="_convolve2d_ns", griddim=(2, 2), blockdim=(16, 16),
            args=["inp", "inpW", "inpH", "kernel", "S", "S1", "out", "outW", "outH"],
            outputs=["out"], rtol=1e-12, atol=1e-12)
