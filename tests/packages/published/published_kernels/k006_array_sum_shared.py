# =============================================================================
# 006_array_sum_shared.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/doc_examples/test_reduction.py,
#          kernel `array_sum` (docs "Examples > Shared Memory Reduction")
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/numba_cuda/numba/cuda/tests/doc_examples/test_reduction.py
# License: BSD-2-Clause (numba-cuda)
# What   : single-block interleaved (tid % 2s) tree reduction in int32 shared memory,
#          result written back to data[0].
# Port   : spelling only -- YES (the doc snippet's top-level `nelem` stays a module constant)
# =============================================================================
# Original text: numba_cuda/numba/cuda/tests/doc_examples/test_reduction.py lines 41-67 @ b18b944b2f88 (dedented)

ORIGINAL = r'''
@cuda.jit
def array_sum(data):
    tid = cuda.threadIdx.x
    size = len(data)
    if tid < size:
        i = cuda.grid(1)

        # Declare an array in shared memory
        shr = cuda.shared.array(nelem, int32)
        shr[tid] = data[i]

        # Ensure writes to shared memory are visible
        # to all threads before reducing
        cuda.syncthreads()

        s = 1
        while s < cuda.blockDim.x:
            if tid % (2 * s) == 0:
                # Stride by `s` and add
                shr[tid] += shr[tid + s]
            s *= 2
            cuda.syncthreads()

        # After the loop, the zeroth  element contains the sum
        if tid == 0:
            data[tid] = shr[tid]
'''

# ---- PORT --------------------------------------------------------------------
import numpy as np
from hybrid_runtime import kernel, gpu, Array, i32, i64

nelem = 1024      # doc: a = cuda.to_device(np.arange(1024)); nelem = len(a)


@kernel
def array_sum(data: Array[i64]):
    tid = gpu.thread_idx_x()
    size = len(data)
    if tid < size:
        i = gpu.global_tid_x()

        # Declare an array in shared memory
        shr = gpu.shared_array(i32, nelem)
        shr[tid] = data[i]

        # Ensure writes to shared memory are visible
        # to all threads before reducing
        gpu.syncthreads()

        s = 1
        while s < gpu.block_dim_x():
            if tid % (2 * s) == 0:
                # Stride by `s` and add
                shr[tid] += shr[tid + s]
            s *= 2
            gpu.syncthreads()

        # After the loop, the zeroth  element contains the sum
        if tid == 0:
            data[tid] = shr[tid]


# ---- REFERENCE ---------------------------------------------------------------
def make_args(rng):
    return [np.arange(nelem)]                # int64, as in the doc


def reference(data):
    out = data.copy()
    out[0] = data.astype(np.int32).sum(dtype=np.int32)   # 523776 for arange(1024)
    return {"data": out}


CASE = dict(
    threads=nelem, blocks=1, shared_bytes=0,   # doc: array_sum[1, nelem](a)
    args=["data"], outputs=["data"],
    rtol=0.0, atol=0.0,
    note=("Only data[0] changes. syncthreads() is inside `if tid < size`, which is "
          "uniform only because blockDim == len(data); keep that invariant."),
)
