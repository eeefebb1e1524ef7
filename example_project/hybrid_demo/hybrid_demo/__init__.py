"""hatch-hybrid example package: saxpy and a Mandelbrot renderer running on GPU or CPU."""

from .escape import Complex, escape_time
from .mandelbrot import mandelbrot_kernel, render, render_cpu_threads, render_kernel
from .saxpy import axpy1, saxpy

__all__ = [
    "Complex",
    "axpy1",
    "escape_time",
    "mandelbrot_kernel",
    "render",
    "render_cpu_threads",
    "render_kernel",
    "saxpy",
]
