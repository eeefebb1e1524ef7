# =============================================================================
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_sync.py, functions
#          `simple_smem`, `coop_smem2d`, `dyn_shared_memory`, `use_syncthreads_count`,
#          `use_syncthreads_and`, `use_syncthreads_or` (old corpus k016, k017)
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/numba_cuda/numba/cuda/tests/cudapy/test_sync.py
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda tests (tests)
# What   : static 1-D/2-D shared arrays, a dynamic (size 0) float32 shared array, and the
#          syncthreads_count/and/or block reductions; compiled by the tests with cuda.jit(...)(func).
# Port   : import line only (test-harness imports dropped; run() applies cuda.jit as the tests do)
# =============================================================================

ORIGINAL = r'''
import numpy as np
from numba import cuda
from numba.cuda import int32, float32


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


def use_syncthreads_count(ary_in, ary_out):
    i = cuda.grid(1)
    ary_out[i] = cuda.syncthreads_count(ary_in[i])


def use_syncthreads_and(ary_in, ary_out):
    i = cuda.grid(1)
    ary_out[i] = cuda.syncthreads_and(ary_in[i])


def use_syncthreads_or(ary_in, ary_out):
    i = cuda.grid(1)
    ary_out[i] = cuda.syncthreads_or(ary_in[i])
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
import numpy as np
from hybrid_runtime import cuda
from hybrid_runtime.cuda import int32, float32


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


def use_syncthreads_count(ary_in, ary_out):
    i = cuda.grid(1)
    ary_out[i] = cuda.syncthreads_count(ary_in[i])


def use_syncthreads_and(ary_in, ary_out):
    i = cuda.grid(1)
    ary_out[i] = cuda.syncthreads_and(ary_in[i])


def use_syncthreads_or(ary_in, ary_out):
    i = cuda.grid(1)
    ary_out[i] = cuda.syncthreads_or(ary_in[i])


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
def make_args(rng):
    cnt_in = np.ones(72, dtype=np.int32)
    cnt_in[31] = 0
    cnt_in[42] = 0
    and_in = np.ones(100, dtype=np.int32)
    and_in[31] = 0
    or_in = np.zeros(100, dtype=np.int32)
    or_in[31] = 1
    return [np.empty(100, dtype=np.int32), np.empty((10, 20), dtype=np.float32), np.empty(50, dtype=np.float32),
            cnt_in, np.zeros(72, dtype=np.int32), and_in, np.zeros(100, dtype=np.int32),
            or_in, np.zeros(100, dtype=np.int32)]


def reference(smem, smem2d, dyn, cnt_in, cnt_out, and_in, and_out, or_in, or_out):
    i = np.arange(10)[:, None]
    j = np.arange(20)[None, :]
    return {"smem": np.arange(100), "smem2d": ((i + 1) / (j + 1)).astype(np.float32),
            "dyn": 2 * np.arange(50), "cnt_out": np.full(72, 70), "and_out": np.zeros(100),
            "or_out": np.ones(100)}


def run(smem, smem2d, dyn, cnt_in, cnt_out, and_in, and_out, or_in, or_out):
    # the tests' host lines
    compiled = cuda.jit("void(int32[::1])")(simple_smem)
    compiled[1, 100](smem)
    compiled = cuda.jit("void(float32[:,::1])")(coop_smem2d)
    compiled[1, (10, 20)](smem2d)
    compiled = cuda.jit("void(float32[::1])")(dyn_shared_memory)
    compiled[1, 50, 0, dyn.size * 4](dyn)
    compiled = cuda.jit(use_syncthreads_count)
    compiled[1, 72](cnt_in, cnt_out)
    compiled = cuda.jit(use_syncthreads_and)
    compiled[1, 100](and_in, and_out)
    compiled = cuda.jit(use_syncthreads_or)
    compiled[1, 100](or_in, or_out)


CASE = dict(kernel="simple_smem", griddim=1, blockdim=100,
            args=["smem", "smem2d", "dyn", "cnt_in", "cnt_out", "and_in", "and_out", "or_in", "or_out"],
            outputs=["smem", "smem2d", "dyn", "cnt_out", "and_out", "or_out"])
