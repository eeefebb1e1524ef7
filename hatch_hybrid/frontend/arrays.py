"""Module-level NumPy array constants, computed at build time as NumPy computes them at import.

``np.array([...], dtype=...)`` and ``np.asarray`` of nested lists or tuples of constants,
``np.arange``/``np.linspace`` of constant arguments, ``.astype(dtype)`` and arithmetic with numbers
or other array constants give a NumPy array, which kernels read as a constant table (see
:mod:`..typecheck.tables`). The values are those of the source at build time: a module that changes
its array after import changes only what the Python path sees.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import CompileError, Loc
from ..types import Scalar, parse_type_name

#: NumPy functions that make a constant array from constant arguments.
ARRAY_FUNCTIONS = (
    "array",
    "asarray",
    "arange",
    "linspace",
    "zeros",
    "ones",
    "full",
    "eye",
    "identity",
    "asfortranarray",
    "ascontiguousarray",
)  # (a table is read by index: its layout is no matter)
#: the NumPy functions of these whose first argument may be a shape (a tuple)
SHAPED = ("zeros", "ones", "full")
#: methods of an array constant that give an array constant (``np.arange(27).reshape(3, 3, 3)``)
ARRAY_METHODS = ("astype", "reshape", "transpose", "copy", "flatten", "ravel", "cumsum", "sum")
#: Host functions that copy an array to a device: a module constant made by one has the array's shape
#: (``nelem = len(a)`` after ``a = cuda.to_device(np.arange(1024))``), but it is not a table (a :class:`DeviceCopy`)
DEVICE_COPIES = ("hybrid_runtime.cuda.to_device", "hybrid_runtime.to_device")


class DeviceCopy(np.ndarray):
    """A module constant that is an array copied to a device (``cuda.to_device(X)`` of a constant ``X``):
    its shape, length and dtype are numbers known at build time, but launches may write to it, so kernels
    do not read its elements as a constant table."""


#: The largest table kept in a compiled module (bigger data belongs in an array argument).
MAX_TABLE_BYTES = 1 << 20

#: What each operator computes, also for the number constants of :mod:`.constants`.
OPERATORS: dict[type[ast.AST], Callable[..., Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
    ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Invert: operator.invert,
}


class NotArray(Exception):
    """Not an array constant the compiler can compute (the message says what it is). The evaluator's
    ``NotConstant`` derives from it, so a name that is not a constant is caught here too."""


def numpy_op(op: ast.AST, operands: list[Any], loc: Loc) -> np.ndarray:
    """An operator with an array operand, as NumPy computes it (NumPy warns, not raises, on division
    by zero and overflow: the result is what the module holds after import)."""
    function = OPERATORS.get(type(op))
    if function is None:
        raise NotArray(f"`{type(op).__name__}` of an array")
    try:
        with np.errstate(all="ignore"):
            result = function(*operands)
    except (TypeError, ValueError, OverflowError) as exc:
        raise CompileError(loc, f"cannot compute this array constant: {exc}", "NumPy raises here too") from None
    return checked(np.asarray(result), loc)


def checked(value: np.ndarray, loc: Loc) -> np.ndarray:
    """An array a kernel can read as a table: kernel element types, at least one dimension, at most
    :data:`MAX_TABLE_BYTES`; read-only, as the compiled table is."""
    if value.dtype.kind not in "biufc" or parse_type_name(value.dtype.name) is None:
        raise NotArray(f"an array of {value.dtype}, which kernels have no type for")
    if value.ndim == 0:
        raise NotArray("a 0-d array (write a number, or np.float32(x))")
    if value.nbytes > MAX_TABLE_BYTES:
        raise CompileError(
            loc,
            f"this array constant takes {value.nbytes} bytes; constant tables are at most {MAX_TABLE_BYTES} bytes",
            "pass large data to the kernel as an array argument",
        )
    value = np.ascontiguousarray(value)
    value.flags.writeable = False
    return value


class ArrayEvaluator:
    """The array part of :class:`~.constants.Evaluator`: ``evaluate`` computes a sub-expression (a
    number, a tuple or an array), ``lookup`` resolves a name to a constant or a qualified name."""

    def __init__(self, evaluate: Callable[[ast.expr], Any], lookup: Callable[[ast.expr], Any], loc: Loc) -> None:
        self.evaluate = evaluate
        self.lookup = lookup
        self.loc = loc

    def call(self, name: str, node: ast.Call) -> np.ndarray:
        """``numpy.<name>(...)`` for a name of :data:`ARRAY_FUNCTIONS`."""
        if any(k.arg is None for k in node.keywords):
            raise NotArray(f"np.{name}(**...)")
        given = {str(k.arg): k.value for k in node.keywords}
        keywords: dict[str, Any] = {"dtype": self.dtype(given.pop("dtype"))} if "dtype" in given else {}
        if name in ("array", "asarray", "asfortranarray", "ascontiguousarray"):
            if given or len(node.args) != 1:
                raise NotArray(f"np.{name}() with arguments other than the values and dtype=")
            args: list[Any] = [self.sequence(node.args[0])]
            name = "asarray" if name != "array" else name  # the same values at the same indices
        else:
            args = [self.evaluate(a) for a in node.args]
            keywords |= {key: self.evaluate(value) for key, value in given.items()}
            shape = args[1:] if name in SHAPED else args  # np.zeros((3, 3)): a shape may be a tuple
            if any(isinstance(a, (tuple, np.ndarray)) for a in [*shape, *keywords.values()]):
                raise NotArray(f"np.{name}() of a tuple or an array")
        try:
            with np.errstate(all="ignore"):
                result = getattr(np, name)(*args, **keywords)
        except (TypeError, ValueError, OverflowError, ZeroDivisionError) as exc:
            raise CompileError(
                self.loc, f"cannot compute this array constant: {exc}", "NumPy raises here too"
            ) from None
        return checked(np.asarray(result), self.loc)

    def method(self, node: ast.Call) -> np.ndarray:
        """``<array constant>.astype(dtype)``, ``.reshape(3, 3)`` and the other :data:`ARRAY_METHODS`."""
        assert isinstance(node.func, ast.Attribute)
        name = node.func.attr
        base = self.evaluate(node.func.value)
        if not isinstance(base, np.ndarray) or node.keywords:
            raise NotArray(f"a .{name}() call other than array_constant.{name}(...) with positional arguments")
        if name == "astype":
            if len(node.args) != 1:
                raise NotArray("an .astype() call other than array_constant.astype(dtype)")
            args: list[Any] = [self.dtype(node.args[0])]
        else:
            args = [self.evaluate(a) for a in node.args]
        try:
            with np.errstate(all="ignore"):
                return checked(np.asarray(getattr(base, name)(*args)), self.loc)
        except (TypeError, ValueError, OverflowError) as exc:
            raise CompileError(
                self.loc, f"cannot compute this array constant: {exc}", "NumPy raises here too"
            ) from None

    def sequence(self, node: ast.expr) -> Any:
        """The values of a (nested) list or tuple literal, or of a constant."""
        if isinstance(node, (ast.List, ast.Tuple)):
            return [self.sequence(e) for e in node.elts]
        return self.evaluate(node)

    def dtype(self, node: ast.expr) -> np.dtype[Any]:
        """A ``dtype=`` argument: a kernel scalar type (``np.float32``, ``f32``), ``int``/``float``/``bool``
        (NumPy's int64, float64, bool) or a string naming one (``"float32"``)."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                found = parse_type_name(np.dtype(node.value).name)
            except TypeError:
                found = None
            if found is None:
                raise NotArray(f"an array of dtype {node.value!r}")
            return np.dtype(node.value)
        if isinstance(node, ast.Name) and node.id in ("int", "float", "bool"):
            try:
                target = self.lookup(node)
            except NotArray:  # not bound in the module: the builtin
                target = f"builtins.{node.id}"
            if target == f"builtins.{node.id}":
                return np.dtype(node.id)
        else:
            target = self.lookup(node)
        if isinstance(target, str):
            mod, _, name = target.rpartition(".")
            scalar = parse_type_name("boolean" if name == "bool_" else name)
            if mod in ("hybrid_runtime", "numpy") and isinstance(scalar, Scalar):
                return scalar.dtype
        raise NotArray(f"an array whose dtype `{ast.unparse(node)}` is not a kernel scalar type")
