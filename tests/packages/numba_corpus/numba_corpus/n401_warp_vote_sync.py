# =============================================================================
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_warp_ops.py,
#          kernels `use_vote_sync_all`, `use_vote_sync_any`, `use_vote_sync_eq`, `use_vote_sync_ballot` (compiled by the tests with cuda.jit(sig)(func))
#          https://github.com/NVIDIA/numba-cuda/blob/124e6d050a7427ddac9cfeb8a2a395b8179ef906/numba_cuda/numba/cuda/tests/cudapy/test_warp_ops.py
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda tests (tests)
# What   : warp votes all_sync / any_sync / eq_sync / ballot_sync with the full mask over one warp.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda, int32, int64, float32, float64


def use_vote_sync_all(ary_in, ary_out):
    i = cuda.grid(1)
    pred = cuda.all_sync(0xFFFFFFFF, ary_in[i])
    ary_out[i] = pred


def use_vote_sync_any(ary_in, ary_out):
    i = cuda.grid(1)
    pred = cuda.any_sync(0xFFFFFFFF, ary_in[i])
    ary_out[i] = pred


def use_vote_sync_eq(ary_in, ary_out):
    i = cuda.grid(1)
    pred = cuda.eq_sync(0xFFFFFFFF, ary_in[i])
    ary_out[i] = pred


def use_vote_sync_ballot(ary):
    i = cuda.threadIdx.x
    ballot = cuda.ballot_sync(0xFFFFFFFF, True)
    ary[i] = ballot
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda, int32, int64, float32, float64


def use_vote_sync_all(ary_in, ary_out):
    i = cuda.grid(1)
    pred = cuda.all_sync(0xFFFFFFFF, ary_in[i])
    ary_out[i] = pred


def use_vote_sync_any(ary_in, ary_out):
    i = cuda.grid(1)
    pred = cuda.any_sync(0xFFFFFFFF, ary_in[i])
    ary_out[i] = pred


def use_vote_sync_eq(ary_in, ary_out):
    i = cuda.grid(1)
    pred = cuda.eq_sync(0xFFFFFFFF, ary_in[i])
    ary_out[i] = pred


def use_vote_sync_ballot(ary):
    i = cuda.threadIdx.x
    ballot = cuda.ballot_sync(0xFFFFFFFF, True)
    ary[i] = ballot


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    a_all = np.ones(32, dtype=np.int32)
    a_all[-1] = 0
    a_any = np.zeros(32, dtype=np.int32)
    a_any[2] = 1
    a_eq = np.zeros(32, dtype=np.int32)
    a_eq[1] = 1
    return [a_all, np.empty(32, np.int32), a_any, np.empty(32, np.int32), a_eq, np.empty(32, np.int32),
            np.empty(32, np.uint32)]


def reference(a_all, o_all, a_any, o_any, a_eq, o_eq, ballot):
    return {"o_all": np.zeros(32, np.int32), "o_any": np.ones(32, np.int32), "o_eq": np.zeros(32, np.int32),
            "ballot": np.full(32, 0xFFFFFFFF, np.uint32)}


def run(a_all, o_all, a_any, o_any, a_eq, o_eq, ballot):
    # as the tests: compiled = cuda.jit(sig)(func); compiled[1, nelem](...)
    cuda.jit("void(int32[:], int32[:])")(use_vote_sync_all)[1, 32](a_all, o_all)
    cuda.jit("void(int32[:], int32[:])")(use_vote_sync_any)[1, 32](a_any, o_any)
    cuda.jit("void(int32[:], int32[:])")(use_vote_sync_eq)[1, 32](a_eq, o_eq)
    cuda.jit("void(uint32[:])")(use_vote_sync_ballot)[1, 32](ballot)


CASE = dict(kernel="use_vote_sync_all", griddim=1, blockdim=32,
            args=["a_all", "o_all", "a_any", "o_any", "a_eq", "o_eq", "ballot"],
            outputs=["o_all", "o_any", "o_eq", "ballot"])
