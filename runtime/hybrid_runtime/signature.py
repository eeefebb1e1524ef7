"""Kernel parameters and argument checks, shared by the CPU and CUDA paths.

Every argument is checked before anything runs; a mismatch raises ``TypeError``/``ValueError``
naming the kernel and the parameter.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .interop import as_array_view, from_dlpack
from .types import SCALAR_DTYPES, SCALAR_NAMES, ArrayType, scalar_name


@dataclass(frozen=True)
class Param:
    name: str
    kind: str  # "scalar" or "array"
    dtype: np.dtype[Any]
    ndim: int = 0
    writes: bool = True  # arrays: does the kernel write it (host arrays are copied back only then)

    def describe(self) -> str:
        short = SCALAR_NAMES[self.dtype.name]
        if self.kind == "scalar":
            return short
        return f"Array[{short}]" if self.ndim == 1 else f"Array[{short}, {self.ndim}]"

    @classmethod
    def from_manifest(cls, entry: dict[str, Any]) -> Param:
        return cls(
            entry["name"], entry["kind"], np.dtype(entry["dtype"]), entry.get("ndim", 0), entry.get("writes", False)
        )


def params_from_annotations(func: Callable[..., Any]) -> list[Param]:
    """Parameters of a kernel from its annotations (used on the CPU path and to check manifests)."""
    import inspect

    out = []
    for name, p in inspect.signature(func).parameters.items():
        ann = p.annotation
        if ann is inspect.Parameter.empty:
            raise TypeError(f"kernel {func.__qualname__}: parameter `{name}` has no type annotation")
        if isinstance(ann, str):
            ann = eval(ann, func.__globals__)  # noqa: S307 - annotations are the kernel author's code
        if isinstance(ann, ArrayType):
            out.append(Param(name, "array", ann.dtype, ann.ndim))
        else:
            out.append(Param(name, "scalar", SCALAR_DTYPES[scalar_name(ann)]))
    return out


def check_scalar(kernel: str, p: Param, value: Any) -> Any:
    """The argument as a NumPy scalar of the parameter's type."""
    where = f"{kernel}(): parameter `{p.name}` expects {p.describe()}"
    dtype = p.dtype
    if isinstance(value, np.generic):
        if dtype.kind == "b" and value.dtype.kind != "b":
            raise TypeError(f"{where}, got {value.dtype.name}")
        if not np.can_cast(value.dtype, dtype, "same_kind"):
            raise TypeError(f"{where}, got {value.dtype.name} (convert it explicitly, e.g. {p.describe()}(x))")
        return dtype.type(value)
    if isinstance(value, bool):
        if dtype.kind != "b":
            raise TypeError(f"{where}, got bool")
        return dtype.type(value)
    if isinstance(value, int):
        if dtype.kind in "iu":
            info = np.iinfo(dtype)
            if not info.min <= value <= info.max:
                raise ValueError(f"{where}, got {value}, which is out of range [{info.min}, {info.max}]")
            return dtype.type(value)
        if dtype.kind == "f":
            return dtype.type(value)
        raise TypeError(f"{where}, got int")
    if isinstance(value, float):
        if dtype.kind == "f":
            return dtype.type(value)
        raise TypeError(f"{where}, got float")
    if hasattr(value, "__index__") and dtype.kind in "iu":  # e.g. IntEnum members
        return check_scalar(kernel, p, value.__index__())
    raise TypeError(f"{where}, got {type(value).__name__}")


def array_description(value: Any) -> tuple[np.dtype[Any], tuple[int, ...], tuple[int, ...] | None] | None:
    """(dtype, shape, byte strides or None for C-contiguous) of a NumPy or CUDA array, else None."""
    if isinstance(value, np.ndarray):
        return value.dtype, value.shape, value.strides
    if hasattr(value, "__cuda_array_interface__"):
        view = as_array_view(value)
        assert view is not None
        return view.dtype, view.shape, view.strides
    return None


def check_array(kernel: str, p: Param, value: Any) -> None:
    where = f"{kernel}(): parameter `{p.name}` expects {p.describe()}"
    desc = array_description(value)
    if desc is None:
        raise TypeError(
            f"{where}, got {type(value).__name__} (pass a NumPy array, a device array "
            "or an object with __cuda_array_interface__)"
        )
    dtype, shape, strides = desc
    if dtype != p.dtype:
        raise TypeError(f"{where}, got an array of {dtype.name} (convert with .astype(np.{p.dtype.name}))")
    if len(shape) != p.ndim:
        raise ValueError(f"{where}, got an array with {len(shape)} dimension{'s' * (len(shape) != 1)}")
    if strides is not None and any(s % dtype.itemsize for s in strides):
        raise ValueError(
            f"{where}, got an array whose strides {strides} are not multiples of its item size "
            "(make a copy with np.ascontiguousarray)"
        )


def check_arguments(kernel: str, params: list[Param], args: tuple[Any, ...]) -> list[Any]:
    """Check every argument; scalars come back as NumPy scalars of the parameter's type."""
    if len(args) != len(params):
        names = ", ".join(p.name for p in params)
        raise TypeError(f"{kernel}() takes {len(params)} argument{'s' * (len(params) != 1)} ({names}), got {len(args)}")
    out: list[Any] = []
    for p, a in zip(params, args):
        if p.kind == "scalar":
            out.append(check_scalar(kernel, p, a))
        else:
            if (
                not isinstance(a, np.ndarray)
                and not hasattr(a, "__cuda_array_interface__")
                and hasattr(a, "__dlpack__")
            ):
                try:
                    a = from_dlpack(a)  # consumed once, here; the launch uses the view
                except TypeError as exc:
                    raise TypeError(f"{kernel}(): parameter `{p.name}` expects {p.describe()}: {exc}") from None
            check_array(kernel, p, a)
            out.append(a)
    return out
