"""Three ways to build on other packages:

* launch another package's kernel (``hybrid_demo.saxpy``): its PTX comes from hybrid_demo's wheel;
* call another hatch-hybrid package's helpers (``escape_time``, ``axpy1``) from our own kernels:
  they are compiled into *this* package's PTX;
* call a plain pure-Python package (``mathlets``) whose functions stay inside the kernel language.
"""

from __future__ import annotations

import hybrid_demo.escape as esc
import mathlets
import numpy as np
from hybrid_demo import saxpy
from hybrid_demo.mandelbrot import DEFAULT_VIEW
from hybrid_demo.saxpy import axpy1
from hybrid_runtime import Array, f32, gpu, i32, kernel


@kernel
def escape_histogram(counts: Array[i32], width: i32, height: i32, x0: f32, y0: f32, dx: f32, dy: f32, max_iter: i32):
    """counts[n] = number of pixels whose escape time is n (n = max_iter: inside the set)."""
    col = gpu.global_tid_x()
    row = gpu.global_tid_y()
    if row < height and col < width:
        n = esc.escape_time(x0 + dx * col, y0 + dy * row, max_iter)
        gpu.atomic_add(counts, n, 1)


@kernel
def axpby(a: f32, x: Array[f32], b: f32, y: Array[f32]):
    """y = a*x + b*y, through hybrid_demo's axpy1 helper."""
    i = gpu.global_tid_x()
    if i < len(y):
        y[i] = axpy1(a, x[i], b * y[i])


@kernel
def blend(x: Array[f32], y: Array[f32], t: f32, out: Array[f32]):
    """out = clamp(lerp(x, y, t), -1, 1), with mathlets' plain-Python helpers."""
    i = gpu.global_tid_x()
    if i < len(out):
        out[i] = mathlets.clamp(mathlets.lerp(x[i], y[i], t), f32(-1.0), f32(1.0))


def histogram(width: int, height: int, max_iter: int = 256, device: str | None = None) -> np.ndarray:
    """Histogram of Mandelbrot escape times (``max_iter + 1`` bins)."""
    x_min, x_max, y_min, y_max = DEFAULT_VIEW
    counts = np.zeros(max_iter + 1, dtype=np.int32)
    blocks = (-(-width // 16), -(-height // 16))
    escape_histogram.launch(
        (16, 16),
        blocks,
        counts,
        np.int32(width),
        np.int32(height),
        np.float32(x_min),
        np.float32(y_min),
        np.float32((x_max - x_min) / width),
        np.float32((y_max - y_min) / height),
        np.int32(max_iter),
        device=device,
    )
    return counts


def scaled_saxpy(a: float, x: np.ndarray, y: np.ndarray, device: str | None = None) -> None:
    """Launch hybrid_demo's own saxpy kernel (its PTX ships in hybrid_demo's wheel)."""
    saxpy.launch(256, -(-len(y) // 256), np.float32(a), x, y, device=device)
