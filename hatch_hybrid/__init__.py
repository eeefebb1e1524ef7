"""hatch-hybrid: compile ``@kernel`` Python functions when a wheel is built: PTX (and cubins) for CUDA,
native code for the CPUs, WGSL for WebGPU."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("hatch-hybrid")
except PackageNotFoundError:  # a source checkout: the one version source is the runtime's
    from hybrid_runtime import __version__

__all__ = ["__version__"]
