# =============================================================================
# Source : holoviz/datashader, datashader/transfer_functions/_cuda_utils.py, kernel `masked_clip_2d_kernel` (first CUDA version, 2019)
#          https://github.com/holoviz/datashader/blob/3670f6dbc7f4ed0ca00816336435290df70c6a9b/datashader/transfer_functions/_cuda_utils.py
# License: BSD-3-Clause (datashader)
# Project: datashader (real)
# What   : clip unmasked cells into [lower, upper] with cuda.atomic.max / cuda.atomic.min on a 2-D tuple index.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda


@cuda.jit
def masked_clip_2d_kernel(data, mask, lower, upper):
    i, j = cuda.grid(2)
    maxi, maxj = data.shape
    if i >= 0 and i < maxi and j >= 0 and j < maxj and not mask[i, j]:
        cuda.atomic.max(data, (i, j), lower)
        cuda.atomic.min(data, (i, j), upper)
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda


@cuda.jit
def masked_clip_2d_kernel(data, mask, lower, upper):
    i, j = cuda.grid(2)
    maxi, maxj = data.shape
    if i >= 0 and i < maxi and j >= 0 and j < maxj and not mask[i, j]:
        cuda.atomic.max(data, (i, j), lower)
        cuda.atomic.min(data, (i, j), upper)


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    data = rng.uniform(-3.0, 3.0, (20, 30))
    mask = rng.random((20, 30)) < 0.3
    return [data, mask, -1.0, 1.5]


def reference(data, mask, lower, upper):
    want = data.copy()
    want[~mask] = np.clip(data[~mask], lower, upper)
    return {"data": want}


CASE = dict(kernel="masked_clip_2d_kernel", griddim=(2, 2), blockdim=(16, 16), args=["data", "mask", "lower", "upper"],
            outputs=["data"])
