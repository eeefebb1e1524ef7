# =============================================================================
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_sm.py,
#          kernels `slice_write`, `slice_overlap`, `slice_gaps`, `slice_write_backwards`, `slice_nonunit_reverse_stride` (nested in TestSharedMemory's tests, dedented)
#          https://github.com/NVIDIA/numba-cuda/blob/124e6d050a7427ddac9cfeb8a2a395b8179ef906/numba_cuda/numba/cuda/tests/cudapy/test_sm.py
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda tests (tests)
# What   : slices (overlapping, gapped, reversed, strided) of a dynamic shared int32 array, read and written.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda, int32, float64, void


@cuda.jit
def slice_write(x):
    dynsmem = cuda.shared.array(0, dtype=int32)
    sm1 = dynsmem[0:1]
    sm2 = dynsmem[1:2]

    sm1[0] = 1
    sm2[0] = 2
    x[0] = dynsmem[0]
    x[1] = dynsmem[1]


@cuda.jit
def slice_overlap(x):
    dynsmem = cuda.shared.array(0, dtype=int32)
    sm1 = dynsmem[0:2]
    sm2 = dynsmem[1:4]

    dynsmem[0] = 1
    dynsmem[1] = 2
    dynsmem[2] = 3
    dynsmem[3] = 4
    x[0] = sm1[0]
    x[1] = sm1[1]
    x[2] = sm2[0]
    x[3] = sm2[1]
    x[4] = sm2[2]


@cuda.jit
def slice_gaps(x):
    dynsmem = cuda.shared.array(0, dtype=int32)
    sm1 = dynsmem[1:3]
    sm2 = dynsmem[4:6]

    # Initial values for dynamic shared memory, some to be overwritten
    dynsmem[0] = 99
    dynsmem[1] = 99
    dynsmem[2] = 99
    dynsmem[3] = 99
    dynsmem[4] = 99
    dynsmem[5] = 99
    dynsmem[6] = 99

    sm1[0] = 1
    sm1[1] = 2
    sm2[0] = 3
    sm2[1] = 4

    x[0] = dynsmem[0]
    x[1] = dynsmem[1]
    x[2] = dynsmem[2]
    x[3] = dynsmem[3]
    x[4] = dynsmem[4]
    x[5] = dynsmem[5]
    x[6] = dynsmem[6]


@cuda.jit
def slice_write_backwards(x):
    dynsmem = cuda.shared.array(0, dtype=int32)
    sm1 = dynsmem[1::-1]
    sm2 = dynsmem[3:1:-1]

    sm1[0] = 1
    sm1[1] = 2
    sm2[0] = 3
    sm2[1] = 4
    x[0] = dynsmem[0]
    x[1] = dynsmem[1]
    x[2] = dynsmem[2]
    x[3] = dynsmem[3]


@cuda.jit
def slice_nonunit_reverse_stride(x):
    dynsmem = cuda.shared.array(0, dtype=int32)
    sm1 = dynsmem[-1::-2]

    # Initial values for dynamic shared memory, some to be overwritten
    dynsmem[0] = 99
    dynsmem[1] = 99
    dynsmem[2] = 99
    dynsmem[3] = 99
    dynsmem[4] = 99
    dynsmem[5] = 99

    sm1[0] = 1
    sm1[1] = 2
    sm1[2] = 3

    x[0] = dynsmem[0]
    x[1] = dynsmem[1]
    x[2] = dynsmem[2]
    x[3] = dynsmem[3]
    x[4] = dynsmem[4]
    x[5] = dynsmem[5]
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda, int32, float64, void


@cuda.jit
def slice_write(x):
    dynsmem = cuda.shared.array(0, dtype=int32)
    sm1 = dynsmem[0:1]
    sm2 = dynsmem[1:2]

    sm1[0] = 1
    sm2[0] = 2
    x[0] = dynsmem[0]
    x[1] = dynsmem[1]


@cuda.jit
def slice_overlap(x):
    dynsmem = cuda.shared.array(0, dtype=int32)
    sm1 = dynsmem[0:2]
    sm2 = dynsmem[1:4]

    dynsmem[0] = 1
    dynsmem[1] = 2
    dynsmem[2] = 3
    dynsmem[3] = 4
    x[0] = sm1[0]
    x[1] = sm1[1]
    x[2] = sm2[0]
    x[3] = sm2[1]
    x[4] = sm2[2]


@cuda.jit
def slice_gaps(x):
    dynsmem = cuda.shared.array(0, dtype=int32)
    sm1 = dynsmem[1:3]
    sm2 = dynsmem[4:6]

    # Initial values for dynamic shared memory, some to be overwritten
    dynsmem[0] = 99
    dynsmem[1] = 99
    dynsmem[2] = 99
    dynsmem[3] = 99
    dynsmem[4] = 99
    dynsmem[5] = 99
    dynsmem[6] = 99

    sm1[0] = 1
    sm1[1] = 2
    sm2[0] = 3
    sm2[1] = 4

    x[0] = dynsmem[0]
    x[1] = dynsmem[1]
    x[2] = dynsmem[2]
    x[3] = dynsmem[3]
    x[4] = dynsmem[4]
    x[5] = dynsmem[5]
    x[6] = dynsmem[6]


@cuda.jit
def slice_write_backwards(x):
    dynsmem = cuda.shared.array(0, dtype=int32)
    sm1 = dynsmem[1::-1]
    sm2 = dynsmem[3:1:-1]

    sm1[0] = 1
    sm1[1] = 2
    sm2[0] = 3
    sm2[1] = 4
    x[0] = dynsmem[0]
    x[1] = dynsmem[1]
    x[2] = dynsmem[2]
    x[3] = dynsmem[3]


@cuda.jit
def slice_nonunit_reverse_stride(x):
    dynsmem = cuda.shared.array(0, dtype=int32)
    sm1 = dynsmem[-1::-2]

    # Initial values for dynamic shared memory, some to be overwritten
    dynsmem[0] = 99
    dynsmem[1] = 99
    dynsmem[2] = 99
    dynsmem[3] = 99
    dynsmem[4] = 99
    dynsmem[5] = 99

    sm1[0] = 1
    sm1[1] = 2
    sm1[2] = 3

    x[0] = dynsmem[0]
    x[1] = dynsmem[1]
    x[2] = dynsmem[2]
    x[3] = dynsmem[3]
    x[4] = dynsmem[4]
    x[5] = dynsmem[5]


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    return [np.zeros(2, np.int32), np.zeros(5, np.int32), np.zeros(7, np.int32), np.zeros(4, np.int32),
            np.zeros(6, np.int32)]


def reference(a, b, c, d, e):
    return {"a": np.array([1, 2], np.int32), "b": np.array([1, 2, 2, 3, 4], np.int32),
            "c": np.array([99, 1, 2, 99, 3, 4, 99], np.int32), "d": np.array([2, 1, 4, 3], np.int32),
            "e": np.array([99, 3, 99, 2, 99, 1], np.int32)}


def run(a, b, c, d, e):
    # as _test_dynshared_slice: func[1, 1, 0, nshared](arr), nshared = arr.size * arr.dtype.itemsize
    for func, arr in [(slice_write, a), (slice_overlap, b), (slice_gaps, c), (slice_write_backwards, d),
                      (slice_nonunit_reverse_stride, e)]:
        nshared = arr.size * arr.dtype.itemsize
        func[1, 1, 0, nshared](arr)


CASE = dict(kernel="slice_write", griddim=1, blockdim=1, args=["a", "b", "c", "d", "e"],
            outputs=["a", "b", "c", "d", "e"])
