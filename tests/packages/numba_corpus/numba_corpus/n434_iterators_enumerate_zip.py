# =============================================================================
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_iterators.py,
#          kernels `enumerator`, `zipper`, `enumerator_zipper`, `zipper_enumerator` (nested in TestIterators's tests, dedented)
#          https://github.com/NVIDIA/numba-cuda/blob/124e6d050a7427ddac9cfeb8a2a395b8179ef906/numba_cuda/numba/cuda/tests/cudapy/test_iterators.py
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda tests (tests)
# What   : for loops over enumerate(), zip() and their nestings of int64 arrays inside a kernel; error codes on mismatch.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda


@cuda.jit
def enumerator(x, error):
    count = 0

    for i, v in enumerate(x):
        if count != i:
            error[0] = 1
        if v != x[i]:
            error[0] = 2

        count += 1

    if count != len(x):
        error[0] = 3


@cuda.jit
def zipper(x, y, error):
    i = 0

    for xv, yv in zip(x, y):
        if xv != x[i]:
            error[0] = 1
        if yv != y[i]:
            error[0] = 2

        i += 1

    if i != len(x):
        error[0] = 3


@cuda.jit
def enumerator_zipper(x, y, error):
    count = 0

    for i, (xv, yv) in enumerate(zip(x, y)):
        if i != count:
            error[0] = 1
        if xv != x[i]:
            error[0] = 2
        if yv != y[i]:
            error[0] = 3

        count += 1

    if count != len(x):
        error[0] = 4


@cuda.jit
def zipper_enumerator(x, y, error):
    count = 0

    for (i, xv), yv in zip(enumerate(x), y):
        if i != count:
            error[0] = 1
        if xv != x[i]:
            error[0] = 2
        if yv != y[i]:
            error[0] = 3

        count += 1

    if count != len(x):
        error[0] = 4
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda


@cuda.jit
def enumerator(x, error):
    count = 0

    for i, v in enumerate(x):
        if count != i:
            error[0] = 1
        if v != x[i]:
            error[0] = 2

        count += 1

    if count != len(x):
        error[0] = 3


@cuda.jit
def zipper(x, y, error):
    i = 0

    for xv, yv in zip(x, y):
        if xv != x[i]:
            error[0] = 1
        if yv != y[i]:
            error[0] = 2

        i += 1

    if i != len(x):
        error[0] = 3


@cuda.jit
def enumerator_zipper(x, y, error):
    count = 0

    for i, (xv, yv) in enumerate(zip(x, y)):
        if i != count:
            error[0] = 1
        if xv != x[i]:
            error[0] = 2
        if yv != y[i]:
            error[0] = 3

        count += 1

    if count != len(x):
        error[0] = 4


@cuda.jit
def zipper_enumerator(x, y, error):
    count = 0

    for (i, xv), yv in zip(enumerate(x), y):
        if i != count:
            error[0] = 1
        if xv != x[i]:
            error[0] = 2
        if yv != y[i]:
            error[0] = 3

        count += 1

    if count != len(x):
        error[0] = 4


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    x = np.asarray((10, 9, 8, 7, 6))
    y = np.asarray((1, 2, 3, 4, 5))
    return [x, np.zeros(1, dtype=np.int32), x.copy(), y, np.zeros(1, dtype=np.int32), x.copy(), y.copy(),
            np.zeros(1, dtype=np.int32), x.copy(), y.copy(), np.zeros(1, dtype=np.int32)]


def reference(x1, e1, x2, y2, e2, x3, y3, e3, x4, y4, e4):
    z = np.zeros(1, np.int32)
    return {"e1": z, "e2": z, "e3": z, "e4": z}


def run(x1, e1, x2, y2, e2, x3, y3, e3, x4, y4, e4):
    # as test_enumerate and _test_twoarg_function: f[1, 1](x, y, error)
    enumerator[1, 1](x1, e1)
    zipper[1, 1](x2, y2, e2)
    enumerator_zipper[1, 1](x3, y3, e3)
    zipper_enumerator[1, 1](x4, y4, e4)


CASE = dict(kernel="enumerator", griddim=1, blockdim=1,
            args=["x1", "e1", "x2", "y2", "e2", "x3", "y3", "e3", "x4", "y4", "e4"], outputs=["e1", "e2", "e3", "e4"])
