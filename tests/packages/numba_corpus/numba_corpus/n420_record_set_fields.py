# =============================================================================
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_record_dtype.py,
#          kernels `set_a`, `set_b`, `set_c`, `set_record` (compiled by the tests with cuda.jit()(pyfunc)), dtype `recordtype`
#          https://github.com/NVIDIA/numba-cuda/blob/124e6d050a7427ddac9cfeb8a2a395b8179ef906/numba_cuda/numba/cuda/tests/cudapy/test_record_dtype.py
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda tests (tests)
# What   : writes fields (float64, int32, complex64) of an aligned record array element, and copies one element to another.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
import numpy as np
from numba import cuda


def set_a(ary, i, v):
    ary[i].a = v


def set_b(ary, i, v):
    ary[i].b = v


def set_c(ary, i, v):
    ary[i].c = v


def set_record(ary, i, j):
    ary[i] = ary[j]


recordtype = np.dtype(
    [
        ("a", np.float64),
        ("b", np.int32),
        ("c", np.complex64),
        ("d", (np.uint8, 5)),
    ],
    align=True,
)
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
import numpy as np
from hybrid_runtime import cuda


def set_a(ary, i, v):
    ary[i].a = v


def set_b(ary, i, v):
    ary[i].b = v


def set_c(ary, i, v):
    ary[i].c = v


def set_record(ary, i, j):
    ary[i] = ary[j]


recordtype = np.dtype(
    [
        ("a", np.float64),
        ("b", np.int32),
        ("c", np.complex64),
        ("d", (np.uint8, 5)),
    ],
    align=True,
)


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def _sample():
    ary = np.recarray(3, dtype=recordtype)
    for i in range(ary.size):
        x = i + 1
        ary[i]["a"] = x / 2
        ary[i]["b"] = x
        ary[i]["c"] = x * 1j
        ary[i]["d"] = "%d" % x
    return ary


def make_args(rng):
    return [_sample(), _sample(), _sample(), _sample()]


def reference(ra, rb, rc, rr):
    ra = ra.view(np.recarray)
    rb = rb.view(np.recarray)
    rc = rc.view(np.recarray)
    rr = rr.view(np.recarray)
    ra[1].a = 3.1415
    rb[2].b = 123
    rc[0].c = 43j
    rr[0] = rr[2]
    return {"ra": ra, "rb": rb, "rc": rc, "rr": rr}


def run(ra, rb, rc, rr):
    # as _test_set_equal / test_set_record: cfunc = cuda.jit()(pyfunc); cfunc[1, 1](got, i, value)
    cuda.jit()(set_a)[1, 1](ra, 1, 3.1415)
    cuda.jit()(set_b)[1, 1](rb, 2, 123)
    cuda.jit()(set_c)[1, 1](rc, 0, 43j)
    cuda.jit()(set_record)[1, 1](rr, 0, 2)


CASE = dict(kernel="set_a", griddim=1, blockdim=1, args=["ra", "rb", "rc", "rr"], outputs=["ra", "rb", "rc", "rr"])
