# =============================================================================
# 026_grid3d_gridsize.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_intrinsics.py, kernel
#          `foo` in test_3dgrid
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/numba_cuda/numba/cuda/tests/cudapy/test_intrinsics.py
# License: BSD-2-Clause (numba-cuda)
# What   : 3-D grid of 3-D blocks; each thread writes the product of the three grid extents.
# Port   : spelling only -- YES (cuda.grid(3) and cuda.gridsize(3) expanded to gpu.* intrinsics)
# =============================================================================
# Original text: numba_cuda/numba/cuda/tests/cudapy/test_intrinsics.py lines 537-546 @ b18b944b2f88 (dedented)

ORIGINAL = r'''
@cuda.jit
def foo(out):
    x, y, z = cuda.grid(3)
    a, b, c = cuda.gridsize(3)
    out[x, y, z] = a * b * c

arr = np.zeros(9**3, dtype=np.int32).reshape(9, 9, 9)
foo[(3, 3, 3), (3, 3, 3)](arr)

np.testing.assert_equal(arr, 9**3)
'''

# ---- PORT --------------------------------------------------------------------
import numpy as np
from hybrid_runtime import kernel, gpu, Array, i32


@kernel
def foo(out: Array[i32, 3]):
    x = gpu.block_idx_x() * gpu.block_dim_x() + gpu.thread_idx_x()   # cuda.grid(3)
    y = gpu.block_idx_y() * gpu.block_dim_y() + gpu.thread_idx_y()
    z = gpu.block_idx_z() * gpu.block_dim_z() + gpu.thread_idx_z()
    a = gpu.block_dim_x() * gpu.grid_dim_x()                         # cuda.gridsize(3)
    b = gpu.block_dim_y() * gpu.grid_dim_y()
    c = gpu.block_dim_z() * gpu.grid_dim_z()
    out[x, y, z] = a * b * c


# ---- REFERENCE ---------------------------------------------------------------
def make_args(rng):
    return [np.zeros(9 ** 3, dtype=np.int32).reshape(9, 9, 9)]


def reference(out):
    return {"out": np.full((9, 9, 9), 9 ** 3, dtype=np.int32)}


CASE = dict(
    threads=(3, 3, 3), blocks=(3, 3, 3), shared_bytes=0,   # foo[(3, 3, 3), (3, 3, 3)](arr)
    args=["out"], outputs=["out"],
    rtol=0.0, atol=0.0,
    note="Use an asymmetric variant (e.g. blocks (2,3,4), threads (4,3,2)) to catch axis swaps.",
)
