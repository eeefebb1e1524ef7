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

The same goes for widths: a Python int computed at run time is an i64 on the devices, where ``+ - *
<< **`` and negation wrap at 64 bits; Python would compute the big integer. Each such operation is
recorded as wrapped (the dtype :data:`WRAPPED_INT`): the Python path keeps a Python int (weak in
promotion, as the compiler's typing says) that wraps as the devices' i64 does.
"""

from __future__ import annotations

from .. import ir
from ..types import Scalar, Type, Weak
from .typed import TypedFunction

WRAPPED_INT = "int64-wrapped"  # the dtype a wrapping Python-int operation records (a Python int afterwards)
WRAPPING_OPS = frozenset({"+", "-", "*", "<<", "**"})


class ConversionRecorder:
    """The bookkeeping, mixed into :class:`~.function.FunctionChecker` (through the call checker)."""

    tf: TypedFunction
    final: bool

    def convert_value(self, node: ir.Expr, value: Type, to: Type) -> None:
        """``node``, of type ``value``, is used as a ``to``: made explicit where the two differ (a Python
        number becoming another kind of Python number too: ``1 if c else 2.5`` is a float)."""
        if self.final and value != to and _converted(value, to):
            assert isinstance(to, (Scalar, Weak))
            self._check_int_literal(node, to)
            self.tf.conversions[node.nid] = (node.loc, to, "value")

    def convert_bound(self, target: ir.Name, value: Type, to: Type, value_node: ir.Expr | None = None) -> None:
        """The local ``target`` is bound to a ``value`` (``value_node``, where it is the whole value) and
        holds a ``to``: converted once bound."""
        if self.final and value != to and _converted(value, to):
            assert isinstance(to, (Scalar, Weak))
            if value_node is not None:
                self._check_int_literal(value_node, to)
            self.tf.conversions[target.nid] = (target.loc, to, "bound")

    def wrap_int(self, node: ir.Node, target: ir.Expr | None = None) -> None:
        """``node`` computes a Python int at run time by an operation that can leave 64 bits (its result
        not known at build time): wrapped as the devices' i64 wraps. ``target``: the local an augmented
        assignment binds (wrapped once bound)."""
        if not self.final or node.nid in self.tf.consts:
            return
        if target is None:
            self.tf.wraps[node.nid] = (node.loc, "value")
        elif isinstance(target, ir.Name):
            self.tf.wraps[target.nid] = (target.loc, "bound")

    def _check_int_literal(self, node: ir.Expr, target: Type) -> None:  # provided by the call checker
        raise NotImplementedError


def _converted(value: Type, to: Type) -> bool:
    """Whether a ``value`` used as a ``to`` is a conversion the Python path makes: to a NumPy scalar type,
    or from one kind of Python number to another (an int to a float)."""
    return isinstance(to, Scalar) or (isinstance(to, Weak) and isinstance(value, Weak) and to.kind != "bool")
