# =============================================================================
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_atomics.py, functions
#          `atomic_compare_and_swap`, `atomic_cas_1dim`, `atomic_cas_2dim` (check_cas; old corpus k020)
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/numba_cuda/numba/cuda/tests/cudapy/test_atomics.py
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda tests (tests)
# What   : cuda.atomic.compare_and_swap on an array slice res[gid:], cuda.atomic.cas with an int and
#          with a 2-D tuple index (old[gid] with gid = cuda.grid(2)); int32.
# Port   : import line only (test-harness imports dropped; run() follows check_cas)
# =============================================================================

ORIGINAL = r'''
import numpy as np
from textwrap import dedent

from numba import cuda
from numba.cuda import uint32, uint64, float32, float64, int32


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
import numpy as np
from textwrap import dedent

from hybrid_runtime import cuda
from hybrid_runtime.cuda import uint32, uint64, float32, float64, int32


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
fill, unfill = -99, -1


def _res(rng):
    res = np.asarray([fill] * 50 + [unfill] * 50, dtype=np.int32)
    rng.shuffle(res)
    return res


def make_args(rng):
    args = []
    for ndim in (1, 1, 2):
        res = _res(rng)
        if ndim == 2:
            res.shape = (10, -1)
        ary = rng.integers(1, 10, size=res.shape).astype(res.dtype)
        args += [res, np.zeros_like(res), ary]
    return args


def reference(r1, o1, a1, r2, o2, a2, r3, o3, a3):
    out = {}
    for name, res, ary in (("1", r1, a1), ("2", r2, a2), ("3", r3, a3)):
        expect = np.where(res == fill, ary, res)
        out["r" + name], out["o" + name] = expect, res.copy()
    return out


def run(r1, o1, a1, r2, o2, a2, r3, o3, a3):
    # check_cas's host lines, for the three functions
    cuda_func = cuda.jit(atomic_compare_and_swap)
    cuda_func[10, 10](r1, o1, a1, fill)
    cuda_func = cuda.jit(atomic_cas_1dim)
    cuda_func[10, 10](r2, o2, a2, fill)
    cuda_func = cuda.jit(atomic_cas_2dim)
    cuda_func[(10, 10), (10, 10)](r3, o3, a3, fill)


CASE = dict(kernel="atomic_cas_1dim", griddim=10, blockdim=10,
            args=["r1", "o1", "a1", "r2", "o2", "a2", "r3", "o3", "a3"],
            outputs=["r1", "o1", "r2", "o2", "r3", "o3"])
