# =============================================================================
# Source : holoviz/datashader, datashader/transfer_functions/_cuda_utils.py, kernel `interp2d_kernel`
#          https://github.com/holoviz/datashader/blob/b7ac59c5ad20412edbf9b12ee9dc6ff62d563f01/datashader/transfer_functions/_cuda_utils.py
# License: BSD-3-Clause (datashader)
# Project: datashader (real)
# What   : np.interp over a 2-D array: NaN passthrough, left/right fill, binary search in `while True` with break.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from math import ceil, isnan

try:
    from math import nan
except ImportError:
    nan = float('nan')

from numba import cuda


@cuda.jit
def interp2d_kernel(x, xp, fp, left, right, output_y):
    i, j = cuda.grid(2)
    if i < x.shape[0] and j < x.shape[1]:
        xval = x[i, j]

        if isnan(xval):
            output_y[i, j] = nan
        elif xval < xp[0]:
            output_y[i, j] = left
        elif xval >= xp[-1]:
            output_y[i, j] = right
        else:
            # Find indices of xp that straddle xval
            upper_i = len(xp) - 1
            lower_i = 0
            while True:
                stop_i = 1 + (lower_i + upper_i) // 2
                if xp[stop_i] < xval:
                    lower_i = stop_i
                elif xp[stop_i - 1] > xval:
                    upper_i = stop_i - 1
                else:
                    break

            # Compute interpolate y value
            x0 = xp[stop_i - 1]
            x1 = xp[stop_i]
            y0 = fp[stop_i - 1]
            y1 = fp[stop_i]

            slope = (y1 - y0) / (x1 - x0)
            y_interp = y0 + slope * (xval - x0)

            # Update output
            output_y[i, j] = y_interp
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from math import ceil, isnan

try:
    from math import nan
except ImportError:
    nan = float('nan')

from hybrid_runtime import cuda


@cuda.jit
def interp2d_kernel(x, xp, fp, left, right, output_y):
    i, j = cuda.grid(2)
    if i < x.shape[0] and j < x.shape[1]:
        xval = x[i, j]

        if isnan(xval):
            output_y[i, j] = nan
        elif xval < xp[0]:
            output_y[i, j] = left
        elif xval >= xp[-1]:
            output_y[i, j] = right
        else:
            # Find indices of xp that straddle xval
            upper_i = len(xp) - 1
            lower_i = 0
            while True:
                stop_i = 1 + (lower_i + upper_i) // 2
                if xp[stop_i] < xval:
                    lower_i = stop_i
                elif xp[stop_i - 1] > xval:
                    upper_i = stop_i - 1
                else:
                    break

            # Compute interpolate y value
            x0 = xp[stop_i - 1]
            x1 = xp[stop_i]
            y0 = fp[stop_i - 1]
            y1 = fp[stop_i]

            slope = (y1 - y0) / (x1 - x0)
            y_interp = y0 + slope * (xval - x0)

            # Update output
            output_y[i, j] = y_interp


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    x = rng.uniform(-1.0, 11.0, (20, 24))
    x[rng.random((20, 24)) < 0.1] = np.nan
    xp = np.sort(rng.uniform(0.0, 10.0, 17))
    fp = rng.standard_normal(17)
    output_y = np.zeros((20, 24))
    return [x, xp, fp, -7.0, 9.0, output_y]


def reference(x, xp, fp, left, right, output_y):
    want = np.interp(x, xp, fp, left=left, right=right)
    want[np.isnan(x)] = np.nan
    return {"output_y": want}


CASE = dict(kernel="interp2d_kernel", griddim=(2, 2), blockdim=(16, 16), args=["x", "xp", "fp", "left", "right", "output_y"],
            outputs=["output_y"], rtol=1e-12, atol=1e-12)
