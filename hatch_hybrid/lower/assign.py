"""Lowering of assignments: to variables, array elements, struct fields and tuples of these, plain
and augmented (``+=``), each value converted to the target's type as NumPy converts it, and checked
where NumPy raises instead (``convert_checked``).

:class:`AssignLowerer` is mixed into :class:`~.function.FunctionLowerer`, which provides the builder,
``expr``/``coerce``/``convert_checked``, locals, array elements and operators.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from llvmlite import ir as llir

from .. import ir
from ..errors import Loc
from ..typecheck import bindings, folding
from ..typecheck.typed import SymbolT
from ..types import (
    NONE,
    WEAK_INT,
    ArrayT,
    Element,
    OptionalT,
    Scalar,
    StructT,
    TableT,
    TupleT,
    Type,
    is_numeric,
    storage,
)
from .abi import NONE_USED
from .ops import I1, const, llvm_type
from .parts import LowererParts
from .values import ArrayValue, TupleValue, Value


class AssignLowerer(LowererParts):
    element_pointer: Callable[[ir.Subscript], llir.Value]  # MemoryLowerer
    load_element: Callable[..., Value]
    address: Callable[..., llir.Value]
    store_element: Callable[..., None]
    load_local: Callable[[str], Value]
    call_function: Callable[..., Value]  # CallLowerer
    _binop_values: Callable[..., llir.Value]  # OperatorLowerer
    table_items: Callable[..., Any]  # TableLowerer

    def assign(self, target: ir.Expr, value_node: ir.Expr) -> None:
        if isinstance(target, ir.TupleExpr) and isinstance(value_node, ir.TupleExpr):
            # `a, b = b, a`: every value first, then the stores
            values = [(self.expr(v), self.tf.types[v.nid]) for v in value_node.elts]
            for t_node, (v, t) in zip(target.elts, values):
                self.store_to(t_node, v, t)
            return
        dest = self._target_type(target)
        if isinstance(target, ir.Name) and dest == WEAK_INT and folding.beyond_i64(self.tf.consts.get(value_node.nid)):
            self._wide_local(target, value_node)
        elif dest is not None and is_numeric(dest):  # convert as the value is made (f32(sqrt(x)) stays in f32)
            context = "store" if isinstance(target, ir.Subscript) else "arith" if isinstance(target, ir.Name) else None
            self.store_to(target, self.coerce(value_node, dest, context), dest)
        else:
            value, t = self.expr(value_node), self.tf.types[value_node.nid]
            if isinstance(t, TableT) and isinstance(target, ir.TupleExpr):
                value, t = self.table_items(value, t)
            elif isinstance(t, ArrayT) and isinstance(target, ir.TupleExpr):
                value, t = self._array_items(value, t, len(target.elts), value_node.loc)
            self.store_to(target, value, t)

    def _array_items(self, value: Value, t: ArrayT, n: int, loc: Loc) -> tuple[TupleValue, TupleT]:
        """``a, b = arr`` of a 1-D array: its ``n`` elements, once its length is checked to be ``n`` (Python's
        ValueError otherwise, with Python's message)."""
        assert isinstance(value, ArrayValue) and isinstance(t.dtype, Scalar)
        b, size, count = self.b, value.shape[0], const(WEAK_INT, n)
        self.check(b.icmp_signed("<=", size, count), "value", loc, f"too many values to unpack (expected {n})")
        self.check(
            b.icmp_signed(">=", size, count), "value", loc, f"not enough values to unpack (expected {n}, got {{a}})",
            (size, count),
        )  # fmt: skip
        items = [self.load_element(self.address(value, [const(WEAK_INT, k)], t.dtype), t.dtype, loc) for k in range(n)]
        return TupleValue(items), TupleT((t.dtype,) * n)

    def _wide_local(self, target: ir.Name, value_node: ir.Expr) -> None:
        """``m = 18446744073709551615``: a Python int beyond i64 (``folding.beyond_i64``), which the device
        cannot hold as a Python int. Bound once, the local is a number known at build time that each read
        gives (the checker's ``local_consts``), converted where it is used (``wide_literal``); its bits are
        stored for form's sake. Bound elsewhere too, it would be a Python int at run time: refused."""
        value = self.tf.consts[value_node.nid]
        if bindings.assignment_counts(self.tf.fn.body).get(target.id) != 1:
            folding.wide_int_as(value, WEAK_INT, value_node.loc)  # raises
        self.store_to(target, const(WEAK_INT, value), WEAK_INT)

    def _target_type(self, target: ir.Expr) -> Type | None:
        if isinstance(target, ir.Name):
            return self.tf.locals[target.id]
        if isinstance(target, ir.Subscript):
            arr_t = self.tf.types[target.value.nid]
            return arr_t.dtype if isinstance(arr_t, ArrayT) else None
        if isinstance(target, ir.Attribute):
            return self.tf.types[target.nid]
        return None

    def store_to(self, target: ir.Expr, value: Value, t: Type) -> None:
        """Store a value of type ``t`` into a variable, array element, struct field or tuple of these."""
        if isinstance(target, ir.TupleExpr):
            assert isinstance(value, TupleValue) and isinstance(t, TupleT)
            for t_node, v, item_t in zip(target.elts, value.items, t.items):
                self.store_to(t_node, v, item_t)
            return
        if isinstance(target, ir.Subscript):
            arr_t = self.tf.types[target.value.nid]
            assert isinstance(arr_t, ArrayT)
            if isinstance(arr_t.dtype, Scalar) and isinstance(value, llir.Value):
                value = self.convert_checked(value, t, arr_t.dtype, target.loc, "store")
            else:
                value = self.convert_value(value, t, arr_t.dtype)
            self.store_element(self.element_pointer(target), value, arr_t.dtype, target.loc)
            return
        if isinstance(target, ir.Attribute):
            base: ir.Expr | None
            base, path = ir.field_path(target)
            if isinstance(base, ir.Name):  # a field of a struct variable
                whole = self.load_local(base.id)
                self.store_local(base.id, self._replace_field(whole, self.tf.locals[base.id], path, value, t))
                base = self.tf.element_bound.get(base.id)  # `p = ps[i]`: the element object writes the array too
            if base is not None:  # a field of an array element: only its bytes are written
                assert isinstance(base, ir.Subscript)
                ptr, field_t = self.element_field(base, path)
                self.store_element(ptr, self.convert_value(value, t, field_t), field_t, target.loc)
            return
        assert isinstance(target, ir.Name)
        dest = self.tf.locals[target.id]
        if isinstance(dest, SymbolT):  # `dtype = x.dtype`: a name for a type, nothing stored
            return
        if isinstance(value, llir.Value) and is_numeric(dest):
            value = self.convert_checked(value, t, dest, target.loc, "arith")
        else:
            value = self.convert_value(value, t, dest)
        self.store_local(target.id, value)

    def optional_number(self, value: Value, loc: Loc) -> Value:
        """A helper's result that may be None, used as a number: the number, after the check that raises
        TypeError (:data:`NONE_USED`) where it is None."""
        assert isinstance(value, TupleValue) and isinstance(value.items[1], llir.Value)
        self.check(value.items[1], "type", loc, NONE_USED)
        return value.items[0]

    def optional_as(self, e: ir.Expr, to: OptionalT) -> Value:
        """``e``, a number or another helper's number-or-None, as a value that may be None: (the number
        converted as NumPy converts it, whether there is one)."""
        src = self.tf.types[e.nid]
        if not isinstance(src, OptionalT):
            return TupleValue([self.value_as(e, to.inner), llir.Constant(I1, 1)])  # a number: present
        value = self.expr(e)
        assert isinstance(value, TupleValue) and isinstance(value.items[0], llir.Value)
        number = value.items[0]
        if src.inner != to.inner and e.nid in self.tf.conversions:
            number = self.convert_checked(number, src.inner, to.inner, e.loc, "arith")
        elif src.inner != to.inner:
            number = self.ops.convert(number, src.inner, to.inner)
        return TupleValue([number, value.items[1]])

    def convert_value(self, value: Value, src: Type, dst: Type) -> Value:
        """Numbers convert as NumPy converts; tuples item by item; arrays and structs stay as they are; a
        number (or None) stored where a value may be None becomes (the number, True) (or (0, False))."""
        if isinstance(dst, OptionalT) and not isinstance(src, OptionalT):
            if src == NONE:
                return TupleValue([llir.Constant(llvm_type(storage(dst.inner)), None), llir.Constant(I1, 0)])
            return TupleValue([self.convert_value(value, src, dst.inner), llir.Constant(I1, 1)])
        if isinstance(dst, TupleT) and isinstance(src, TupleT):
            assert isinstance(value, TupleValue)
            return TupleValue([self.convert_value(v, a, b) for v, a, b in zip(value.items, src.items, dst.items)])
        if isinstance(dst, (ArrayT, StructT, TupleT)):
            return value
        assert isinstance(value, llir.Value)
        return self.ops.convert(value, src, dst)

    def field_of_element(self, e: ir.Attribute) -> tuple[llir.Value, Element] | None:
        """``p[i].pos.x``: the address of that field inside the array element and its type (None for
        other attributes). Reads and writes of one field touch only its bytes, as in C and numba."""
        node, path = ir.field_path(e)
        if not isinstance(node, ir.Subscript):
            return None
        arr_t = self.tf.types[node.value.nid]
        if (
            not isinstance(arr_t, ArrayT)
            or isinstance(arr_t, TableT)
            or not isinstance(self.tf.types[node.nid], StructT)
        ):
            return None
        return self.element_field(node, path)

    def element_field(self, node: ir.Subscript, path: list[str]) -> tuple[llir.Value, Element]:
        """The address and type of the field at ``path`` (none: the whole element) of element ``node``."""
        struct_t = self.tf.types[node.nid]
        assert isinstance(struct_t, StructT)
        ptr, offset = self.element_pointer(node), 0
        field_t: Element = struct_t
        for name in path:
            assert isinstance(field_t, StructT)
            offset += field_t.offset_of(name)
            found = field_t.field(name)
            assert isinstance(found, (Scalar, StructT))
            field_t = found
        if offset:
            ptr = self.b.gep(ptr, [llir.Constant(llir.IntType(64), offset)], source_etype=llir.IntType(8))
        return ptr, field_t

    def _replace_field(self, whole: Value, t: Type, path: list[str], value: Value, value_t: Type) -> Value:
        assert isinstance(whole, TupleValue) and isinstance(t, StructT)
        k = [n for n, _ in t.fields].index(path[0])
        field_t = t.fields[k][1]
        items = list(whole.items)
        if len(path) == 1:
            items[k] = self.convert_value(value, value_t, field_t)
        else:
            items[k] = self._replace_field(items[k], field_t, path[1:], value, value_t)
        return TupleValue(items)

    def aug_assign(self, s: ir.AugAssign) -> None:
        ops = self.tf.optypes[s.nid]
        callee = self.tf.callees.get(s.nid)
        if callee is not None:  # `c += d` on a struct: c = c.__add__(d), as Python falls back to
            self.store_to(s.target, self.call_function(callee, [s.target, s.value]), ops.result)
            return
        field = self.field_of_element(s.target) if isinstance(s.target, ir.Attribute) else None
        if field is not None:  # p[i].vx += v: the element's address once, as Python indexes once
            ptr, field_t = field
            current = self.load_element(ptr, field_t, s.target.loc)
            result = self._binop_values(s.op, current, field_t, s.value, ops, s.loc)
            self.store_element(ptr, self.convert_value(result, ops.result, field_t), field_t, s.target.loc)
            return
        if isinstance(s.target, ir.Attribute):
            t = self.tf.types[s.target.nid]
            current = self.expr(s.target)
            result = self._binop_values(s.op, current, t, s.value, ops, s.loc)
            self.store_to(s.target, result, ops.result)
            return
        if isinstance(s.target, ir.Subscript):
            arr_t = self.tf.types[s.target.value.nid]
            assert isinstance(arr_t, ArrayT) and isinstance(arr_t.dtype, Scalar)
            ptr = self.element_pointer(s.target)
            current = self.load_element(ptr, arr_t.dtype, s.target.loc)
            result = self._binop_values(s.op, current, arr_t.dtype, s.value, ops, s.loc)
            stored = self.convert_checked(result, ops.result, arr_t.dtype, s.loc, "store")
            self.store_element(ptr, stored, arr_t.dtype, s.target.loc)
            return
        assert isinstance(s.target, ir.Name)
        t = self.tf.locals[s.target.id]
        current = self.load_local(s.target.id)
        result = self._binop_values(s.op, current, t, s.value, ops, s.loc)
        self.store_local(s.target.id, self.ops.convert(result, ops.result, t))
