# =============================================================================
# 008_atomic_max_example.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA/numba-cuda, docs/source/user/intrinsics.rst ("Example"), kernel `max_example`
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/docs/source/user/intrinsics.rst
# License: BSD-2-Clause (numba-cuda)
# What   : every thread does cuda.atomic.max(result, 0, values[i]) on a float64 scalar slot.
# Port   : spelling only -- YES
# =============================================================================
# Original text: docs/source/user/intrinsics.rst lines 26-33 @ b18b944b2f88 (dedented)

ORIGINAL = r'''
@cuda.jit
def max_example(result, values):
    """Find the maximum value in values and store in result[0]"""
    tid = cuda.threadIdx.x
    bid = cuda.blockIdx.x
    bdim = cuda.blockDim.x
    i = (bid * bdim) + tid
    cuda.atomic.max(result, 0, values[i])
'''

# ---- PORT --------------------------------------------------------------------
import numpy as np
from hybrid_runtime import kernel, gpu, Array, f64


@kernel
def max_example(result: Array[f64], values: Array[f64]):
    """Find the maximum value in values and store in result[0]"""
    tid = gpu.thread_idx_x()
    bid = gpu.block_idx_x()
    bdim = gpu.block_dim_x()
    i = (bid * bdim) + tid
    gpu.atomic_max(result, 0, values[i])


# ---- REFERENCE ---------------------------------------------------------------
N = 16384                       # doc: arr = np.random.rand(16384)


def make_args(rng):
    return [np.zeros(1, dtype=np.float64), rng.random(N)]


def reference(result, values):
    return {"result": np.array([max(result[0], values.max())])}


CASE = dict(
    threads=64, blocks=256, shared_bytes=0,     # doc: max_example[256, 64] -- exactly N threads
    args=["result", "values"], outputs=["result"],
    rtol=0.0, atol=0.0,
    note="No bounds check in the kernel: blocks*threads must equal len(values).",
)
