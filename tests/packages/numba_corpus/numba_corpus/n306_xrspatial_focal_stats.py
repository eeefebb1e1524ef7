# =============================================================================
# Source : makepath/xarray-spatial, xrspatial/focal.py, kernels `_focal_min_cuda`, `_focal_max_cuda`, `_focal_range_cuda`,
#          `_focal_std_cuda`
#          https://github.com/makepath/xarray-spatial/blob/5f6238f80fceb39740f975bc35cb6d93f6255c83/xrspatial/focal.py
# License: MIT
# Project: xarray-spatial (real)
# What   : masked focal min/max/range/std over a kernel footprint (math.inf init, chained compares, sqrt).
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
import math

from numba import cuda, prange


@cuda.jit
def _focal_min_cuda(data, kernel, out):
    i, j = cuda.grid(2)

    rows, cols = data.shape
    if i >= rows or j >= cols:
        return

    dr = kernel.shape[0] // 2
    dc = kernel.shape[1] // 2

    # Start with +inf so any real value replaces it
    m = math.inf
    found = False

    for k in range(kernel.shape[0]):
        for h in range(kernel.shape[1]):
            if kernel[k, h] == 0:
                continue  # mask says ignore

            ii = i + k - dr
            jj = j + h - dc

            if 0 <= ii < rows and 0 <= jj < cols:
                v = data[ii, jj]
                if (not found) or (v < m):
                    m = v
                    found = True

    # With your mask containing the center, found should be True.
    # But keep a safe fallback anyway.
    out[i, j] = m if found else data[i, j]


@cuda.jit
def _focal_max_cuda(data, kernel, out):
    i, j = cuda.grid(2)

    rows, cols = data.shape
    if i >= rows or j >= cols:
        return

    dr = kernel.shape[0] // 2
    dc = kernel.shape[1] // 2

    # Start with -inf so any real value replaces it
    m = -math.inf
    found = False

    for k in range(kernel.shape[0]):
        for h in range(kernel.shape[1]):
            w = kernel[k, h]
            if w == 0:
                continue  # mask says "ignore this neighbor"

            ii = i + k - dr
            jj = j + h - dc

            if 0 <= ii < rows and 0 <= jj < cols:
                v = data[ii, jj]
                if (not found) or (v > m):
                    m = v
                    found = True

    # With your mask containing the center (1), found should always be True.
    # But keep this for safety.
    out[i, j] = m if found else data[i, j]


@cuda.jit
def _focal_range_cuda(data, kernel, out):
    i, j = cuda.grid(2)

    rows, cols = data.shape
    if i >= rows or j >= cols:
        return

    dr = kernel.shape[0] // 2
    dc = kernel.shape[1] // 2

    mx = -math.inf
    mn = math.inf
    found = False

    for k in range(kernel.shape[0]):
        for h in range(kernel.shape[1]):
            if kernel[k, h] == 0:
                continue  # mask says ignore

            ii = i + k - dr
            jj = j + h - dc

            if 0 <= ii < rows and 0 <= jj < cols:
                v = data[ii, jj]
                if not found:
                    mx = v
                    mn = v
                    found = True
                else:
                    if v > mx:
                        mx = v
                    if v < mn:
                        mn = v

    out[i, j] = (mx - mn) if found else 0.0


@cuda.jit
def _focal_std_cuda(data, kernel, out):
    i, j = cuda.grid(2)

    rows, cols = data.shape
    if i >= rows or j >= cols:
        return

    dr = kernel.shape[0] // 2
    dc = kernel.shape[1] // 2

    w_sum = 0.0
    sum_wx = 0.0
    sum_wx2 = 0.0

    for k in range(kernel.shape[0]):
        for h in range(kernel.shape[1]):
            w = kernel[k, h]
            if w == 0:
                continue  # mask says ignore

            ii = i + k - dr
            jj = j + h - dc

            if 0 <= ii < rows and 0 <= jj < cols:
                x = data[ii, jj]
                w_sum += w
                sum_wx += w * x
                sum_wx2 += w * x * x

    # With your mask including the center, w_sum should be > 0. Guard anyway.
    if w_sum > 0.0:
        mean = sum_wx / w_sum
        var = (sum_wx2 / w_sum) - (mean * mean)

        # Numerical safety (tiny negative due to floating point)
        if var < 0.0:
            var = 0.0

        out[i, j] = math.sqrt(var)
    else:
        out[i, j] = 0.0
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
import math

from hybrid_runtime import cuda, prange


@cuda.jit
def _focal_min_cuda(data, kernel, out):
    i, j = cuda.grid(2)

    rows, cols = data.shape
    if i >= rows or j >= cols:
        return

    dr = kernel.shape[0] // 2
    dc = kernel.shape[1] // 2

    # Start with +inf so any real value replaces it
    m = math.inf
    found = False

    for k in range(kernel.shape[0]):
        for h in range(kernel.shape[1]):
            if kernel[k, h] == 0:
                continue  # mask says ignore

            ii = i + k - dr
            jj = j + h - dc

            if 0 <= ii < rows and 0 <= jj < cols:
                v = data[ii, jj]
                if (not found) or (v < m):
                    m = v
                    found = True

    # With your mask containing the center, found should be True.
    # But keep a safe fallback anyway.
    out[i, j] = m if found else data[i, j]


@cuda.jit
def _focal_max_cuda(data, kernel, out):
    i, j = cuda.grid(2)

    rows, cols = data.shape
    if i >= rows or j >= cols:
        return

    dr = kernel.shape[0] // 2
    dc = kernel.shape[1] // 2

    # Start with -inf so any real value replaces it
    m = -math.inf
    found = False

    for k in range(kernel.shape[0]):
        for h in range(kernel.shape[1]):
            w = kernel[k, h]
            if w == 0:
                continue  # mask says "ignore this neighbor"

            ii = i + k - dr
            jj = j + h - dc

            if 0 <= ii < rows and 0 <= jj < cols:
                v = data[ii, jj]
                if (not found) or (v > m):
                    m = v
                    found = True

    # With your mask containing the center (1), found should always be True.
    # But keep this for safety.
    out[i, j] = m if found else data[i, j]


@cuda.jit
def _focal_range_cuda(data, kernel, out):
    i, j = cuda.grid(2)

    rows, cols = data.shape
    if i >= rows or j >= cols:
        return

    dr = kernel.shape[0] // 2
    dc = kernel.shape[1] // 2

    mx = -math.inf
    mn = math.inf
    found = False

    for k in range(kernel.shape[0]):
        for h in range(kernel.shape[1]):
            if kernel[k, h] == 0:
                continue  # mask says ignore

            ii = i + k - dr
            jj = j + h - dc

            if 0 <= ii < rows and 0 <= jj < cols:
                v = data[ii, jj]
                if not found:
                    mx = v
                    mn = v
                    found = True
                else:
                    if v > mx:
                        mx = v
                    if v < mn:
                        mn = v

    out[i, j] = (mx - mn) if found else 0.0


@cuda.jit
def _focal_std_cuda(data, kernel, out):
    i, j = cuda.grid(2)

    rows, cols = data.shape
    if i >= rows or j >= cols:
        return

    dr = kernel.shape[0] // 2
    dc = kernel.shape[1] // 2

    w_sum = 0.0
    sum_wx = 0.0
    sum_wx2 = 0.0

    for k in range(kernel.shape[0]):
        for h in range(kernel.shape[1]):
            w = kernel[k, h]
            if w == 0:
                continue  # mask says ignore

            ii = i + k - dr
            jj = j + h - dc

            if 0 <= ii < rows and 0 <= jj < cols:
                x = data[ii, jj]
                w_sum += w
                sum_wx += w * x
                sum_wx2 += w * x * x

    # With your mask including the center, w_sum should be > 0. Guard anyway.
    if w_sum > 0.0:
        mean = sum_wx / w_sum
        var = (sum_wx2 / w_sum) - (mean * mean)

        # Numerical safety (tiny negative due to floating point)
        if var < 0.0:
            var = 0.0

        out[i, j] = math.sqrt(var)
    else:
        out[i, j] = 0.0

# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def _window_stats(data, kernel):
    rows, cols = data.shape
    kr, kc = kernel.shape
    dr, dc = kr // 2, kc // 2
    mn = np.zeros(data.shape)
    mx = np.zeros(data.shape)
    sd = np.zeros(data.shape)
    for i in range(rows):
        for j in range(cols):
            vals, ws = [], []
            for k in range(kr):
                for h in range(kc):
                    ii, jj = i + k - dr, j + h - dc
                    if kernel[k, h] != 0 and 0 <= ii < rows and 0 <= jj < cols:
                        vals.append(float(data[ii, jj]))
                        ws.append(float(kernel[k, h]))
            v, w = np.array(vals), np.array(ws)
            mn[i, j], mx[i, j] = v.min(), v.max()
            mean = (w * v).sum() / w.sum()
            sd[i, j] = np.sqrt(max((w * v * v).sum() / w.sum() - mean * mean, 0.0))
    return mn, mx, sd


def make_args(rng):
    data = (rng.random((13, 17)) * 10).astype(np.float32)
    kernel = np.array([[0, 1, 0], [1, 1, 1], [0, 1, 0]], dtype=np.float64)
    return [data, kernel] + [np.full((13, 17), np.nan, dtype=np.float32) for _ in range(4)]


def reference(data, kernel, out_min, out_max, out_range, out_std):
    mn, mx, sd = _window_stats(data, kernel)
    return {"out_min": mn, "out_max": mx, "out_range": mx - mn, "out_std": sd}


def run(data, kernel, out_min, out_max, out_range, out_std):
    griddim, blockdim = (2, 3), (8, 8)
    _focal_min_cuda[griddim, blockdim](data, kernel, out_min)
    _focal_max_cuda[griddim, blockdim](data, kernel, out_max)
    _focal_range_cuda[griddim, blockdim](data, kernel, out_range)
    _focal_std_cuda[griddim, blockdim](data, kernel, out_std)


CASE = dict(kernel="_focal_min_cuda", args=["data", "kernel", "out_min", "out_max", "out_range", "out_std"],
            outputs=["out_min", "out_max", "out_range", "out_std"], rtol=1e-5, atol=1e-4)
