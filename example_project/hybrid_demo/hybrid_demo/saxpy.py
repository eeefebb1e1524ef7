"""The smallest kernel: y <- a*x + y, with the arithmetic in a helper the kernel calls."""

from hybrid_runtime import Array, f32, gpu, kernel


def axpy1(a: f32, x: f32, y: f32) -> f32:
    """Plain Python; compiled for the GPU only because a kernel calls it."""
    return a * x + y


@kernel
def saxpy(a: f32, x: Array[f32], y: Array[f32]):
    i = gpu.global_tid_x()
    if i < len(y):
        y[i] = axpy1(a, x[i], y[i])
