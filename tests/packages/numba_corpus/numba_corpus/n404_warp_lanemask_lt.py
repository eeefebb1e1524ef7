# =============================================================================
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_warp_ops.py,
#          kernel `use_lanemask_lt` (nested in TestCudaWarpOperations.test_lanemask_lt, dedented)
#          https://github.com/NVIDIA/numba-cuda/blob/124e6d050a7427ddac9cfeb8a2a395b8179ef906/numba_cuda/numba/cuda/tests/cudapy/test_warp_ops.py
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda tests (tests)
# What   : cuda.lanemask_lt() per lane of one warp.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda, int32, int64, float32, float64


@cuda.jit
def use_lanemask_lt(x):
    i = cuda.grid(1)
    x[i] = cuda.lanemask_lt()
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda, int32, int64, float32, float64


@cuda.jit
def use_lanemask_lt(x):
    i = cuda.grid(1)
    x[i] = cuda.lanemask_lt()


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    return [np.zeros(32, dtype=np.uint32)]


def reference(x):
    return {"x": np.asarray([(2**i) - 1 for i in range(32)], dtype=np.uint32)}


CASE = dict(kernel="use_lanemask_lt", griddim=1, blockdim=32, args=["x"], outputs=["x"])
