"""Constant folding: operations whose operands are known at build time get their value then.

Folding gives the value the CPU path computes (Python for Python numbers, NumPy for NumPy scalars),
and makes what Python or NumPy would reject — a division by zero, a negative power of an integer,
an integer beyond 64 bits — a compile error at the operation, so that a program has one meaning.
"""

from __future__ import annotations

from typing import Any, TypeGuard

import numpy as np

from ..errors import CompileError, Loc
from ..frontend.constants import check_int, fold_binop
from ..types import BOOL, WEAK_BOOL, WEAK_COMPLEX, WEAK_FLOAT, WEAK_INT, Scalar, TupleT, Type, Weak, scalar_of_dtype

_I64_MAX = (1 << 63) - 1
U64 = Scalar("u64")


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
    """The value of ``left op right`` with both operands converted as the operation converts them (a
    Python int may be up to 2**64 - 1, as a literal may: see :func:`beyond_i64`)."""
    value = fold_binop(op, convert(left, left_t), convert(right, right_t), loc)
    result = convert(value, result_t)
    if result_t == WEAK_INT:
        check_int(result, loc)
    return result


def beyond_i64(value: object) -> TypeGuard[int]:
    """A Python int from 2**63 to 2**64 - 1 known at build time (``MASK = 18446744073709551615``): the
    device holds Python ints in i64, which cannot hold it, but NumPy converts it to what it meets (NEP
    50), and a u64 or a float holds it: :func:`wide_int_as` gives its value there."""
    return type(value) is int and _I64_MAX < value


def wide_int_as(value: int, t: Type, loc: Loc) -> Any:
    """A Python int :func:`beyond_i64` used as a ``t``: its value as NumPy converts it, known at build
    time (NumPy keeps its value where it meets a u64 or a float); a compile error where NumPy raises (a
    narrower or signed integer: OverflowError) or where it would stay a Python int at run time, which the
    device holds in i64."""
    if isinstance(t, Scalar) and t.kind in "iu" and not value <= np.iinfo(t.dtype).max:
        raise CompileError(
            loc,
            f"Python integer {value} is out of bounds for {t}",
            f"NumPy raises OverflowError here too; of the integer types only u64 holds it: u64({value})",
        )
    if isinstance(t, Weak) and t.kind == "int":
        raise CompileError(
            loc,
            f"the Python int {value} is used as a Python int computed at run time, held as i64 on the device, "
            "which cannot hold it",
            f"make it a u64 where it is written, u64({value}), or let it meet a u64: it keeps its value there",
        )
    return convert(value, t)


def zero_as(value: object, t: Type) -> Any:
    """``value``, known at build time, as the float type ``t`` where it is a zero (its sign kept), else
    None (the lowering keeps such zeros out of LLVM's sight: ``Ops.opaque_zero``)."""
    floating = (isinstance(t, Scalar) and t.kind == "f") or t == WEAK_FLOAT
    if floating and isinstance(value, (int, float, np.integer, np.floating)) and value == 0:
        return convert(value, t)
    return None


def compared_as(value: object, t: Type, other: Type) -> Type:
    """The type an operand of a comparison (``value``: its value where known) is compared as, given
    ``t`` from ``rules.compare`` and the other operand's type: a Python int compared with a NumPy
    integer keeps its value (an i64 there), one :func:`beyond_i64` too, as a u64 (NumPy compares the
    two by value; with a NumPy bool NumPy raises, as the i64 does: :func:`wide_int_as`)."""
    if beyond_i64(value) and t == Scalar("i64") and isinstance(other, Scalar) and other.kind in "iu":
        return U64
    return t


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
