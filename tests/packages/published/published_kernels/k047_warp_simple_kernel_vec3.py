# =============================================================================
# 047_warp_simple_kernel_vec3.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA/warp, docs/user_guide/basics.rst ("Kernels"), kernel `simple_kernel`
#          https://github.com/NVIDIA/warp/blob/9934a4eb2c503399140daab09d256ccc7236d1d8/docs/user_guide/basics.rst
# License: Apache-2.0 (NVIDIA Warp)
# What   : per-thread dot product of two arrays of vec3.
# Port   : spelling only -- NO
# NEEDS MORE THAN SPELLING: wp.vec3 -> @struct Vec3 is a spelling change, but wp.dot(x, y) has
#   no hatch-hybrid equivalent and is written out as x.x*y.x + x.y*y.y + x.z*y.z.
# =============================================================================
# Original text: docs/user_guide/basics.rst lines 72-88 @ 9934a4eb2c50 (dedented)

ORIGINAL = r'''
@wp.kernel
def simple_kernel(a: wp.array[wp.vec3],
                  b: wp.array[wp.vec3],
                  c: wp.array[float]):

    # get thread index
    tid = wp.tid()

    # load two vec3s
    x = a[tid]
    y = b[tid]

    # compute the dot product between vectors
    r = wp.dot(x, y)

    # write result back to memory
    c[tid] = r
'''

# ---- PORT --------------------------------------------------------------------
import numpy as np
from hybrid_runtime import kernel, gpu, struct, Array, f32


@struct
class Vec3:
    x: f32
    y: f32
    z: f32


@kernel
def simple_kernel(a: Array[Vec3], b: Array[Vec3], c: Array[f32]):
    # get thread index
    tid = gpu.global_tid_x()

    # load two vec3s
    x = a[tid]
    y = b[tid]

    # compute the dot product between vectors
    r = x.x * y.x + x.y * y.y + x.z * y.z          # wp.dot(x, y)

    # write result back to memory
    c[tid] = r


# ---- REFERENCE ---------------------------------------------------------------
N = 1024
VEC3 = np.dtype([("x", np.float32), ("y", np.float32), ("z", np.float32)])


def make_args(rng):
    a = rng.random((N, 3)).astype(np.float32)
    b = rng.random((N, 3)).astype(np.float32)
    # structured (record) arrays with the Vec3 layout; .view(np.float32).reshape(N, 3) goes back
    return [a.view(VEC3).reshape(N), b.view(VEC3).reshape(N), np.zeros(N, dtype=np.float32)]


def reference(a, b, c):
    av = a.view(np.float32).reshape(N, 3).astype(np.float64)
    bv = b.view(np.float32).reshape(N, 3).astype(np.float64)
    return {"c": (av * bv).sum(axis=1).astype(np.float32)}


CASE = dict(
    threads=256, blocks=N // 256, shared_bytes=0,
    args=["a", "b", "c"], outputs=["c"],
    rtol=1e-6, atol=1e-6,
    note="How hatch-hybrid marshals Array[Vec3] from NumPy is an assumption here (record dtype).",
)
