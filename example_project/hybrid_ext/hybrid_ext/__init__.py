"""Kernels that build on hybrid_demo (a hatch-hybrid library) and mathlets (plain Python)."""

from .kernels import axpby, blend, escape_histogram, histogram, scaled_saxpy

__all__ = ["axpby", "blend", "escape_histogram", "histogram", "scaled_saxpy"]
