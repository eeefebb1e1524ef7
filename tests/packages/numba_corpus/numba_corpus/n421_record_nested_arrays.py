# =============================================================================
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_record_dtype.py,
#          kernels `record_write_array`, `record_write_2d_array`, `record_read_array` (compiled by the tests with cuda.jit()(pyfunc)), dtypes `recordwitharray`, `recordwith2darray`
#          https://github.com/NVIDIA/numba-cuda/blob/124e6d050a7427ddac9cfeb8a2a395b8179ef906/numba_cuda/numba/cuda/tests/cudapy/test_record_dtype.py
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda tests (tests)
# What   : a single record passed to a kernel: write its int field and 1-D / 2-D nested float32 array fields, read them back.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
import numpy as np
from numba import cuda


def record_write_array(r):
    r.g = 2
    r.h[0] = 3.0
    r.h[1] = 4.0


def record_write_2d_array(r):
    r.i = 3
    r.j[0, 0] = 5.0
    r.j[0, 1] = 6.0
    r.j[1, 0] = 7.0
    r.j[1, 1] = 8.0
    r.j[2, 0] = 9.0
    r.j[2, 1] = 10.0


def record_read_array(r, a):
    a[0] = r.h[0]
    a[1] = r.h[1]


recordwitharray = np.dtype([("g", np.int32), ("h", np.float32, 2)], align=True)
recordwith2darray = np.dtype([("i", np.int32), ("j", np.float32, (3, 2))])
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
import numpy as np
from hybrid_runtime import cuda


def record_write_array(r):
    r.g = 2
    r.h[0] = 3.0
    r.h[1] = 4.0


def record_write_2d_array(r):
    r.i = 3
    r.j[0, 0] = 5.0
    r.j[0, 1] = 6.0
    r.j[1, 0] = 7.0
    r.j[1, 1] = 8.0
    r.j[2, 0] = 9.0
    r.j[2, 1] = 10.0


def record_read_array(r, a):
    a[0] = r.h[0]
    a[1] = r.h[1]


recordwitharray = np.dtype([("g", np.int32), ("h", np.float32, 2)], align=True)
recordwith2darray = np.dtype([("i", np.int32), ("j", np.float32, (3, 2))])


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    r1 = np.recarray(1, dtype=recordwitharray)[0]
    r1["g"] = 0
    r1["h"][:] = 0
    r2 = np.recarray(1, dtype=recordwith2darray)[0]
    r2["i"] = 0
    r2["j"][:] = 0
    r3 = np.recarray(1, dtype=recordwitharray)[0]
    r3["g"] = 0
    r3["h"][0] = 4.0
    r3["h"][1] = 5.0
    return [r1, r2, r3, np.zeros(2, np.float32)]


def reference(r1, r2, r3, arr):
    e1 = r1.copy()
    e1["g"] = 2
    e1["h"][0] = 3.0
    e1["h"][1] = 4.0
    e2 = r2.copy()
    e2["i"] = 3
    e2["j"][:] = np.asarray([5.0, 6.0, 7.0, 8.0, 9.0, 10.0], np.float32).reshape(3, 2)
    return {"r1": e1, "r2": e2, "arr": np.array([4.0, 5.0], np.float32)}


def run(r1, r2, r3, arr):
    # as test_record_write_1d_array, test_record_write_2d_array, test_record_read_1d_array
    cuda.jit()(record_write_array)[1, 1](r1)
    cuda.jit()(record_write_2d_array)[1, 1](r2)
    cuda.jit()(record_read_array)[1, 1](r3, arr)


CASE = dict(kernel="record_write_array", griddim=1, blockdim=1, args=["r1", "r2", "r3", "arr"],
            outputs=["r1", "r2", "arr"])
