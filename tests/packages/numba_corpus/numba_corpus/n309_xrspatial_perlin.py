# =============================================================================
# Source : makepath/xarray-spatial, xrspatial/perlin.py, kernel `_perlin_gpu`, device functions `_lerp_gpu`, `_fade_gpu`,
#          `_gradient_gpu`
#          https://github.com/makepath/xarray-spatial/blob/5f6238f80fceb39740f975bc35cb6d93f6255c83/xrspatial/perlin.py
# License: MIT
# Project: xarray-spatial (real)
# What   : Perlin noise: 2-D cuda.local.array of int32 (chained assignment), vec[f][0] indexing, fastmath=True, opt=True.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
import numpy as np

import numba as nb
from numba import cuda, jit


@cuda.jit(device=True)
def _lerp_gpu(a, b, x):
    return a + x * (b - a)


@cuda.jit(device=True)
def _fade_gpu(t):
    return 6 * t ** 5 - 15 * t ** 4 + 10 * t ** 3


@cuda.jit(device=True)
def _gradient_gpu(vec, h, x, y):
    f = h % 4
    return vec[f][0] * x + vec[f][1] * y


@cuda.jit(fastmath=True, opt=True)
def _perlin_gpu(p, x0, x1, y0, y1, m, out):
    # alloc and initialize array to be used in the gradient routine
    vec = cuda.local.array((4, 2), nb.int32)
    vec[0][0] = vec[1][0] = vec[2][1] = vec[3][1] = 0
    vec[0][1] = vec[2][0] = 1
    vec[1][1] = vec[3][0] = -1

    i, j = nb.cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        # coordinates of the top-left
        y = y0 + i * (y1 - y0) / out.shape[0]
        x = x0 + j * (x1 - x0) / out.shape[1]

        # coordinates of the top-left
        x_int = int(x)
        y_int = int(y)

        # internal coordinates
        xf = x - x_int
        yf = y - y_int

        # fade factors
        u = _fade_gpu(xf)
        v = _fade_gpu(yf)

        # noise components
        n00 = _gradient_gpu(vec, p[p[x_int] + y_int], xf, yf)
        n01 = _gradient_gpu(vec, p[p[x_int] + y_int + 1], xf, yf - 1)
        n11 = _gradient_gpu(vec, p[p[x_int + 1] + y_int + 1], xf - 1, yf - 1)
        n10 = _gradient_gpu(vec, p[p[x_int + 1] + y_int], xf - 1, yf)

        # combine noises
        x1 = _lerp_gpu(n00, n10, u)
        x2 = _lerp_gpu(n01, n11, u)
        out[i, j] = m * _lerp_gpu(x1, x2, v)
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
import numpy as np

import hybrid_runtime as nb
from hybrid_runtime import cuda, jit


@cuda.jit(device=True)
def _lerp_gpu(a, b, x):
    return a + x * (b - a)


@cuda.jit(device=True)
def _fade_gpu(t):
    return 6 * t ** 5 - 15 * t ** 4 + 10 * t ** 3


@cuda.jit(device=True)
def _gradient_gpu(vec, h, x, y):
    f = h % 4
    return vec[f][0] * x + vec[f][1] * y


@cuda.jit(fastmath=True, opt=True)
def _perlin_gpu(p, x0, x1, y0, y1, m, out):
    # alloc and initialize array to be used in the gradient routine
    vec = cuda.local.array((4, 2), nb.int32)
    vec[0][0] = vec[1][0] = vec[2][1] = vec[3][1] = 0
    vec[0][1] = vec[2][0] = 1
    vec[1][1] = vec[3][0] = -1

    i, j = nb.cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        # coordinates of the top-left
        y = y0 + i * (y1 - y0) / out.shape[0]
        x = x0 + j * (x1 - x0) / out.shape[1]

        # coordinates of the top-left
        x_int = int(x)
        y_int = int(y)

        # internal coordinates
        xf = x - x_int
        yf = y - y_int

        # fade factors
        u = _fade_gpu(xf)
        v = _fade_gpu(yf)

        # noise components
        n00 = _gradient_gpu(vec, p[p[x_int] + y_int], xf, yf)
        n01 = _gradient_gpu(vec, p[p[x_int] + y_int + 1], xf, yf - 1)
        n11 = _gradient_gpu(vec, p[p[x_int + 1] + y_int + 1], xf - 1, yf - 1)
        n10 = _gradient_gpu(vec, p[p[x_int + 1] + y_int], xf - 1, yf)

        # combine noises
        x1 = _lerp_gpu(n00, n10, u)
        x2 = _lerp_gpu(n01, n11, u)
        out[i, j] = m * _lerp_gpu(x1, x2, v)

# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    p = rng.permutation(64).astype(np.int64)
    p = np.append(p, p)
    out = np.zeros((16, 24), dtype=np.float32)
    return [p, 0.0, 5.0, 0.0, 7.0, 1.0, out]


def reference(p, x0, x1, y0, y1, m, out):
    vec = np.array([[0, 1], [0, -1], [1, 0], [-1, 0]])
    fade = lambda t: 6 * t ** 5 - 15 * t ** 4 + 10 * t ** 3
    lerp = lambda a, b, x: a + x * (b - a)
    grad = lambda h, x, y: vec[h % 4][0] * x + vec[h % 4][1] * y
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            y = y0 + i * (y1 - y0) / out.shape[0]
            x = x0 + j * (x1 - x0) / out.shape[1]
            xi, yi = int(x), int(y)
            xf, yf = x - xi, y - yi
            u, v = fade(xf), fade(yf)
            n00 = grad(p[p[xi] + yi], xf, yf)
            n01 = grad(p[p[xi] + yi + 1], xf, yf - 1)
            n11 = grad(p[p[xi + 1] + yi + 1], xf - 1, yf - 1)
            n10 = grad(p[p[xi + 1] + yi], xf - 1, yf)
            out[i, j] = m * lerp(lerp(n00, n10, u), lerp(n01, n11, u), v)
    return {"out": out}


CASE = dict(kernel="_perlin_gpu", griddim=(2, 3), blockdim=(8, 8), args=["p", "x0", "x1", "y0", "y1", "m", "out"],
            outputs=["out"], rtol=1e-5, atol=1e-5)
