"""numba's CPU decorators, for the helpers numba-cuda modules share with their kernels.

``from numba import njit, prange`` becomes ``from hybrid_runtime import njit, prange``: a function
decorated with ``@njit`` / ``@jit`` (any options, any signature) stays the plain Python function, which
kernels call as a helper (the build compiles it per call, as every helper) and host code calls as
Python; ``prange`` is ``range`` (in a kernel, a thread runs the loop in order).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

prange = range


def njit(func: Any = None, *args: Any, **options: Any) -> Any:
    """``@njit``, ``@njit(...)``, ``@njit("f8(f8)")``: the function as it is."""
    if callable(func):
        return func

    def keep(f: Callable[..., Any]) -> Callable[..., Any]:
        return f

    return keep


jit = njit
