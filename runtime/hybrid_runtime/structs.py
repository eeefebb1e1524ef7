"""``@struct``: value types with typed fields, the same on the host, the CPU path and the GPU.

A struct class stays a normal Python class. The decorator reads its annotated fields, gives it an
``__init__`` that converts every field to its declared type (``Complex(0.0, 1)`` holds two
``f32``), so arithmetic on fields is NumPy's on both sides, and exposes ``Cls.dtype``: the NumPy
structured dtype with the device layout (C layout, natural alignment), so ``np.zeros(n, Cls.dtype)``
can be passed where ``Array[Cls]`` is expected.
"""

from __future__ import annotations

import typing
from collections.abc import Iterator
from typing import Any

import numpy as np

from .types import SCALAR_DTYPES, scalar_name

STRUCT_MARK = "__hybrid_struct__"


def is_struct(cls: Any) -> bool:
    return isinstance(cls, type) and STRUCT_MARK in cls.__dict__


def _field_dtype(ann: Any) -> tuple[np.dtype[Any], Any]:
    """(dtype, converter) of a field annotation: a scalar type or another struct."""
    if is_struct(ann):
        return ann.dtype, ann
    dtype = SCALAR_DTYPES[scalar_name(ann)]
    return dtype, dtype.type


def struct(cls: type) -> type:
    """Make ``cls`` a struct: its annotated fields become typed, ``Cls.dtype`` gives the layout."""
    if "__init__" in cls.__dict__:
        raise TypeError(f"@struct {cls.__name__}: define fields with annotations, not __init__")
    hints = typing.get_type_hints(cls)
    import inspect  # here: only modules that define structs pay for importing it

    names = [n for n in inspect.get_annotations(cls) if not n.startswith("_")]  # Python 3.14: deferred
    if not names:
        raise TypeError(f"@struct {cls.__name__} has no annotated fields")
    fields: dict[str, Any] = {}
    dtypes = []
    for name in names:
        try:
            dtype, convert = _field_dtype(hints[name])
        except TypeError as exc:
            raise TypeError(f"@struct {cls.__name__}: field `{name}`: {exc}") from None
        fields[name] = convert
        dtypes.append((name, dtype))
    setattr(cls, STRUCT_MARK, fields)
    cls.dtype = np.dtype(dtypes, align=True)  # type: ignore[attr-defined]
    cls.__init__ = _make_init(cls.__name__, fields)  # type: ignore[misc]
    cls.__setattr__ = _setattr  # type: ignore[assignment,method-assign]
    if "__repr__" not in cls.__dict__:
        cls.__repr__ = _repr  # type: ignore[assignment,method-assign]
    if "__eq__" not in cls.__dict__:
        cls.__eq__ = _eq  # type: ignore[assignment,method-assign]
        cls.__hash__ = None  # type: ignore[assignment]  # mutable, as on the device
    return cls


def _fields(obj: Any) -> dict[str, Any]:
    return type(obj).__dict__[STRUCT_MARK]  # type: ignore[no-any-return]


#: An array element's struct object (and its struct fields) knows where it lives: (array, index, field path)
_ELEMENT = "_hybrid_element"


def _convert(cls_name: str, name: str, convert: Any, value: Any) -> Any:
    if is_struct(convert):
        if not isinstance(value, convert):
            raise TypeError(f"{cls_name}.{name} is a {convert.__name__}, got {type(value).__name__}")
        return _detached(value)  # a value type: no sharing with the caller's object
    return convert(value)


def _detached(obj: Any) -> Any:
    """A copy of a struct object that shares nothing with it and writes to no array element."""
    new = object.__new__(type(obj))
    for k in _fields(obj):
        v = getattr(obj, k)
        object.__setattr__(new, k, _detached(v) if is_struct(type(v)) else v)
    return new


def _make_init(cls_name: str, fields: dict[str, Any]) -> Any:
    """``__init__(self, re, im)`` converting each field, generated per class: the CPU path constructs
    structs in inner loops, so it pays to skip a generic loop over the fields."""
    env: dict[str, Any] = {"_set": object.__setattr__, "_convert": _convert, "_missing": _missing}
    params = ", ".join(f"{k}=_missing" for k in fields)
    lines = [f"def __init__(self, {params}):"]
    for i, (k, convert) in enumerate(fields.items()):
        env[f"_c{i}"] = convert
        lines.append(f"    if {k} is _missing: raise TypeError('{cls_name}() is missing field {k}')")
        if is_struct(convert):
            lines.append(f"    _set(self, {k!r}, _convert({cls_name!r}, {k!r}, _c{i}, {k}))")
        else:
            lines.append(f"    _set(self, {k!r}, _c{i}({k}))")
    exec("\n".join(lines), env)  # noqa: S102 - generated from the class's own field names
    return env["__init__"]


_missing: Any = object()


def _setattr(self: Any, name: str, value: Any) -> None:
    fields = _fields(self)
    if name in fields:
        value = _convert(type(self).__name__, name, fields[name], value)
        element = self.__dict__.get(_ELEMENT)
        if element is not None:  # `p[i].vx = v`: the element is a view of the array, as in NumPy and numba
            array, index, path = element
            record = array[index]
            for k in path:
                record = record[k]
            record[name] = to_record(value) if is_struct(fields[name]) else value
            if is_struct(fields[name]):
                value = from_record(fields[name], record[name], (array, index, (*path, name)))
    object.__setattr__(self, name, value)


def _repr(self: Any) -> str:
    values = ((k, getattr(self, k)) for k in _fields(self))
    inner = ", ".join(f"{k}={v}" if isinstance(v, np.generic) else f"{k}={v!r}" for k, v in values)
    return f"{type(self).__name__}({inner})"


def _eq(self: Any, other: Any) -> bool:
    if type(other) is not type(self):
        return NotImplemented  # type: ignore[no-any-return]
    return all(bool(getattr(self, k) == getattr(other, k)) for k in _fields(self))


# ------------------------------------------------------------- conversions
def to_record(obj: Any) -> tuple[Any, ...]:
    """A struct instance as the nested tuple NumPy stores in a structured array element."""
    return tuple(to_record(v) if is_struct(type(v)) else v for v in (getattr(obj, k) for k in _fields(obj)))


def from_record(cls: Any, record: Any, element: tuple[Any, Any, tuple[str, ...]] | None = None) -> Any:
    """A structured array element (``np.void``) as an instance of the struct ``cls``. ``element``:
    (array, index, field path) of the element it came from, whose fields assigning a field writes too."""
    obj = object.__new__(cls)
    for k, convert in cls.__dict__[STRUCT_MARK].items():
        v = record[k]
        if is_struct(convert):
            v = from_record(convert, v, None if element is None else (element[0], element[1], (*element[2], k)))
        object.__setattr__(obj, k, v)
    if element is not None:
        object.__setattr__(obj, _ELEMENT, element)
    return obj


def leaves(obj: Any) -> Iterator[Any]:
    """The scalar fields of a struct instance, depth first (how it is passed to a kernel: a complex
    field as its real and imaginary parts)."""
    for k in _fields(obj):
        v = getattr(obj, k)
        if is_struct(type(v)):
            yield from leaves(v)
        elif isinstance(v, (complex, np.complexfloating)):
            yield v.real
            yield v.imag
        else:
            yield v


def leaf_dtypes(dtype: np.dtype[Any]) -> list[np.dtype[Any]]:
    """The scalar dtypes of a (structured) dtype, depth first; a complex one as its two parts."""
    if dtype.kind == "c":
        part = np.dtype(f"f{dtype.itemsize // 2}")
        return [part, part]
    if dtype.names is None:
        return [dtype]
    return [leaf for name in dtype.names for leaf in leaf_dtypes(dtype.fields[name][0])]  # type: ignore[index]


class StructArray:
    """The CPU path's view of an ``Array[Cls]``: elements read as ``Cls`` instances holding the element's
    values, whose field assignments (``p[i].vx += dt``) also write the element, as NumPy's and numba's
    records do; whole elements are written from instances; fewer indices or slices give a view, a
    ``StructArray`` too."""

    __slots__ = ("array", "cls")

    def __init__(self, array: np.ndarray, cls: Any) -> None:
        self.array = array
        self.cls = cls

    def __getitem__(self, index: Any) -> Any:
        item = self.array[index]
        if isinstance(item, np.ndarray):
            return StructArray(item, self.cls)
        return from_record(self.cls, item, (self.array, index, ()))

    def __setitem__(self, index: Any, value: Any) -> None:
        if not isinstance(value, self.cls):
            raise TypeError(f"an Array[{self.cls.__name__}] element must be a {self.cls.__name__}")
        self.array[index] = to_record(value)

    def __len__(self) -> int:
        return len(self.array)

    @property
    def shape(self) -> tuple[int, ...]:
        return self.array.shape

    @property
    def size(self) -> int:
        return self.array.size

    @property
    def ndim(self) -> int:
        return self.array.ndim


# ----------------------------------------------------- manifest encoding
def dtype_to_json(dtype: np.dtype[Any]) -> Any:
    """A dtype as JSON: a scalar's name, a structured dtype's names, formats, offsets, itemsize, or a
    fixed-size array field's element and shape (``{"subarray": [element, shape]}``)."""
    if dtype.subdtype is not None:
        base, shape = dtype.subdtype
        return {"subarray": [dtype_to_json(base), list(shape)]}
    if dtype.names is None:
        return dtype.name
    return {
        "names": list(dtype.names),
        "formats": [dtype_to_json(dtype.fields[n][0]) for n in dtype.names],  # type: ignore[index]
        "offsets": [dtype.fields[n][1] for n in dtype.names],  # type: ignore[index]
        "itemsize": dtype.itemsize,
    }


def dtype_from_json(data: Any) -> np.dtype[Any]:
    if isinstance(data, str):
        return np.dtype(data)
    if "subarray" in data:
        base, shape = data["subarray"]
        sub: np.dtype[Any] = np.dtype((dtype_from_json(base), tuple(shape)))
        return sub
    spec: Any = {**data, "formats": [dtype_from_json(f) for f in data["formats"]]}
    result: np.dtype[Any] = np.dtype(spec)
    return result
