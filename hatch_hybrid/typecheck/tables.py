"""Constant tables: module constants that kernels index at run time.

A module-level NumPy array (``W = np.array([...], dtype=np.float32)``) is always a table; a tuple of
numbers (``TABLE = (1.0, 2.5, 4.0)``, nested tuples of equal lengths for more dimensions) stays a
tuple where it is indexed with literals, and becomes a table where it is indexed at run time or
passed to a helper. A table is a read-only array (:class:`~..types.TableT`) whose values are
compiled into the module: constant memory on the GPU, a constant global in native code; the
Python path reads the module's own tuple or array.

Elements have the type the Python path sees: a NumPy array's dtype, Python floats and ints weakly
typed (held as f64 and i64), NumPy scalars their type. A tuple mixing types (``(1, 2.5)``) would give
a different type per element, so indexing it at run time is an error.
"""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Any

import numpy as np

from .. import ir
from ..errors import CompileError, Loc
from ..types import WEAK_INT, ArrayT, SliceT, TableT, TupleT, Type, is_int, scalar_of_dtype, storage
from . import folding
from .typed import TypedFunction

_I64_MIN, _I64_MAX = -(1 << 63), (1 << 63) - 1


def table_name(node: ir.Expr) -> str:
    """How a table is named in messages: the constant's name where the expression is one."""
    if isinstance(node, ir.Name):
        return node.id
    if isinstance(node, ir.Attribute):
        return node.attr
    return "table"


def _make(kind: str, elem: Type, shape: tuple[int, ...], data: np.ndarray, name: str) -> TableT:
    dtype = storage(elem)
    flat = np.ascontiguousarray(data, dtype=dtype.dtype).reshape(-1)
    digest = hashlib.sha256(f"{kind}:{elem}:{shape}:".encode() + flat.astype(flat.dtype.newbyteorder("<")).tobytes())
    return TableT(dtype, len(shape), elem, shape, kind, digest.hexdigest()[:16], name, flat)


def array_table(value: np.ndarray, name: str, loc: Loc) -> TableT:
    """A module-level NumPy array (checked by :func:`..frontend.arrays.checked`) as a table."""
    if value.size == 0:
        raise CompileError(loc, f"`{name}` is an empty array", "a table needs at least one element")
    return _make("array", scalar_of_dtype(value.dtype), value.shape, value, name)


def tuple_layout(value: tuple[Any, ...]) -> tuple[tuple[int, ...], Type, list[Any]] | str:
    """The shape, element type and elements (row-major) of a tuple of numbers read as a table, or why
    it cannot be one."""
    shape: list[int] = []
    level: list[Any] = [value]
    while all(isinstance(v, tuple) for v in level):
        lengths = {len(v) for v in level}
        if len(lengths) > 1:
            return f"its rows have different lengths ({', '.join(map(str, sorted(lengths)))})"
        (length,) = lengths
        if length == 0:
            return "it is empty"
        shape.append(length)
        level = [item for v in level for item in v]
    if any(isinstance(v, tuple) for v in level):
        return "it mixes tuples and numbers"
    types = {folding.type_of_value(v) for v in level}
    if len(types) > 1:
        return "it mixes " + " and ".join(sorted(map(str, types))) + " elements"
    (elem,) = types
    if elem == WEAK_INT and not all(_I64_MIN <= v <= _I64_MAX for v in level):
        return "an int does not fit in 64 bits (a Python int is held in i64)"
    return tuple(shape), elem, level


def tuple_table(value: tuple[Any, ...], name: str, loc: Loc) -> TableT:
    """A module-level tuple of numbers, indexed at run time, as a table."""
    layout = tuple_layout(value)
    if isinstance(layout, str):
        raise CompileError(
            loc,
            f"`{name}` cannot be indexed at run time: {layout}",
            "a tuple indexed at run time must be a table of one element type; write "
            f"{name} = np.array(..., dtype=np.float64) (or the dtype you mean) for one type, or index it with "
            "literals",
        )
    shape, elem, leaves = layout
    return _make("tuple", elem, shape, np.array(leaves, dtype=storage(elem).dtype), name)


def refuse_write(node: ir.Expr, t: Type, how: str) -> None:
    """Changing an element of a table or a tuple (``how``: "an assignment", "gpu.atomic_add") is an error."""
    if isinstance(t, TableT):
        raise CompileError(
            node.loc,
            f"cannot change `{t.name}` with {how}: it is a module-level constant, compiled into the kernel as a "
            "read-only table",
            "copy the values you change into gpu.local_array(...) or an array argument; the compiled table "
            "holds the value of the source at build time, so changing it at run time has no meaning",
        )
    if isinstance(t, TupleT):
        raise CompileError(
            node.loc,
            f"cannot change an item of a tuple with {how}",
            "tuples cannot be changed (Python raises TypeError); use gpu.local_array(...) for values that change",
        )


class TableChecker:
    """Typing of table reads, mixed into :class:`~.function.FunctionChecker`."""

    tf: TypedFunction

    def module_table(self, e: ir.Expr, value: np.ndarray) -> TableT:
        """A read of a module-level array."""
        t = array_table(value, table_name(e), e.loc)
        self.tf.tables[e.nid] = t
        return t

    def as_table(self, node: ir.Expr, loc: Loc, required: bool = True) -> TableT | None:
        """``node``, a tuple whose value is known (a module constant), read as a table from here on;
        None if it is not a known tuple (or, unless ``required``, not a table of one type)."""
        value = self.tf.consts.get(node.nid)
        if not isinstance(value, tuple) or not isinstance(self.tf.types.get(node.nid), TupleT):
            return None  # not a tuple known at compile time (a shared array's shape is not its value)
        if not required and isinstance(tuple_layout(value), str):
            return None
        t = tuple_table(value, table_name(node), loc)
        self.tf.types[node.nid] = self.tf.tables[node.nid] = t
        del self.tf.consts[node.nid]
        return t

    def table_subscript(self, e: ir.Subscript, base: TableT, index: Type) -> Type:
        """``TABLE[i]``, ``W[r, c]`` (arrays), ``W[r][c]`` (tuples); ``W[r]`` is a row, itself a table."""
        if base.kind == "tuple" and isinstance(index, TupleT):
            raise CompileError(
                e.index.loc,
                f"`{base.name}` is a tuple, which is indexed one level at a time (Python raises TypeError for "
                "a tuple index)",
                f"write {base.name}[r][c], or make it an array: {base.name} = np.array(...)",
            )
        items = index.items if isinstance(index, TupleT) else (index,)
        if len(items) > base.ndim:
            raise CompileError(e.index.loc, f"`{base.name}` has {base.ndim} dimensions, not {len(items)}")
        for t in items:
            if isinstance(t, SliceT):
                raise CompileError(
                    e.index.loc,
                    f"`{base.name}` is a constant table, which is not sliced in kernel code",
                    f"index its elements ({base.name}[i]) with the offsets the slice would add",
                )
            if not is_int(t):
                raise CompileError(e.index.loc, f"table indices must be integers, not {t}", "convert with int(...)")
        if len(items) == base.ndim:
            return base.elem
        rest = base.shape[len(items) :]
        return dataclasses.replace(base, ndim=len(rest), shape=rest)

    def table_attribute(self, e: ir.Attribute, base: TableT) -> Type:
        """``.shape``, ``.size``, ``.ndim`` of an array table, known at compile time."""
        if base.kind == "tuple":
            raise CompileError(
                e.loc,
                f"`{base.name}` is a tuple, which has no attribute `{e.attr}`",
                f"use len({base.name}), or make it an array: {base.name} = np.array(...)",
            )
        if e.attr == "shape":
            self.tf.consts[e.nid] = base.shape
            return TupleT((WEAK_INT,) * base.ndim)
        if e.attr in ("size", "ndim"):
            self.tf.consts[e.nid] = int(np.prod(base.shape)) if e.attr == "size" else base.ndim
            return WEAK_INT
        raise CompileError(
            e.loc, f"a table has no attribute `{e.attr}` in kernel code", "arrays have .shape, .size, .ndim"
        )


def unpacked(t: Type) -> Type:
    """What unpacking a value of type ``t`` gives: a 1-D table unpacks into its elements."""
    if isinstance(t, TableT) and t.ndim == 1:
        return TupleT((t.elem,) * t.shape[0])
    return t


def accepts_table(want: Type, t: Type) -> bool:
    """An ``Array[T, N]`` annotation takes a table of T with N dimensions."""
    return isinstance(t, TableT) and isinstance(want, ArrayT) and (want.dtype, want.ndim) == (t.dtype, t.ndim)
