# =============================================================================
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/doc_examples/test_vecadd.py, kernel `f`
#          (test_ex_vecadd; shown in docs "Examples > Vector Addition"; old corpus k001)
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/numba_cuda/numba/cuda/tests/doc_examples/test_vecadd.py
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda docs (docs)
# What   : elementwise c = a + b with cuda.grid(1) and a bounds check on len(c).
# Port   : import line only (text dedented out of the test method; magictoken comments dropped)
# =============================================================================

ORIGINAL = r'''
import numpy as np
from numba import cuda


@cuda.jit
def f(a, b, c):
    # like threadIdx.x + (blockIdx.x * blockDim.x)
    tid = cuda.grid(1)
    size = len(c)

    if tid < size:
        c[tid] = a[tid] + b[tid]
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
import numpy as np
from hybrid_runtime import cuda


@cuda.jit
def f(a, b, c):
    # like threadIdx.x + (blockIdx.x * blockDim.x)
    tid = cuda.grid(1)
    size = len(c)

    if tid < size:
        c[tid] = a[tid] + b[tid]


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402,F811


def make_args(rng):
    N = 1000
    return [rng.random(N), rng.random(N), np.zeros(N)]


def reference(a, b, c):
    return {"c": a + b}


def run(a, b, c):
    # the published launch (test_ex_vecadd), on device copies
    a_d = cuda.to_device(a)
    b_d = cuda.to_device(b)
    c_d = cuda.device_array_like(a_d)
    nthreads = 256
    nblocks = (len(a_d) // nthreads) + 1
    f[nblocks, nthreads](a_d, b_d, c_d)
    c[:] = c_d.copy_to_host()


CASE = dict(kernel="f", griddim=4, blockdim=256, args=["a", "b", "c"], outputs=["c"])
