# =============================================================================
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_warp_ops.py, functions
#          `useful_syncwarp`, `use_shfl_sync_idx`, `use_shfl_sync_up`, `use_shfl_sync_down`,
#          `use_shfl_sync_xor`, `use_vote_sync_all`, `use_vote_sync_any`, `use_vote_sync_eq`,
#          `use_vote_sync_ballot` (old corpus k018, k019)
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/numba_cuda/numba/cuda/tests/cudapy/test_warp_ops.py
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda tests (tests)
# What   : warp intrinsics: syncwarp, shfl idx/up/down/xor, all/any/eq votes, ballot; each function is
#          compiled in the tests with cuda.jit("void(int32[:], int32)")(func) and the like.
# Port   : import line only (test-harness imports dropped; run() applies cuda.jit as the tests do)
# =============================================================================

ORIGINAL = r'''
import numpy as np
from numba import cuda, errors
from numba.cuda import int32, int64, float32, float64


def useful_syncwarp(ary):
    i = cuda.grid(1)
    if i == 0:
        ary[0] = 42
    cuda.syncwarp(0xFFFFFFFF)
    ary[i] = ary[0]


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


def use_shfl_sync_with_val(ary, into):
    i = cuda.grid(1)
    val = cuda.shfl_sync(0xFFFFFFFF, into, 0)
    ary[i] = val


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
import numpy as np
from hybrid_runtime import cuda, errors
from hybrid_runtime.cuda import int32, int64, float32, float64


def useful_syncwarp(ary):
    i = cuda.grid(1)
    if i == 0:
        ary[0] = 42
    cuda.syncwarp(0xFFFFFFFF)
    ary[i] = ary[0]


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


def use_shfl_sync_with_val(ary, into):
    i = cuda.grid(1)
    val = cuda.shfl_sync(0xFFFFFFFF, into, 0)
    ary[i] = val


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
nelem = 32


def make_args(rng):
    return [np.empty(nelem, dtype=np.int32) for _ in range(5)] + [
        np.ones(nelem, dtype=np.int32), np.zeros(nelem, dtype=np.int32),
        np.zeros(nelem, dtype=np.int32), np.zeros(nelem, dtype=np.int32),
        np.empty(nelem, dtype=np.uint32)]


def reference(sync, idx, up, down, xor, vin, vall, vany, veq, ballot):
    ar = np.arange(nelem, dtype=np.int32)
    exp_up = ar.copy()
    exp_up[4:] -= 4
    exp_down = ar.copy()
    exp_down[:-4] += 4
    return {"sync": np.full(nelem, 42), "idx": np.full(nelem, 4), "up": exp_up, "down": exp_down,
            "xor": ar ^ 16, "vall": np.zeros(nelem), "vany": np.ones(nelem), "veq": np.zeros(nelem),
            "ballot": np.full(nelem, 0xFFFFFFFF)}


def run(sync, idx, up, down, xor, vin, vall, vany, veq, ballot):
    # the tests' host lines (test_useful_syncwarp, test_shfl_sync_*, test_vote_sync_*, ballot)
    compiled = cuda.jit("void(int32[:])")(useful_syncwarp)
    compiled[1, nelem](sync)
    compiled = cuda.jit("void(int32[:], int32)")(use_shfl_sync_idx)
    compiled[1, nelem](idx, 4)
    compiled = cuda.jit("void(int32[:], int32)")(use_shfl_sync_up)
    compiled[1, nelem](up, 4)
    compiled = cuda.jit("void(int32[:], int32)")(use_shfl_sync_down)
    compiled[1, nelem](down, 4)
    compiled = cuda.jit("void(int32[:], int32)")(use_shfl_sync_xor)
    compiled[1, nelem](xor, 16)
    vin[-1] = 0      # test_vote_sync_all/any/eq: ary_in = np.ones; ary_in[-1] = 0
    compiled = cuda.jit("void(int32[:], int32[:])")(use_vote_sync_all)
    compiled[1, nelem](vin, vall)
    compiled = cuda.jit("void(int32[:], int32[:])")(use_vote_sync_any)
    compiled[1, nelem](vin, vany)
    compiled = cuda.jit("void(int32[:], int32[:])")(use_vote_sync_eq)
    compiled[1, nelem](vin, veq)
    compiled = cuda.jit("void(uint32[:])")(use_vote_sync_ballot)
    compiled[1, nelem](ballot)


CASE = dict(kernel="use_shfl_sync_down", griddim=1, blockdim=nelem,
            args=["sync", "idx", "up", "down", "xor", "vin", "vall", "vany", "veq", "ballot"],
            outputs=["sync", "idx", "up", "down", "xor", "vall", "vany", "veq", "ballot"])
