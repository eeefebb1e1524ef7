"""The tile kernel: hybrid_demo's Mandelbrot on a sub-rectangle of a larger image.

``hybrid_demo.mandelbrot_kernel`` maps thread (row, col) to the point ``x0 + dx * col``; a tile cannot
reuse it with a shifted ``x0`` and get the same image, because ``(x0 + dx * col0) + dx * c`` rounds
differently from ``x0 + dx * (col0 + c)``. So this kernel takes the tile's offset and computes each
point exactly as the whole-image kernel does, through hybrid_demo's ``Complex`` methods (compiled
into this package's PTX: this module imports nothing but hybrid_demo, NumPy and the runtime, so the
build environment needs hybrid-demo and not dask)."""

from __future__ import annotations

import numpy as np
from hybrid_demo.escape import Complex
from hybrid_demo.mandelbrot import DEFAULT_VIEW
from hybrid_runtime import Array, f32, gpu, i32, i64, kernel

BLOCK = (16, 16)


@kernel
def mandelbrot_tile(out: Array[i32, 2], x0: f32, y0: f32, dx: f32, dy: f32, row0: i64, col0: i64, max_iter: i32):
    """out[r, c] = escape time of pixel (row0 + r, col0 + c) of the image whose corner is (x0, y0)."""
    c = gpu.global_tid_x()
    r = gpu.global_tid_y()
    if r < out.shape[0] and c < out.shape[1]:
        # int(...) + a thread index is a Python int on the CPU (weakly typed on the device), as the
        # whole-image kernel's column is: so dx * col stays f32 and rounds the same way
        col = int(col0) + c
        row = int(row0) + r
        out[r, c] = Complex(x0 + dx * col, y0 + dy * row).escape_time(max_iter)


def view_params(
    width: int, height: int, view: tuple[float, float, float, float] = DEFAULT_VIEW
) -> tuple[np.float32, np.float32, np.float32, np.float32]:
    """(x0, y0, dx, dy) of a ``width`` x ``height`` image of ``view``, as hybrid_demo's renderers compute them."""
    x_min, x_max, y_min, y_max = view
    dx, dy = (x_max - x_min) / width, (y_max - y_min) / height
    return np.float32(x_min), np.float32(y_min), np.float32(dx), np.float32(dy)


def render_tile(
    tile: tuple[int, int, int, int],
    params: tuple[np.float32, np.float32, np.float32, np.float32],
    max_iter: int,
    device: str | None = None,
) -> np.ndarray:
    """Escape counts of ``tile`` = (row0, col0, rows, cols) of the image that ``params`` describes."""
    row0, col0, rows, cols = tile
    out = np.zeros((rows, cols), dtype=np.int32)
    blocks = (-(-cols // BLOCK[0]), -(-rows // BLOCK[1]))
    mandelbrot_tile.launch(BLOCK, blocks, out, *params, row0, col0, np.int32(max_iter), device=device)
    return out
