# =============================================================================
# 020_atomic_cas_1dim.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_atomics.py, function
#          `atomic_cas_1dim` (test_atomic_cas_1dim via check_cas)
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/numba_cuda/numba/cuda/tests/cudapy/test_atomics.py
# License: BSD-2-Clause (numba-cuda)
# What   : per-element compare-and-swap; slots equal to fill_val are replaced, old values returned.
# Port   : spelling only -- YES (cuda.atomic.cas(a, i, old, v) -> gpu.atomic_cas(a, i, old, v))
# =============================================================================
# Original text: numba_cuda/numba/cuda/tests/cudapy/test_atomics.py lines 583-586 @ b18b944b2f88 (dedented)

ORIGINAL = r'''
def atomic_cas_1dim(res, old, ary, fill_val):
    gid = cuda.grid(1)
    if gid < res.size:
        old[gid] = cuda.atomic.cas(res, gid, fill_val, ary[gid])
'''

# ---- PORT --------------------------------------------------------------------
import numpy as np
from hybrid_runtime import kernel, gpu, Array, i32


@kernel
def atomic_cas_1dim(res: Array[i32], old: Array[i32], ary: Array[i32], fill_val: i32):
    gid = gpu.global_tid_x()
    if gid < res.size:
        old[gid] = gpu.atomic_cas(res, gid, fill_val, ary[gid])


# ---- REFERENCE ---------------------------------------------------------------
N, FILL, UNFILL = 100, -99, -1          # test_atomic_cas_1dim


def make_args(rng):
    res = np.array([FILL] * (N // 2) + [UNFILL] * (N // 2), dtype=np.int32)
    rng.shuffle(res)
    out = np.zeros_like(res)
    ary = rng.integers(1, 10, size=res.shape).astype(np.int32)
    return [res, out, ary, FILL]


def reference(res, old, ary, fill_val):
    return {"res": np.where(res == fill_val, ary, res).astype(np.int32),
            "old": res.copy()}


CASE = dict(
    threads=10, blocks=10, shared_bytes=0,        # check_cas: cuda_func[10, 10](...)
    args=["res", "old", "ary", "fill_val"], outputs=["res", "old"],
    rtol=0.0, atol=0.0,
    note="fill_val is a Python int in the test (typed int64 by numba); annotated i32 here.",
)
