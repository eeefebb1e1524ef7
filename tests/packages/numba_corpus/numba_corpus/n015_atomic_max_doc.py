# =============================================================================
# Source : NVIDIA/numba-cuda, docs/source/user/intrinsics.rst ("Example"), kernels `max_example`
#          and `max_example_3d` (old corpus k008)
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/docs/source/user/intrinsics.rst
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda docs (docs)
# What   : cuda.atomic.max into result[0] (1-D) and into result[0, 1, 2] with a tuple index from a
#          cuda.grid(3) kernel (3-D), float64.
# Port   : import line only (host lines between and after the two kernels dropped)
# =============================================================================

ORIGINAL = r'''
from numba import cuda
import numpy as np

@cuda.jit
def max_example(result, values):
    """Find the maximum value in values and store in result[0]"""
    tid = cuda.threadIdx.x
    bid = cuda.blockIdx.x
    bdim = cuda.blockDim.x
    i = (bid * bdim) + tid
    cuda.atomic.max(result, 0, values[i])


@cuda.jit
def max_example_3d(result, values):
    """
    Find the maximum value in values and store in result[0].
    Both result and values are 3d arrays.
    """
    i, j, k = cuda.grid(3)
    # Atomically store to result[0,1,2] from values[i, j, k]
    cuda.atomic.max(result, (0, 1, 2), values[i, j, k])
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda
import numpy as np

@cuda.jit
def max_example(result, values):
    """Find the maximum value in values and store in result[0]"""
    tid = cuda.threadIdx.x
    bid = cuda.blockIdx.x
    bdim = cuda.blockDim.x
    i = (bid * bdim) + tid
    cuda.atomic.max(result, 0, values[i])


@cuda.jit
def max_example_3d(result, values):
    """
    Find the maximum value in values and store in result[0].
    Both result and values are 3d arrays.
    """
    i, j, k = cuda.grid(3)
    # Atomically store to result[0,1,2] from values[i, j, k]
    cuda.atomic.max(result, (0, 1, 2), values[i, j, k])


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
def make_args(rng):
    # the doc's data: arr = np.random.rand(16384); arr = np.random.rand(1000).reshape(10,10,10)
    return [np.zeros(1, dtype=np.float64), rng.random(16384),
            np.zeros((3, 3, 3), dtype=np.float64), rng.random(1000).reshape(10, 10, 10)]


def reference(result, arr, result3, arr3):
    result3 = result3.copy()
    result3[0, 1, 2] = arr3.max()
    return {"result": np.array([arr.max()]), "result3": result3}


def run(result, arr, result3, arr3):
    # the doc's launches
    max_example[256, 64](result, arr)
    max_example_3d[(2, 2, 2), (5, 5, 5)](result3, arr3)


CASE = dict(kernel="max_example", griddim=256, blockdim=64, args=["result", "arr", "result3", "arr3"],
            outputs=["result", "result3"])
