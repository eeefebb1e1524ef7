"""Lowering of operators whose evaluation is more than one instruction: binary operators on values
(with the division check of Python numbers), comparison chains, ``and``/``or`` and conditional
expressions, each short-circuiting as Python does.

:class:`OperatorLowerer` is mixed into :class:`~.function.FunctionLowerer`, which provides the builder,
``expr``/``coerce``/``convert_value``/``check`` and the function being built.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from llvmlite import ir as llir

from .. import ir
from ..errors import Loc
from ..typecheck import folding
from ..typecheck.rules import OpTypes
from ..types import WEAK_FLOAT, Type, Weak, is_complex, is_float, is_int, storage
from .ops import I1, const, llvm_type
from .parts import LowererParts
from .values import TupleValue, Value, flatten, unflatten

#: CPython's message for a float power that overflows (``1e300 ** 2.5``), NumPy's for an integer to a
#: negative integer power
PYTHON_POW_OVERFLOW = "(34, 'Numerical result out of range')"
NEGATIVE_POWER = "Integers to negative integer powers are not allowed."
NEGATIVE_SHIFT = "negative shift count"  # CPython's


class OperatorLowerer(LowererParts):
    known_link: Callable[[int, int], bool | None]  # provided by ThreadHooks

    def _binop_values(
        self, op: str, left: llir.Value, left_t: Type, right_node: ir.Expr, ops: OpTypes, loc: Loc
    ) -> llir.Value:
        left = self.convert_checked(left, left_t, ops.left, loc, "arith")
        right = self.coerce(right_node, ops.right, "arith")
        right_const = self.tf.consts.get(right_node.nid)
        python_numbers = isinstance(ops.left, Weak) and isinstance(ops.right, Weak)
        if op in ("/", "//", "%") and python_numbers and right_const is None:
            # Python numbers: Python raises ZeroDivisionError, so the device does too (NumPy scalars give
            # inf/0 on every path instead, as NumPy does)
            self.check(self.ops.truth(right, ops.right), "zerodiv", loc)
        if op == "**" and python_numbers and isinstance(right_const, int) and right_const < 0 and is_complex(ops.left):
            # CPython: 1 / z**-n, which raises ZeroDivisionError where z**-n is zero (also by underflow)
            power = self.ops.complex.power(left, -right_const, weak=True)
            self.check(self.ops.truth(power, ops.left), "zerodiv", loc)
            return self.ops.convert(self.ops.binop("/", const(ops.left, 1), power, ops.left), ops.left, ops.result)
        if op in ("<<", ">>") and python_numbers and not (isinstance(right_const, int) and right_const >= 0):
            # Python's ints raise ValueError for a negative count (NumPy's give 0 or -1)
            self.check(self.b.icmp_signed(">=", right, llir.Constant(right.type, 0)), "value", loc, NEGATIVE_SHIFT)
        if op in ("<<", ">>") and storage(ops.left) != storage(ops.right):
            right = self.ops.convert(right, ops.right, ops.left)
        if op == "**" and python_numbers and is_float(ops.left):
            return self._python_float_power(left, right, right_const, loc)
        if op == "**" and storage(ops.right).kind == "i" and is_int(ops.left):
            if not (isinstance(right_const, (int, np.integer)) and right_const >= 0):
                # NumPy raises ValueError for an integer to a negative integer power; so do Python ints here
                # (Python would give a float: the Python path raises where it does, python_typed.wrap_int64)
                nonnegative = self.b.icmp_signed(">=", right, llir.Constant(right.type, 0))
                self.check(nonnegative, "value", loc, NEGATIVE_POWER)
        result = self.ops.binop(op, left, right, ops.left, right_const)
        return self.ops.convert(result, ops.left, ops.result)

    def _python_float_power(self, left: llir.Value, right: llir.Value, right_const: object, loc: Loc) -> llir.Value:
        """``x ** y`` of Python floats: CPython raises ZeroDivisionError for 0.0 to a negative power and
        OverflowError where finite operands give an infinite result; the C library's ``pow`` gives inf
        for both, so the device checks as CPython does. (A negative base to a non-integral power is a
        complex number in Python; the device gives NaN: see docs/language.md.)"""
        b, zero = self.b, llir.Constant(left.type, 0.0)
        if not (isinstance(right_const, (int, float)) and right_const >= 0):
            self.check(
                b.not_(b.and_(b.fcmp_ordered("==", left, zero), b.fcmp_ordered("<", right, zero))), "zerodiv", loc
            )
        if right_const == 2:
            result = self.ops.binop("**", left, right, WEAK_FLOAT, right_const)  # x * x
        else:  # CPython: 1.0 for x ** 0.0 and 1.0 ** y, whatever x and y (C's pow: NaN for a signalling NaN)
            result = self.ops.python_power(left, right, storage(WEAK_FLOAT))
        finite = self.ops.is_finite
        overflow = b.and_(b.and_(self.ops.is_inf(result), finite(left)), finite(right))
        self.check(b.not_(overflow), "overflow", loc, PYTHON_POW_OVERFLOW)
        return result

    def compare(self, e: ir.Compare) -> llir.Value:
        b = self.b
        if e.ops[0] in ("is", "is not"):  # `x is None` of a value that may be None (else known: a constant)
            tested = self.expr(e.left)
            assert isinstance(tested, TupleValue) and isinstance(tested.items[1], llir.Value)
            present = tested.items[1]
            return present if e.ops[0] == "is not" else b.xor(present, llir.Constant(I1, 1))
        left_node = e.left
        left = self._compared(left_node)
        results: list[tuple[llir.Value, llir.Block]] = []
        after = self.fn.append_basic_block("cmp.end") if len(e.ops) > 1 else None
        for k, (op, comp) in enumerate(zip(e.ops, e.comparators)):
            ops = self.tf.cmptypes[(e.nid, k)]
            right = self._compared(comp)
            lt, rt = self.tf.types[left_node.nid], self.tf.types[comp.nid]
            known = self.known_link(e.nid, k)
            if known is not None:
                ok = llir.Constant(I1, int(known))
            else:
                # a Python int beyond i64 (None here) is compared as a u64 (or converted, as NumPy converts it)
                ta = folding.compared_as(self.known(left_node), ops.left, rt)
                tb = folding.compared_as(self.known(comp), ops.right, lt)
                a = self.ops.convert(left, lt, ta) if left is not None else self.wide_literal(left_node, ta)
                b_ = self.ops.convert(right, rt, tb) if right is not None else self.wide_literal(comp, tb)
                ok = self.ops.compare(op, a, b_, ta, tb)
            if after is None:
                return ok
            results.append((ok, b.block))
            if k < len(e.ops) - 1:
                nxt = self.fn.append_basic_block("cmp.next")
                b.cbranch(ok, nxt, after)
                b.position_at_end(nxt)
            else:
                b.branch(after)
            left, left_node = right, comp
        assert after is not None
        b.position_at_end(after)
        phi = b.phi(I1)
        for value, block in results:
            phi.add_incoming(value, block)
        return phi

    def _compared(self, node: ir.Expr) -> llir.Value | None:
        """An operand of a comparison, lowered (a constant as it is: ``Ops.opaque_zero`` is for values that
        may be chosen); None for a Python int beyond i64, converted where used."""
        value = self.known(node)
        if folding.beyond_i64(value):
            return None
        if isinstance(value, (int, float, np.number, np.bool_)):
            return const(self.tf.types[node.nid], value)  # type: ignore[arg-type]
        return self.expr(node)

    def bool_op(self, e: ir.BoolOp) -> llir.Value:
        b = self.b
        t = self.tf.types[e.nid]
        after = self.fn.append_basic_block(f"{e.op}.end")
        incoming = []
        for k, v in enumerate(e.values):
            value = self.coerce(v, t)
            if k == len(e.values) - 1:
                incoming.append((value, b.block))
                b.branch(after)
                break
            truth = self.ops.truth(value, t)
            incoming.append((value, b.block))
            nxt = self.fn.append_basic_block(f"{e.op}.next")
            if e.op == "and":
                b.cbranch(truth, nxt, after)
            else:
                b.cbranch(truth, after, nxt)
            b.position_at_end(nxt)
        b.position_at_end(after)
        phi = b.phi(llvm_type(storage(t)))
        for value, block in incoming:
            phi.add_incoming(value, block)
        return phi

    def if_exp(self, e: ir.IfExp) -> Value:
        b = self.b
        t = self.tf.types[e.nid]
        cond = self.condition(e.test)
        then, other, after = (self.fn.append_basic_block(n) for n in ("ifexp.then", "ifexp.else", "ifexp.end"))
        b.cbranch(cond, then, other)
        incoming = []
        for block, node in ((then, e.body), (other, e.orelse)):
            b.position_at_end(block)
            incoming.append((flatten(self.value_as(node, t)), b.block))
            b.branch(after)
        b.position_at_end(after)
        parts = []
        for k, first in enumerate(incoming[0][0]):
            phi = b.phi(first.type)
            for values, block in incoming:
                phi.add_incoming(values[k], block)
            parts.append(phi)
        return unflatten(t, parts)[0]
