# =============================================================================
# Source : NVIDIA/numba-cuda, docs/source/user/kernels.rst ("Absolute positions"),
#          kernel `increment_a_2D_array` (old corpus k003)
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/docs/source/user/kernels.rst
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda docs (docs)
# What   : 2-D in-place increment with x, y = cuda.grid(2) and a shape guard.
# Port   : import line only (the rst snippet shows no import; `from numba import cuda` added as in n001)
# =============================================================================

ORIGINAL = r'''
from numba import cuda


@cuda.jit
def increment_a_2D_array(an_array):
    x, y = cuda.grid(2)
    if x < an_array.shape[0] and y < an_array.shape[1]:
       an_array[x, y] += 1
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda


@cuda.jit
def increment_a_2D_array(an_array):
    x, y = cuda.grid(2)
    if x < an_array.shape[0] and y < an_array.shape[1]:
       an_array[x, y] += 1


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import math  # noqa: E402

import numpy as np  # noqa: E402


def make_args(rng):
    return [rng.standard_normal((37, 21))]


def reference(an_array):
    return {"an_array": an_array + 1}


def run(an_array):
    # the launch shown right after the kernel in kernels.rst
    threadsperblock = (16, 16)
    blockspergrid_x = math.ceil(an_array.shape[0] / threadsperblock[0])
    blockspergrid_y = math.ceil(an_array.shape[1] / threadsperblock[1])
    blockspergrid = (blockspergrid_x, blockspergrid_y)
    increment_a_2D_array[blockspergrid, threadsperblock](an_array)


CASE = dict(kernel="increment_a_2D_array", griddim=(3, 2), blockdim=(16, 16), args=["an_array"],
            outputs=["an_array"])
