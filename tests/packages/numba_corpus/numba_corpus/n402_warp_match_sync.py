# =============================================================================
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_warp_ops.py,
#          kernels `use_match_any_sync`, `use_match_all_sync` (compiled by the tests with cuda.jit(sig)(func))
#          https://github.com/NVIDIA/numba-cuda/blob/124e6d050a7427ddac9cfeb8a2a395b8179ef906/numba_cuda/numba/cuda/tests/cudapy/test_warp_ops.py
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda tests (tests)
# What   : match_any_sync / match_all_sync over a 10-thread warp.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda, int32, int64, float32, float64


def use_match_any_sync(ary_in, ary_out):
    i = cuda.grid(1)
    ballot = cuda.match_any_sync(0xFFFFFFFF, ary_in[i])
    ary_out[i] = ballot


def use_match_all_sync(ary_in, ary_out):
    i = cuda.grid(1)
    ballot, pred = cuda.match_all_sync(0xFFFFFFFF, ary_in[i])
    ary_out[i] = ballot if pred else 0
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda, int32, int64, float32, float64


def use_match_any_sync(ary_in, ary_out):
    i = cuda.grid(1)
    ballot = cuda.match_any_sync(0xFFFFFFFF, ary_in[i])
    ary_out[i] = ballot


def use_match_all_sync(ary_in, ary_out):
    i = cuda.grid(1)
    ballot, pred = cuda.match_all_sync(0xFFFFFFFF, ary_in[i])
    ary_out[i] = ballot if pred else 0


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    return [np.arange(10, dtype=np.int32) % 2, np.empty(10, np.int32), np.zeros(10, np.int32),
            np.empty(10, np.int32)]


def reference(in_any, out_any, in_all, out_all):
    return {"out_any": np.tile(np.array((0b0101010101, 0b1010101010), np.int32), 5),
            "out_all": np.full(10, 0b1111111111, np.int32)}


def run(in_any, out_any, in_all, out_all):
    # as test_match_any_sync / test_match_all_sync
    cuda.jit("void(int32[:], int32[:])")(use_match_any_sync)[1, 10](in_any, out_any)
    cuda.jit("void(int32[:], int32[:])")(use_match_all_sync)[1, 10](in_all, out_all)


CASE = dict(kernel="use_match_any_sync", griddim=1, blockdim=10, args=["in_any", "out_any", "in_all", "out_all"],
            outputs=["out_any", "out_all"])
