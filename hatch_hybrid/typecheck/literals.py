"""Values that are a NumPy scalar or a Python literal depending on the operand Python returns.

A conditional expression, ``min``/``max`` or ``or``/``and`` whose operands are a NumPy scalar and a
Python number known at build time that the scalar's type holds exactly has that type
(:func:`.rules.common`): ``v = sh[lane] if lane < n else 0`` is an i32. On the Python path ``v`` is
the Python int ``0`` where the literal is chosen; NumPy treats it as the i32 it meets (NEP 50), so
stores, comparisons, indexing and arithmetic with NumPy scalars give the same results. Arithmetic
with a Python number does not: ``np.uint8(7) * 37`` wraps to 3, ``7 * 37`` is 259; and with some
NumPy scalars the result type differs (``np.int32(0) + f32`` is an f64, ``0 + f32`` an f32).
:class:`EitherLiteralChecker`, mixed into the function checker, notes such values (and the locals
holding them) and refuses those operations, with the conversion that gives one meaning.
"""

from __future__ import annotations

import numpy as np

from .. import ir
from ..errors import CompileError, Loc
from ..types import Scalar, Type, Weak
from . import folding, rules
from .typed import TypedFunction


class EitherLiteralChecker:
    """The bookkeeping, mixed into :class:`~.function.FunctionChecker` (through the call checker)."""

    either_literals: dict[int, tuple[Weak, object, Loc]]  # node -> the literal's type, value and place
    either_literal_vars: dict[str, tuple[Weak, object, Loc]]  # locals assigned such a value
    final: bool
    tf: TypedFunction

    def note_either_literal(
        self, e: ir.Expr, operands: list[ir.Expr], types: list[Type], result: Type, consts: dict[int, object]
    ) -> None:
        """``e`` chose between ``operands`` and got the NumPy type ``result`` by a literal's adoption."""
        if not isinstance(result, Scalar) or result.kind == "b":  # bools: see bools.py
            return
        for node, t in zip(operands, types):
            if isinstance(t, Weak):
                self.either_literals[e.nid] = (t, consts.get(node.nid), node.loc)
            elif node.nid in self.either_literals:
                self.either_literals[e.nid] = self.either_literals[node.nid]

    def either_literal_assigned(self, name: str, value: ir.Expr) -> None:
        found = self.either_literals.get(value.nid)
        if found is not None:
            self.either_literal_vars[name] = found

    def either_literal_name(self, e: ir.Name) -> None:
        found = self.either_literal_vars.get(e.id)
        if found is not None:
            self.either_literals[e.nid] = found

    def _same_either_way(
        self,
        op: str,
        k: int,
        found: tuple[Weak, object, Loc],
        other_node: ir.Expr | None,
        other: Weak,
        ops: rules.OpTypes,
        node: ir.Node,
    ) -> bool:
        """Both values known at build time, and the NumPy scalar and the Python literal give the same
        number: the result is again either kind (the literal's result on the Python path)."""
        weak, value, where = found
        known = self.tf.consts.get(other_node.nid) if other_node is not None else None
        if value is None or known is None or isinstance(known, tuple):
            return False
        strong_t = ops.left if k == 0 else ops.right
        try:
            with np.errstate(all="ignore"):
                lt, rt = (strong_t, other) if k == 0 else (other, strong_t)
                lv, rv = (value, known) if k == 0 else (known, value)
                as_numpy = folding.binop(op, lt, rt, ops.result, lv, rv, node.loc)
                python_ops = rules.binop(op, *((weak, other) if k == 0 else (other, weak)))
                py_l, py_r = python_ops.left, python_ops.right
                as_python = folding.binop(op, py_l, py_r, python_ops.result, lv, rv, node.loc)
        except (CompileError, rules.RuleError, ArithmeticError, ValueError):
            return False
        if not isinstance(python_ops.result, Weak) or as_python != as_numpy or as_python != as_python:
            return False
        self.either_literals[node.nid] = (python_ops.result, as_python, where)
        return True

    def check_either_literal_operation(
        self, op: str, node: ir.Node, operands: list[tuple[ir.Expr | None, Type]], ops: rules.OpTypes
    ) -> None:
        """``a op b`` where an operand may be the Python literal: refused where the literal would compute
        differently from the NumPy scalar it stands for."""
        if not self.final:
            return
        for k, (operand, _) in enumerate(operands):
            found = self.either_literals.get(operand.nid) if operand is not None else None
            if found is None:
                continue
            weak, value, where = found
            strong = operands[k][1]
            other_node, other = operands[1 - k]
            if isinstance(other, Weak):
                if self._same_either_way(op, k, found, other_node, other, ops, node):
                    continue
                why = f"with a Python number the two can compute differently (NumPy's {ops.result} wraps or rounds)"
            else:
                pair = (weak, other) if k == 0 else (other, weak)
                try:
                    alternative = rules.binop(op, *pair).result
                except rules.RuleError:
                    alternative = None
                if alternative == ops.result:
                    continue
                why = f"the result is {alternative} with the Python {weak} and {ops.result} with the {strong}"
            raise CompileError(
                node.loc,
                f"this `{op}` takes a value that is a {strong} or, on the Python path, the Python {weak} {value!r} "
                f"(chosen at {where.line}:{where.col + 1}), and {why}",
                f"convert the literal where it is chosen: {strong}({value!r})",
            )
