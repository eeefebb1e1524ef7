# =============================================================================
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/doc_examples/test_reduction.py, kernel
#          `array_sum` (test_ex_reduction; docs "Examples > Shared Memory Reduction"; old corpus k006)
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/numba_cuda/numba/cuda/tests/doc_examples/test_reduction.py
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda docs (docs)
# What   : single-block interleaved (tid % 2s) tree reduction in an int32 shared array sized by the
#          module-level `nelem = len(a)` of a device array; sum written back to data[0].
# Port   : import line only (dedented out of the test; the ex_reduction import/allocate/kernel
#          blocks kept in order, magictoken comments dropped)
# =============================================================================

ORIGINAL = r'''
import numpy as np
from numba import cuda
from numba.cuda.types import int32

# generate data
a = cuda.to_device(np.arange(1024))
nelem = len(a)

@cuda.jit
def array_sum(data):
    tid = cuda.threadIdx.x
    size = len(data)
    if tid < size:
        i = cuda.grid(1)

        # Declare an array in shared memory
        shr = cuda.shared.array(nelem, int32)
        shr[tid] = data[i]

        # Ensure writes to shared memory are visible
        # to all threads before reducing
        cuda.syncthreads()

        s = 1
        while s < cuda.blockDim.x:
            if tid % (2 * s) == 0:
                # Stride by `s` and add
                shr[tid] += shr[tid + s]
            s *= 2
            cuda.syncthreads()

        # After the loop, the zeroth  element contains the sum
        if tid == 0:
            data[tid] = shr[tid]
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
import numpy as np
from hybrid_runtime import cuda
from hybrid_runtime.cuda.types import int32

# generate data
a = cuda.to_device(np.arange(1024))
nelem = len(a)

@cuda.jit
def array_sum(data):
    tid = cuda.threadIdx.x
    size = len(data)
    if tid < size:
        i = cuda.grid(1)

        # Declare an array in shared memory
        shr = cuda.shared.array(nelem, int32)
        shr[tid] = data[i]

        # Ensure writes to shared memory are visible
        # to all threads before reducing
        cuda.syncthreads()

        s = 1
        while s < cuda.blockDim.x:
            if tid % (2 * s) == 0:
                # Stride by `s` and add
                shr[tid] += shr[tid + s]
            s *= 2
            cuda.syncthreads()

        # After the loop, the zeroth  element contains the sum
        if tid == 0:
            data[tid] = shr[tid]


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
def make_args(rng):
    return [rng.integers(-1000, 1000, 1024)]


def reference(data):
    want = data.copy()
    want[0] = data.sum()
    return {"data": want}


def run(data):
    array_sum[1, nelem](data)   # the doc's launch: array_sum[1, nelem](a)


CASE = dict(kernel="array_sum", griddim=1, blockdim=1024, args=["data"], outputs=["data"])
