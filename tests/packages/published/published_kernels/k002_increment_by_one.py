# =============================================================================
# 002_increment_by_one.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA/numba-cuda, docs/source/user/kernels.rst ("Thread positioning"),
#          kernel `increment_by_one` (explicit threadIdx/blockIdx/blockDim version)
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/docs/source/user/kernels.rst
# License: BSD-2-Clause (numba-cuda)
# What   : in-place an_array[pos] += 1 with a manually flattened index and .size guard.
# Port   : spelling only -- YES
# =============================================================================
# Original text: docs/source/user/kernels.rst lines 155-166 @ b18b944b2f88 (dedented)

ORIGINAL = r'''
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

# ---- PORT --------------------------------------------------------------------
import numpy as np
from hybrid_runtime import kernel, gpu, Array, f64


@kernel
def increment_by_one(an_array: Array[f64]):
    # Thread id in a 1D block
    tx = gpu.thread_idx_x()
    # Block id in a 1D grid
    ty = gpu.block_idx_x()
    # Block width, i.e. number of threads per block
    bw = gpu.block_dim_x()
    # Compute flattened index inside the array
    pos = tx + ty * bw
    if pos < an_array.size:  # Check array boundaries
        an_array[pos] += 1


# ---- REFERENCE ---------------------------------------------------------------
N = 1000


def make_args(rng):
    return [rng.random(N)]


def reference(an_array):
    return {"an_array": an_array + 1.0}


CASE = dict(
    # docs: threadsperblock = 32; blockspergrid = (size + 31) // 32
    threads=32, blocks=(N + 31) // 32, shared_bytes=0,
    args=["an_array"], outputs=["an_array"],
    rtol=0.0, atol=0.0,
    note="In-place update; reference must be computed on a copy made before launch.",
)
