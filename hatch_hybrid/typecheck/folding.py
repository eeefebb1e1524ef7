"""Constant folding: operations whose operands are known at build time get their value then.

Folding gives the value the CPU path computes (Python for Python numbers, NumPy for NumPy scalars),
and makes what Python or NumPy would reject — a division by zero, a negative power of an integer,
an integer beyond 64 bits — a compile error at the operation, so that a program has one meaning.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import CompileError, Loc
from ..frontend.constants import check_int, fold_binop
from ..types import BOOL, WEAK_BOOL, WEAK_COMPLEX, WEAK_FLOAT, WEAK_INT, Scalar, TupleT, Type, Weak, scalar_of_dtype

_I64_MIN, _I64_MAX = -(1 << 63), (1 << 63) - 1


def type_of_value(value: Any) -> Type:
    """The kernel type of a constant: Python numbers are weak, NumPy scalars keep their type."""
    if isinstance(value, tuple):
        return TupleT(tuple(type_of_value(v) for v in value))
    if isinstance(value, bool):
        return WEAK_BOOL
    if isinstance(value, np.bool_):
        return BOOL
    if isinstance(value, np.generic):
        return scalar_of_dtype(value.dtype)
    if isinstance(value, complex):
        return WEAK_COMPLEX
    return WEAK_INT if isinstance(value, int) else WEAK_FLOAT


def convert(value: Any, t: Type) -> Any:
    """``value`` as the CPU path holds it when it has type ``t``."""
    if isinstance(t, Weak):
        return {"bool": bool, "int": int, "float": float, "complex": complex}[t.kind](value)
    if isinstance(t, Scalar):
        with np.errstate(all="ignore"):
            return t.dtype.type(value)
    return value


def binop(op: str, left_t: Type, right_t: Type, result_t: Type, left: Any, right: Any, loc: Loc) -> Any:
    """The value of ``left op right`` with both operands converted as the operation converts them."""
    value = fold_binop(op, convert(left, left_t), convert(right, right_t), loc)
    result = convert(value, result_t)
    if result_t == WEAK_INT and not _I64_MIN <= result <= _I64_MAX:
        raise CompileError(
            loc,
            f"the integer {result} does not fit in 64 bits (Python integers are held as i64 in kernels)",
            "use a float, a smaller value, or convert an operand to u64 for unsigned values",
        )
    return result


def unary(op: str, t: Type, value: Any, loc: Loc) -> Any:
    value = convert(value, t)
    with np.errstate(all="ignore"):
        if op == "not":
            return not value
        result = -value if op == "-" else (+value if op == "+" else ~value)
    check_int(result, loc)
    return result


def check_divisor(op: str, left_t: Type, right_t: Type, right: Any, loc: Loc) -> None:
    """``x / 0``, ``x // 0``, ``x % 0`` of Python numbers, the divisor known at build time, are errors: Python
    raises ZeroDivisionError. With a NumPy operand NumPy gives a result (inf, nan, or 0 for integers), as the
    devices do at run time."""
    python = isinstance(left_t, Weak) and isinstance(right_t, Weak)
    if python and op in ("/", "//", "%") and isinstance(right, (int, float, np.number, np.bool_)) and right == 0:
        raise CompileError(
            loc,
            f"division by zero (`{op}` by a value known to be 0 at build time)",
            "Python raises ZeroDivisionError here; test the divisor, or use the value you want directly",
        )


def check_power(op: str, left_t: Type, right: Any, loc: Loc) -> None:
    """An integer to a negative power: Python gives a float, NumPy raises, so it is an error."""
    integer = left_t == WEAK_INT or (isinstance(left_t, Scalar) and left_t.kind in "iu")
    if op == "**" and integer and isinstance(right, (int, np.integer)) and not isinstance(right, bool) and right < 0:
        raise CompileError(
            loc,
            "an integer raised to a negative power",
            "Python gives a float and NumPy raises; write a float base (2.0 ** -1) to get a float",
        )
