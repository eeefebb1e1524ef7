# =============================================================================
# Source : rapidsai/cusignal, python/cusignal/_signaltools.py, kernels `_convolve2d_odd`, `_convolve2d_even`, `_convolve2d_ns`
#          https://github.com/rapidsai/cusignal/blob/c18a66b81c8cd879c57790ff4f42c4a3d49b0e39/python/cusignal/_signaltools.py
# License: Apache-2.0 (cuSignal)
# Project: cuSignal (real)
# What   : 2-D convolution (flipped kernel indices) for odd/even square and non-square kernels, fastmath.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda


# For square/odd kernels
@cuda.jit(fastmath=True)
def _convolve2d_odd(inp, inpW, inpH, kernel, S, out, outW, outH):

    x, y = cuda.grid(2)
    j = x + S
    i = y + S

    if ((x >= 0) and (x < outW) and (y >= 0) and (y < outH)):
        oPixelPos = (y, x)
        temp: out.dtype = 0

        for k in range(-S, S + 1):
            for l in range(-S, S + 1):
                iPixelPos = ((i + k), (j + l))
                coefPos = ((-k + S), (-l + S))
                temp += inp[iPixelPos] * kernel[coefPos]

        out[oPixelPos] = temp


# For square/even kernels
@cuda.jit(fastmath=True)
def _convolve2d_even(inp, inpW, inpH, kernel, S, out, outW, outH):

    x, y = cuda.grid(2)
    j = x + S
    i = y + S

    if ((x >= 0) and (x < outW) and (y >= 0) and (y < outH)):
        oPixelPos = (y, x)
        temp: out.dtype = 0

        for k in range(-S, S):
            for l in range(-S, S):
                iPixelPos = ((i + k), (j + l))
                coefPos = (-k + (S - 1), -l + (S - 1))
                temp += inp[iPixelPos] * kernel[coefPos]

        out[oPixelPos] = temp


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


# For square/odd kernels
@cuda.jit(fastmath=True)
def _convolve2d_odd(inp, inpW, inpH, kernel, S, out, outW, outH):

    x, y = cuda.grid(2)
    j = x + S
    i = y + S

    if ((x >= 0) and (x < outW) and (y >= 0) and (y < outH)):
        oPixelPos = (y, x)
        temp: out.dtype = 0

        for k in range(-S, S + 1):
            for l in range(-S, S + 1):
                iPixelPos = ((i + k), (j + l))
                coefPos = ((-k + S), (-l + S))
                temp += inp[iPixelPos] * kernel[coefPos]

        out[oPixelPos] = temp


# For square/even kernels
@cuda.jit(fastmath=True)
def _convolve2d_even(inp, inpW, inpH, kernel, S, out, outW, outH):

    x, y = cuda.grid(2)
    j = x + S
    i = y + S

    if ((x >= 0) and (x < outW) and (y >= 0) and (y < outH)):
        oPixelPos = (y, x)
        temp: out.dtype = 0

        for k in range(-S, S):
            for l in range(-S, S):
                iPixelPos = ((i + k), (j + l))
                coefPos = (-k + (S - 1), -l + (S - 1))
                temp += inp[iPixelPos] * kernel[coefPos]

        out[oPixelPos] = temp


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


def _corr(inp, K, outH, outW):
    win = np.lib.stride_tricks.sliding_window_view(inp, K.shape)
    return np.einsum("yxab,ab->yx", win, K)[:outH, :outW]


OUTH, OUTW = 13, 17


def make_args(rng):
    args = []
    for kh, kw in ((5, 5), (4, 4), (3, 6)):
        args += [rng.standard_normal((OUTH + kh - 1, OUTW + kw - 1)), rng.standard_normal((kh, kw)),
                 np.zeros((OUTH, OUTW))]
    return args


def _launch(kern_odd, kern_even, kern_ns, inp1, k1, out1, inp2, k2, out2, inp3, k3, out3):
    # cuSignal's _convolve2d_gpu launch: 2-D grid over (outW, outH), blocks of (16, 16)
    tpb = (16, 16)
    bpg = ((OUTW + 15) // 16, (OUTH + 15) // 16)
    kern_odd[bpg, tpb](inp1, inp1.shape[1], inp1.shape[0], k1, (k1.shape[0] - 1) // 2, out1, OUTW, OUTH)
    kern_even[bpg, tpb](inp2, inp2.shape[1], inp2.shape[0], k2, k2.shape[0] // 2, out2, OUTW, OUTH)
    kern_ns[bpg, tpb](inp3, inp3.shape[1], inp3.shape[0], k3, k3.shape[0], k3.shape[1], out3, OUTW, OUTH)


def reference(inp1, k1, out1, inp2, k2, out2, inp3, k3, out3):
    f = lambda k: k[::-1, ::-1]
    return {"out1": _corr(inp1, f(k1), OUTH, OUTW), "out2": _corr(inp2, f(k2), OUTH, OUTW),
            "out3": _corr(inp3, f(k3), OUTH, OUTW)}


def run(inp1, k1, out1, inp2, k2, out2, inp3, k3, out3):
    _launch(_convolve2d_odd, _convolve2d_even, _convolve2d_ns, inp1, k1, out1, inp2, k2, out2, inp3, k3, out3)


CASE = dict(kernel="_convolve2d_odd", griddim=(2, 1), blockdim=(16, 16),
            args=["inp1", "k1", "out1", "inp2", "k2", "out2", "inp3", "k3", "out3"], outputs=["out1", "out2", "out3"],
            rtol=1e-12, atol=1e-12)
