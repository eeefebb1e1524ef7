"""hatch-hybrid: compile ``@kernel`` Python functions to PTX when a wheel is built."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("hatch-hybrid")
except PackageNotFoundError:  # a source checkout: the one version source is the runtime's
    from hybrid_runtime import __version__

__all__ = ["__version__"]
