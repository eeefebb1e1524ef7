"""hatch-hybrid: compile ``@kernel`` Python functions to PTX when a wheel is built."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
