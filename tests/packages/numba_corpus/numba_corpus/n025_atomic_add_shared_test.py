# =============================================================================
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_atomics.py, functions
#          `atomic_add`, `atomic_add_wrap`, device functions `atomic_binary_1dim_shared`,
#          `atomic_cast_none` (test_atomic_add; old corpus k022)
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/numba_cuda/numba/cuda/tests/cudapy/test_atomics.py
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda tests (tests)
# What   : shared-memory histogram: a generic device function takes the atomic (cuda.atomic.add), a
#          cast device function, the shared dtype and size as arguments; uint32 bins.
# Port   : import line only (test-harness imports dropped; run() applies cuda.jit as the test does)
# =============================================================================

ORIGINAL = r'''
import numpy as np
from textwrap import dedent

from numba import cuda
from numba.cuda import uint32, uint64, float32, float64, int32


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


def atomic_add(ary):
    atomic_binary_1dim_shared(
        ary, ary, 1, uint32, 32, cuda.atomic.add, atomic_cast_none, 0, False
    )


def atomic_add_wrap(ary):
    atomic_binary_1dim_shared(
        ary, ary, 1, uint32, 32, cuda.atomic.add, atomic_cast_none, 0, True
    )
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
import numpy as np
from textwrap import dedent

from hybrid_runtime import cuda
from hybrid_runtime.cuda import uint32, uint64, float32, float64, int32


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


def atomic_add(ary):
    atomic_binary_1dim_shared(
        ary, ary, 1, uint32, 32, cuda.atomic.add, atomic_cast_none, 0, False
    )


def atomic_add_wrap(ary):
    atomic_binary_1dim_shared(
        ary, ary, 1, uint32, 32, cuda.atomic.add, atomic_cast_none, 0, True
    )


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
def make_args(rng):
    ary = rng.integers(0, 32, size=32).astype(np.uint32)
    return [ary, ary.copy()]


def reference(ary, ary_wrap):
    gold = np.bincount(ary, minlength=32).astype(np.uint32)
    return {"ary": gold, "ary_wrap": gold}


def run(ary, ary_wrap):
    # test_atomic_add's host lines
    cuda_atomic_add = cuda.jit("void(uint32[:])")(atomic_add)
    cuda_atomic_add[1, 32](ary)

    cuda_atomic_add_wrap = cuda.jit("void(uint32[:])")(atomic_add_wrap)
    cuda_atomic_add_wrap[1, 32](ary_wrap)


CASE = dict(kernel="atomic_add", griddim=1, blockdim=32, args=["ary", "ary_wrap"], outputs=["ary", "ary_wrap"])
