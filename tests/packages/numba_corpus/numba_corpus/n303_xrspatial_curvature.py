# =============================================================================
# Source : makepath/xarray-spatial, xrspatial/curvature.py, kernel `_run_gpu`, device function `_gpu`
#          https://github.com/makepath/xarray-spatial/blob/5f6238f80fceb39740f975bc35cb6d93f6255c83/xrspatial/curvature.py
# License: MIT
# Project: xarray-spatial (real)
# What   : surface curvature of a DEM from a 3x3 window slice and a 1-element cellsize array.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda


@cuda.jit(device=True)
def _gpu(arr, cellsize):
    d = (arr[1, 0] + arr[1, 2]) / 2 - arr[1, 1]
    e = (arr[0, 1] + arr[2, 1]) / 2 - arr[1, 1]
    curv = -2 * (d + e) * 100 / (cellsize[0] * cellsize[0])
    return curv


@cuda.jit
def _run_gpu(arr, cellsize, out):
    i, j = cuda.grid(2)
    di = 1
    dj = 1
    if (i - di >= 0 and i + di <= out.shape[0] - 1 and
            j - dj >= 0 and j + dj <= out.shape[1] - 1):
        out[i, j] = _gpu(arr[i - di:i + di + 1, j - dj:j + dj + 1], cellsize)
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda


@cuda.jit(device=True)
def _gpu(arr, cellsize):
    d = (arr[1, 0] + arr[1, 2]) / 2 - arr[1, 1]
    e = (arr[0, 1] + arr[2, 1]) / 2 - arr[1, 1]
    curv = -2 * (d + e) * 100 / (cellsize[0] * cellsize[0])
    return curv


@cuda.jit
def _run_gpu(arr, cellsize, out):
    i, j = cuda.grid(2)
    di = 1
    dj = 1
    if (i - di >= 0 and i + di <= out.shape[0] - 1 and
            j - dj >= 0 and j + dj <= out.shape[1] - 1):
        out[i, j] = _gpu(arr[i - di:i + di + 1, j - dj:j + dj + 1], cellsize)

# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    arr = (rng.random((18, 22)) * 30).astype(np.float32)
    cellsize = np.array([2.5], dtype=np.float32)
    out = np.full((18, 22), np.nan, dtype=np.float32)
    return [arr, cellsize, out]


def reference(arr, cellsize, out):
    a = arr.astype(np.float64)
    c = a[1:-1, 1:-1]
    d = (a[1:-1, :-2] + a[1:-1, 2:]) / 2 - c
    e = (a[:-2, 1:-1] + a[2:, 1:-1]) / 2 - c
    out[1:-1, 1:-1] = -2 * (d + e) * 100 / (float(cellsize[0]) ** 2)
    return {"out": out}


CASE = dict(kernel="_run_gpu", griddim=(3, 3), blockdim=(8, 8), args=["arr", "cellsize", "out"], outputs=["out"],
            rtol=1e-5, atol=1e-3)
