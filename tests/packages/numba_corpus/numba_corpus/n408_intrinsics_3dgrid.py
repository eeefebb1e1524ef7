# =============================================================================
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_intrinsics.py,
#          kernel `foo` (nested in TestCudaIntrinsic.test_3dgrid, dedented)
#          https://github.com/NVIDIA/numba-cuda/blob/124e6d050a7427ddac9cfeb8a2a395b8179ef906/numba_cuda/numba/cuda/tests/cudapy/test_intrinsics.py
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda tests (tests)
# What   : cuda.grid(3) and cuda.gridsize(3) on a 3x3x3 grid of 3x3x3 blocks.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda, int64


@cuda.jit
def foo(out):
    x, y, z = cuda.grid(3)
    a, b, c = cuda.gridsize(3)
    out[x, y, z] = a * b * c
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda, int64


@cuda.jit
def foo(out):
    x, y, z = cuda.grid(3)
    a, b, c = cuda.gridsize(3)
    out[x, y, z] = a * b * c


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    return [np.zeros(9**3, dtype=np.int32).reshape(9, 9, 9)]


def reference(out):
    return {"out": np.full((9, 9, 9), 9**3, np.int32)}


CASE = dict(kernel="foo", griddim=(3, 3, 3), blockdim=(3, 3, 3), args=["out"], outputs=["out"])
