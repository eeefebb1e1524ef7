# =============================================================================
# 001_vecadd.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/doc_examples/test_vecadd.py,
#          kernel `f` (test_ex_vecadd; shown in docs "Examples > Vector Addition")
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/numba_cuda/numba/cuda/tests/doc_examples/test_vecadd.py
# License: BSD-2-Clause (numba-cuda)
# What   : elementwise c = a + b with cuda.grid(1) and a bounds check on len(c).
# Port   : spelling only -- YES
# =============================================================================
# Original text: numba_cuda/numba/cuda/tests/doc_examples/test_vecadd.py lines 35-43 @ b18b944b2f88 (dedented)

ORIGINAL = r'''
@cuda.jit
def f(a, b, c):
    # like threadIdx.x + (blockIdx.x * blockDim.x)
    tid = cuda.grid(1)
    size = len(c)

    if tid < size:
        c[tid] = a[tid] + b[tid]
'''

# ---- PORT (decorators / annotations / intrinsic names only) ------------------
import numpy as np
from hybrid_runtime import kernel, gpu, Array, f64


@kernel
def f(a: Array[f64], b: Array[f64], c: Array[f64]):
    # like threadIdx.x + (blockIdx.x * blockDim.x)
    tid = gpu.global_tid_x()
    size = len(c)

    if tid < size:
        c[tid] = a[tid] + b[tid]


# ---- REFERENCE ---------------------------------------------------------------
N = 1000


def make_args(rng):
    a = rng.random(N)                 # float64, as np.random.random in the test
    b = rng.random(N)
    c = np.zeros(N)
    return [a, b, c]


def reference(a, b, c):
    return {"c": a + b}


CASE = dict(
    threads=256, blocks=(N // 256) + 1, shared_bytes=0,   # test: nblocks = len//nthreads + 1
    args=["a", "b", "c"], outputs=["c"],
    rtol=0.0, atol=0.0,                                    # test uses assert_equal
    note="Last block is partial: exercises the tid < len(c) guard.",
)
