# =============================================================================
# Source : makepath/xarray-spatial, xrspatial/focal.py, kernel `_mean_gpu`
#          https://github.com/makepath/xarray-spatial/blob/5f6238f80fceb39740f975bc35cb6d93f6255c83/xrspatial/focal.py
# License: MIT
# Project: xarray-spatial (real)
# What   : 3x3 NaN-aware focal mean with an exclude list (chained comparisons, early return, min/max builtins).
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from math import isnan
import math

import numba as nb
import numpy as np

from numba import cuda, prange


@cuda.jit
def _mean_gpu(data, excludes, out):
    # 1. Get coordinates: x is Column, y is Row
    x, y = cuda.grid(2)

    rows, cols = data.shape

    # 2. BOUNDS CHECK FIRST
    # Strictly ensure this thread is inside the image before touching any memory.
    if 0 <= x < cols and 0 <= y < rows:

        # Safe to read the center pixel now
        val = data[y, x]

        # 3. Check Excludes (Center pixel only)
        # Matches numpy behavior: if center is excluded, don't calculate mean.
        is_excluded = False
        for ex in excludes:
            if (val == ex) or (isnan(val) and isnan(ex)):
                is_excluded = True
                break

        if is_excluded:
            out[y, x] = val
            return

        # 4. Define Window Bounds (The Safety Check)
        # We clamp the window edges to the image borders here.
        # This guarantees 'r' and 'c' in the loops below are always valid.
        left = max(x - 1, 0)
        right = min(x + 2, cols)      # range is exclusive, so +2 covers neighbor x+1
        bottom = max(y - 1, 0)
        top = min(y + 2, rows)

        sum_val = 0.0
        num = 0

        # 5. Iterate Window
        for r in range(bottom, top):
            for c in range(left, right):
                neighbor_val = data[r, c]

                # Standard nanmean behavior: skip NaNs, no exclude check on neighbors
                if not isnan(neighbor_val):
                    sum_val += neighbor_val
                    num += 1

        # 6. Write Output
        if num > 0:
            out[y, x] = sum_val / num
        else:
            # Fallback: If mean cannot be calculated (e.g. all neighbors are NaN),
            # keep the original value as requested.
            out[y, x] = val
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from math import isnan
import math

import hybrid_runtime as nb
import numpy as np

from hybrid_runtime import cuda, prange


@cuda.jit
def _mean_gpu(data, excludes, out):
    # 1. Get coordinates: x is Column, y is Row
    x, y = cuda.grid(2)

    rows, cols = data.shape

    # 2. BOUNDS CHECK FIRST
    # Strictly ensure this thread is inside the image before touching any memory.
    if 0 <= x < cols and 0 <= y < rows:

        # Safe to read the center pixel now
        val = data[y, x]

        # 3. Check Excludes (Center pixel only)
        # Matches numpy behavior: if center is excluded, don't calculate mean.
        is_excluded = False
        for ex in excludes:
            if (val == ex) or (isnan(val) and isnan(ex)):
                is_excluded = True
                break

        if is_excluded:
            out[y, x] = val
            return

        # 4. Define Window Bounds (The Safety Check)
        # We clamp the window edges to the image borders here.
        # This guarantees 'r' and 'c' in the loops below are always valid.
        left = max(x - 1, 0)
        right = min(x + 2, cols)      # range is exclusive, so +2 covers neighbor x+1
        bottom = max(y - 1, 0)
        top = min(y + 2, rows)

        sum_val = 0.0
        num = 0

        # 5. Iterate Window
        for r in range(bottom, top):
            for c in range(left, right):
                neighbor_val = data[r, c]

                # Standard nanmean behavior: skip NaNs, no exclude check on neighbors
                if not isnan(neighbor_val):
                    sum_val += neighbor_val
                    num += 1

        # 6. Write Output
        if num > 0:
            out[y, x] = sum_val / num
        else:
            # Fallback: If mean cannot be calculated (e.g. all neighbors are NaN),
            # keep the original value as requested.
            out[y, x] = val

# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    data = rng.integers(0, 6, (14, 19)).astype(np.float32)
    data[2, 3] = np.nan
    data[8:11, 8:11] = np.nan
    excludes = np.array([5.0, np.nan], dtype=np.float32)
    out = np.zeros((14, 19), dtype=np.float32)
    return [data, excludes, out]


def reference(data, excludes, out):
    rows, cols = data.shape
    for y in range(rows):
        for x in range(cols):
            val = data[y, x]
            if val == 5.0 or np.isnan(val):
                out[y, x] = val
                continue
            w = data[max(y - 1, 0):min(y + 2, rows), max(x - 1, 0):min(x + 2, cols)].astype(np.float64)
            w = w[~np.isnan(w)]
            out[y, x] = w.mean() if w.size else val
    return {"out": out}


CASE = dict(kernel="_mean_gpu", griddim=(3, 2), blockdim=(8, 8), args=["data", "excludes", "out"], outputs=["out"],
            rtol=1e-6, atol=1e-6)
