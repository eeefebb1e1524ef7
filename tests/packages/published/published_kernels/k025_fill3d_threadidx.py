# =============================================================================
# 025_fill3d_threadidx.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_intrinsics.py, function
#          `fill3d_threadidx` (test_fill3d_threadidx; cuda.jit("void(int32[:,:,::1])"))
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/numba_cuda/numba/cuda/tests/cudapy/test_intrinsics.py
# License: BSD-2-Clause (numba-cuda)
# What   : one 3-D block; each thread writes (x+1)(y+1)(z+1) at [x, y, z] of a 3-D array.
# Port   : spelling only -- YES
# =============================================================================
# Original text: numba_cuda/numba/cuda/tests/cudapy/test_intrinsics.py lines 36-41 @ b18b944b2f88 (dedented)

ORIGINAL = r'''
def fill3d_threadidx(ary):
    i = cuda.threadIdx.x
    j = cuda.threadIdx.y
    k = cuda.threadIdx.z

    ary[i, j, k] = (i + 1) * (j + 1) * (k + 1)
'''

# ---- PORT --------------------------------------------------------------------
import numpy as np
from hybrid_runtime import kernel, gpu, Array, i32


@kernel
def fill3d_threadidx(ary: Array[i32, 3]):
    i = gpu.thread_idx_x()
    j = gpu.thread_idx_y()
    k = gpu.thread_idx_z()

    ary[i, j, k] = (i + 1) * (j + 1) * (k + 1)


# ---- REFERENCE ---------------------------------------------------------------
X, Y, Z = 4, 5, 6


def make_args(rng):
    return [np.zeros((X, Y, Z), dtype=np.int32)]


def reference(ary):
    g = np.arange(1, X + 1)[:, None, None] * np.arange(1, Y + 1)[None, :, None] \
        * np.arange(1, Z + 1)[None, None, :]
    return {"ary": g.astype(np.int32)}


CASE = dict(
    threads=(X, Y, Z), blocks=1, shared_bytes=0,     # compiled[1, (X, Y, Z)](ary)
    args=["ary"], outputs=["ary"],
    rtol=0.0, atol=0.0,
    note="The test runs it on a C-contiguous and a Fortran-contiguous array and compares both.",
)
