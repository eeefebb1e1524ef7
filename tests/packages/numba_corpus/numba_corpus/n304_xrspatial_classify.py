# =============================================================================
# Source : makepath/xarray-spatial, xrspatial/classify.py, kernels `_run_gpu_binary`, `_run_gpu_bin`,
#          device functions `_gpu_binary`, `_gpu_bin`
#          https://github.com/makepath/xarray-spatial/blob/5f6238f80fceb39740f975bc35cb6d93f6255c83/xrspatial/classify.py
# License: MIT
# Project: xarray-spatial (real)
# What   : raster binarize (membership in a value set) and reclassify (bin lookup); `nb.cuda.jit`,
#          `for v in values` over an array, cmath.isfinite, np.nan returned from a device function.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
import cmath

import numba as nb
import numpy as np


@nb.cuda.jit(device=True)
def _gpu_binary(val, values):
    for v in values:
        if val == v:
            return 1
    return 0


@nb.cuda.jit
def _run_gpu_binary(data, values, out):
    i, j = nb.cuda.grid(2)
    if i >= 0 and i < out.shape[0] and j >= 0 and j < out.shape[1]:
        if cmath.isfinite(data[i, j]):
            out[i, j] = _gpu_binary(data[i, j], values)


@nb.cuda.jit(device=True)
def _gpu_bin(data, bins, new_values):
    nbins = len(bins)
    val = data[0, 0]
    val_bin = -1

    # find bin
    for b in range(0, nbins):

        # first bin
        if b == 0:
            if val <= bins[b]:
                val_bin = b
                break
        else:
            if val > bins[b - 1] and val <= bins[b]:
                val_bin = b
                break

    if val_bin > -1:
        out = new_values[val_bin]
    else:
        out = np.nan

    return out


@nb.cuda.jit
def _run_gpu_bin(data, bins, new_values, out):
    i, j = nb.cuda.grid(2)
    if (i >= 0 and i < out.shape[0] and j >= 0 and j < out.shape[1]):
        out[i, j] = _gpu_bin(data[i:i+1, j:j+1], bins, new_values)
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
import cmath

import hybrid_runtime as nb
import numpy as np


@nb.cuda.jit(device=True)
def _gpu_binary(val, values):
    for v in values:
        if val == v:
            return 1
    return 0


@nb.cuda.jit
def _run_gpu_binary(data, values, out):
    i, j = nb.cuda.grid(2)
    if i >= 0 and i < out.shape[0] and j >= 0 and j < out.shape[1]:
        if cmath.isfinite(data[i, j]):
            out[i, j] = _gpu_binary(data[i, j], values)


@nb.cuda.jit(device=True)
def _gpu_bin(data, bins, new_values):
    nbins = len(bins)
    val = data[0, 0]
    val_bin = -1

    # find bin
    for b in range(0, nbins):

        # first bin
        if b == 0:
            if val <= bins[b]:
                val_bin = b
                break
        else:
            if val > bins[b - 1] and val <= bins[b]:
                val_bin = b
                break

    if val_bin > -1:
        out = new_values[val_bin]
    else:
        out = np.nan

    return out


@nb.cuda.jit
def _run_gpu_bin(data, bins, new_values, out):
    i, j = nb.cuda.grid(2)
    if (i >= 0 and i < out.shape[0] and j >= 0 and j < out.shape[1]):
        out[i, j] = _gpu_bin(data[i:i+1, j:j+1], bins, new_values)

# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    data = rng.integers(0, 10, (16, 20)).astype(np.float32)
    data[3, 4] = np.nan
    data[7, 1] = np.inf
    values = np.array([1.0, 4.0, 7.0], dtype=np.float32)
    out_binary = np.full((16, 20), np.nan, dtype=np.float32)
    bins = np.array([2.0, 5.0, 8.0], dtype=np.float32)
    new_values = np.array([10.0, 20.0, 30.0], dtype=np.float32)
    out_bin = np.full((16, 20), np.nan, dtype=np.float32)
    return [data, values, out_binary, bins, new_values, out_bin]


def reference(data, values, out_binary, bins, new_values, out_bin):
    fin = np.isfinite(data)
    out_binary[fin] = np.isin(data[fin], values).astype(np.float32)
    idx = np.searchsorted(bins, data, side="left")  # first b with val <= bins[b]
    ok = (idx < len(bins)) & ~np.isnan(data)
    out_bin[:] = np.nan
    out_bin[ok] = new_values[idx[ok]]
    return {"out_binary": out_binary, "out_bin": out_bin}


def run(data, values, out_binary, bins, new_values, out_bin):
    _run_gpu_binary[(2, 3), (8, 8)](data, values, out_binary)
    _run_gpu_bin[(2, 3), (8, 8)](data, bins, new_values, out_bin)


CASE = dict(kernel="_run_gpu_binary", args=["data", "values", "out_binary", "bins", "new_values", "out_bin"],
            outputs=["out_binary", "out_bin"])
