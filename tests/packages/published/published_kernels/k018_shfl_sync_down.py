# =============================================================================
# 018_shfl_sync_down.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_warp_ops.py, function
#          `use_shfl_sync_down` (test_shfl_sync_down; cuda.jit("void(int32[:], int32)"))
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/numba_cuda/numba/cuda/tests/cudapy/test_warp_ops.py
# License: BSD-2-Clause (numba-cuda)
# What   : full-warp shuffle-down of the lane's own index; lanes past the end keep their value.
# Port   : spelling only -- YES (cuda.shfl_down_sync(0xFFFFFFFF, v, d) -> gpu.shfl_down(v, d))
# =============================================================================
# Original text: numba_cuda/numba/cuda/tests/cudapy/test_warp_ops.py lines 34-37 @ b18b944b2f88 (dedented)

ORIGINAL = r'''
def use_shfl_sync_down(ary, delta):
    i = cuda.grid(1)
    val = cuda.shfl_down_sync(0xFFFFFFFF, i, delta)
    ary[i] = val
'''

# ---- PORT --------------------------------------------------------------------
import numpy as np
from hybrid_runtime import kernel, gpu, Array, i32


@kernel
def use_shfl_sync_down(ary: Array[i32], delta: i32):
    i = gpu.global_tid_x()
    val = gpu.shfl_down(i, delta)
    ary[i] = val


# ---- REFERENCE ---------------------------------------------------------------
NELEM, DELTA = 32, 4


def make_args(rng):
    return [np.empty(NELEM, dtype=np.int32), DELTA]


def reference(ary, delta):
    lane = np.arange(NELEM, dtype=np.int32)
    src = lane + delta
    return {"ary": np.where(src < 32, src, lane).astype(np.int32)}


CASE = dict(
    threads=NELEM, blocks=1, shared_bytes=0,     # test: compiled[1, 32](ary, 4)
    args=["ary", "delta"], outputs=["ary"],
    rtol=0.0, atol=0.0,
    note="Sibling tests: use_shfl_sync_up / _xor / _idx in the same file map the same way.",
)
