"""Values that are a Python bool or a NumPy bool depending on the operand Python returns.

``x[i] > 0 or i > 1`` is a NumPy bool when ``x[i] > 0`` holds and a Python bool otherwise; so are
``min``/``max`` and conditional expressions of both kinds, comparison chains mixing them, variables
assigned such a value (or both kinds), and calls of helpers that return both kinds. As conditions,
stored into arrays or converted the two mean the same; in arithmetic they differ (``~True`` is -2,
``~np.True_`` is False). :class:`EitherBoolChecker`, mixed into the function checker, notes each
such value and each use that consumes it; whatever is left unconsumed is a compile error.
"""

from __future__ import annotations

from .. import ir
from ..errors import CompileError, Loc
from ..types import BOOL, WEAK_BOOL, Type


class EitherBoolChecker:
    """The bookkeeping, mixed into :class:`~.function.FunctionChecker` (through the call checker)."""

    either_bools: dict[int, Loc]  # nodes whose value is either kind, not yet consumed
    either_vars: set[str]  # locals holding such a value (or assigned both kinds of bool)

    def either_bool(self, e: ir.Expr, operands: list[ir.Expr], types: list[Type]) -> None:
        """Note ``e`` (``and``/``or``, a conditional expression, ``min``/``max``, a comparison chain, a
        helper's call) if its value can be either kind: its operands' types mix both, or an operand is
        itself such a value."""
        if {BOOL, WEAK_BOOL} <= set(types) or any(n.nid in self.either_bools for n in operands):
            for n in operands:
                self.either_bools.pop(n.nid, None)
            self.either_bools[e.nid] = e.loc

    def same_as_either_bool(self, e: ir.Expr) -> None:
        """``e``'s value is used where a Python bool and a NumPy bool mean the same."""
        self.either_bools.pop(e.nid, None)

    def takes_either_bool(self, e: ir.Expr) -> bool:
        """``e``'s value, if it is either kind, moves into a variable or a return value."""
        return self.either_bools.pop(e.nid, None) is not None

    def either_bool_name(self, e: ir.Name) -> None:
        """A use of a variable that holds either kind is such a value itself."""
        if e.id in self.either_vars:
            self.either_bools[e.nid] = e.loc

    def either_bool_assignment(self, name: str, old: Type | None, value: Type, value_node: ir.Expr) -> None:
        """``name = value``: the variable holds either kind from here if the value is such, or if it was
        assigned the other kind before (``c = False`` here, ``c = x[i] > 0`` there)."""
        if {old, value} == {BOOL, WEAK_BOOL} or self.takes_either_bool(value_node):
            self.either_vars.add(name)

    def check_either_bools(self) -> None:
        if self.either_bools:
            loc = min(self.either_bools.values(), key=lambda loc: (loc.line, loc.col))
            raise CompileError(
                loc,
                "this value is a Python bool or a NumPy bool, depending on the operand Python returns, and the "
                "two differ in arithmetic (~True is -2, ~np.True_ is False; True + True is 2)",
                "use it (or a variable holding it) as a condition (if, while, not), store it into an array, or "
                "convert it first: bool(...) for a Python bool, boolean(...) for a NumPy bool",
            )
