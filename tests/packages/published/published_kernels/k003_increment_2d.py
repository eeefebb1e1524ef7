# =============================================================================
# 003_increment_2d.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA/numba-cuda, docs/source/user/kernels.rst ("Absolute positions"),
#          kernel `increment_a_2D_array`
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/docs/source/user/kernels.rst
# License: BSD-2-Clause (numba-cuda)
# What   : 2-D in-place increment with cuda.grid(2) and a shape guard.
# Port   : spelling only -- YES (cuda.grid(2) expanded to the per-axis gpu.* intrinsics)
# =============================================================================
# Original text: docs/source/user/kernels.rst lines 242-246 @ b18b944b2f88 (dedented)

ORIGINAL = r'''
@cuda.jit
def increment_a_2D_array(an_array):
    x, y = cuda.grid(2)
    if x < an_array.shape[0] and y < an_array.shape[1]:
       an_array[x, y] += 1
'''

# ---- PORT --------------------------------------------------------------------
import math
import numpy as np
from hybrid_runtime import kernel, gpu, Array, f64


@kernel
def increment_a_2D_array(an_array: Array[f64, 2]):
    x = gpu.block_idx_x() * gpu.block_dim_x() + gpu.thread_idx_x()   # cuda.grid(2)[0]
    y = gpu.block_idx_y() * gpu.block_dim_y() + gpu.thread_idx_y()   # cuda.grid(2)[1]
    if x < an_array.shape[0] and y < an_array.shape[1]:
        an_array[x, y] += 1


# ---- REFERENCE ---------------------------------------------------------------
SHAPE = (37, 50)          # deliberately not a multiple of 16


def make_args(rng):
    return [rng.random(SHAPE)]


def reference(an_array):
    return {"an_array": an_array + 1.0}


CASE = dict(
    # docs: threadsperblock = (16, 16); blockspergrid = ceil(shape / 16) per axis
    threads=(16, 16),
    blocks=(math.ceil(SHAPE[0] / 16), math.ceil(SHAPE[1] / 16)),
    shared_bytes=0,
    args=["an_array"], outputs=["an_array"],
    rtol=0.0, atol=0.0,
    note="x indexes axis 0 (rows) -- non-coalesced but what the docs show.",
)
