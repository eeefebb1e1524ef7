# =============================================================================
# Source : holoviz/datashader, datashader/transfer_functions/_cuda_utils.py, kernel `masked_clip_2d_kernel`,
#          device functions `cuda_atomic_nanmin`, `cuda_atomic_nanmax` (numba-version-gated definitions)
#          https://github.com/holoviz/datashader/blob/b7ac59c5ad20412edbf9b12ee9dc6ff62d563f01/datashader/transfer_functions/_cuda_utils.py
# License: BSD-3-Clause (datashader)
# Project: datashader (real)
# What   : clip unmasked cells of a 2-D array into [lower, upper] with atomic max/min; device fns chosen by numba.__version__.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from packaging.version import Version

import numba

from numba import cuda


# Behaviour of numba.cuda.atomic.max/min changed in 0.50 so as to behave as per
# np.nanmax/np.nanmin
if Version(numba.__version__) >= Version("0.51.0"):
    @cuda.jit(device=True)
    def cuda_atomic_nanmin(ary, idx, val):
        return cuda.atomic.nanmin(ary, idx, val)
    @cuda.jit(device=True)
    def cuda_atomic_nanmax(ary, idx, val):
        return cuda.atomic.nanmax(ary, idx, val)
elif Version(numba.__version__) <= Version("0.49.1"):
    @cuda.jit(device=True)
    def cuda_atomic_nanmin(ary, idx, val):
        return cuda.atomic.min(ary, idx, val)
    @cuda.jit(device=True)
    def cuda_atomic_nanmax(ary, idx, val):
        return cuda.atomic.max(ary, idx, val)
else:
    raise ImportError("Datashader's CUDA support requires numba!=0.50.0")


@cuda.jit
def masked_clip_2d_kernel(data, mask, lower, upper):
    i, j = cuda.grid(2)
    maxi, maxj = data.shape
    if i >= 0 and i < maxi and j >= 0 and j < maxj and not mask[i, j]:
        cuda_atomic_nanmax(data, (i, j), lower)
        cuda_atomic_nanmin(data, (i, j), upper)
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from packaging.version import Version

import hybrid_runtime as numba

from hybrid_runtime import cuda


# Behaviour of numba.cuda.atomic.max/min changed in 0.50 so as to behave as per
# np.nanmax/np.nanmin
if Version(numba.__version__) >= Version("0.51.0"):
    @cuda.jit(device=True)
    def cuda_atomic_nanmin(ary, idx, val):
        return cuda.atomic.nanmin(ary, idx, val)
    @cuda.jit(device=True)
    def cuda_atomic_nanmax(ary, idx, val):
        return cuda.atomic.nanmax(ary, idx, val)
elif Version(numba.__version__) <= Version("0.49.1"):
    @cuda.jit(device=True)
    def cuda_atomic_nanmin(ary, idx, val):
        return cuda.atomic.min(ary, idx, val)
    @cuda.jit(device=True)
    def cuda_atomic_nanmax(ary, idx, val):
        return cuda.atomic.max(ary, idx, val)
else:
    raise ImportError("Datashader's CUDA support requires numba!=0.50.0")


@cuda.jit
def masked_clip_2d_kernel(data, mask, lower, upper):
    i, j = cuda.grid(2)
    maxi, maxj = data.shape
    if i >= 0 and i < maxi and j >= 0 and j < maxj and not mask[i, j]:
        cuda_atomic_nanmax(data, (i, j), lower)
        cuda_atomic_nanmin(data, (i, j), upper)


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    data = rng.uniform(-3.0, 3.0, (20, 30))
    mask = rng.random((20, 30)) < 0.3
    data[mask & (rng.random((20, 30)) < 0.5)] = np.nan   # masked cells are left alone, NaN or not
    return [data, mask, -1.0, 1.5]


def reference(data, mask, lower, upper):
    want = data.copy()
    want[~mask] = np.clip(data[~mask], lower, upper)
    return {"data": want}


CASE = dict(kernel="masked_clip_2d_kernel", griddim=(2, 2), blockdim=(16, 16), args=["data", "mask", "lower", "upper"],
            outputs=["data"])
