"""Values that are a NumPy scalar or a Python literal depending on the operand Python returns.

A conditional expression, ``min``/``max`` or ``or``/``and`` whose operands are a NumPy scalar and a
Python number known at build time that the scalar's type holds exactly has that type
(:func:`.rules.common`): ``v = sh[lane] if lane < n else 0`` is an i32. On the Python path ``v`` is
the Python int ``0`` where the literal is chosen. NumPy treats it as the i32 it meets (NEP 50), so
storing it, comparing it, testing it, indexing with it, converting it and arithmetic with a NumPy
scalar (not another such value) give the same results. Everything else can differ: arithmetic with
a Python number (``np.uint8(7) * 37`` wraps to 3, ``7 * 37`` is 259), ``-v``, ``abs(v)``, NumPy
functions (``np.sqrt(7)`` is an f64, of an i8 an f16), helpers (which Python runs on the literal).
:class:`EitherLiteralChecker`, mixed into the function checker, notes each such value (and the
locals holding it), lets the uses above consume it, and refuses what is left, where it is used.
"""

from __future__ import annotations

import numpy as np

from .. import ir
from ..errors import CompileError, Loc, Note
from ..types import Scalar, Type, Weak
from . import folding, rules
from .typed import TypedFunction

#: (the literal's Python type, its value where known, where it is chosen)
Either = tuple[Weak, object, Loc]


class _Runtime:
    """The value of a Python number computed at run time, assigned to a variable that is a NumPy scalar
    elsewhere: NumPy converts it as the device did (with the same range check or rounding) only when
    it meets a NumPy scalar of the variable's type, in arithmetic, a store or a conversion."""

    def __repr__(self) -> str:
        return "computed at run time"


RUNTIME = _Runtime()


class EitherLiteralChecker:
    """The bookkeeping, mixed into :class:`~.function.FunctionChecker` (through the call checker)."""

    either_literals: dict[int, Either]  # nodes whose value is either, not yet consumed by a use
    either_literal_vars: dict[str, Either]  # locals assigned such a value
    assigned: dict[str, Loc]  # where each local is first assigned
    final: bool
    tf: TypedFunction

    def annotated_number(self, s: ir.Assign, declared: Type, value: Type) -> None:
        """``x: f32 = v`` with ``v`` of another type: the device holds an f32, but Python does not run
        annotations and keeps ``v`` as it is. A Python number known at build time that the type holds
        exactly follows the literal rule (see literals.py); anything else means two things."""
        const = self.tf.consts.get(s.value.nid)
        if isinstance(value, Weak) and isinstance(declared, Scalar) and rules.holds_exactly(declared, value, const):
            self.either_literals[s.value.nid] = (value, const, s.value.loc)
            return
        target = s.target.id if isinstance(s.target, ir.Name) else "the target"
        kind = "Python " + value.kind if isinstance(value, Weak) else str(value)
        shown = repr(const) if isinstance(value, Weak) and const is not None else "..."
        raise CompileError(
            s.value.loc,
            f"the annotation makes `{target}` {declared} on the device, but Python does not convert annotated "
            f"values: on the Python path it holds this {kind} value unchanged",
            f"convert the value, which Python does too: `{target} = {declared}({shown})`",
        )

    def number_into_typed_local(self, name: str, value: Weak, node: ir.Expr, merged: Scalar) -> None:
        """``v = 0`` where ``v`` holds an i32 elsewhere (``v = sh[lane]`` in another branch): the device
        keeps an i32, the Python path the Python number, as ``sh[lane] if c else 0`` chooses: the value
        follows the literal rule at each use of ``v`` (literals.py). A literal the type cannot hold
        exactly is refused; a number computed at run time is tracked with its value unknown (integers
        the type cannot hold raise on every path when converted)."""
        if merged.kind == "b" or merged == value.storage:
            return
        const = self.tf.consts.get(node.nid)
        if const is not None and not rules.holds_exactly(merged, value, const):
            first = self.assigned.get(name)
            raise CompileError(
                node.loc,
                f"`{name}` holds {_a(merged)} elsewhere, which cannot hold the Python {value.kind} {const!r} exactly",
                f"write it as the variable's type, as Python would compute it: `{name} = {merged}({const!r})`",
                [Note(first, f"`{name}` is first assigned here")] if first and first.line != node.loc.line else [],
            )
        self.either_literals[node.nid] = (value, RUNTIME if const is None else const, node.loc)

    def note_either_literal(
        self, e: ir.Expr, operands: list[ir.Expr], types: list[Type], result: Type, consts: dict[int, object]
    ) -> None:
        """``e`` chose between ``operands`` and got the NumPy type ``result`` by a literal's adoption."""
        if not isinstance(result, Scalar) or result.kind == "b":  # bools: see bools.py
            return
        for node, t in zip(operands, types):
            found = self.either_literals.pop(node.nid, None)
            if isinstance(t, Weak):
                self.either_literals[e.nid] = (t, consts.get(node.nid), node.loc)
            elif found is not None:
                self.either_literals[e.nid] = found

    def consume_either_literal(self, *nodes: ir.Expr | None, runtime_too: bool = False) -> None:
        """These values are used where the NumPy scalar and the Python literal mean the same (a number
        computed at run time only with ``runtime_too``: see :data:`RUNTIME`)."""
        for node in nodes:
            found = self.either_literals.get(node.nid) if node is not None else None
            if node is not None and found is not None and (runtime_too or found[1] is not RUNTIME):
                self.either_literals.pop(node.nid)

    def consume_as(self, node: ir.Expr, dest: Type, conversion: bool = False) -> None:
        """``node`` is stored where a ``dest`` goes, or converted to ``dest`` (``conversion``): the same
        either way for a literal the type holds, and for a number computed at run time when ``dest`` is its
        type; but not for a literal that ``dest`` cannot hold where NumPy checks the Python number and
        converts the NumPy scalar as C does: an int or a float stored into an unsigned array (``o_u8[i] = -1
        if c else x_i8``: Python's -1 raises OverflowError, the i8 -1 becomes 255), an int converted to any
        integer type (``u8(...)``, ``i8(...)``)."""
        found = self.either_literals.get(node.nid)
        if found is not None and self.final:
            weak, value, where = found
            if (
                weak.kind in (("int",) if conversion else ("int", "float"))
                and isinstance(value, (int, float))
                and isinstance(dest, Scalar)
                and dest.kind in ("i", "u")
                and (conversion or dest.kind == "u")
                and not _holds(dest, value)
            ):
                held = self.tf.types[node.nid]
                what = f"converted to {dest}" if conversion else f"stored as {_a(dest)}"
                numpy = "wraps" if weak.kind == "int" else "is converted as the C compiler does"
                raise CompileError(
                    node.loc,
                    f"this value is {_a(held)} or, on the Python path, the Python {weak.kind} {value!r} (chosen at "
                    f"{where.line}:{where.col + 1}); {what}, which cannot hold {value!r}, the Python {weak.kind} "
                    f"raises OverflowError in NumPy and the {held} {numpy}",
                    f"convert the literal where it is chosen, as the device does: {held}({value!r})",
                )
        self.consume_either_literal(node, runtime_too=dest == self.tf.types.get(node.nid))

    def either_literal_assigned(self, name: str, value: ir.Expr) -> None:
        found = self.either_literals.pop(value.nid, None)
        if found is None:
            return
        known = self.either_literal_vars.get(name)
        if known is not None and RUNTIME in (known[1], found[1]):
            found = (found[0], RUNTIME, found[2])
        elif known is not None and known[1] != found[1]:  # different literals in different places: not known
            found = (found[0], None, found[2])
        self.either_literal_vars[name] = found

    def either_literal_name(self, e: ir.Name) -> None:
        found = self.either_literal_vars.get(e.id)
        if found is not None:
            self.either_literals[e.nid] = found

    def check_either_literal_operation(
        self, op: str, node: ir.Node, operands: list[tuple[ir.Expr | None, Type]], ops: rules.OpTypes
    ) -> None:
        """``a op b`` where an operand may be the Python literal: consumed where both give one result
        (the other operand a NumPy scalar, the result type the same), or, with both values known, where
        folding both gives the same number (the result is then such a value itself); refused otherwise."""
        flagged = [operand is not None and operand.nid in self.either_literals for operand, _ in operands]
        if all(flagged) and not isinstance(node, ir.AugAssign) and self._both_either(op, node, operands, ops):
            return
        for k, (operand, strong) in enumerate(operands):
            if not flagged[k] or operand is None:
                continue
            weak, value, where = self.either_literals[operand.nid]
            other_node, other = operands[1 - k]
            if not isinstance(other, Weak) and not flagged[1 - k]:
                pair = (weak, other) if k == 0 else (other, weak)
                try:
                    alternative = rules.binop(op, *pair).result
                except rules.RuleError:
                    alternative = None
                if alternative == ops.result:
                    self.either_literals.pop(operand.nid)
                    continue
                why = f"the result is {alternative} with the Python {weak} and {ops.result} with the {strong}"
            elif not isinstance(node, ir.AugAssign) and self._same_either_way(
                op, k, value, weak, other_node, ops, node
            ):
                self.either_literals.pop(operand.nid)
                continue
            else:
                why = (
                    "with a Python number or another such value the two can compute differently (NumPy wraps or rounds)"
                )
            if self.final:
                shown = "" if value is None else f" {value!r}"
                converted = "..." if value is None or value is RUNTIME else repr(value)
                raise CompileError(
                    node.loc,
                    f"this `{op}` takes a value that is a {strong} or, on the Python path, the Python {weak}"
                    f"{shown} (chosen at {where.line}:{where.col + 1}), and {why}",
                    f"convert the literal where it is chosen: {strong}({converted})",
                )

    def _both_either(
        self, op: str, node: ir.Node, operands: list[tuple[ir.Expr | None, Type]], ops: rules.OpTypes
    ) -> bool:
        """``a op b`` with both operands such values, both literals known (``(v * 3) + z``): the same
        result whichever operands the Python path holds as literals (both, one, none), so the result is
        such a value again, the literals' result on the Python path."""
        (left, lt), (right, rt) = operands
        assert left is not None and right is not None
        (lw, lv, _), (rw, rv, _) = self.either_literals[left.nid], self.either_literals[right.nid]
        if lv is None or rv is None or RUNTIME in (lv, rv) or not isinstance(ops.result, Scalar):
            return False
        try:
            for pair in ((lw, rt), (lt, rw)):  # one literal: the NumPy type must be the result's
                if rules.binop(op, *pair).result != ops.result:
                    return False
            python = rules.binop(op, lw, rw)
            as_python = folding.binop(op, python.left, python.right, python.result, lv, rv, node.loc)
            as_numpy = folding.binop(op, ops.left, ops.right, ops.result, lv, rv, node.loc)
        except (CompileError, rules.RuleError, ArithmeticError, ValueError):
            return False
        if not isinstance(python.result, Weak) or isinstance(as_python, complex) or as_python != as_python:
            return False
        if float(as_numpy) != float(as_python):
            return False
        self.either_literals.pop(left.nid)
        self.either_literals.pop(right.nid)
        self.either_literals[node.nid] = (python.result, as_python, node.loc)
        return True

    def _same_either_way(
        self, op: str, k: int, value: object, weak: Weak, other_node: ir.Expr | None, ops: rules.OpTypes, node: ir.Node
    ) -> bool:
        """Both values known at build time, and the NumPy scalar and the Python literal give the same
        number: the result is again either kind (the literal's result on the Python path)."""
        known = self.tf.consts.get(other_node.nid) if other_node is not None else None
        other_t = self.tf.types.get(other_node.nid) if other_node is not None else None
        if (
            value is None
            or value is RUNTIME
            or known is None
            or isinstance(known, tuple)
            or not isinstance(other_t, Weak)
        ):
            return False
        strong_t = ops.left if k == 0 else ops.right
        lt, rt = (strong_t, other_t) if k == 0 else (other_t, strong_t)
        lv, rv = (value, known) if k == 0 else (known, value)
        try:
            as_numpy = folding.binop(op, lt, rt, ops.result, lv, rv, node.loc)
            python = rules.binop(op, *((weak, other_t) if k == 0 else (other_t, weak)))
            as_python = folding.binop(op, python.left, python.right, python.result, lv, rv, node.loc)
        except (CompileError, rules.RuleError, ArithmeticError, ValueError):
            return False
        if not isinstance(python.result, Weak) or isinstance(as_python, complex):
            return False
        exact = float(as_numpy) == float(as_python)  # as Python numbers: NumPy would round the Python float
        if not exact or as_python != as_python:
            return False
        self.either_literals[node.nid] = (python.result, as_python, node.loc)
        return True

    def check_either_literals(self) -> None:
        """Whatever such value is left is used where the two can differ."""
        if not self.either_literals:
            return
        weak, value, where = min(self.either_literals.values(), key=lambda f: (f[2].line, f[2].col))
        raise CompileError(
            where,
            f"this value is a NumPy number or, on the Python path, the Python {weak}"
            f"{'' if value is None else ' ' + repr(value)}, and it is used "
            "where the two can differ (a helper, a NumPy function, -x, abs, print, a return, ...)",
            "convert the value where it is assigned, as the device does (v = i32(...)); a number computed at run "
            "time can only be stored into, converted to or combined with NumPy numbers of the variable's type"
            if value is RUNTIME
            else "convert the literal where it is chosen (i32(0), f32(0.5)), or only store, compare, test, index "
            "with, convert it or combine it with NumPy numbers",
        )


def _holds(dest: Scalar, value: float) -> bool:
    """Whether an integer type holds a Python number once truncated (as NumPy stores a float)."""
    if value != value or value in (float("inf"), float("-inf")):
        return False
    info = np.iinfo(dest.dtype)
    return bool(info.min <= int(value) <= info.max)


def _a(t: Type) -> str:
    """``an f32``, ``a u8``: the type with its article."""
    return f"{'an' if str(t)[0] in 'aefhilmnorsx' else 'a'} {t}"
