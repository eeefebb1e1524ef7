from hybrid_runtime import Array, f32, gpu, i32, kernel

from .util import clamp


@kernel
def scale(x: Array[f32], factor: f32):
    i = gpu.global_tid_x()
    if i < len(x):
        x[i] = clamp(x[i] * factor, f32(-10.0), f32(10.0))


@kernel()
def add_one(src: Array[i32], dst: Array[i32]):
    i = gpu.global_tid_x()
    if i < len(dst):
        dst[i] = src[i] + 1


def not_a_kernel():
    return "host code may do anything: " + str({1: 2})
