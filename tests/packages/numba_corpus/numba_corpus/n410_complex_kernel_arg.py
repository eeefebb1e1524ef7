# =============================================================================
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_complex_kernel.py,
#          kernel `foo` (nested in TestCudaComplex.test_cuda_complex_arg, dedented)
#          https://github.com/NVIDIA/numba-cuda/blob/124e6d050a7427ddac9cfeb8a2a395b8179ef906/numba_cuda/numba/cuda/tests/cudapy/test_complex_kernel.py
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda tests (tests)
# What   : a complex128 scalar argument added to a complex128 array, eager signature.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda


@cuda.jit("void(complex128[:], complex128)")
def foo(a, b):
    i = cuda.grid(1)
    a[i] += b
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda


@cuda.jit("void(complex128[:], complex128)")
def foo(a, b):
    i = cuda.grid(1)
    a[i] += b


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    return [np.arange(5, dtype=np.complex128), 2j]


def reference(a, b):
    return {"a": a + 2j}


CASE = dict(kernel="foo", griddim=1, blockdim=5, args=["a", "b"], outputs=["a"])
