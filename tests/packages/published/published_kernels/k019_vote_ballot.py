# =============================================================================
# 019_vote_ballot.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_warp_ops.py, function
#          `use_vote_sync_ballot` (test_vote_sync_ballot; cuda.jit("void(uint32[:])"))
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/numba_cuda/numba/cuda/tests/cudapy/test_warp_ops.py
# License: BSD-2-Clause (numba-cuda)
# What   : warp ballot of a constant True predicate stored as a uint32 mask.
# Port   : spelling only -- YES (cuda.ballot_sync(0xFFFFFFFF, p) -> gpu.ballot(p))
# =============================================================================
# Original text: numba_cuda/numba/cuda/tests/cudapy/test_warp_ops.py lines 70-73 @ b18b944b2f88 (dedented)

ORIGINAL = r'''
def use_vote_sync_ballot(ary):
    i = cuda.threadIdx.x
    ballot = cuda.ballot_sync(0xFFFFFFFF, True)
    ary[i] = ballot
'''

# ---- PORT --------------------------------------------------------------------
import numpy as np
from hybrid_runtime import kernel, gpu, Array, u32


@kernel
def use_vote_sync_ballot(ary: Array[u32]):
    i = gpu.thread_idx_x()
    ballot = gpu.ballot(True)
    ary[i] = ballot


# ---- REFERENCE ---------------------------------------------------------------
NELEM = 32


def make_args(rng):
    return [np.zeros(NELEM, dtype=np.uint32)]


def reference(ary):
    return {"ary": np.full(NELEM, 0xFFFFFFFF, dtype=np.uint32)}


CASE = dict(
    threads=NELEM, blocks=1, shared_bytes=0,
    args=["ary"], outputs=["ary"],
    rtol=0.0, atol=0.0,
    note=("Variant worth adding: 48 threads and a 48-element array -> warp 1 is half full "
          "and lanes 32..47 should read 0x0000FFFF."),
)
