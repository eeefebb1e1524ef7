# =============================================================================
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_atomics.py,
#          kernels `atomic_compare_and_swap`, `atomic_cas_1dim`, `atomic_cas_2dim` (compiled by the tests with cuda.jit(func))
#          https://github.com/NVIDIA/numba-cuda/blob/124e6d050a7427ddac9cfeb8a2a395b8179ef906/numba_cuda/numba/cuda/tests/cudapy/test_atomics.py
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda tests (tests)
# What   : cuda.atomic.compare_and_swap on a slice and cuda.atomic.cas with 1-D and 2-D (tuple) indices, int32 / uint64.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda, uint32, uint64, float32, float64


def atomic_compare_and_swap(res, old, ary, fill_val):
    gid = cuda.grid(1)
    if gid < res.size:
        old[gid] = cuda.atomic.compare_and_swap(res[gid:], fill_val, ary[gid])


def atomic_cas_1dim(res, old, ary, fill_val):
    gid = cuda.grid(1)
    if gid < res.size:
        old[gid] = cuda.atomic.cas(res, gid, fill_val, ary[gid])


def atomic_cas_2dim(res, old, ary, fill_val):
    gid = cuda.grid(2)
    if gid[0] < res.shape[0] and gid[1] < res.shape[1]:
        old[gid] = cuda.atomic.cas(res, gid, fill_val, ary[gid])
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda, uint32, uint64, float32, float64


def atomic_compare_and_swap(res, old, ary, fill_val):
    gid = cuda.grid(1)
    if gid < res.size:
        old[gid] = cuda.atomic.compare_and_swap(res[gid:], fill_val, ary[gid])


def atomic_cas_1dim(res, old, ary, fill_val):
    gid = cuda.grid(1)
    if gid < res.size:
        old[gid] = cuda.atomic.cas(res, gid, fill_val, ary[gid])


def atomic_cas_2dim(res, old, ary, fill_val):
    gid = cuda.grid(2)
    if gid[0] < res.shape[0] and gid[1] < res.shape[1]:
        old[gid] = cuda.atomic.cas(res, gid, fill_val, ary[gid])


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def _case(rng, n, fill, unfill, dtype, ndim):
    res = np.asarray([fill] * (n // 2) + [unfill] * (n // 2), dtype=dtype)
    rng.shuffle(res)
    if ndim == 2:
        res.shape = (10, -1)
    return [res, np.zeros_like(res), rng.integers(1, 10, size=res.shape).astype(res.dtype)]


def make_args(rng):
    return (_case(rng, 100, -99, -1, np.int32, 1) + _case(rng, 100, 300, 7, np.uint64, 1)
            + _case(rng, 100, -45, -1, np.int64, 2))


def _expect(res, ary, fill):
    expect_res = res.copy()
    expect_res[res == fill] = ary[res == fill]
    return expect_res, res.copy()


def reference(res1, out1, ary1, res2, out2, ary2, res3, out3, ary3):
    r1, o1 = _expect(res1, ary1, -99)
    r2, o2 = _expect(res2, ary2, 300)
    r3, o3 = _expect(res3, ary3, -45)
    return {"res1": r1, "out1": o1, "res2": r2, "out2": o2, "res3": r3, "out3": o3}


def run(res1, out1, ary1, res2, out2, ary2, res3, out3, ary3):
    # as check_cas: cuda_func = cuda.jit(cas_func); cuda_func[10, 10](...) or [(10, 10), (10, 10)] for 2-D
    cuda_func = cuda.jit(atomic_compare_and_swap)
    cuda_func[10, 10](res1, out1, ary1, np.int32(-99))
    cuda_func = cuda.jit(atomic_cas_1dim)
    cuda_func[10, 10](res2, out2, ary2, np.uint64(300))
    cuda_func = cuda.jit(atomic_cas_2dim)
    cuda_func[(10, 10), (10, 10)](res3, out3, ary3, -45)


CASE = dict(kernel="atomic_cas_1dim", griddim=10, blockdim=10,
            args=["res1", "out1", "ary1", "res2", "out2", "ary2", "res3", "out3", "ary3"],
            outputs=["res1", "out1", "res2", "out2", "res3", "out3"])
