# =============================================================================
# Source : makepath/xarray-spatial, xrspatial/aspect.py, kernel `_run_gpu`, device function `_gpu`
#          https://github.com/makepath/xarray-spatial/blob/5f6238f80fceb39740f975bc35cb6d93f6255c83/xrspatial/aspect.py
# License: MIT
# Project: xarray-spatial (real)
# What   : compass aspect (degrees) of a DEM from a 3x3 window slice; device fn with several returns.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from math import atan2

from numba import cuda


@cuda.jit(device=True)
def _gpu(arr):

    a = arr[0, 0]
    b = arr[0, 1]
    c = arr[0, 2]
    d = arr[1, 0]
    f = arr[1, 2]
    g = arr[2, 0]
    h = arr[2, 1]
    i = arr[2, 2]

    dz_dx = ((c + 2 * f + i) - (a + 2 * d + g)) / 8
    dz_dy = ((g + 2 * h + i) - (a + 2 * b + c)) / 8

    if dz_dx == 0 and dz_dy == 0:
        # flat surface, slope = 0, thus invalid aspect
        _aspect = -1
    else:
        _aspect = atan2(dz_dy, -dz_dx) * 57.29578
        # convert to compass direction values (0-360 degrees)
        if _aspect < 0:
            _aspect = 90 - _aspect
        elif _aspect > 90:
            _aspect = 360 - _aspect + 90
        else:
            _aspect = 90 - _aspect

    if _aspect > 359.999:  # lame float equality check...
        return 0
    else:
        return _aspect


@cuda.jit
def _run_gpu(arr, out):
    i, j = cuda.grid(2)
    di = 1
    dj = 1
    if (i-di >= 0 and
        i+di < out.shape[0] and
            j-dj >= 0 and
            j+dj < out.shape[1]):
        out[i, j] = _gpu(arr[i-di:i+di+1, j-dj:j+dj+1])
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from math import atan2

from hybrid_runtime import cuda


@cuda.jit(device=True)
def _gpu(arr):

    a = arr[0, 0]
    b = arr[0, 1]
    c = arr[0, 2]
    d = arr[1, 0]
    f = arr[1, 2]
    g = arr[2, 0]
    h = arr[2, 1]
    i = arr[2, 2]

    dz_dx = ((c + 2 * f + i) - (a + 2 * d + g)) / 8
    dz_dy = ((g + 2 * h + i) - (a + 2 * b + c)) / 8

    if dz_dx == 0 and dz_dy == 0:
        # flat surface, slope = 0, thus invalid aspect
        _aspect = -1
    else:
        _aspect = atan2(dz_dy, -dz_dx) * 57.29578
        # convert to compass direction values (0-360 degrees)
        if _aspect < 0:
            _aspect = 90 - _aspect
        elif _aspect > 90:
            _aspect = 360 - _aspect + 90
        else:
            _aspect = 90 - _aspect

    if _aspect > 359.999:  # lame float equality check...
        return 0
    else:
        return _aspect


@cuda.jit
def _run_gpu(arr, out):
    i, j = cuda.grid(2)
    di = 1
    dj = 1
    if (i-di >= 0 and
        i+di < out.shape[0] and
            j-dj >= 0 and
            j+dj < out.shape[1]):
        out[i, j] = _gpu(arr[i-di:i+di+1, j-dj:j+dj+1])

# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    arr = np.round(rng.random((20, 24)) * 8).astype(np.float32)
    arr[5:9, 5:9] = 3.0  # a flat patch: aspect -1
    out = np.full((20, 24), np.nan, dtype=np.float32)
    return [arr, out]


def reference(arr, out):
    a64 = arr.astype(np.float64)
    for i in range(1, arr.shape[0] - 1):
        for j in range(1, arr.shape[1] - 1):
            w = a64[i - 1:i + 2, j - 1:j + 2]
            a, b, c, d, f, g, h, ii = w[0, 0], w[0, 1], w[0, 2], w[1, 0], w[1, 2], w[2, 0], w[2, 1], w[2, 2]
            dzdx = ((c + 2 * f + ii) - (a + 2 * d + g)) / 8
            dzdy = ((g + 2 * h + ii) - (a + 2 * b + c)) / 8
            if dzdx == 0 and dzdy == 0:
                asp = -1.0
            else:
                asp = np.arctan2(dzdy, -dzdx) * 57.29578
                if asp < 0:
                    asp = 90 - asp
                elif asp > 90:
                    asp = 360 - asp + 90
                else:
                    asp = 90 - asp
            out[i, j] = 0 if asp > 359.999 else asp
    return {"out": out}


CASE = dict(kernel="_run_gpu", griddim=(3, 3), blockdim=(8, 8), args=["arr", "out"], outputs=["out"],
            rtol=1e-5, atol=1e-4)
