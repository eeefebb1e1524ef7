# =============================================================================
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_warp_ops.py,
#          kernel `use_activemask` (nested in TestCudaWarpOperations.test_activemask, dedented)
#          https://github.com/NVIDIA/numba-cuda/blob/124e6d050a7427ddac9cfeb8a2a395b8179ef906/numba_cuda/numba/cuda/tests/cudapy/test_warp_ops.py
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda tests (tests)
# What   : cuda.activemask() in the two branches of a divergent if (even / odd lanes).
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda, int32, int64, float32, float64


@cuda.jit
def use_activemask(x):
    i = cuda.grid(1)
    if (i % 2) == 0:
        # Even numbered threads fill in even numbered array entries
        # with binary "...01010101"
        x[i] = cuda.activemask()
    else:
        # Odd numbered threads fill in odd numbered array entries
        # with binary "...10101010"
        x[i] = cuda.activemask()
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda, int32, int64, float32, float64


@cuda.jit
def use_activemask(x):
    i = cuda.grid(1)
    if (i % 2) == 0:
        # Even numbered threads fill in even numbered array entries
        # with binary "...01010101"
        x[i] = cuda.activemask()
    else:
        # Odd numbered threads fill in odd numbered array entries
        # with binary "...10101010"
        x[i] = cuda.activemask()


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    return [np.zeros(32, dtype=np.uint32)]


def reference(x):
    return {"x": np.tile(np.array((0x55555555, 0xAAAAAAAA), np.uint32), 16)}


CASE = dict(kernel="use_activemask", griddim=1, blockdim=32, args=["x"], outputs=["x"])
