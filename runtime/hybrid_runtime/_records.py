"""Value classes written out instead of made by :mod:`dataclasses`: importing ``dataclasses`` imports
``inspect`` (about 11 ms on Python 3.12 where NumPy no longer imports it first), and each dataclass
compiles its methods at import (about 1 ms each), all of it paid by every program's cold start before
its first launch. A class lists its fields once, in ``_fields``; these helpers give its ``repr`` and the
key its equality and hash compare."""

from __future__ import annotations

from typing import Any


def fields_repr(obj: Any) -> str:
    """``Name(field=value, ...)`` over the class's ``_fields``."""
    inner = ", ".join(f"{name}={getattr(obj, name)!r}" for name in type(obj)._fields)
    return f"{type(obj).__name__}({inner})"


def fields_key(obj: Any) -> tuple[Any, ...]:
    """The values of the class's ``_fields``, in order (what two equal values share)."""
    return tuple(getattr(obj, name) for name in type(obj)._fields)
