"""What names and attributes mean in kernel code: locals, module constants (numbers, tables, dtypes),
NumPy's and ``math``'s constants, modules' members, and the attributes of arrays, tuples, numbers and
types (``x.shape``, ``p.x``, ``z.real``, ``x.dtype``).

:class:`NameChecker` is mixed into :class:`~.function.FunctionChecker`, which provides ``expr`` and the
other checkers' methods it calls.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import ir
from ..errors import CompileError, Note
from ..frontend.arrays import DeviceCopy
from ..frontend.discover import ConstSym, ExternalSym, NonConstSym, Symbol
from ..types import (
    WEAK_FLOAT,
    WEAK_INT,
    ArrayT,
    Scalar,
    TableT,
    TupleT,
    Type,
    component,
    is_complex,
    is_numeric,
    parse_type_name,
)
from . import folding, numpy_funcs, rules
from .typed import BUILTINS, MethodSym, ProgramLike, SymbolT, TypedFunction

_PYTHON_BUILTINS = set(dir(builtins))


class Unresolved(Exception):
    """A local's type is not known yet in this inference round."""


class NameChecker:
    """Names and attributes (mixed into the function checker)."""

    tf: TypedFunction
    program: ProgramLike
    module: str
    final: bool
    local_names: set[str]
    local_consts: dict[str, object]

    # provided by the function checker and the other checkers it mixes in
    expr: Callable[..., Type]
    numpy_info: Callable[[ir.Attribute], Type | None]
    table_attribute: Callable[[ir.Attribute, TableT], Type]
    user_type_attribute: Callable[[ir.Attribute, Type], Type | None]
    module_table: Callable[[ir.Expr, np.ndarray], Type]

    def name(self, e: ir.Name) -> Type:
        tf = self.tf
        if e.id in self.local_names:
            if e.id in self.local_consts:
                tf.consts[e.nid] = self.local_consts[e.id]
            t = tf.locals.get(e.id)
            if t is None:
                if self.final:
                    raise CompileError(e.loc, f"variable `{e.id}` is used before it is assigned")
                raise Unresolved(e.id)
            return t
        sym = self.program.index.resolve_global(self.module, e.id)
        if sym is None:
            if e.id in BUILTINS:
                return SymbolT(e.id)
            if e.id in _PYTHON_BUILTINS:
                raise CompileError(
                    e.loc,
                    f"the builtin `{e.id}` is not supported in kernel code",
                    "kernels use scalars, tuples and arrays: pass an array in, or use gpu.shared_array / a tuple",
                )
            raise CompileError(e.loc, f"name `{e.id}` is not defined", "define it at module level or pass it in")
        return self._symbol_value(sym, e)

    def _symbol_value(self, sym: Symbol, e: ir.Expr) -> Type:
        if isinstance(sym, ConstSym):
            if isinstance(sym.value, DeviceCopy):
                raise CompileError(
                    e.loc,
                    f"kernels cannot read the device array `{getattr(e, 'id', 'this')}` as a constant: launches may "
                    "change it (its shape, len and dtype are build-time numbers kernels can read)",
                    "pass it to the kernel as an argument",
                )
            if isinstance(sym.value, np.ndarray):
                return self.module_table(e, sym.value)
            if isinstance(sym.value, np.dtype):  # `MASK = np.dtype(np.int32)`: names the type, as np.int32 does
                named = dtype_symbol(sym.value)
                if not aliasable(named):
                    raise CompileError(e.loc, f"the dtype {sym.value} is not a type kernels have")
                return named
            self.tf.consts[e.nid] = sym.value
            return folding.type_of_value(sym.value)
        if isinstance(sym, NonConstSym):
            name = sym.qualname.rpartition(".")[2]
            raise CompileError(
                e.loc,
                f"kernels cannot read the {sym.where} `{name}`: it is {sym.reason}",
                "kernels read module constants of numbers, tuples of numbers and NumPy arrays (np.array of numbers, "
                "np.arange, np.linspace), computed from literals, other constants, casts and math; pass anything "
                "else in as a parameter",
                [Note(sym.loc, f"`{name}` is assigned here")],
            )
        if isinstance(sym, ExternalSym):
            module, _, name = sym.qualname.rpartition(".")
            known = {"math": rules.MATH_CONSTANTS, "numpy": numpy_funcs.CONSTANTS}.get(module, {})
            if name in known:
                self.tf.consts[e.nid] = float(known[name])
                return WEAK_FLOAT
        return SymbolT(sym)

    def attribute(self, e: ir.Attribute) -> Type:
        info = self.numpy_info(e)
        if info is not None:
            return info
        base = self.expr(e.value)
        if isinstance(base, TableT):
            return self.table_attribute(e, base)
        found = self.user_type_attribute(e, base)
        if found is not None:
            return found
        if isinstance(base, SymbolT) and e.attr == "type" and aliasable(base):
            return base  # `x.dtype.type`: NumPy's scalar type, which converts as the dtype's name does
        if isinstance(base, SymbolT) and not isinstance(base.sym, (str, MethodSym)):
            member = self.program.index.resolve_member(base.sym, e.attr)
            if member is None:
                raise CompileError(e.loc, f"module `{base}` has no function or constant `{e.attr}`")
            return self._symbol_value(member, e)
        if isinstance(base, TupleT) and base.names:  # numba's namedtuple arguments: `p.x`
            if e.attr not in base.names:
                raise CompileError(e.loc, f"{base} has no field `{e.attr}`", "fields: " + ", ".join(base.names))
            return base.items[base.names.index(e.attr)]
        if is_numeric(base) and not is_complex(base) and e.attr in ("real", "imag"):  # as NumPy's and Python's
            if e.attr == "imag":  # a real number's imaginary part: 0 of its type
                self.tf.consts[e.nid] = folding.convert(0, base)
            return base
        if is_complex(base) and e.attr in ("real", "imag"):
            value = self.tf.consts.get(e.value.nid)
            if isinstance(value, (complex, np.complexfloating)):
                self.tf.consts[e.nid] = getattr(value, e.attr)
            return component(base)
        if isinstance(base, ArrayT):
            if e.attr in ("real", "imag") and isinstance(base.dtype, Scalar) and base.dtype.kind == "c":
                part = component(base.dtype)  # NumPy's view of the parts (fbpic: atomics on rho.real)
                assert isinstance(part, Scalar)
                return ArrayT(part, base.ndim)
            if e.attr == "dtype" and isinstance(base.dtype, Scalar):  # a type known at build time
                return dtype_symbol(base.dtype.dtype)
            if e.attr == "shape":
                return TupleT((WEAK_INT,) * base.ndim)
            if e.attr in ("size", "ndim"):
                if e.attr == "ndim":
                    self.tf.consts[e.nid] = base.ndim
                return WEAK_INT
        raise CompileError(
            e.loc, f"{base} has no attribute `{e.attr}` in kernel code", "arrays have .shape, .size and .ndim"
        )


def dtype_symbol(dtype: np.dtype[Any]) -> SymbolT:
    """NumPy's scalar type of ``dtype`` as the name kernels read (``numpy.float32``, ``numpy.bool_``)."""
    return SymbolT(ExternalSym(f"numpy.{'bool_' if dtype.kind == 'b' else dtype.name}"))


def aliasable(t: SymbolT) -> bool:
    """Whether a local may name ``t``: a NumPy scalar type (``dtype = x.dtype``), known at build time."""
    sym = t.sym
    return (
        isinstance(sym, ExternalSym)
        and sym.qualname.startswith("numpy.")
        and parse_type_name(sym.qualname[6:]) is not None
    )
