# =============================================================================
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_atomics.py,
#          kernel `kernel` (nested in TestCudaAtomics.test_atomic_max_returns_old_nan_val, dedented)
#          https://github.com/NVIDIA/numba-cuda/blob/124e6d050a7427ddac9cfeb8a2a395b8179ef906/numba_cuda/numba/cuda/tests/cudapy/test_atomics.py
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda tests (tests)
# What   : cuda.atomic.max(x, 0, np.nan) on float32 returns the old value and leaves it (NaN value ignored).
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda, uint32, uint64, float32, float64


@cuda.jit
def kernel(x):
    x[1] = cuda.atomic.max(x, 0, np.nan)
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda, uint32, uint64, float32, float64


@cuda.jit
def kernel(x):
    x[1] = cuda.atomic.max(x, 0, np.nan)


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    x = np.zeros(2, dtype=np.float32)
    x[0] = 10
    return [x]


def reference(x):
    return {"x": np.array([10, 10], np.float32)}


CASE = dict(kernel="kernel", griddim=1, blockdim=1, args=["x"], outputs=["x"])
