# =============================================================================
# Source : makepath/xarray-spatial, xrspatial/multispectral.py, kernels `_arvi_gpu`, `_evi_gpu`, `_savi_gpu`,
#          `_ebbi_gpu`
#          https://github.com/makepath/xarray-spatial/blob/5f6238f80fceb39740f975bc35cb6d93f6255c83/xrspatial/multispectral.py
# License: MIT
# Project: xarray-spatial (real)
# What   : vegetation / built-up indices per pixel; `nb.float32(1.0)` and `nb.int64(10)` casts, math.sqrt.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from math import sqrt

import numba as nb
import numpy as np
from numba import cuda


@cuda.jit
def _arvi_gpu(nir_data, red_data, blue_data, out):
    y, x = cuda.grid(2)
    if y < out.shape[0] and x < out.shape[1]:
        nir = nir_data[y, x]
        red = red_data[y, x]
        blue = blue_data[y, x]
        numerator = (nir - (2.0 * red) + blue)
        denominator = (nir + (2.0 * red) + blue)
        if denominator != 0.0:
            out[y, x] = numerator / denominator


@cuda.jit
def _evi_gpu(nir_data, red_data, blue_data, c1, c2, soil_factor, gain, out):
    y, x = cuda.grid(2)
    if y < out.shape[0] and x < out.shape[1]:
        nir = nir_data[y, x]
        red = red_data[y, x]
        blue = blue_data[y, x]
        numerator = nir - red
        denominator = nir + c1 * red - c2 * blue + soil_factor
        if denominator != 0.0:
            out[y, x] = gain * (numerator / denominator)


@cuda.jit
def _savi_gpu(nir_data, red_data, soil_factor, out):
    y, x = cuda.grid(2)
    if y < out.shape[0] and x < out.shape[1]:
        nir = nir_data[y, x]
        red = red_data[y, x]
        numerator = nir - red
        soma = nir + red + soil_factor
        denominator = soma * (nb.float32(1.0) + soil_factor)
        if denominator != 0.0:
            out[y, x] = numerator / denominator


@cuda.jit
def _ebbi_gpu(red_data, swir_data, tir_data, out):
    y, x = cuda.grid(2)
    if y < out.shape[0] and x < out.shape[1]:
        red = red_data[y, x]
        swir = swir_data[y, x]
        tir = tir_data[y, x]
        numerator = swir - red
        denominator = nb.int64(10) * sqrt(swir + tir)
        if denominator != 0.0:
            out[y, x] = numerator / denominator
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from math import sqrt

import hybrid_runtime as nb
import numpy as np
from hybrid_runtime import cuda


@cuda.jit
def _arvi_gpu(nir_data, red_data, blue_data, out):
    y, x = cuda.grid(2)
    if y < out.shape[0] and x < out.shape[1]:
        nir = nir_data[y, x]
        red = red_data[y, x]
        blue = blue_data[y, x]
        numerator = (nir - (2.0 * red) + blue)
        denominator = (nir + (2.0 * red) + blue)
        if denominator != 0.0:
            out[y, x] = numerator / denominator


@cuda.jit
def _evi_gpu(nir_data, red_data, blue_data, c1, c2, soil_factor, gain, out):
    y, x = cuda.grid(2)
    if y < out.shape[0] and x < out.shape[1]:
        nir = nir_data[y, x]
        red = red_data[y, x]
        blue = blue_data[y, x]
        numerator = nir - red
        denominator = nir + c1 * red - c2 * blue + soil_factor
        if denominator != 0.0:
            out[y, x] = gain * (numerator / denominator)


@cuda.jit
def _savi_gpu(nir_data, red_data, soil_factor, out):
    y, x = cuda.grid(2)
    if y < out.shape[0] and x < out.shape[1]:
        nir = nir_data[y, x]
        red = red_data[y, x]
        numerator = nir - red
        soma = nir + red + soil_factor
        denominator = soma * (nb.float32(1.0) + soil_factor)
        if denominator != 0.0:
            out[y, x] = numerator / denominator


@cuda.jit
def _ebbi_gpu(red_data, swir_data, tir_data, out):
    y, x = cuda.grid(2)
    if y < out.shape[0] and x < out.shape[1]:
        red = red_data[y, x]
        swir = swir_data[y, x]
        tir = tir_data[y, x]
        numerator = swir - red
        denominator = nb.int64(10) * sqrt(swir + tir)
        if denominator != 0.0:
            out[y, x] = numerator / denominator

# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    nir = (rng.random((12, 14)) * 100 + 1).astype(np.float32)
    red = (rng.random((12, 14)) * 100 + 1).astype(np.float32)
    blue = (rng.random((12, 14)) * 100 + 1).astype(np.float32)
    swir = (rng.random((12, 14)) * 100 + 1).astype(np.float32)
    tir = (rng.random((12, 14)) * 100 + 1).astype(np.float32)
    outs = [np.full((12, 14), np.nan, dtype=np.float32) for _ in range(4)]
    return [nir, red, blue, swir, tir] + outs


def reference(nir, red, blue, swir, tir, o_arvi, o_evi, o_savi, o_ebbi):
    n, r, b, s, t = (a.astype(np.float64) for a in (nir, red, blue, swir, tir))
    o_arvi[:] = (n - 2 * r + b) / (n + 2 * r + b)
    o_evi[:] = 2.5 * ((n - r) / (n + 6.0 * r - 7.5 * b + 1.0))
    sf = np.float32(0.5)
    o_savi[:] = (nir - red) / ((nir + red + sf) * (np.float32(1.0) + sf))
    o_ebbi[:] = (s - r) / (10 * np.sqrt(s + t))
    return {"o_arvi": o_arvi, "o_evi": o_evi, "o_savi": o_savi, "o_ebbi": o_ebbi}


def run(nir, red, blue, swir, tir, o_arvi, o_evi, o_savi, o_ebbi):
    g, b = (2, 2), (8, 8)
    _arvi_gpu[g, b](nir, red, blue, o_arvi)
    _evi_gpu[g, b](nir, red, blue, 6.0, 7.5, 1.0, 2.5, o_evi)
    _savi_gpu[g, b](nir, red, np.float32(0.5), o_savi)
    _ebbi_gpu[g, b](red, swir, tir, o_ebbi)


CASE = dict(kernel="_arvi_gpu", args=["nir", "red", "blue", "swir", "tir", "o_arvi", "o_evi", "o_savi", "o_ebbi"],
            outputs=["o_arvi", "o_evi", "o_savi", "o_ebbi"], rtol=2e-5, atol=1e-6)
