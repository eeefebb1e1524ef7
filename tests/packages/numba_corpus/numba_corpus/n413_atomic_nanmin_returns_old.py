# =============================================================================
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_atomics.py,
#          kernel `kernel` (nested in TestCudaAtomics.test_atomic_nanmin_returns_old_nan_in_array, dedented)
#          https://github.com/NVIDIA/numba-cuda/blob/124e6d050a7427ddac9cfeb8a2a395b8179ef906/numba_cuda/numba/cuda/tests/cudapy/test_atomics.py
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda tests (tests)
# What   : cuda.atomic.nanmin on a float32 array holding NaN: returns NaN (the old value), stores 11.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda, uint32, uint64, float32, float64


@cuda.jit
def kernel(x):
    x[1] = cuda.atomic.nanmin(x, 0, 11)
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda, uint32, uint64, float32, float64


@cuda.jit
def kernel(x):
    x[1] = cuda.atomic.nanmin(x, 0, 11)


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    x = np.zeros(2, dtype=np.float32)
    x[0] = np.nan
    x[1] = np.nan
    return [x]


def reference(x):
    return {"x": np.array([11, np.nan], np.float32)}


CASE = dict(kernel="kernel", griddim=1, blockdim=1, args=["x"], outputs=["x"])
