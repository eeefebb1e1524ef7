# =============================================================================
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/doc_examples/test_random.py, kernel
#          `random_3d` (test_ex_3d_grid; docs random.rst "managing RNG state size and using a 3D grid")
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/numba_cuda/numba/cuda/tests/doc_examples/test_random.py
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda docs (docs)
# What   : 3-D grid-stride loops (cuda.grid(3), cuda.gridsize(3)) filling a float32 3-D array with
#          xoroshiro128+ uniform draws, one RNG state per linearized thread id.
# Port   : import line only (dedented out of the test; host lines dropped)
# =============================================================================

ORIGINAL = r'''
from numba import cuda
from numba.cuda.random import (
    create_xoroshiro128p_states,
    xoroshiro128p_uniform_float32,
)
import numpy as np

@cuda.jit
def random_3d(arr, rng_states):
    # Per-dimension thread indices and strides
    startx, starty, startz = cuda.grid(3)
    stridex, stridey, stridez = cuda.gridsize(3)

    # Linearized thread index
    tid = (startz * stridey * stridex) + (starty * stridex) + startx

    # Use strided loops over the array to assign a random value to each entry
    for i in range(startz, arr.shape[0], stridez):
        for j in range(starty, arr.shape[1], stridey):
            for k in range(startx, arr.shape[2], stridex):
                arr[i, j, k] = xoroshiro128p_uniform_float32(
                    rng_states, tid
                )
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda
from hybrid_runtime.cuda.random import (
    create_xoroshiro128p_states,
    xoroshiro128p_uniform_float32,
)
import numpy as np

@cuda.jit
def random_3d(arr, rng_states):
    # Per-dimension thread indices and strides
    startx, starty, startz = cuda.grid(3)
    stridex, stridey, stridez = cuda.gridsize(3)

    # Linearized thread index
    tid = (startz * stridey * stridex) + (starty * stridex) + startx

    # Use strided loops over the array to assign a random value to each entry
    for i in range(startz, arr.shape[0], stridez):
        for j in range(starty, arr.shape[1], stridey):
            for k in range(startx, arr.shape[2], stridex):
                arr[i, j, k] = xoroshiro128p_uniform_float32(
                    rng_states, tid
                )


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
# the doc's shapes scaled down: X, Y, Z = 701, 900, 719; blocks 8x8x8; grid 16x16x16
X, Y, Z = 9, 10, 11
bx, by, bz = 2, 2, 2
gx, gy, gz = 2, 2, 2
nthreads = bx * by * bz * gx * gy * gz
M64 = (1 << 64) - 1


def make_args(rng):
    arr = np.zeros((X, Y, Z), dtype=np.float32)
    return [arr, create_xoroshiro128p_states(nthreads, seed=1)]


def _rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & M64


def reference(arr, rng_states):
    s0 = [int(v) for v in rng_states["s0"]]
    s1 = [int(v) for v in rng_states["s1"]]
    out = np.zeros((X, Y, Z), dtype=np.float32)
    sx, sy, sz = bx * gx, by * gy, bz * gz
    for startz in range(sz):
        for starty in range(sy):
            for startx in range(sx):
                tid = startz * sy * sx + starty * sx + startx
                for i in range(startz, X, sz):
                    for j in range(starty, Y, sy):
                        for k in range(startx, Z, sx):
                            a, b = s0[tid], s1[tid]
                            result = (a + b) & M64
                            b ^= a
                            s0[tid] = _rotl(a, 55) ^ b ^ ((b << 14) & M64)
                            s1[tid] = _rotl(b, 36)
                            out[i, j, k] = np.float32((result >> 11) * (1.0 / 2.0**53))
    return {"arr": out}


CASE = dict(kernel="random_3d", griddim=(gx, gy, gz), blockdim=(bx, by, bz), args=["arr", "rng_states"],
            outputs=["arr"])
