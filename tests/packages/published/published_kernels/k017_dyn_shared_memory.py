# =============================================================================
# 017_dyn_shared_memory.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_sync.py, function
#          `dyn_shared_memory` (test_dyn_shared_memory; cuda.jit("void(float32[::1])"))
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/numba_cuda/numba/cuda/tests/cudapy/test_sync.py
# License: BSD-2-Clause (numba-cuda)
# What   : dynamic (launch-sized) float32 shared array: write i*2, barrier, read back.
# Port   : spelling only -- YES (cuda.shared.array(0, float32) -> gpu.dynamic_shared_array(f32))
# =============================================================================
# Original text: numba_cuda/numba/cuda/tests/cudapy/test_sync.py lines 75-80 @ b18b944b2f88 (dedented)

ORIGINAL = r'''
def dyn_shared_memory(ary):
    i = cuda.grid(1)
    sm = cuda.shared.array(0, float32)
    sm[i] = i * 2
    cuda.syncthreads()
    ary[i] = sm[i]
'''

# ---- PORT --------------------------------------------------------------------
import numpy as np
from hybrid_runtime import kernel, gpu, Array, f32


@kernel
def dyn_shared_memory(ary: Array[f32]):
    i = gpu.global_tid_x()
    sm = gpu.dynamic_shared_array(f32)
    sm[i] = i * 2
    gpu.syncthreads()
    ary[i] = sm[i]


# ---- REFERENCE ---------------------------------------------------------------
SHAPE = 50


def make_args(rng):
    return [np.empty(SHAPE, dtype=np.float32)]


def reference(ary):
    return {"ary": 2 * np.arange(SHAPE, dtype=np.float32)}


CASE = dict(
    threads=SHAPE, blocks=1, shared_bytes=SHAPE * 4,   # test: compiled[1, shape, 0, ary.size * 4]
    args=["ary"], outputs=["ary"],
    rtol=0.0, atol=0.0,
    note="int -> float32 store into shared memory (i * 2 is an integer expression).",
)
