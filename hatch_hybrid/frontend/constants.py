"""Module-level constants, computed at build time as Python computes them, without importing the module.

A constant is an expression of number literals, other module constants, arithmetic, casts
(``np.float32(0.01)``, ``f32(0.01)``, ``int(x)``), ``math`` and NumPy constants and functions
(``np.pi``, ``np.sqrt(2.0)``, ``np.finfo(np.float32).eps``), (nested) tuples of these, and NumPy
arrays (:mod:`.arrays`). What Python would reject (division by zero, a negative power of an integer,
a math domain error) and what the device cannot hold (an integer beyond 64 bits) is a located
compile error, so that a program has one meaning on the GPU and on the CPU.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import CompileError, Loc
from ..types import Scalar, Weak, parse_type_name
from .arrays import (
    ARRAY_FUNCTIONS,
    ARRAY_METHODS,
    DEVICE_COPIES,
    OPERATORS,
    ArrayEvaluator,
    DeviceCopy,
    NotArray,
    numpy_op,
)

#: A constant's value: a Python number (weakly typed), a NumPy scalar (typed), a (nested) tuple of
#: these, or a NumPy array.
Value = Any

#: Integers a constant may hold: i64 and u64 values (a Python int is held as i64 on the device).
INT_MIN, INT_MAX = -(1 << 63), (1 << 64) - 1

_BINOPS = {op: f for op, f in OPERATORS.items() if issubclass(op, ast.operator)}
_SYMBOLS = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**",
    ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^",
}  # fmt: skip


class NotConstant(NotArray):
    """The expression is not a constant the compiler can compute (the message says what it is)."""


def is_integer(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def check_int(value: object, loc: Loc) -> None:
    """A Python integer known at build time must fit in 64 bits (the device holds it in i64/u64)."""
    if isinstance(value, int) and not isinstance(value, bool) and not INT_MIN <= value <= INT_MAX:
        raise CompileError(
            loc,
            f"the integer {value} does not fit in 64 bits",
            "kernel integers are at most 64 bits wide (i64, u64); use a float, or a smaller value",
        )


def fold_binop(op: str, left: Value, right: Value, loc: Loc) -> Value:
    """``left op right`` with Python's (or, for NumPy scalars, NumPy's) result; what Python or NumPy
    would reject is a compile error at ``loc``."""
    numpy = isinstance(left, np.generic) or isinstance(right, np.generic)
    if op in ("/", "//", "%") and right == 0 and not numpy:  # NumPy gives inf, nan or 0 (with a warning)
        raise CompileError(
            loc,
            f"division by zero in a constant expression (`{op}` by 0)",
            "the value is known at build time; Python raises ZeroDivisionError here, so it is an error",
        )
    if op == "**" and is_integer(left) and is_integer(right) and right < 0:
        raise CompileError(
            loc,
            "an integer raised to a negative power",
            "Python gives a float and NumPy raises; write a float base (2.0 ** -1) to get a float",
        )
    if op in ("<<", ">>") and isinstance(left, int) and isinstance(right, int) and right < 0:
        # Python's ints raise ValueError; NumPy's give 0 (or -1), as the device does at run time
        raise CompileError(loc, f"negative shift count {right}", "shift by 0 or more bits")
    if op in ("<<", "**") and isinstance(left, int) and isinstance(right, int) and left and right >= 128:
        raise CompileError(
            loc, f"the integer {left} {op} {right} does not fit in 64 bits", "kernel integers are at most 64 bits"
        )
    function = next(f for k, f in _BINOPS.items() if _SYMBOLS[k] == op)
    try:
        with np.errstate(all="ignore"):  # NumPy scalars wrap and give inf/nan, as on the device
            result = function(left, right)
    except (OverflowError, ValueError, TypeError, ZeroDivisionError) as exc:
        raise CompileError(loc, f"cannot compute this constant: {exc}", "Python raises here too") from None
    if isinstance(result, complex) and not isinstance(left, complex) and not isinstance(right, complex):
        raise CompileError(
            loc,
            f"{left!r} ** {right!r} is a complex number in Python ({result!r})",
            "a negative float to a non-integral power: write complex(x) ** y for the complex result",
        )
    check_int(result, loc)
    return result


class Evaluator:
    """Computes one module-level expression. ``lookup`` gives what a name or dotted name means: a
    constant's value, or the qualified name (``"math.pi"``, ``"numpy.float32"``) of an external name."""

    def __init__(self, file: str, lookup: Callable[[ast.expr], Value | str]) -> None:
        self.file = file
        self.lookup = lookup

    def loc(self, node: ast.expr) -> Loc:
        return Loc(self.file, node.lineno, node.col_offset, getattr(node, "end_col_offset", None))

    def __call__(self, node: ast.expr) -> Value:
        if isinstance(node, ast.Constant):
            if isinstance(node.value, (bool, int, float, complex)):
                check_int(node.value, self.loc(node))
                return node.value
            raise NotConstant(f"a {type(node.value).__name__} constant")
        if isinstance(node, ast.Attribute) and node.attr in _DTYPE_NUMBERS:  # np.dtype(np.int32).itemsize
            base = self._dtype(node.value)
            if base is not None:
                return getattr(base, node.attr)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Call):
            return self.numpy_info(node, node.value)
        if isinstance(node, (ast.Name, ast.Attribute)):
            value = self.lookup(node)
            if isinstance(value, str):
                mod, _, name = value.rpartition(".")
                if mod in ("math", "numpy") and isinstance(getattr(math if mod == "math" else np, name, None), float):
                    return getattr(math if mod == "math" else np, name)  # math.pi, np.pi, np.inf, ...
                raise NotConstant(f"`{value}`, which is not a number")
            return value
        if isinstance(node, ast.UnaryOp):
            operand = self(node.operand)
            if isinstance(operand, np.ndarray):
                return self._array(lambda: numpy_op(node.op, [operand], self.loc(node)))
            if isinstance(operand, tuple):
                raise NotConstant("an operation on a tuple")
            if isinstance(node.op, ast.USub):
                result = -operand
            elif isinstance(node.op, ast.UAdd):
                result = +operand
            elif isinstance(node.op, ast.Not):
                result = not operand
            elif is_integer(operand) or isinstance(operand, bool):
                result = ~operand
            else:
                raise NotConstant("`~` of a float")
            check_int(result, self.loc(node))
            return result
        if isinstance(node, ast.BinOp):
            left, right = self(node.left), self(node.right)
            if isinstance(left, tuple) or isinstance(right, tuple):
                raise NotConstant("arithmetic on tuples")
            if isinstance(left, np.ndarray) or isinstance(right, np.ndarray):
                return self._array(lambda: numpy_op(node.op, [left, right], self.loc(node)))
            return fold_binop(_SYMBOLS[type(node.op)], left, right, self.loc(node))
        if isinstance(node, ast.Tuple):
            items = tuple(self(e) for e in node.elts)
            if any(isinstance(i, np.ndarray) for i in items):
                raise NotConstant("a tuple of arrays")
            return items
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.Compare):
            return self.compare(node)
        if isinstance(node, ast.BoolOp):  # `and`/`or`, as Python evaluates them
            last: Value = False
            for operand in node.values:
                last = self(operand)
                if isinstance(last, (tuple, np.ndarray)):
                    raise NotConstant("`and`/`or` of tuples or arrays")
                if bool(last) != isinstance(node.op, ast.And):
                    return last
            return last
        raise NotConstant(f"a {_describe(node)}")

    def compare(self, node: ast.Compare) -> bool:
        """A comparison of numbers, or of versions (``Version(numba.__version__) >= Version("0.51.0")``, as
        module-level ``if``s gate features on them): what Python gives."""
        left = self._comparable(node.left)
        for op, comparator in zip(node.ops, node.comparators):
            right = self._comparable(comparator)
            compare = _COMPARISONS.get(type(op))
            if compare is None:
                raise NotConstant(f"a `{ast.unparse(node)}` comparison")
            try:
                if not compare(left, right):
                    return False
            except TypeError:
                raise NotConstant(f"a comparison of {type(left).__name__} and {type(right).__name__}") from None
            left = right
        return True

    def _comparable(self, node: ast.expr) -> Any:
        """A number, or a version (``packaging.version.Version(...)``/``parse(...)`` of a string literal or
        of a module's ``__version__``: the version of what the build environment has installed)."""
        if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
            target = self.lookup(node.func) if isinstance(node.func, (ast.Name, ast.Attribute)) else None
            if target in VERSION_FUNCTIONS:
                from packaging.version import InvalidVersion, Version

                text = self._version_text(node.args[0])
                try:
                    return Version(text)
                except InvalidVersion:
                    raise NotConstant(f"the version {text!r}, which is not one") from None
        value = self(node)
        if isinstance(value, (tuple, np.ndarray)):
            raise NotConstant("a comparison of tuples or arrays")
        return value

    def _version_text(self, node: ast.expr) -> str:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Attribute) and node.attr == "__version__":
            module = self.lookup(node.value)
            if isinstance(module, str):
                import importlib

                try:
                    version = getattr(importlib.import_module(module), "__version__", None)
                except ImportError:
                    version = None
                if isinstance(version, str):
                    return version
        raise NotConstant("a version other than a string or a module's __version__")

    def _dtype(self, node: ast.expr) -> np.dtype[Any] | None:
        """The dtype ``node`` names: ``np.dtype(T)``, a NumPy scalar type, or a module constant holding one."""
        if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
            if self.lookup(node.func) != "numpy.dtype":
                return None
            node = node.args[0]
        try:
            value = self.lookup(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
        except NotConstant:
            return None
        if isinstance(value, np.dtype):
            return value
        scalar = parse_type_name(value.rpartition(".")[2]) if isinstance(value, str) else None
        return scalar.dtype if isinstance(scalar, Scalar) else None

    def numpy_info(self, node: ast.Attribute, call: ast.Call) -> Value:
        """``np.finfo(np.float32).eps``, ``np.iinfo(np.int16).max``: as NumPy gives them."""
        target = self.lookup(call.func)
        if target not in ("numpy.finfo", "numpy.iinfo") or len(call.args) != 1 or call.keywords:
            raise NotConstant(f"an attribute of a call of `{target}`" if isinstance(target, str) else "an attribute")
        which = str(target)[6:]
        kind = self.lookup(call.args[0])
        scalar = parse_type_name(kind.rpartition(".")[2]) if isinstance(kind, str) else None
        if not isinstance(scalar, Scalar):
            raise NotConstant(f"np.{which}() of something other than a NumPy type")
        with np.errstate(all="ignore"):
            try:
                value = getattr(np.finfo(scalar.dtype) if which == "finfo" else np.iinfo(scalar.dtype), node.attr)
            except (ValueError, AttributeError) as exc:
                raise CompileError(self.loc(node), f"cannot compute this constant: {exc}", "NumPy raises too") from None
        if not isinstance(value, (int, float, np.number)):
            raise NotConstant(f"np.{which}(...).{node.attr}, which is not a number")
        return value

    def _array(self, compute: Callable[[], Value]) -> Value:
        try:
            return compute()
        except NotConstant:
            raise
        except NotArray as exc:
            raise NotConstant(str(exc)) from None

    def call(self, node: ast.Call) -> Value:
        arrays = ArrayEvaluator(self, self.lookup, self.loc(node))
        if isinstance(node.func, ast.Attribute) and node.func.attr in ARRAY_METHODS:
            return self._array(lambda: arrays.method(node))
        if isinstance(node.func, ast.Name) and node.func.id in _BUILTINS:
            try:
                target: Value | str = self.lookup(node.func)
            except NotConstant:
                target = f"builtins.{node.func.id}"
        else:
            target = self.lookup(node.func)
        if isinstance(target, str) and target.startswith("numpy.") and target[6:] in ARRAY_FUNCTIONS:
            return self._array(lambda: arrays.call(target[6:], node))
        if target in DEVICE_COPIES and node.args:  # `a = cuda.to_device(X)`: X's shape and values
            copied = self(node.args[0])
            if not isinstance(copied, np.ndarray):
                raise NotConstant(f"`{target}(...)` of something other than an array")
            return copied.view(DeviceCopy)
        if not isinstance(target, str) or node.keywords:
            raise NotConstant("a call of something other than a type or a math function")
        if target == "numpy.dtype" and len(node.args) == 1:
            found = self._dtype(node)
            if found is not None:
                return found  # a dtype: its .itemsize and the like are numbers
        args = [self(a) for a in node.args]
        mod, _, name = target.rpartition(".")
        if target == "builtins.len" and len(args) == 1 and isinstance(args[0], (tuple, np.ndarray)):
            return len(args[0])  # of a tuple, or an array's first dimension
        if any(isinstance(a, np.ndarray) for a in args):
            raise NotConstant(f"`{target}(...)` of an array")
        loc = self.loc(node)
        if mod == "builtins":
            if name in ("min", "max") and args:
                items = args[0] if len(args) == 1 and isinstance(args[0], tuple) else tuple(args)
                if items and not any(isinstance(a, tuple) for a in items):
                    return min(items) if name == "min" else max(items)
            if len(args) != 1 or isinstance(args[0], tuple):
                raise NotConstant(f"{name}() with {len(args)} arguments")
            try:
                return _BUILTINS[name](args[0])
            except (OverflowError, ValueError) as exc:  # int(inf), int(nan)
                raise CompileError(loc, f"cannot compute this constant: {exc}", "Python raises here too") from None
        if mod == "numpy" and (isinstance(getattr(np, name, None), np.ufunc) or name in ("where", "clip")):
            try:
                with np.errstate(all="ignore"):  # NumPy warns, not raises, at import
                    result = np.asarray(getattr(np, name)(*args))[()]
            except (TypeError, ValueError, OverflowError) as exc:
                raise CompileError(loc, f"np.{name}(...) fails: {exc}", "NumPy raises here too") from None
            if not isinstance(result, np.number | np.bool_):
                raise NotConstant(f"np.{name}(), which does not give a number here")
            return result
        if mod in ("hybrid_runtime", "numpy"):
            scalar = parse_type_name("boolean" if name == "bool_" else name)
            if scalar is None or len(args) != 1 or isinstance(args[0], tuple):
                raise NotConstant(f"`{target}(...)`")
            dtype = scalar.storage.dtype if isinstance(scalar, Weak) else scalar.dtype
            value = args[0]
            if isinstance(value, int) and dtype.kind in "iu":
                info = np.iinfo(dtype)
                if not info.min <= value <= info.max:
                    raise CompileError(
                        loc,
                        f"Python integer {value} is out of bounds for {name}",
                        f"NumPy raises OverflowError here; use a value that fits in {name}",
                    )
            with np.errstate(all="ignore"):
                return dtype.type(value)
        if mod == "math" and callable(getattr(math, name, None)):
            try:
                result = getattr(math, name)(*args)
            except (ValueError, OverflowError, TypeError) as exc:
                raise CompileError(
                    loc,
                    f"math.{name}({', '.join(map(repr, args))}) fails: {exc}",
                    "Python raises here too; use a valid argument",
                ) from None
            if not isinstance(result, (int, float)):
                raise NotConstant(f"math.{name}(), which does not return a number")
            check_int(result, loc)
            return result
        raise NotConstant(f"a call of `{target}`")


#: the numbers a dtype constant gives (``mask_dtype.itemsize * 8``)
_DTYPE_NUMBERS = ("itemsize", "alignment")
#: the builtins a module constant may call (as Python computes them)
#: what makes a version that module-level code compares (packaging's, which the build environment has)
VERSION_FUNCTIONS = ("packaging.version.Version", "packaging.version.parse")
_COMPARISONS: dict[type[ast.cmpop], Callable[[Any, Any], bool]] = {
    ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b,
    ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b,
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
}
_BUILTINS: dict[str, Callable[[Any], Value]] = {"int": int, "float": float, "bool": bool, "abs": abs, "len": len,
                                                "min": min, "max": max}  # fmt: skip


def _describe(node: ast.expr) -> str:
    names = {
        ast.List: "list",
        ast.Dict: "dict",
        ast.Set: "set",
        ast.ListComp: "list comprehension",
        ast.Lambda: "lambda",
        ast.JoinedStr: "string",
    }
    return names.get(type(node), f"{type(node).__name__} expression")
