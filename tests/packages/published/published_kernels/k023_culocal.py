# =============================================================================
# 023_culocal.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_localmem.py, function
#          `culocal` (test_local_array; cuda.jit((int32[:], int32[:])))
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/numba_cuda/numba/cuda/tests/cudapy/test_localmem.py
# License: BSD-2-Clause (numba-cuda)
# What   : copy through a 1000-element per-thread local (stack) array; loops use C.shape[0].
# Port   : spelling only -- YES (cuda.local.array(1000, dtype=int32) -> gpu.local_array(i32, 1000))
# =============================================================================
# Original text: numba_cuda/numba/cuda/tests/cudapy/test_localmem.py lines 19-24 @ b18b944b2f88 (dedented)

ORIGINAL = r'''
def culocal(A, B):
    C = cuda.local.array(1000, dtype=int32)
    for i in range(C.shape[0]):
        C[i] = A[i]
    for i in range(C.shape[0]):
        B[i] = C[i]
'''

# ---- PORT --------------------------------------------------------------------
import numpy as np
from hybrid_runtime import kernel, gpu, Array, i32


@kernel
def culocal(A: Array[i32], B: Array[i32]):
    C = gpu.local_array(i32, 1000)
    for i in range(C.shape[0]):
        C[i] = A[i]
    for i in range(C.shape[0]):
        B[i] = C[i]


# ---- REFERENCE ---------------------------------------------------------------
def make_args(rng):
    A = np.arange(1000, dtype="int32")
    return [A, np.zeros_like(A)]


def reference(A, B):
    return {"B": A.copy()}


CASE = dict(
    threads=1, blocks=1, shared_bytes=0,       # jculocal[1, 1](A, B)
    args=["A", "B"], outputs=["B"],
    rtol=0.0, atol=0.0,
    note="The test also asserts '.local' appears in the PTX (array must not be promoted away).",
)
