"""Value classes written out instead of made by :mod:`dataclasses`: importing ``dataclasses`` imports
``inspect`` (about 11 ms on Python 3.12 where NumPy no longer imports it first), and each dataclass
compiles its methods at import (about 1 ms each), all of it paid by every program's cold start before
its first launch. A class lists its fields once, in ``_fields``; these helpers give its ``repr`` and the
key its equality and hash compare, and :class:`Value` is what a frozen dataclass was (the launch
configuration keys cached plans: it must not change once made)."""

from __future__ import annotations

from typing import Any


def fields_repr(obj: Any) -> str:
    """``Name(field=value, ...)`` over the class's ``_fields``."""
    inner = ", ".join(f"{name}={getattr(obj, name)!r}" for name in type(obj)._fields)
    return f"{type(obj).__name__}({inner})"


def fields_key(obj: Any) -> tuple[Any, ...]:
    """The values of the class's ``_fields``, in order (what two equal values share)."""
    return tuple(getattr(obj, name) for name in type(obj)._fields)


class Value:
    """The base of a value that never changes once made, as a frozen dataclass: equal, and hashed, by its
    ``_fields`` (a subclass lists them, and its ``__slots__``); its ``__init__`` sets them with ``init``."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to field {name!r}: a {type(self).__name__} never changes")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}: a {type(self).__name__} never changes")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return fields_key(self) == fields_key(other)

    def __hash__(self) -> int:
        return hash(fields_key(self))

    __repr__ = fields_repr


init = object.__setattr__  # how a Value's __init__ sets a field
