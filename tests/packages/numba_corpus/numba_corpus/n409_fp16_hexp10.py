# =============================================================================
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_intrinsics.py,
#          kernel `hexp10_vectors` (nested in TestCudaIntrinsic.test_hexp10, dedented)
#          https://github.com/NVIDIA/numba-cuda/blob/124e6d050a7427ddac9cfeb8a2a395b8179ef906/numba_cuda/numba/cuda/tests/cudapy/test_intrinsics.py
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda tests (tests)
# What   : cuda.fp16.hexp10 over a float16 vector.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda, int64


@cuda.jit()
def hexp10_vectors(r, x):
    i = cuda.grid(1)

    if i < len(r):
        r[i] = cuda.fp16.hexp10(x[i])
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda, int64


@cuda.jit()
def hexp10_vectors(r, x):
    i = cuda.grid(1)

    if i < len(r):
        r[i] = cuda.fp16.hexp10(x[i])


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    return [np.zeros(32, np.float16), rng.random(32).astype(np.float16)]


def reference(r, x):
    return {"r": (10 ** x.astype(np.float64)).astype(np.float16)}


CASE = dict(kernel="hexp10_vectors", griddim=1, blockdim=32, args=["r", "x"], outputs=["r"], rtol=1e-2)
