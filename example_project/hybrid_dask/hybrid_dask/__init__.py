"""hatch-hybrid example: a large Mandelbrot rendered as tiles by dask.distributed workers, one GPU
each (or the CPU), with hybrid_demo's ``Complex`` struct compiled into this package's tile kernel."""

from .cluster import PinDevice, pinned_devices, render_tiled, tiles
from .tiles import mandelbrot_tile, render_tile, view_params

__all__ = ["PinDevice", "mandelbrot_tile", "pinned_devices", "render_tile", "render_tiled", "tiles", "view_params"]
