# =============================================================================
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_sync.py,
#          kernels `simple_smem`, `coop_smem2d`, `dyn_shared_memory` (compiled by the tests with cuda.jit(sig)(func))
#          https://github.com/NVIDIA/numba-cuda/blob/124e6d050a7427ddac9cfeb8a2a395b8179ef906/numba_cuda/numba/cuda/tests/cudapy/test_sync.py
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda tests (tests)
# What   : static 1-D / 2-D shared arrays and a dynamic shared array, filled then read back after syncthreads.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda, int32, float32


def simple_smem(ary):
    N = 100
    sm = cuda.shared.array(N, int32)
    i = cuda.grid(1)
    if i == 0:
        for j in range(N):
            sm[j] = j
    cuda.syncthreads()
    ary[i] = sm[i]


def coop_smem2d(ary):
    i, j = cuda.grid(2)
    sm = cuda.shared.array((10, 20), float32)
    sm[i, j] = (i + 1) / (j + 1)
    cuda.syncthreads()
    ary[i, j] = sm[i, j]


def dyn_shared_memory(ary):
    i = cuda.grid(1)
    sm = cuda.shared.array(0, float32)
    sm[i] = i * 2
    cuda.syncthreads()
    ary[i] = sm[i]
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda, int32, float32


def simple_smem(ary):
    N = 100
    sm = cuda.shared.array(N, int32)
    i = cuda.grid(1)
    if i == 0:
        for j in range(N):
            sm[j] = j
    cuda.syncthreads()
    ary[i] = sm[i]


def coop_smem2d(ary):
    i, j = cuda.grid(2)
    sm = cuda.shared.array((10, 20), float32)
    sm[i, j] = (i + 1) / (j + 1)
    cuda.syncthreads()
    ary[i, j] = sm[i, j]


def dyn_shared_memory(ary):
    i = cuda.grid(1)
    sm = cuda.shared.array(0, float32)
    sm[i] = i * 2
    cuda.syncthreads()
    ary[i] = sm[i]


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    return [np.empty(100, np.int32), np.empty((10, 20), np.float32), np.empty(50, np.float32)]


def reference(a1, a2, a3):
    i = np.arange(10, dtype=np.float64)[:, None]
    j = np.arange(20, dtype=np.float64)[None, :]
    return {"a1": np.arange(100, dtype=np.int32), "a2": ((i + 1) / (j + 1)).astype(np.float32),
            "a3": 2 * np.arange(50, dtype=np.float32)}


def run(a1, a2, a3):
    # as test_simple_smem, test_coop_smem2d, test_dyn_shared_memory
    compiled = cuda.jit("void(int32[::1])")(simple_smem)
    compiled[1, 100](a1)
    compiled = cuda.jit("void(float32[:,::1])")(coop_smem2d)
    compiled[1, (10, 20)](a2)
    compiled = cuda.jit("void(float32[::1])")(dyn_shared_memory)
    compiled[1, 50, 0, a3.size * 4](a3)


CASE = dict(kernel="simple_smem", griddim=1, blockdim=100, args=["a1", "a2", "a3"], outputs=["a1", "a2", "a3"],
            rtol=1e-6)
