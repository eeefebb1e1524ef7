"""Kernels made by factories: which compiled kernel a closure is.

A kernel factory is a module-level function that defines a ``@kernel`` closing over its arguments
(``transpose32 = make_transpose(32, 33)``). The build compiles one kernel per module-level call with
build-time arguments and records, beside the call site, the values the kernel closes over: its
*closure key*, the text :func:`encode` gives each value (the compiler computes it with the same
function from the values it read in the source). At run time the kernel object the call makes finds
its compiled code by the call site on the stack and checks that it closes over the same values.
"""

from __future__ import annotations

import enum
import sys
import types
from collections.abc import Callable
from typing import Any

import numpy as np

from ._records import Value, init
from .manifest import package_manifest


def encode(value: Any) -> str | None:
    """A build-time value as text that two equal values share and two different ones do not (None:
    the value has no build-time form)."""
    if isinstance(value, enum.Enum):
        return f"enum:{type(value).__module__}.{type(value).__qualname__}.{value.name}"
    if isinstance(value, bool):
        return f"bool:{value}"
    if isinstance(value, int):
        return f"int:{value}"
    if isinstance(value, float):
        return f"float:{value.hex()}"
    if isinstance(value, complex):
        return f"complex:{value.real.hex()},{value.imag.hex()}"
    if isinstance(value, np.generic):
        return f"{value.dtype.name}:{value.tobytes().hex()}"
    if isinstance(value, np.ndarray):
        import hashlib  # here: importing OpenSSL's bindings is a cost of the first use, not of import

        data = hashlib.sha256(np.ascontiguousarray(value).tobytes()).hexdigest()
        return f"array:{value.dtype.name}:{'x'.join(map(str, value.shape))}:{data}"
    if isinstance(value, tuple):
        items = [encode(v) for v in value]
        return None if None in items else "(" + ",".join(items) + ")"  # type: ignore[arg-type]
    if isinstance(value, type):
        if issubclass(value, np.generic):
            return f"dtype:{np.dtype(value).name}"
        return f"class:{value.__module__}.{value.__qualname__}"
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType)) and "<locals>" not in value.__qualname__:
        return f"function:{value.__module__}.{value.__qualname__}"
    py_func = getattr(value, "py_func", None)  # a module-level @kernel or jit-style wrapper
    if isinstance(py_func, types.FunctionType):
        return encode(py_func)
    return None


def closure_key(func: Callable[..., Any], _seen: frozenset[int] = frozenset()) -> dict[str, str] | None:
    """The values ``func`` closes over, encoded; those of a function defined beside it (a helper of
    the factory) under ``helper.name``. None when one has no build-time form."""
    key: dict[str, str] = {}
    seen = _seen | {id(func)}
    for name, cell in zip(func.__code__.co_freevars, func.__closure__ or ()):
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell: a name the factory binds after defining the kernel
            return None
        if isinstance(value, types.FunctionType) and "<locals>" in value.__qualname__:
            if id(value) in seen:  # a recursive helper (which the build refuses): no build-time form
                return None
            inner = closure_key(value, seen)
            if inner is None:
                return None
            key.update({f"{name}.{k}": v for k, v in inner.items()})
            continue
        text = encode(value)
        if text is None:
            return None
        key[name] = text
    return key


def describe(key: dict[str, str]) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(key.items())) or "nothing"


class Found(Value):
    """Where a factory's kernel was compiled: the package whose manifest has it and its name there
    (None: not compiled, ``problem`` says why)."""

    __slots__ = _fields = ("package", "qualname", "problem")
    package: str
    qualname: str | None
    problem: str | None

    def __init__(self, package: str, qualname: str | None, problem: str | None = None) -> None:
        init(self, "package", package)
        init(self, "qualname", qualname)
        init(self, "problem", problem)


def find_compiled(func: Callable[..., Any]) -> Found:
    """The compiled kernel a factory's closure ``func`` is: the manifest entry of the module-level call
    on the stack that made it, with the same closure key."""
    function = f"{func.__module__}.{func.__qualname__}"
    key = closure_key(func)
    frame: types.FrameType | None = sys._getframe(1)
    built: set[str] = set()
    manifests = 0
    differs: tuple[str, str, dict[str, str]] | None = None  # a call here compiled with other values
    for _ in range(64):
        if frame is None:
            break
        module, line = frame.f_globals.get("__name__", ""), frame.f_lineno
        frame = frame.f_back
        package = module.partition(".")[0]
        manifest = package_manifest(package) if package else None  # cached
        if manifest is None:
            continue
        manifests += 1
        for qualname, entry in manifest.data.get("kernels", {}).items():
            site = entry.get("factory")
            if not isinstance(site, dict) or site.get("function") != function:
                continue
            built.add(qualname)
            if site.get("module") == module and site.get("first_line", 0) <= line <= site.get("last_line", -1):
                if site.get("closure") == key:
                    return Found(package, qualname)
                differs = differs or (package, qualname, site.get("closure", {}))  # another call on this line?
        if differs is not None:
            package, qualname, closure = differs
            now = describe(key) if key is not None else "values that are not build-time constants"
            return Found(
                package,
                None,
                f"kernel {qualname} was compiled closing over {describe(closure)}, but this call makes it "
                f"close over {now}. Rebuild the package",
            )
    if not manifests:  # nothing built on the stack: the package's own state says why (see slowpath)
        return Found(func.__module__.partition(".")[0], None)
    where = f" (compiled: {', '.join(sorted(built))})" if built else ""
    return Found(
        func.__module__.partition(".")[0],
        None,
        f"kernel {function} was made by a factory call that the build did not compile{where}: factories are "
        "compiled for module-level calls with build-time arguments (`name = factory(32, f32)`); call the "
        "factory so, or rebuild the package if that call is new",
    )
