# =============================================================================
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_atomics.py,
#          kernels `atomic_add`, `atomic_add_float` (compiled by the tests with cuda.jit(sig)(func)), device functions `atomic_binary_1dim_shared`, `atomic_cast_none`, `atomic_cast_to_int`
#          https://github.com/NVIDIA/numba-cuda/blob/124e6d050a7427ddac9cfeb8a2a395b8179ef906/numba_cuda/numba/cuda/tests/cudapy/test_atomics.py
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda tests (tests)
# What   : shared-memory histogram by cuda.atomic.add, the atomic, dtype and cast passed to a device function as arguments.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda, uint32, uint64, float32, float64


@cuda.jit(device=True)
def atomic_cast_to_int(num):
    return int(num)


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


def atomic_add_float(ary):
    atomic_binary_1dim_shared(
        ary,
        ary,
        1.0,
        float32,
        32,
        cuda.atomic.add,
        atomic_cast_to_int,
        0.0,
        False,
    )
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda, uint32, uint64, float32, float64


@cuda.jit(device=True)
def atomic_cast_to_int(num):
    return int(num)


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


def atomic_add_float(ary):
    atomic_binary_1dim_shared(
        ary,
        ary,
        1.0,
        float32,
        32,
        cuda.atomic.add,
        atomic_cast_to_int,
        0.0,
        False,
    )


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    return [rng.integers(0, 32, size=32).astype(np.uint32), rng.integers(0, 32, size=32).astype(np.float32)]


def reference(ary, ary_f):
    gold = np.zeros(32, dtype=np.uint32)
    for i in range(32):
        gold[ary[i]] += 1
    gold_f = np.zeros(32, dtype=np.float32)
    for i in range(32):
        gold_f[int(ary_f[i])] += 1.0
    return {"ary": gold, "ary_f": gold_f}


def run(ary, ary_f):
    # as test_atomic_add and test_atomic_add_float
    cuda_atomic_add = cuda.jit("void(uint32[:])")(atomic_add)
    cuda_atomic_add[1, 32](ary)
    cuda_atomic_add_float = cuda.jit("void(float32[:])")(atomic_add_float)
    cuda_atomic_add_float[1, 32](ary_f)


CASE = dict(kernel="atomic_add", griddim=1, blockdim=32, args=["ary", "ary_f"], outputs=["ary", "ary_f"])
