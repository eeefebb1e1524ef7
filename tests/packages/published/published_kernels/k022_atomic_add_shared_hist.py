# =============================================================================
# 022_atomic_add_shared_hist.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_atomics.py, function
#          `atomic_add` -> device function `atomic_binary_1dim_shared` (test_atomic_add;
#          cuda.jit("void(uint32[:])"))
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/numba_cuda/numba/cuda/tests/cudapy/test_atomics.py
# License: BSD-2-Clause (numba-cuda)
# What   : 32-bin histogram in uint32 shared memory with shared-memory atomic adds.
# Port   : spelling only -- NO
# NEEDS MORE THAN SPELLING: the kernel body lives in a generic @cuda.jit(device=True) helper that
#   receives the atomic intrinsic (cuda.atomic.add), a cast function, a dtype and the shared size
#   as ARGUMENTS (first-class functions/types). The port below hand-inlines that helper with the
#   arguments the test passes (uint32, 32, cuda.atomic.add, atomic_cast_none, 0, False).
# =============================================================================
# Original text: numba_cuda/numba/cuda/tests/cudapy/test_atomics.py lines 23-49 @ b18b944b2f88 (dedented)
# Original text: numba_cuda/numba/cuda/tests/cudapy/test_atomics.py lines 104-107 @ b18b944b2f88 (dedented)

ORIGINAL = r'''
@cuda.jit(device=True)
def atomic_cast_none(num):
    return num


@cuda.jit(device=True)
def atomic_binary_1dim_shared(
    ary,
    idx,
    op2,
    ary_dtype,
    ary_nelements,
    binop_func,
    cast_func,
    initializer,
    neg_idx,
):
    tid = cuda.threadIdx.x
    sm = cuda.shared.array(ary_nelements, ary_dtype)
    sm[tid] = initializer
    cuda.syncthreads()
    bin = cast_func(idx[tid] % ary_nelements)
    if neg_idx:
        bin = bin % ary_nelements
    binop_func(sm, bin, op2)
    cuda.syncthreads()
    ary[tid] = sm[tid]

# ...

def atomic_add(ary):
    atomic_binary_1dim_shared(
        ary, ary, 1, uint32, 32, cuda.atomic.add, atomic_cast_none, 0, False
    )
'''

# ---- PORT (hand-inlined) ---------------------------------------------------------
import numpy as np
from hybrid_runtime import kernel, gpu, Array, u32


@kernel
def atomic_add(ary: Array[u32]):
    # atomic_binary_1dim_shared(ary, ary, 1, uint32, 32, cuda.atomic.add,
    #                           atomic_cast_none, 0, False)
    tid = gpu.thread_idx_x()
    sm = gpu.shared_array(u32, 32)
    sm[tid] = 0
    gpu.syncthreads()
    bin = ary[tid] % 32                     # atomic_cast_none(idx[tid] % ary_nelements)
    gpu.atomic_add(sm, bin, 1)
    gpu.syncthreads()
    ary[tid] = sm[tid]


# ---- REFERENCE ---------------------------------------------------------------
def make_args(rng):
    return [rng.integers(0, 32, size=32).astype(np.uint32)]


def reference(ary):
    return {"ary": np.bincount(ary % 32, minlength=32).astype(np.uint32)}


CASE = dict(
    threads=32, blocks=1, shared_bytes=0,          # cuda_atomic_add[1, 32](ary)
    args=["ary"], outputs=["ary"],
    rtol=0.0, atol=0.0,
    note="The same array is both the bin-index input and the histogram output.",
)
