"""Scalar and array types, shared by host code, the CPU path and the compiler.

The scalar types *are* NumPy's scalar types (``f32 is numpy.float32``), so ``f32(x)`` on the
host gives exactly the value the device computes, and NumPy 2 promotion (NEP 50) is the
arithmetic of both sides.
"""

from __future__ import annotations

from typing import Any, TypeVar

import numpy as np

boolean = np.bool_
i8 = np.int8
i16 = np.int16
i32 = np.int32
i64 = np.int64
u8 = np.uint8
u16 = np.uint16
u32 = np.uint32
u64 = np.uint64
f16 = np.float16
f32 = np.float32
f64 = np.float64
c64 = np.complex64
c128 = np.complex128


class NumbaScalar:
    """numba's name of a scalar type (``float32``): converts as the NumPy type does (``float32(x)`` is
    ``np.float32(x)``), is a dtype wherever NumPy takes one (``np.zeros(n, float32)``), and is subscripted
    into array types in eager signatures (``float32[:, ::1]``), as numba's type objects are on the host."""

    __slots__ = ("type", "dtype", "name")

    def __init__(self, name: str, scalar: type[Any]) -> None:
        self.name, self.type, self.dtype = name, scalar, np.dtype(scalar)

    def __call__(self, *args: Any) -> Any:
        if args and all(isinstance(a, (NumbaScalar, str)) for a in args):  # float64(float64): a signature
            return f"{self.name}({', '.join(map(str, args))})"
        return self.type(*args)

    def __getitem__(self, dims: Any) -> str:
        return f"{self.name}[{', '.join(':' for _ in (dims if isinstance(dims, tuple) else (dims,)))}]"

    def __repr__(self) -> str:
        return self.name

    def __eq__(self, other: object) -> bool:
        return other is self or other is self.type or (isinstance(other, NumbaScalar) and other.type is self.type)

    def __hash__(self) -> int:
        return hash(self.type)


# numba's names for the same types (``from numba import float32`` becomes ``from hybrid_runtime import float32``)
float16, float32, float64 = NumbaScalar("float16", f16), NumbaScalar("float32", f32), NumbaScalar("float64", f64)
int8, int16, int32, int64 = (
    NumbaScalar(n, t) for n, t in (("int8", i8), ("int16", i16), ("int32", i32), ("int64", i64))
)
uint8, uint16, uint32, uint64 = (
    NumbaScalar(n, t) for n, t in (("uint8", u8), ("uint16", u16), ("uint32", u32), ("uint64", u64))
)
intp, uintp = NumbaScalar("intp", i64), NumbaScalar("uintp", u64)
complex64, complex128 = NumbaScalar("complex64", c64), NumbaScalar("complex128", c128)
# numba's other spellings that do not clash with the short names above (numba's i8 and u8 are 64-bit:
# `from numba.cuda import i8` (hybrid_runtime.cuda) has numba's meaning, hybrid_runtime.i8 is int8)
b1, i1, i2, i4, u1, u2, u4 = boolean, int8, int16, int32, uint8, uint16, uint32
f4, f8, c8, c16 = float32, float64, complex64, complex128
double, float_, byte = NumbaScalar("double", f64), NumbaScalar("float_", f32), uint8


class _Void:
    """numba's ``void``: the return type of kernels in eager signatures (``void(float32[:])``); the build
    and the runtime read such signatures from the decorator's source text."""

    def __call__(self, *args: Any) -> str:
        return f"void({', '.join(map(str, args))})"

    def __repr__(self) -> str:
        return "void"


void = none = _Void()


def UniTuple(dtype: Any, count: int) -> str:  # noqa: N802 - numba's name
    """numba's ``types.UniTuple(int32, 2)`` in eager signatures: its name as numba prints it."""
    return f"UniTuple({dtype} x {count})"


def Tuple(dtypes: Any) -> str:  # noqa: N802 - numba's name
    """numba's ``types.Tuple((int32, float64))`` in eager signatures: its name as numba prints it."""
    return f"Tuple({', '.join(map(str, dtypes))})"


#: Canonical short names of the scalar types, keyed by NumPy dtype name.
SCALAR_NAMES: dict[str, str] = {
    "bool": "boolean",
    "int8": "i8",
    "int16": "i16",
    "int32": "i32",
    "int64": "i64",
    "uint8": "u8",
    "uint16": "u16",
    "uint32": "u32",
    "uint64": "u64",
    "float16": "f16",
    "float32": "f32",
    "float64": "f64",
    "complex64": "c64",
    "complex128": "c128",
}
#: Short name -> NumPy dtype.
SCALAR_DTYPES: dict[str, np.dtype[Any]] = {short: np.dtype(long) for long, short in SCALAR_NAMES.items()}


def scalar_name(dtype: Any) -> str:
    """The short name (``"f32"``) of a scalar type given as a dtype, a NumPy type or a Python type."""
    if dtype is int:
        return "i64"
    if dtype is float:
        return "f64"
    if dtype is bool:
        return "boolean"
    if dtype is complex:
        return "c128"
    try:
        name = np.dtype(dtype).name
    except TypeError:
        raise TypeError(f"{dtype!r} is not a scalar type") from None
    try:
        return SCALAR_NAMES[name]
    except KeyError:
        raise TypeError(f"dtype {name} is not supported in kernels") from None


class ArrayType:
    """``Array[T]`` or ``Array[T, N]``: an N-dimensional array of T with any strides. T is a scalar
    type, a :func:`~hybrid_runtime.struct` class, or a ``typing.TypeVar`` of a generic kernel."""

    __slots__ = ("dtype", "ndim", "element")

    def __init__(self, element: Any, ndim: int = 1) -> None:
        if not isinstance(ndim, int) or isinstance(ndim, bool) or not 1 <= ndim <= 8:
            raise TypeError(f"Array dimension must be an int from 1 to 8, not {ndim!r}")
        self.ndim = ndim
        self.element = element  # what the annotation names
        if isinstance(element, (TypeVar, str)):  # a string: a forward reference, see resolve()
            self.dtype: np.dtype[Any] | None = None  # bound per specialisation
        elif isinstance(element, type) and "__hybrid_struct__" in element.__dict__:
            self.dtype = element.dtype  # type: ignore[attr-defined]
        else:
            self.dtype = np.dtype(SCALAR_DTYPES[scalar_name(element)])
            self.element = self.dtype.type

    def resolve(self, namespace: dict[str, Any]) -> ArrayType:
        """``Array["Vec2"]`` with its element evaluated in ``namespace`` (a module's globals)."""
        if isinstance(self.element, str):
            return ArrayType(eval(self.element, namespace), self.ndim)  # noqa: S307 - the author's annotation
        return self

    def bind(self, bindings: dict[Any, Any]) -> ArrayType:
        """This array type with a TypeVar element replaced by its binding."""
        return ArrayType(bindings[self.element], self.ndim) if self.dtype is None else self

    def __repr__(self) -> str:
        e = self.element
        name = SCALAR_NAMES[self.dtype.name] if self.dtype is not None and self.dtype.names is None else e.__name__
        return f"Array[{name}]" if self.ndim == 1 else f"Array[{name}, {self.ndim}]"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ArrayType) and (other.element, other.ndim) == (self.element, self.ndim)

    def __hash__(self) -> int:
        return hash((self.element, self.ndim))


class Array:
    """Annotation for array parameters: ``Array[f32]``, ``Array[f64, 2]``."""

    def __class_getitem__(cls, item: Any) -> ArrayType:
        if isinstance(item, tuple):
            if len(item) != 2:
                raise TypeError("use Array[T] or Array[T, N]")
            return ArrayType(item[0], item[1])
        return ArrayType(item)
