# =============================================================================
# 016_simple_smem.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_sync.py, function
#          `simple_smem` (test_simple_smem; compiled with cuda.jit("void(int32[::1])"))
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/numba_cuda/numba/cuda/tests/cudapy/test_sync.py
# License: BSD-2-Clause (numba-cuda)
# What   : thread 0 fills a static int32 shared array whose size is a local constant,
#          barrier, every thread reads its slot.
# Port   : spelling only -- YES (decorator applied as cuda.jit("void(int32[::1])") in the test)
# =============================================================================
# Original text: numba_cuda/numba/cuda/tests/cudapy/test_sync.py lines 56-64 @ b18b944b2f88 (dedented)

ORIGINAL = r'''
def simple_smem(ary):
    N = 100
    sm = cuda.shared.array(N, int32)
    i = cuda.grid(1)
    if i == 0:
        for j in range(N):
            sm[j] = j
    cuda.syncthreads()
    ary[i] = sm[i]
'''

# ---- PORT --------------------------------------------------------------------
import numpy as np
from hybrid_runtime import kernel, gpu, Array, i32


@kernel
def simple_smem(ary: Array[i32]):
    N = 100
    sm = gpu.shared_array(i32, N)
    i = gpu.global_tid_x()
    if i == 0:
        for j in range(N):
            sm[j] = j
    gpu.syncthreads()
    ary[i] = sm[i]


# ---- REFERENCE ---------------------------------------------------------------
NELEM = 100


def make_args(rng):
    return [np.empty(NELEM, dtype=np.int32)]


def reference(ary):
    return {"ary": np.arange(NELEM, dtype=np.int32)}


CASE = dict(
    threads=NELEM, blocks=1, shared_bytes=0,      # test: compiled[1, nelem](ary)
    args=["ary"], outputs=["ary"],
    rtol=0.0, atol=0.0,
    note="Shared-array size comes from a local variable bound to a literal (N = 100).",
)
