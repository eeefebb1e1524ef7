"""How kernel-language values are represented while lowering: LLVM values, or for arrays and
tuples small records of LLVM values, passed to functions as flat parameter lists."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeAlias

from llvmlite import ir as llir

from ..typecheck.typed import SymbolT
from ..types import WEAK_INT, ArrayT, StructT, TupleT, Type, storage
from .ops import I8, I64, PTR, const, llvm_type


@dataclass
class ArrayValue:
    ptr: llir.Value
    shape: list[llir.Value]
    strides: list[llir.Value]  # in elements
    # sanitized host code: where the elements lie, when known (a kernel parameter's index, or
    # targets/host/lowering/sanitize.py.SHARED), so that accesses find their shadow cells without a search
    root: int | None = field(default=None, compare=False)


@dataclass
class TupleValue:
    """A tuple's items, or a struct's fields in declaration order."""

    items: list[Value]


Value: TypeAlias = "llir.Value | ArrayValue | TupleValue | None"


def abi_types(t: Type, kernel: bool = False) -> list[llir.Type]:
    """How a value of type ``t`` is passed as function parameters (a function, type or module: not at all,
    the helper is specialised to it)."""
    if isinstance(t, SymbolT):
        return []
    if isinstance(t, ArrayT):
        return [PTR] + [I64] * (2 * t.ndim)
    if isinstance(t, (TupleT, StructT)):
        return [x for item in items_of(t) for x in abi_types(item, kernel)]
    s = storage(t)
    if kernel and s.kind == "c":  # kernels take the real and imaginary parts as two parameters
        part = llvm_type(s).elements[0]
        return [part, part]
    return [I8 if (kernel and s.kind == "b") else llvm_type(s)]


def flatten(v: Value) -> list[llir.Value]:
    if isinstance(v, ArrayValue):
        return [v.ptr, *v.shape, *v.strides]
    if isinstance(v, TupleValue):
        return [x for item in v.items for x in flatten(item)]
    assert v is not None
    return [v]


def unflatten(t: Type, values: list[llir.Value], kernel: bool = False) -> tuple[Value, list[llir.Value]]:
    """The value of type ``t`` that ``values`` start with, and the rest. ``kernel``: as kernel parameters
    (see :func:`abi_types`), where a complex number is a (real, imaginary) TupleValue."""
    if isinstance(t, SymbolT):
        return None, values
    if isinstance(t, ArrayT):
        n = t.ndim
        return ArrayValue(values[0], values[1 : 1 + n], values[1 + n : 1 + 2 * n]), values[1 + 2 * n :]
    if isinstance(t, (TupleT, StructT)):
        items = []
        for item in items_of(t):
            v, values = unflatten(item, values, kernel)
            items.append(v)
        return TupleValue(items), values
    if kernel and storage(t).kind == "c":
        return TupleValue(values[:2]), values[2:]
    return values[0], values[1:]


def items_of(t: TupleT | StructT) -> list[Type]:
    return list(t.items) if isinstance(t, TupleT) else [f for _, f in t.fields]


def leaf_offsets(t: StructT, base: int = 0) -> list[tuple[int, Type]]:
    """(byte offset, scalar type) of every scalar field of a struct in memory, depth first."""
    out: list[tuple[int, Type]] = []
    for name, ft in t.fields:
        offset = base + t.offset_of(name)
        out += leaf_offsets(ft, offset) if isinstance(ft, StructT) else [(offset, ft)]
    return out


def row_major_strides(shape: tuple[int, ...]) -> list[llir.Value]:
    """Row-major strides (in elements) of a compile-time shape."""
    strides: list[llir.Value] = []
    acc = 1
    for d in reversed(shape):
        strides.insert(0, const(WEAK_INT, acc))
        acc *= d
    return strides


def constant_value(t: Type, value: Any) -> Value:
    """A value known at compile time; a module constant tuple item by item (nested too)."""
    if isinstance(t, TupleT):
        return TupleValue([constant_value(item, v) for item, v in zip(t.items, value)])
    return const(t, value)


def fixed_shape_array(ptr: llir.Value, shape: tuple[int, ...]) -> ArrayValue:
    """A C-contiguous array of a compile-time shape (shared, local, a constant table): constant shape
    and strides."""
    return ArrayValue(ptr, [const(WEAK_INT, d) for d in shape], row_major_strides(shape))
