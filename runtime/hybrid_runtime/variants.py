"""Generic kernels: the specialisations ``specialize=`` asks for, and which one a launch's arguments call."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from .errors import TypingError
from .signature import Param, check_arguments
from .structs import is_struct
from .types import scalar_name


def bindings(func: Callable[..., Any], spec: Any) -> list[dict[Any, Any]]:
    """``specialize={"T": [f32, i32]}`` as TypeVar bindings, one per combination in the order written."""
    if spec is None:
        return [{}]
    if not isinstance(spec, dict) or not spec:
        raise TypeError(f"@kernel {func.__name__}: specialize= takes a dict such as {{'T': [f32, i32]}}")
    combos: list[dict[Any, Any]] = [{}]
    for name, choices in spec.items():
        tv = func.__globals__.get(name)
        if not isinstance(tv, TypeVar):
            raise TypeError(
                f"@kernel {func.__name__}: specialize= names {name!r}, which is not a TypeVar of its module"
            )
        if isinstance(choices, (type, np.dtype)) or not choices:
            raise TypeError(f"@kernel {func.__name__}: specialize={{{name!r}: [...]}} needs a list of types")
        combos = [{**c, tv: t} for c in combos for t in choices]
    return combos


def type_name(t: Any) -> str:
    """``f32`` for np.float32, the class name for a struct (as the manifest names specialisations)."""
    if is_struct(t):
        return str(t.__name__)
    return scalar_name(t)


def describe_arg(value: Any) -> str:
    dtype = getattr(value, "dtype", None)
    if dtype is not None and getattr(value, "shape", None) is not None and not isinstance(value, np.generic):
        return f"array of {dtype}"
    return type(value).__name__


def choose(kernel: str, params_of: list[list[Param]], bindings_of: list[dict[Any, Any]], args: tuple[Any, ...]) -> int:
    """The one specialisation whose parameters the arguments fit (several that bind the same types count as
    one); a TypeError naming the specialisations where none or several fit."""
    fits = []
    for k, params in enumerate(params_of):
        try:
            check_arguments(kernel, params, args)
        except (TypeError, ValueError):
            continue
        fits.append(k)
    if len(fits) == 1 or (fits and len({tuple(id(v) for v in bindings_of[k].values()) for k in fits}) == 1):
        return fits[0]
    names = [
        ", ".join(f"{tv.__name__}={type_name(t)}" for tv, t in b.items())
        or "(" + ", ".join(p.describe() for p in params) + ")"  # numba's eager signatures: the parameters' types
        for b, params in zip(bindings_of, params_of)
    ]
    if not fits:
        got = ", ".join(describe_arg(a) for a in args)
        raise TypingError(
            f"{kernel}(): no specialisation fits the arguments ({got}); it is compiled for " + "; ".join(names)
        )
    raise TypeError(
        f"{kernel}(): the arguments fit several specialisations ({'; '.join(names[k] for k in fits)}); "
        "pass NumPy scalars or arrays of the type you mean, e.g. np.float32(x)"
    )
