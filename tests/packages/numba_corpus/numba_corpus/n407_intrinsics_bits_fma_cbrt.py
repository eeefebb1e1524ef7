# =============================================================================
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_intrinsics.py,
#          kernels `simple_popc`, `simple_fma`, `simple_cbrt`, `simple_brev`, `simple_clz`, `simple_ffs` (compiled by the tests with cuda.jit(sig)(func))
#          https://github.com/NVIDIA/numba-cuda/blob/124e6d050a7427ddac9cfeb8a2a395b8179ef906/numba_cuda/numba/cuda/tests/cudapy/test_intrinsics.py
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda tests (tests)
# What   : bit intrinsics popc / brev / clz / ffs on uint32, uint64, int64, fma on float32, cbrt on float32 / float64.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda, int64


def simple_popc(ary, c):
    ary[0] = cuda.popc(c)


def simple_fma(ary, a, b, c):
    ary[0] = cuda.fma(a, b, c)


def simple_cbrt(ary, a):
    ary[0] = cuda.cbrt(a)


def simple_brev(ary, c):
    ary[0] = cuda.brev(c)


def simple_clz(ary, c):
    ary[0] = cuda.clz(c)


def simple_ffs(ary, c):
    ary[0] = cuda.ffs(c)
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda, int64


def simple_popc(ary, c):
    ary[0] = cuda.popc(c)


def simple_fma(ary, a, b, c):
    ary[0] = cuda.fma(a, b, c)


def simple_cbrt(ary, a):
    ary[0] = cuda.cbrt(a)


def simple_brev(ary, c):
    ary[0] = cuda.brev(c)


def simple_clz(ary, c):
    ary[0] = cuda.clz(c)


def simple_ffs(ary, c):
    ary[0] = cuda.ffs(c)


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    return [np.zeros(1, np.int32), np.zeros(1, np.int32), np.zeros(1, np.float32), np.zeros(1, np.float32),
            np.zeros(1, np.float64), np.zeros(1, np.uint32), np.zeros(1, np.uint64), np.zeros(1, np.int32),
            np.zeros(2, np.int32)]


def reference(popc32, popc64, fma32, cbrt32, cbrt64, brev32, brev64, clz64, ffs32):
    return {"popc32": np.array([32], np.int32), "popc64": np.array([64], np.int32),
            "fma32": np.array([10.0], np.float32), "cbrt32": np.array([2.0 ** (1 / 3)], np.float32),
            "cbrt64": np.array([6.0 ** (1 / 3)]), "brev32": np.array([0x0F0C0000], np.uint32),
            "brev64": np.array([0x0F0C00000F0C0000], np.uint64), "clz64": np.array([47], np.int32),
            "ffs32": np.array([21, 32], np.int32)}


def run(popc32, popc64, fma32, cbrt32, cbrt64, brev32, brev64, clz64, ffs32):
    # as test_popc_u4, test_popc_u8, test_fma_f4, test_cbrt_f32, test_cbrt_f64, test_brev_u4, test_brev_u8,
    # test_clz_i8, test_ffs_u4 (its two calls write one element each here)
    cuda.jit("void(int32[:], uint32)")(simple_popc)[1, 1](popc32, np.uint32(0xFFFFFFFF))
    cuda.jit("void(int32[:], uint64)")(simple_popc)[1, 1](popc64, np.uint64(0xFFFFFFFFFFFFFFFF))
    cuda.jit("void(f4[:], f4, f4, f4)")(simple_fma)[1, 1](fma32, 2.0, 3.0, 4.0)
    cuda.jit("void(float32[:], float32)")(simple_cbrt)[1, 1](cbrt32, 2.0)
    cuda.jit("void(float64[:], float64)")(simple_cbrt)[1, 1](cbrt64, 6.0)
    cuda.jit("void(uint32[:], uint32)")(simple_brev)[1, 1](brev32, 0x000030F0)
    cuda.jit("void(uint64[:], uint64)")(simple_brev)[1, 1](brev64, 0x000030F0000030F0)
    cuda.jit("void(int32[:], int64)")(simple_clz)[1, 1](clz64, 0x000000000010000)
    compiled = cuda.jit("void(int32[:], uint32)")(simple_ffs)
    out = np.zeros(1, dtype=np.int32)
    compiled[1, 1](out, 0x00100000)
    ffs32[0] = out[0]
    compiled[1, 1](out, 0x80000000)
    ffs32[1] = out[0]


CASE = dict(kernel="simple_popc", griddim=1, blockdim=1,
            args=["popc32", "popc64", "fma32", "cbrt32", "cbrt64", "brev32", "brev64", "clz64", "ffs32"],
            outputs=["popc32", "popc64", "fma32", "cbrt32", "cbrt64", "brev32", "brev64", "clz64", "ffs32"],
            rtol=1e-6)
