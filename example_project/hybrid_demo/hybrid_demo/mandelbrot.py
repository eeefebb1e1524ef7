"""Mandelbrot: one ``Complex`` struct and its methods, rendered by CPU threads or by a GPU kernel."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from hybrid_runtime import Array, CpuDevice, f32, gpu, i32, kernel, select_device

from .escape import Complex

DEFAULT_VIEW = (-2.2, 1.0, -1.2, 1.2)  # x_min, x_max, y_min, y_max


@kernel
def mandelbrot_kernel(out: Array[i32, 2], x0: f32, y0: f32, dx: f32, dy: f32, max_iter: i32):
    col = gpu.global_tid_x()
    row = gpu.global_tid_y()
    if row < out.shape[0] and col < out.shape[1]:
        out[row, col] = Complex(x0 + dx * col, y0 + dy * row).escape_time(max_iter)


def _view(width: int, height: int, view: tuple[float, float, float, float]) -> tuple[np.float32, ...]:
    x_min, x_max, y_min, y_max = view
    return (
        np.float32(x_min),
        np.float32(y_min),
        np.float32((x_max - x_min) / width),
        np.float32((y_max - y_min) / height),
    )


def render_cpu_threads(
    width: int,
    height: int,
    max_iter: int = 256,
    view: tuple[float, float, float, float] = DEFAULT_VIEW,
    workers: int | None = None,
) -> np.ndarray:
    """The original CPU renderer: rows split across threads, each pixel through ``Complex.escape_time``."""
    x0, y0, dx, dy = _view(width, height, view)
    limit = np.int32(max_iter)
    out = np.zeros((height, width), dtype=np.int32)

    def rows(start: int, stop: int) -> None:
        for row in range(start, stop):
            for col in range(width):
                out[row, col] = Complex(x0 + dx * col, y0 + dy * row).escape_time(limit)

    workers = workers or os.cpu_count() or 1
    step = max(1, -(-height // (workers * 4)))
    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(lambda r: rows(r, min(r + step, height)), range(0, height, step)))
    return out


def render_kernel(
    width: int,
    height: int,
    max_iter: int = 256,
    view: tuple[float, float, float, float] = DEFAULT_VIEW,
    device: str | None = None,
) -> np.ndarray:
    """Escape counts from :func:`mandelbrot_kernel`: on the GPU, natively on the CPU (device="cpu") or
    through the kernel's Python function (device="cpu-python")."""
    x0, y0, dx, dy = _view(width, height, view)
    out = np.zeros((height, width), dtype=np.int32)
    blocks = (-(-width // 16), -(-height // 16))
    mandelbrot_kernel.launch((16, 16), blocks, out, x0, y0, dx, dy, np.int32(max_iter), device=device)
    return out


def render(
    width: int,
    height: int,
    max_iter: int = 256,
    view: tuple[float, float, float, float] = DEFAULT_VIEW,
    device: str | None = None,
) -> np.ndarray:
    """Escape counts of a ``height`` x ``width`` image on whichever device is available.

    ``device`` is "cuda", "cpu" or "auto" (default: $HYBRID_DEVICE, else auto): the kernel on the GPU
    when one is usable, else the kernel's native CPU code from the wheel; on a machine the wheel has no
    native code for, the multi-threaded CPU renderer. All give the same image.
    """
    if isinstance(select_device(device), CpuDevice) and mandelbrot_kernel.native_code() is None:
        return render_cpu_threads(width, height, max_iter, view)
    return render_kernel(width, height, max_iter, view, device)


def colorize(counts: np.ndarray, max_iter: int) -> np.ndarray:
    """RGB image (uint8, HxWx3) of escape counts; points inside the set are black."""
    t = np.sqrt(counts.astype(np.float64) / max_iter)
    rgb = np.stack([9 * (1 - t) * t**3, 15 * (1 - t) ** 2 * t**2, 8.5 * (1 - t) ** 3 * t], axis=-1)
    rgb = np.clip(rgb * 255, 0, 255).astype(np.uint8)
    rgb[counts >= max_iter] = 0
    return rgb
