# =============================================================================
# Source : makepath/xarray-spatial, xrspatial/slope.py, kernel `_run_gpu`, device function `_gpu`
#          https://github.com/makepath/xarray-spatial/blob/5f6238f80fceb39740f975bc35cb6d93f6255c83/xrspatial/slope.py
# License: MIT
# Project: xarray-spatial (real)
# What   : slope in degrees of a DEM from a 3x3 Horn window (window passed as an array slice to a device fn).
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from math import atan

from numba import cuda


@cuda.jit(device=True)
def _gpu(arr, cellsize_x, cellsize_y):
    a = arr[2, 0]
    b = arr[2, 1]
    c = arr[2, 2]
    d = arr[1, 0]
    f = arr[1, 2]
    g = arr[0, 0]
    h = arr[0, 1]
    i = arr[0, 2]

    dz_dx = ((c + 2 * f + i) - (a + 2 * d + g)) / (8 * cellsize_x[0])
    dz_dy = ((g + 2 * h + i) - (a + 2 * b + c)) / (8 * cellsize_y[0])
    p = (dz_dx * dz_dx + dz_dy * dz_dy) ** 0.5
    return atan(p) * 57.29578


@cuda.jit
def _run_gpu(arr, cellsize_x_arr, cellsize_y_arr, out):
    i, j = cuda.grid(2)
    di = 1
    dj = 1
    if (i - di >= 0 and i + di < out.shape[0] and
            j - dj >= 0 and j + dj < out.shape[1]):
        out[i, j] = _gpu(arr[i - di:i + di + 1, j - dj:j + dj + 1],
                         cellsize_x_arr,
                         cellsize_y_arr)
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from math import atan

from hybrid_runtime import cuda


@cuda.jit(device=True)
def _gpu(arr, cellsize_x, cellsize_y):
    a = arr[2, 0]
    b = arr[2, 1]
    c = arr[2, 2]
    d = arr[1, 0]
    f = arr[1, 2]
    g = arr[0, 0]
    h = arr[0, 1]
    i = arr[0, 2]

    dz_dx = ((c + 2 * f + i) - (a + 2 * d + g)) / (8 * cellsize_x[0])
    dz_dy = ((g + 2 * h + i) - (a + 2 * b + c)) / (8 * cellsize_y[0])
    p = (dz_dx * dz_dx + dz_dy * dz_dy) ** 0.5
    return atan(p) * 57.29578


@cuda.jit
def _run_gpu(arr, cellsize_x_arr, cellsize_y_arr, out):
    i, j = cuda.grid(2)
    di = 1
    dj = 1
    if (i - di >= 0 and i + di < out.shape[0] and
            j - dj >= 0 and j + dj < out.shape[1]):
        out[i, j] = _gpu(arr[i - di:i + di + 1, j - dj:j + dj + 1],
                         cellsize_x_arr,
                         cellsize_y_arr)

# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    arr = (rng.random((20, 24)) * 50).astype(np.float32)
    cx = np.array([2.0], dtype=np.float32)
    cy = np.array([3.0], dtype=np.float32)
    out = np.full((20, 24), np.nan, dtype=np.float32)
    return [arr, cx, cy, out]


def reference(arr, cx, cy, out):
    a = arr.astype(np.float64)
    A, B, C = a[2:, :-2], a[2:, 1:-1], a[2:, 2:]
    D, F = a[1:-1, :-2], a[1:-1, 2:]
    G, H, I = a[:-2, :-2], a[:-2, 1:-1], a[:-2, 2:]
    dzdx = ((C + 2 * F + I) - (A + 2 * D + G)) / (8 * float(cx[0]))
    dzdy = ((G + 2 * H + I) - (A + 2 * B + C)) / (8 * float(cy[0]))
    out[1:-1, 1:-1] = np.arctan(np.sqrt(dzdx * dzdx + dzdy * dzdy)) * 57.29578
    return {"out": out}


CASE = dict(kernel="_run_gpu", griddim=(3, 3), blockdim=(8, 8), args=["arr", "cx", "cy", "out"], outputs=["out"],
            rtol=1e-5, atol=1e-5)
