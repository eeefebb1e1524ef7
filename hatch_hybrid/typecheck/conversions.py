"""Where the compiler's typing converts a value that Python would keep as it is.

numba's rule, which every CUDA compiler follows too: a variable has one type, and a literal takes the
type of what it meets. ``v = sh[lane] if lane < n else 0`` is an i32 whichever value is chosen; ``d = 1``
then ``d = n >> 1`` (n: i32) makes ``d`` an i32 from its first assignment. Python keeps the literal a
Python int, so the Python path (``device="cpu-python"``) would compute with another type from there on.

:class:`ConversionRecorder`, mixed into the function checker, records each such place in
:attr:`~.typed.TypedFunction.conversions`: a value converted to the type the compiler gave it (an
operand of ``x if c else y``, ``or``, ``min``/``max``; a returned value), or a local converted right
after it is bound (an assignment, an unpacking, an annotated assignment, a ``for`` counter). The
Python target writes them into the wheel and the runtime runs the kernel's own source with these
conversions made explicit, so every path computes with the same types.
"""

from __future__ import annotations

from .. import ir
from ..types import Scalar, Type
from .typed import TypedFunction


class ConversionRecorder:
    """The bookkeeping, mixed into :class:`~.function.FunctionChecker` (through the call checker)."""

    tf: TypedFunction
    final: bool

    def convert_value(self, node: ir.Expr, value: Type, to: Type) -> None:
        """``node``, of type ``value``, is used as a ``to``: made explicit where the two differ."""
        if self.final and value != to and isinstance(to, Scalar):
            self._check_int_literal(node, to)
            self.tf.conversions[node.nid] = (node.loc, to, "value")

    def convert_bound(self, target: ir.Name, value: Type, to: Type, value_node: ir.Expr | None = None) -> None:
        """The local ``target`` is bound to a ``value`` (``value_node``, where it is the whole value) and
        holds a ``to``: converted once bound."""
        if self.final and value != to and isinstance(to, Scalar):
            if value_node is not None:
                self._check_int_literal(value_node, to)
            self.tf.conversions[target.nid] = (target.loc, to, "bound")

    def _check_int_literal(self, node: ir.Expr, target: Type) -> None:  # provided by the call checker
        raise NotImplementedError
