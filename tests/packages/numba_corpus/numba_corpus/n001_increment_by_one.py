# =============================================================================
# Source : NVIDIA/numba-cuda, docs/source/user/kernels.rst ("Thread positioning"),
#          kernel `increment_by_one` (explicit threadIdx/blockIdx/blockDim version)
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/docs/source/user/kernels.rst
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda docs (docs)
# What   : in-place an_array[pos] += 1 with a manually flattened index and a .size guard.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda


@cuda.jit
def increment_by_one(an_array):
    # Thread id in a 1D block
    tx = cuda.threadIdx.x
    # Block id in a 1D grid
    ty = cuda.blockIdx.x
    # Block width, i.e. number of threads per block
    bw = cuda.blockDim.x
    # Compute flattened index inside the array
    pos = tx + ty * bw
    if pos < an_array.size:  # Check array boundaries
        an_array[pos] += 1
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda


@cuda.jit
def increment_by_one(an_array):
    # Thread id in a 1D block
    tx = cuda.threadIdx.x
    # Block id in a 1D grid
    ty = cuda.blockIdx.x
    # Block width, i.e. number of threads per block
    bw = cuda.blockDim.x
    # Compute flattened index inside the array
    pos = tx + ty * bw
    if pos < an_array.size:  # Check array boundaries
        an_array[pos] += 1


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    return [rng.standard_normal(1000).astype(np.float64)]


def reference(an_array):
    return {"an_array": an_array + 1}


CASE = dict(kernel="increment_by_one", griddim=4, blockdim=256, args=["an_array"], outputs=["an_array"])
