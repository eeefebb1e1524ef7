"""The compiler's types and NumPy 2 (NEP 50) promotion.

Values that are NumPy scalars on the CPU path have a :class:`Scalar` type. Values that are plain
Python ``int``/``float`` on the CPU path (literals, ``len()``, thread indices, ``range``
variables, ``math`` results) are *weakly typed* (:class:`Weak`): stored as i64/f64 on the
device, they take the type of the other operand when mixed with a NumPy scalar, exactly as
NumPy 2 does. Promotion asks NumPy itself (``ufunc.resolve_dtypes``), so host and device
cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any, TypeAlias

import numpy as np
from hybrid_runtime.types import SCALAR_DTYPES, SCALAR_NAMES


class Type:
    """Base of all compiler types."""


@dataclass(frozen=True)
class Scalar(Type):
    name: str  # short name: "f32", "i64", "boolean", ...

    @property
    def dtype(self) -> np.dtype[Any]:
        return SCALAR_DTYPES[self.name]

    @property
    def kind(self) -> str:  # "b", "i", "u", "f", "c"
        return self.dtype.kind

    @property
    def bits(self) -> int:
        return 1 if self.kind == "b" else self.dtype.itemsize * 8

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Weak(Type):
    """A Python bool, int, float or complex: bool/i64/f64/c128 storage, weak in promotion (NEP 50 treats
    a Python bool as weakly as a Python int: ``np.int8(5) + True`` is an int8)."""

    kind: str  # "bool", "int", "float" or "complex"

    @property
    def storage(self) -> Scalar:
        return {"bool": BOOL, "int": I64, "float": F64, "complex": C128}[self.kind]

    def __str__(self) -> str:
        return self.kind


@dataclass(frozen=True)
class StructT(Type):
    """A ``@struct`` class: named fields of scalars and structs, laid out as ``Cls.dtype``."""

    qualname: str
    fields: tuple[tuple[str, Type], ...]
    # numba's records (a structured dtype given at launch): the fields' byte offsets and the item size,
    # where they need not be C's layout; None: C's layout, as @struct classes have
    layout: tuple[tuple[int, ...], int] | None = None
    # a record with array fields: its dtype as given (whose array fields are the fields `d[0]`, `d[1]`...)
    source: np.dtype[Any] | None = None

    @property
    def name(self) -> str:
        return self.qualname.rsplit(".", 1)[-1]

    @property
    def dtype(self) -> np.dtype[Any]:
        if self.source is not None:
            return self.source
        if self.layout is not None:
            return _record_dtype(self.fields, self.layout)
        return _struct_dtype(self.fields)

    def field(self, name: str) -> Type | None:
        return next((t for n, t in self.fields if n == name), None)

    def offset_of(self, name: str) -> int:
        """The byte offset of field ``name`` in the struct's memory."""
        if self.layout is not None:
            return self.layout[0][[n for n, _ in self.fields].index(name)]
        return int(self.dtype.fields[name][1])  # type: ignore[index]

    def __str__(self) -> str:
        return self.name


@cache
def _struct_dtype(fields: tuple[tuple[str, Type], ...]) -> np.dtype[Any]:
    # the layout hybrid_runtime.struct gives the class on the host
    return np.dtype([(n, t.dtype) for n, t in fields], align=True)  # type: ignore[attr-defined]


@cache
def _record_dtype(fields: tuple[tuple[str, Type], ...], layout: tuple[tuple[int, ...], int]) -> np.dtype[Any]:
    offsets, itemsize = layout
    spec = {"names": [n for n, _ in fields], "formats": [t.dtype for _, t in fields]}  # type: ignore[attr-defined]
    return np.dtype({**spec, "offsets": list(offsets), "itemsize": itemsize})  # type: ignore[call-overload, no-any-return]


@dataclass(frozen=True)
class EnumT(Type):
    """An ``enum.IntEnum`` class. Its members are Python ints on the CPU path: weak with Python
    numbers, like an int64 with NumPy scalars (NumPy does not treat int subclasses as weak)."""

    qualname: str

    def __str__(self) -> str:
        return self.qualname.rsplit(".", 1)[-1]


Element: TypeAlias = "Scalar | StructT"


@dataclass(frozen=True)
class ArrayT(Type):
    dtype: Element
    ndim: int

    def __str__(self) -> str:
        return f"Array[{self.dtype}]" if self.ndim == 1 else f"Array[{self.dtype}, {self.ndim}]"


@dataclass(frozen=True)
class TableT(ArrayT):
    """A module constant read as a run-time-indexed table (``TABLE = (1.0, 2.5)``, ``W = np.array(...)``):
    a read-only array that lives in the compiled module (see :mod:`.typecheck.tables`). ``dtype`` is how
    its elements are stored; ``elem`` what reading one gives (a Python number of a tuple is weak)."""

    elem: Type
    shape: tuple[int, ...]
    kind: str  # "tuple" or "array": what the CPU path holds (tuples have no .shape and index one level at a time)
    key: str  # a hash of the contents: one copy per distinct table in a compiled module
    name: str = field(default="", compare=False)
    data: Any = field(default=None, compare=False, repr=False)  # the values, flat, of ``dtype``

    def __str__(self) -> str:
        what = "tuple" if self.kind == "tuple" else "array"
        return f"constant {what} {self.name}[{self.elem}, {'x'.join(map(str, self.shape))}]"


@dataclass(frozen=True)
class TupleT(Type):
    items: tuple[Type, ...]
    names: tuple[str, ...] = ()  # a namedtuple's field names (numba's NamedTuple arguments); () for a tuple

    def __str__(self) -> str:
        if self.names:
            return "namedtuple[" + ", ".join(f"{n}: {t}" for n, t in zip(self.names, self.items)) + "]"
        return "tuple[" + ", ".join(map(str, self.items)) + "]"


@dataclass(frozen=True)
class OptionalT(TupleT):
    """A number or None: what a helper returns that returns a number on some paths and None on others
    (numba's Optional). Held as the pair (the number, whether there is one), which is how it is lowered; the
    type checker unwraps it wherever a number is used (a ``TypeError`` where it is None, on every path),
    and ``x is None`` tests it."""

    @staticmethod
    def of(inner: Type) -> OptionalT:
        return OptionalT((inner, Scalar("boolean")))

    @property
    def inner(self) -> Type:
        return self.items[0]

    def __str__(self) -> str:
        return f"Optional[{self.inner}]"


@dataclass(frozen=True)
class SliceT(Type):
    """A slice in an index (``a[i:j:k]``): makes the subscript a view; not a value of its own."""

    def __str__(self) -> str:
        return "slice"


@dataclass(frozen=True)
class NoneT(Type):
    def __str__(self) -> str:
        return "None"


BOOL = Scalar("boolean")
I32 = Scalar("i32")
I64 = Scalar("i64")
F16 = Scalar("f16")
F32 = Scalar("f32")
F64 = Scalar("f64")
C64 = Scalar("c64")
C128 = Scalar("c128")
WEAK_BOOL = Weak("bool")
WEAK_INT = Weak("int")
WEAK_FLOAT = Weak("float")
WEAK_COMPLEX = Weak("complex")
NONE = NoneT()


def scalar_of_dtype(dtype: np.dtype[Any]) -> Scalar:
    return Scalar(SCALAR_NAMES[dtype.name])


def storage(t: Type) -> Scalar:
    """The concrete scalar a numeric type is held in on the device."""
    if isinstance(t, Weak):
        return t.storage
    if isinstance(t, EnumT):
        return I64
    assert isinstance(t, Scalar)
    return t


def is_bool(t: Type) -> bool:
    """A NumPy bool or a Python bool."""
    return t == BOOL or t == WEAK_BOOL


def is_numeric(t: Type) -> bool:
    return isinstance(t, (Scalar, Weak, EnumT))


def is_int(t: Type) -> bool:
    return (
        (isinstance(t, Weak) and t.kind == "int") or (isinstance(t, Scalar) and t.kind in "iu") or isinstance(t, EnumT)
    )


def enum_operand(t: Type, other: Type) -> Type:
    """How an enum member takes part in an operation with ``other``: as a Python int with Python
    numbers (and other members), as NumPy's default int64 with NumPy scalars."""
    if not isinstance(t, EnumT):
        return t
    return WEAK_INT if isinstance(other, (Weak, EnumT)) else I64


def is_float(t: Type) -> bool:
    return (isinstance(t, Weak) and t.kind == "float") or (isinstance(t, Scalar) and t.kind == "f")


def is_complex(t: Type) -> bool:
    return (isinstance(t, Weak) and t.kind == "complex") or (isinstance(t, Scalar) and t.kind == "c")


def component(t: Type) -> Scalar | Weak:
    """The type of a complex number's real and imaginary parts (a Python complex has float parts)."""
    if isinstance(t, Weak):
        return WEAK_FLOAT
    assert isinstance(t, Scalar) and t.kind == "c"
    return F32 if t.name == "c64" else F64


def _as_numpy_operand(t: Type) -> Any:
    if isinstance(t, Weak):
        return {"int": int, "float": float, "complex": complex}[t.kind]
    assert isinstance(t, Scalar)
    return t.dtype


class PromotionError(Exception):
    pass


def resolve_ufunc(ufunc: np.ufunc, left: Type, right: Type) -> tuple[Scalar, Scalar, Scalar]:
    """The loop NumPy runs for ``ufunc(left, right)`` with at least one NumPy-scalar operand:
    (left operand type, right operand type, result type)."""
    try:
        a, b, out = ufunc.resolve_dtypes((_as_numpy_operand(left), _as_numpy_operand(right), None))
    except (TypeError, np.exceptions.DTypePromotionError) as exc:
        raise PromotionError(str(exc)) from None
    return scalar_of_dtype(a), scalar_of_dtype(b), scalar_of_dtype(out)


def unify_assignment(old: Type, new: Type) -> Type | None:
    """The type of a variable assigned values of type ``old`` and ``new``; None if they conflict.

    A weakly typed value (``s = 0.0``) may later become the NumPy type it promotes into
    (``s += x[i]`` with x of f32), which is how ``s`` behaves on the CPU too.
    """
    if old == new:
        return old
    if isinstance(old, Weak) and isinstance(new, Weak):
        kinds = ("bool", "int", "float", "complex")  # Python's tower: the wider kind holds both
        return Weak(max(old.kind, new.kind, key=kinds.index))
    if isinstance(old, Weak) and isinstance(new, Scalar):
        old, new = new, old
    if isinstance(old, Scalar) and isinstance(new, Weak):
        if old.kind == "b" or new.kind == "bool":
            return old if old.kind == "b" and new.kind == "bool" else None
        if new.kind == "float" and old.kind not in "fc":
            return None
        if new.kind == "complex" and old.kind != "c":
            return None
        return old
    return None


def unify_variable(old: Type, new: Type) -> Type | None:
    """The type of an unannotated local assigned values of type ``old`` and ``new`` (None: they conflict):
    as :func:`unify_assignment`, and numbers of two kinds (``D = np.inf`` on one path, ``D = m`` of i64
    on another; an i32 and an i64) make the variable the type NumPy promotes them to (f64; i64), numba's
    rule too: every binding converts to it, on every path (the Python path's included). NumPy booleans
    and numbers do not mix."""
    found = unify_assignment(old, new)
    if found is not None:
        return found
    if isinstance(old, Weak) and isinstance(new, Scalar):
        old, new = new, old
    if isinstance(old, Scalar) and isinstance(new, Weak) and old.kind != "b" and new.kind != "bool":
        python = {"int": 0, "float": 0.0, "complex": 0j}[new.kind]  # NEP 50: the Python number is weak
        return _promoted(np.result_type(old.dtype, python))
    if isinstance(old, Scalar) and isinstance(new, Scalar) and "b" not in (old.kind, new.kind):
        return _promoted(np.promote_types(old.dtype, new.dtype))
    return None


def _promoted(dtype: np.dtype[Any]) -> Scalar | None:
    short = SCALAR_NAMES.get(dtype.name)
    return Scalar(short) if short is not None else None


def parse_type_name(name: str) -> Scalar | Weak | None:
    """``"f32"``, ``"float32"``, ``"int"`` ... to a type (None if not a scalar type name)."""
    if name in SCALAR_DTYPES:
        return Scalar(name)
    if name in SCALAR_NAMES:
        return Scalar(SCALAR_NAMES[name])
    return None
