# =============================================================================
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_intrinsics.py, functions
#          `fill3d_threadidx`, `simple_grid2d`, `simple_gridsize2d`, `intrinsic_forloop_step`,
#          `simple_popc`, `simple_fma`, and kernel `foo` of test_3dgrid (old corpus k025, k026)
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/numba_cuda/numba/cuda/tests/cudapy/test_intrinsics.py
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda tests (tests)
# What   : threadIdx.x/y/z, cuda.grid(2)/(3), cuda.gridsize(2)/(3), 2-D grid-stride loops, cuda.popc,
#          cuda.fma; most compiled by the tests with cuda.jit("void(...)")(func).
# Port   : import line only (test-harness and error imports dropped; `foo` dedented out of test_3dgrid;
#          run() applies cuda.jit as the tests do)
# =============================================================================

ORIGINAL = r'''
import itertools
import numpy as np
import operator
import re
from numba import cuda
from numba.cuda import int64


def fill3d_threadidx(ary):
    i = cuda.threadIdx.x
    j = cuda.threadIdx.y
    k = cuda.threadIdx.z

    ary[i, j, k] = (i + 1) * (j + 1) * (k + 1)


def simple_grid2d(ary):
    i, j = cuda.grid(2)
    ary[i, j] = i + j


def simple_gridsize2d(ary):
    i, j = cuda.grid(2)
    x, y = cuda.gridsize(2)
    if i == 0 and j == 0:
        ary[0] = x
        ary[1] = y


def intrinsic_forloop_step(c):
    startX, startY = cuda.grid(2)
    gridX = cuda.gridDim.x * cuda.blockDim.x
    gridY = cuda.gridDim.y * cuda.blockDim.y
    height, width = c.shape

    for x in range(startX, width, gridX):
        for y in range(startY, height, gridY):
            c[y, x] = x + y


def simple_popc(ary, c):
    ary[0] = cuda.popc(c)


def simple_fma(ary, a, b, c):
    ary[0] = cuda.fma(a, b, c)


@cuda.jit
def foo(out):
    x, y, z = cuda.grid(3)
    a, b, c = cuda.gridsize(3)
    out[x, y, z] = a * b * c
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
import itertools
import numpy as np
import operator
import re
from hybrid_runtime import cuda
from hybrid_runtime.cuda import int64


def fill3d_threadidx(ary):
    i = cuda.threadIdx.x
    j = cuda.threadIdx.y
    k = cuda.threadIdx.z

    ary[i, j, k] = (i + 1) * (j + 1) * (k + 1)


def simple_grid2d(ary):
    i, j = cuda.grid(2)
    ary[i, j] = i + j


def simple_gridsize2d(ary):
    i, j = cuda.grid(2)
    x, y = cuda.gridsize(2)
    if i == 0 and j == 0:
        ary[0] = x
        ary[1] = y


def intrinsic_forloop_step(c):
    startX, startY = cuda.grid(2)
    gridX = cuda.gridDim.x * cuda.blockDim.x
    gridY = cuda.gridDim.y * cuda.blockDim.y
    height, width = c.shape

    for x in range(startX, width, gridX):
        for y in range(startY, height, gridY):
            c[y, x] = x + y


def simple_popc(ary, c):
    ary[0] = cuda.popc(c)


def simple_fma(ary, a, b, c):
    ary[0] = cuda.fma(a, b, c)


@cuda.jit
def foo(out):
    x, y, z = cuda.grid(3)
    a, b, c = cuda.gridsize(3)
    out[x, y, z] = a * b * c


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
X, Y, Z = 4, 5, 6
ntid = (4, 3)
nctaid = (5, 6)
shape = (ntid[0] * nctaid[0], ntid[1] * nctaid[1])


def make_args(rng):
    return [np.zeros((X, Y, Z), dtype=np.int32), np.empty(shape, dtype=np.int32), np.zeros(2, dtype=np.int32),
            np.empty(shape, dtype=np.int32), np.zeros(1, dtype=np.int32), np.zeros(1, dtype=np.float32),
            np.zeros(9**3, dtype=np.int32).reshape(9, 9, 9)]


def reference(f3, g2, gs2, step, popc, fma, grid3):
    i, j, k = np.indices((X, Y, Z))
    a, b = np.indices(shape)
    return {"f3": (i + 1) * (j + 1) * (k + 1), "g2": a + b, "gs2": [nctaid[0] * ntid[0], nctaid[1] * ntid[1]],
            "step": a + b, "popc": [32], "fma": [2 * 3 + 4], "grid3": np.full((9, 9, 9), 9**3)}


def run(f3, g2, gs2, step, popc, fma, grid3):
    # the tests' host lines
    compiled = cuda.jit("void(int32[:,:,::1])")(fill3d_threadidx)
    compiled[1, (X, Y, Z)](f3)
    compiled = cuda.jit("void(int32[:,::1])")(simple_grid2d)
    compiled[nctaid, ntid](g2)
    compiled = cuda.jit("void(int32[::1])")(simple_gridsize2d)
    compiled[nctaid, ntid](gs2)
    compiled = cuda.jit("void(int32[:,::1])")(intrinsic_forloop_step)
    compiled[nctaid, ntid](step)
    compiled = cuda.jit("void(int32[:], uint32)")(simple_popc)
    compiled[1, 1](popc, np.uint32(0xFFFFFFFF))
    compiled = cuda.jit("void(f4[:], f4, f4, f4)")(simple_fma)
    compiled[1, 1](fma, 2.0, 3.0, 4.0)
    foo[(3, 3, 3), (3, 3, 3)](grid3)


CASE = dict(kernel="foo", griddim=(3, 3, 3), blockdim=(3, 3, 3),
            args=["f3", "g2", "gs2", "step", "popc", "fma", "grid3"],
            outputs=["f3", "g2", "gs2", "step", "popc", "fma", "grid3"])
