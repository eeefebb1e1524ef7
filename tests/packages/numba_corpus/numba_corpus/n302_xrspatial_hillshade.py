# =============================================================================
# Source : makepath/xarray-spatial, xrspatial/hillshade.py, kernel `_gpu_calc_numba`
#          https://github.com/makepath/xarray-spatial/blob/5f6238f80fceb39740f975bc35cb6d93f6255c83/xrspatial/hillshade.py
# License: MIT
# Project: xarray-spatial (real)
# What   : hillshade illumination of a DEM (sqrt/atan/atan2/sin/cos; a local named `len` shadows the builtin).
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
import math

from numba import cuda


@cuda.jit
def _gpu_calc_numba(
    data,
    output,
    sin_altituderad,
    cos_altituderad,
    azimuthrad
):

    i, j = cuda.grid(2)
    if i > 0 and i < data.shape[0]-1 and j > 0 and j < data.shape[1] - 1:
        x = (data[i+1, j]-data[i-1, j])/2
        y = (data[i, j+1]-data[i, j-1])/2

        len = math.sqrt(x*x + y*y)
        slope = 1.57079632679 - math.atan(len)
        aspect = (azimuthrad - 1.57079632679) - math.atan2(-x, y)

        sin_slope = math.sin(slope)
        sin_part = sin_altituderad * sin_slope

        cos_aspect = math.cos(aspect)
        cos_slope = math.cos(slope)
        cos_part = cos_altituderad * cos_slope * cos_aspect

        res = sin_part + cos_part
        output[i, j] = (res + 1) * 0.5
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
import math

from hybrid_runtime import cuda


@cuda.jit
def _gpu_calc_numba(
    data,
    output,
    sin_altituderad,
    cos_altituderad,
    azimuthrad
):

    i, j = cuda.grid(2)
    if i > 0 and i < data.shape[0]-1 and j > 0 and j < data.shape[1] - 1:
        x = (data[i+1, j]-data[i-1, j])/2
        y = (data[i, j+1]-data[i, j-1])/2

        len = math.sqrt(x*x + y*y)
        slope = 1.57079632679 - math.atan(len)
        aspect = (azimuthrad - 1.57079632679) - math.atan2(-x, y)

        sin_slope = math.sin(slope)
        sin_part = sin_altituderad * sin_slope

        cos_aspect = math.cos(aspect)
        cos_slope = math.cos(slope)
        cos_part = cos_altituderad * cos_slope * cos_aspect

        res = sin_part + cos_part
        output[i, j] = (res + 1) * 0.5

# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    data = (rng.random((40, 36)) * 20).astype(np.float32)
    output = np.full((40, 36), np.nan, dtype=np.float32)
    altituderad = 25 * np.pi / 180.
    azimuth = 225
    return [data, output, float(np.sin(altituderad)), float(np.cos(altituderad)),
            float((360.0 - azimuth) * np.pi / 180.)]


def reference(data, output, sin_alt, cos_alt, az):
    d = data.astype(np.float64)
    x = (d[2:, 1:-1] - d[:-2, 1:-1]) / 2
    y = (d[1:-1, 2:] - d[1:-1, :-2]) / 2
    slope = 1.57079632679 - np.arctan(np.sqrt(x * x + y * y))
    aspect = (az - 1.57079632679) - np.arctan2(-x, y)
    res = sin_alt * np.sin(slope) + cos_alt * np.cos(slope) * np.cos(aspect)
    output[1:-1, 1:-1] = (res + 1) * 0.5
    return {"output": output}


CASE = dict(kernel="_gpu_calc_numba", griddim=(2, 2), blockdim=(32, 32),
            args=["data", "output", "sin_alt", "cos_alt", "az"], outputs=["output"], rtol=1e-5, atol=1e-6)
