# =============================================================================
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_warp_ops.py,
#          kernels `use_shfl_sync_idx`, `use_shfl_sync_up`, `use_shfl_sync_down`, `use_shfl_sync_xor` (compiled by the tests with cuda.jit(sig)(func))
#          https://github.com/NVIDIA/numba-cuda/blob/124e6d050a7427ddac9cfeb8a2a395b8179ef906/numba_cuda/numba/cuda/tests/cudapy/test_warp_ops.py
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda tests (tests)
# What   : full-mask warp shuffles (idx, up, down, xor) of the global thread index, int32.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda, int32, int64, float32, float64


def use_shfl_sync_idx(ary, idx):
    i = cuda.grid(1)
    val = cuda.shfl_sync(0xFFFFFFFF, i, idx)
    ary[i] = val


def use_shfl_sync_up(ary, delta):
    i = cuda.grid(1)
    val = cuda.shfl_up_sync(0xFFFFFFFF, i, delta)
    ary[i] = val


def use_shfl_sync_down(ary, delta):
    i = cuda.grid(1)
    val = cuda.shfl_down_sync(0xFFFFFFFF, i, delta)
    ary[i] = val


def use_shfl_sync_xor(ary, xor):
    i = cuda.grid(1)
    val = cuda.shfl_xor_sync(0xFFFFFFFF, i, xor)
    ary[i] = val
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda, int32, int64, float32, float64


def use_shfl_sync_idx(ary, idx):
    i = cuda.grid(1)
    val = cuda.shfl_sync(0xFFFFFFFF, i, idx)
    ary[i] = val


def use_shfl_sync_up(ary, delta):
    i = cuda.grid(1)
    val = cuda.shfl_up_sync(0xFFFFFFFF, i, delta)
    ary[i] = val


def use_shfl_sync_down(ary, delta):
    i = cuda.grid(1)
    val = cuda.shfl_down_sync(0xFFFFFFFF, i, delta)
    ary[i] = val


def use_shfl_sync_xor(ary, xor):
    i = cuda.grid(1)
    val = cuda.shfl_xor_sync(0xFFFFFFFF, i, xor)
    ary[i] = val


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    return [np.empty(32, dtype=np.int32), np.empty(32, dtype=np.int32), np.empty(32, dtype=np.int32),
            np.empty(32, dtype=np.int32)]


def reference(a_idx, a_up, a_down, a_xor):
    r = np.arange(32, dtype=np.int32)
    up = r.copy()
    up[4:] -= 4
    down = r.copy()
    down[:-4] += 4
    return {"a_idx": np.full(32, 4, np.int32), "a_up": up, "a_down": down, "a_xor": r ^ 16}


def run(a_idx, a_up, a_down, a_xor):
    # as the tests: compiled = cuda.jit("void(int32[:], int32)")(func); compiled[1, nelem](ary, value)
    cuda.jit("void(int32[:], int32)")(use_shfl_sync_idx)[1, 32](a_idx, 4)
    cuda.jit("void(int32[:], int32)")(use_shfl_sync_up)[1, 32](a_up, 4)
    cuda.jit("void(int32[:], int32)")(use_shfl_sync_down)[1, 32](a_down, 4)
    cuda.jit("void(int32[:], int32)")(use_shfl_sync_xor)[1, 32](a_xor, 16)


CASE = dict(kernel="use_shfl_sync_idx", griddim=1, blockdim=32, args=["a_idx", "a_up", "a_down", "a_xor"],
            outputs=["a_idx", "a_up", "a_down", "a_xor"])
