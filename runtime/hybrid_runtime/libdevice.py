"""numba-cuda's ``cuda.libdevice`` and ``cuda.fp16`` math functions, as NumPy's functions of one type.

numba exposes NVIDIA's libdevice by name (``libdevice.sinf(x)``, ``libdevice.fast_sinf(x)``,
``libdevice.exp10(x)``) and half-precision math as ``cuda.fp16.hsin(x)``. Here each is the NumPy
function of that type — ``sinf`` is ``np.sin(np.float32(x))``, ``sin`` ``np.sin(np.float64(x))``,
``hsin`` ``np.sin(np.float16(x))`` — on every device, the compiled ones and the Python path alike, so a
kernel means one thing wherever it runs. The ``fast_`` variants (libdevice's approximations) are the
accurate functions: as accurate or more, and the same bits everywhere. :func:`resolve` is the one table;
the compiler reads it too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

#: libdevice's names (without ``__nv_``, the ``f`` of single precision and ``fast_``) -> NumPy's function and
#: a leading argument (``exp10(x)`` is ``power(10, x)``)
_FUNCTIONS: dict[str, tuple[str, float | None]] = {
    "sqrt": ("sqrt", None), "cbrt": ("cbrt", None), "exp": ("exp", None), "exp2": ("exp2", None),
    "exp10": ("power", 10.0), "expm1": ("expm1", None), "log": ("log", None), "log2": ("log2", None),
    "log10": ("log10", None), "log1p": ("log1p", None), "sin": ("sin", None), "cos": ("cos", None),
    "tan": ("tan", None), "asin": ("arcsin", None), "acos": ("arccos", None), "atan": ("arctan", None),
    "sinh": ("sinh", None), "cosh": ("cosh", None), "tanh": ("tanh", None), "asinh": ("arcsinh", None),
    "acosh": ("arccosh", None), "atanh": ("arctanh", None), "fabs": ("fabs", None), "floor": ("floor", None),
    "ceil": ("ceil", None), "trunc": ("trunc", None), "rint": ("rint", None), "nearbyint": ("rint", None),
    "copysign": ("copysign", None), "fmin": ("fmin", None), "fmax": ("fmax", None), "pow": ("power", None),
    "atan2": ("arctan2", None), "hypot": ("hypot", None),
}  # fmt: skip
#: cuda.fp16's names (``h`` + the function) that are math functions of float16
_HALF = {"h" + name: name for name in _FUNCTIONS} | {"habs": "fabs", "hmax": "fmax", "hmin": "fmin"}
LIBDEVICE, FP16 = "libdevice", "fp16"


def resolve(module: str, name: str) -> tuple[str, str, float | None] | None:
    """(NumPy's function, the dtype it computes in, a leading argument) of ``cuda.<module>.<name>``, or None
    where it is not one of the functions kernels take."""
    if module == FP16:
        found = _HALF.get(name)
        return (_FUNCTIONS[found][0], "float16", _FUNCTIONS[found][1]) if found is not None else None
    base = name.removeprefix("fast_")
    if base.endswith("f") and base[:-1] in _FUNCTIONS:
        return (*_FUNCTIONS[base[:-1]][:1], "float32", _FUNCTIONS[base[:-1]][1])
    if base in _FUNCTIONS and not name.startswith("fast_"):
        return (_FUNCTIONS[base][0], "float64", _FUNCTIONS[base][1])
    return None


def names(module: str) -> list[str]:
    """The functions of ``cuda.<module>`` that kernels take (for messages)."""
    if module == FP16:
        return sorted(_HALF)
    return sorted([*_FUNCTIONS, *(n + "f" for n in _FUNCTIONS), "fast_sinf", "fast_cosf", "fast_tanf", "fast_expf",
                   "fast_exp10f", "fast_logf", "fast_log2f", "fast_log10f", "fast_powf"])  # fmt: skip


def function(module: str, name: str) -> Callable[..., Any]:
    """The Python path's ``cuda.<module>.<name>``: NumPy's function on the arguments converted to its type."""
    found = resolve(module, name)
    if found is None:
        raise AttributeError(
            f"hybrid_runtime.cuda.{module} has no function {name!r} (it has: {', '.join(names(module))})"
        )
    ufunc, dtype, lead = getattr(np, found[0]), np.dtype(found[1]).type, found[2]

    def call(*args: Any) -> Any:
        values = [dtype(a) for a in ((lead, *args) if lead is not None else args)]
        with np.errstate(all="ignore"):
            return ufunc(*values)

    call.__name__ = call.__qualname__ = name
    return call


class _Namespace:
    """``cuda.libdevice`` / ``cuda.fp16``: their functions by attribute."""

    def __init__(self, module: str) -> None:
        self._module = module

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("__"):
            raise AttributeError(name)
        made = function(self._module, name)
        setattr(self, name, made)
        return made


libdevice, fp16 = _Namespace(LIBDEVICE), _Namespace(FP16)
