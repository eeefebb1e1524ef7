"""Typing rules of operators, casts, builtins, ``math`` and ``gpu`` intrinsics.

Each rule returns the result type and the types its operands are converted to, so the lowering
stage does exactly what NumPy (or Python, for two weakly typed operands) does on the CPU.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..types import (
    BOOL,
    I64,
    WEAK_BOOL,
    WEAK_COMPLEX,
    WEAK_FLOAT,
    WEAK_INT,
    ArrayT,
    PromotionError,
    Scalar,
    TupleT,
    Type,
    Weak,
    component,
    enum_operand,
    is_bool,
    is_complex,
    is_float,
    is_int,
    is_numeric,
    resolve_ufunc,
    unify_assignment,
    unify_variable,
)

BINOP_UFUNCS: dict[str, np.ufunc] = {
    "+": np.add,
    "-": np.subtract,
    "*": np.multiply,
    "/": np.true_divide,
    "//": np.floor_divide,
    "%": np.remainder,
    "**": np.power,
    "<<": np.left_shift,
    ">>": np.right_shift,
    "&": np.bitwise_and,
    "|": np.bitwise_or,
    "^": np.bitwise_xor,
}
CMP_UFUNCS: dict[str, np.ufunc] = {
    "<": np.less,
    "<=": np.less_equal,
    ">": np.greater,
    ">=": np.greater_equal,
    "==": np.equal,
    "!=": np.not_equal,
}
ARITHMETIC = {"+", "-", "*", "/", "//", "%", "**"}
BITWISE = {"<<", ">>", "&", "|", "^"}


class RuleError(Exception):
    """A typing rule does not apply; the message is for users, the hint says what to do."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint


@dataclass(frozen=True)
class OpTypes:
    """Operands are converted to ``left``/``right``; the operation yields ``result``."""

    left: Type
    right: Type
    result: Type


def binop(op: str, a: Type, b: Type, right_const: object = None) -> OpTypes:
    a, b = enum_operand(a, b), enum_operand(b, a)
    if not (is_numeric(a) and is_numeric(b)):
        raise RuleError(
            f"unsupported operand types for {op}: {a} and {b}",
            "arithmetic works on scalars; index arrays to get their elements",
        )
    if op == "-" and a == BOOL and b == BOOL:  # NumPy's + and * of booleans are `or` and `and`
        raise RuleError(
            "`-` of two NumPy booleans is not supported (NumPy raises TypeError)",
            "use ^ (logical xor), or convert with int(...) first",
        )
    # a Python bool beside a NumPy scalar is weak (NEP 50): it takes the scalar's type, as 0 and 1
    if a == WEAK_BOOL and isinstance(b, Scalar):
        a = b
    elif b == WEAK_BOOL and isinstance(a, Scalar):
        b = a
    if is_complex(a) or is_complex(b):
        _check_complex_binop(op, a, b, right_const)
    if isinstance(a, Weak) and isinstance(b, Weak):
        return _python_binop(op, a, b, right_const)
    try:
        la, lb, out = resolve_ufunc(BINOP_UFUNCS[op], a, b)
    except PromotionError:
        hint = (
            "bitwise operators and shifts need integers"
            if op in BITWISE
            else "convert one operand explicitly, e.g. f32(x)"
        )
        raise RuleError(f"unsupported operand types for {op}: {a} and {b}", hint) from None
    return OpTypes(la, lb, out)


def _check_complex_binop(op: str, a: Type, b: Type, right_const: object) -> None:
    """Complex numbers have ``+ - * /`` and ``**`` with a small integer exponent known at build time;
    Python and NumPy refuse the rest."""
    if op in ("//", "%") or op in BITWISE:
        raise RuleError(
            f"unsupported operand types for {op}: {a} and {b}",
            "complex numbers have no floor division, remainder or bitwise operators (Python and NumPy refuse "
            "them too); work on .real and .imag",
        )
    small = isinstance(right_const, (int, np.integer)) and not isinstance(right_const, bool)
    if op == "**" and not (small and is_int(b) and -100 < int(right_const) < 100):  # type: ignore[call-overload]
        raise RuleError(
            f"`**` of complex numbers is supported only with an integer exponent known at build time, from -99 "
            f"to 99 ({a} ** {b})",
            "write the exponent as an integer literal or constant (z ** 3), or use cmath.exp(w * cmath.log(z))",
        )


def _python_binop(op: str, a: Weak, b: Weak, right_const: object) -> OpTypes:
    if a.kind == "bool" and b.kind == "bool" and op in ("&", "|", "^"):
        return OpTypes(WEAK_BOOL, WEAK_BOOL, WEAK_BOOL)  # Python: True & False is a bool
    a, b = (WEAK_INT if a.kind == "bool" else a), (WEAK_INT if b.kind == "bool" else b)  # else bools are ints
    if "complex" in (a.kind, b.kind):
        return OpTypes(WEAK_COMPLEX, WEAK_COMPLEX, WEAK_COMPLEX)
    if op in BITWISE:
        if a.kind == "float" or b.kind == "float":
            raise RuleError(f"unsupported operand types for {op}: {a} and {b}", "bitwise operators need integers")
        return OpTypes(WEAK_INT, WEAK_INT, WEAK_INT)
    if a.kind == "int" and b.kind == "int":
        if op == "/":
            return OpTypes(WEAK_FLOAT, WEAK_FLOAT, WEAK_FLOAT)
        if op == "**" and isinstance(right_const, int) and right_const < 0:
            return OpTypes(WEAK_FLOAT, WEAK_FLOAT, WEAK_FLOAT)
        return OpTypes(WEAK_INT, WEAK_INT, WEAK_INT)
    return OpTypes(WEAK_FLOAT, WEAK_FLOAT, WEAK_FLOAT)


def compare(op: str, a: Type, b: Type) -> OpTypes:
    a, b = enum_operand(a, b), enum_operand(b, a)
    if not (is_numeric(a) and is_numeric(b)):
        raise RuleError(f"cannot compare {a} with {b}", "compare scalars; index arrays to get their elements")
    if (is_complex(a) or is_complex(b)) and op not in ("==", "!="):
        raise RuleError(
            f"`{op}` is not supported between {a} and {b}: complex numbers are not ordered",
            "compare abs(z), z.real or z.imag; == and != work",
        )
    if isinstance(a, Weak) and isinstance(b, Weak):  # Python numbers: a Python bool
        kinds = {a.kind, b.kind}
        common = WEAK_COMPLEX if "complex" in kinds else (WEAK_FLOAT if "float" in kinds else WEAK_INT)
        return OpTypes(common, common, WEAK_BOOL)
    a, b = (b if a == WEAK_BOOL else a), (a if b == WEAK_BOOL else b)  # as 0 and 1 of the other's type
    for weak, strong in ((a, b), (b, a)):
        if weak == WEAK_INT and isinstance(strong, Scalar) and strong.kind in "iu":
            # NumPy 2 compares a Python int with a fixed-width integer by value, even out of its range
            # (-1 < np.uint8(0) is True): keep each side's own type; the comparison is then exact
            return OpTypes(I64, strong, BOOL) if weak is a else OpTypes(strong, I64, BOOL)
    la, lb, _ = resolve_ufunc(CMP_UFUNCS[op], a, b)
    return OpTypes(la, lb, BOOL)


def unary(op: str, a: Type) -> Type:
    """The result type; the operand is converted to it first (a Python bool to an int: ``-True`` is -1)."""
    if op == "not":
        if not is_numeric(a):
            raise RuleError(f"`not` needs a number or boolean, not {a}")
        return WEAK_BOOL  # Python's `not` gives a Python bool, whatever the operand
    if not is_numeric(a):
        raise RuleError(f"bad operand type for unary {op}: {a}")
    if a == WEAK_BOOL:
        return WEAK_INT
    if a == BOOL:
        if op == "~":
            return BOOL  # NumPy: logical not
        raise RuleError(
            f"unary `{op}` on a NumPy boolean is not supported (NumPy raises TypeError)",
            "use `not x` or `~x` for logical negation, or convert with int(...) first",
        )
    if op == "~" and (is_float(a) or is_complex(a)):
        raise RuleError(f"bad operand type for unary ~: {a}", "~ needs an integer")
    return enum_operand(a, WEAK_INT)


def common(a: Type, b: Type, what: str) -> Type:
    """The type of an expression yielding either an ``a`` or a ``b`` (``x if c else y``, ``or``, ``min``).

    A Python number meeting a NumPy type takes that type, as in a variable assigned in two branches
    (``x[i] if i < n else 0`` is an i32, ``x_f32 if c else 0.1`` an f32: numba's rule), and numbers of
    other types the type NumPy promotes them to: the operands are converted on every path (see
    conversions.py); a boolean meeting a number is converted to the number's type. Other operands must
    have one type.
    """
    if a == b:
        return a
    for strong, weak in ((a, b), (b, a)):
        if isinstance(strong, Scalar) and isinstance(weak, Weak) and unify_assignment(strong, weak) == strong:
            return strong
    if {a, b} == {BOOL, WEAK_BOOL}:
        # `i < n and x[i] > 0` is a Python bool or a NumPy bool: one as good as the other in a condition
        # or stored; in arithmetic the NumPy bool's typing is the one kept (see docs/language.md)
        return BOOL
    promoted = unify_variable(a, b)
    if promoted is not None and is_numeric(promoted):
        # numbers of two types: the type NumPy promotes them to (`min(n_i32, 0.5)` an f64, `x if c else
        # n` of i32 and i64 an i64, `1 if c else 2.5` a Python float), numba's rule too; both operands are
        # converted to it on every path, the Python path's included (see conversions.py)
        return promoted
    if is_bool(a) != is_bool(b) and is_numeric(a) and is_numeric(b):
        # a boolean and a number: the number's type (`max(n_i8, flag)` an i8, True counting 1, NumPy's
        # promotion), where a NumPy bool meets a Python number NumPy's default type of its kind (i64, f64)
        boolean, number = (a, b) if is_bool(a) else (b, a)
        return number.storage if isinstance(number, Weak) and boolean == BOOL else number
    example = f"{b}(...)" if isinstance(b, Scalar) else (f"{a}(...)" if isinstance(a, Scalar) else "float(...)")
    raise RuleError(
        f"the values of {what} have different types: {a} and {b}",
        "Python returns one of them unconverted, so the result's type would depend on the values; "
        f"convert them to one type, e.g. {example}",
    )


# ------------------------------------------------------------------- calls
CAST_NAMES = {"int": WEAK_INT, "float": WEAK_FLOAT, "bool": WEAK_BOOL, "complex": WEAK_COMPLEX}

# math functions: (number of arguments, result type); arguments become Python floats
MATH_FUNCS: dict[str, tuple[int, Type]] = {
    "sqrt": (1, WEAK_FLOAT),
    "fabs": (1, WEAK_FLOAT),
    "exp": (1, WEAK_FLOAT),
    "log": (1, WEAK_FLOAT),
    "log2": (1, WEAK_FLOAT),
    "log10": (1, WEAK_FLOAT),
    "sin": (1, WEAK_FLOAT),
    "cos": (1, WEAK_FLOAT),
    "tan": (1, WEAK_FLOAT),
    "tanh": (1, WEAK_FLOAT),
    "erf": (1, WEAK_FLOAT),
    "pow": (2, WEAK_FLOAT),
    "floor": (1, WEAK_INT),
    "ceil": (1, WEAK_INT),
    "trunc": (1, WEAK_INT),
    "asin": (1, WEAK_FLOAT),
    "acos": (1, WEAK_FLOAT),
    "atan": (1, WEAK_FLOAT),
    "atan2": (2, WEAK_FLOAT),
    "sinh": (1, WEAK_FLOAT),
    "cosh": (1, WEAK_FLOAT),
    "asinh": (1, WEAK_FLOAT),
    "acosh": (1, WEAK_FLOAT),
    "atanh": (1, WEAK_FLOAT),
    "expm1": (1, WEAK_FLOAT),
    "log1p": (1, WEAK_FLOAT),
    "erfc": (1, WEAK_FLOAT),
    "hypot": (2, WEAK_FLOAT),
    "copysign": (2, WEAK_FLOAT),
    "isnan": (1, WEAK_BOOL),
    "isinf": (1, WEAK_BOOL),
    "isfinite": (1, WEAK_BOOL),
    "fmod": (2, WEAK_FLOAT),
    "remainder": (2, WEAK_FLOAT),
    "ldexp": (2, WEAK_FLOAT),  # (float, int)
    "frexp": (1, TupleT((WEAK_FLOAT, WEAK_INT))),
    "modf": (1, TupleT((WEAK_FLOAT, WEAK_FLOAT))),
    "gamma": (1, WEAK_FLOAT),
    "lgamma": (1, WEAK_FLOAT),
    "cbrt": (1, WEAK_FLOAT),  # Python 3.11+
    "exp2": (1, WEAK_FLOAT),  # Python 3.11+
    "degrees": (1, WEAK_FLOAT),
    "radians": (1, WEAK_FLOAT),
    "fma": (3, WEAK_FLOAT),  # Python 3.13+
}
#: math functions of floats that give a float: with fastmath, ``f32(math.f(x))`` of f32 arguments
#: may be computed in single precision
MATH_FLOAT_TO_FLOAT = {n for n, (_, r) in MATH_FUNCS.items() if r == WEAK_FLOAT} - {"ldexp"}
MATH_CONSTANTS = {"pi": np.pi, "e": np.e, "tau": 2 * np.pi, "inf": float("inf"), "nan": float("nan")}

# cmath functions: (number of arguments, result type); arguments become Python complex (rect: floats)
CMATH_FUNCS: dict[str, tuple[int, Type]] = {
    "sqrt": (1, WEAK_COMPLEX),
    "exp": (1, WEAK_COMPLEX),
    "log": (1, WEAK_COMPLEX),
    "log10": (1, WEAK_COMPLEX),
    **{name: (1, WEAK_COMPLEX) for name in ("cos", "sin", "tan", "cosh", "sinh", "tanh")},
    **{name: (1, WEAK_COMPLEX) for name in ("acos", "asin", "atan", "acosh", "asinh", "atanh")},
    "phase": (1, WEAK_FLOAT),
    "polar": (1, TupleT((WEAK_FLOAT, WEAK_FLOAT))),
    "rect": (2, WEAK_COMPLEX),
    "isnan": (1, WEAK_BOOL),
    "isinf": (1, WEAK_BOOL),
    "isfinite": (1, WEAK_BOOL),
}

GPU_INDEX = {
    f"{what}_{axis}"
    for what in ("thread_idx", "block_idx", "block_dim", "grid_dim", "global_tid", "global_size")
    for axis in "xyz"
}
ATOMICS = {
    "atomic_add", "atomic_sub", "atomic_min", "atomic_max", "atomic_exch", "atomic_cas",
    "atomic_and", "atomic_or", "atomic_xor", "atomic_inc", "atomic_dec",
    "atomic_max_ordered", "atomic_min_ordered",  # numba's atomic.max/min: see lower.intrinsics.ordered_extreme
}  # fmt: skip
#: The array types each atomic takes (CUDA's: bitwise operations on integers, inc/dec on unsigned).
ATOMIC_INT_DTYPES = {"i32", "i64", "u32", "u64"}
ATOMIC_ONLY = {
    "atomic_cas": ATOMIC_INT_DTYPES,
    "atomic_and": ATOMIC_INT_DTYPES,
    "atomic_or": ATOMIC_INT_DTYPES,
    "atomic_xor": ATOMIC_INT_DTYPES,
    "atomic_inc": {"u32", "u64"},
    "atomic_dec": {"u32", "u64"},
}
SHUFFLES = {"shfl_down", "shfl_up", "shfl_xor", "shfl_idx"}
VOTES = {"ballot", "all_", "any_", "syncwarp"}  # syncwarp: all lanes meet (an all-vote of True, unused)
#: the lanes whose value has this lane's bits (CUDA's __match_any_sync): posted as a shuffle, read as a vote
MATCHES = {"match_any"}
#: bit operations on integers (CUDA's __popc, __clz, __ffs, __brev): the result has the operand's type
BIT_OPS = {"popc", "clz", "ffs", "brev"}
WARP_CALLS = SHUFFLES | VOTES | MATCHES  # the calls that make a warp's threads meet
ATOMIC_DTYPES = {"i32", "i64", "u32", "u64", "f32", "f64"}


def math_call(name: str, args: list[Type]) -> tuple[list[Type], Type]:
    if name not in MATH_FUNCS:
        raise RuleError(f"math.{name} is not supported in kernel code", "supported: " + ", ".join(sorted(MATH_FUNCS)))
    nargs, result = MATH_FUNCS[name]
    if len(args) != nargs:
        raise RuleError(f"math.{name}() takes {nargs} argument{'s' if nargs > 1 else ''}, got {len(args)}")
    for t in args:
        if not is_numeric(t):
            raise RuleError(f"math.{name}() needs numbers, not {t}")
        if is_complex(t):
            raise RuleError(
                f"math.{name}() needs real numbers, not {t} (Python raises TypeError)",
                f"use cmath.{name}() for complex numbers" if name in CMATH_FUNCS else "work on z.real and z.imag",
            )
    if name == "ldexp":
        if not is_int(args[1]):
            raise RuleError(f"math.ldexp() needs an integer exponent, not {args[1]}", "convert it with int(...)")
        return [WEAK_FLOAT, WEAK_INT], result
    return [WEAK_FLOAT] * nargs, result


def cmath_call(name: str, args: list[Type]) -> tuple[list[Type], Type]:
    if name not in CMATH_FUNCS:
        raise RuleError(f"cmath.{name} is not supported in kernel code", "supported: " + ", ".join(sorted(CMATH_FUNCS)))
    nargs, result = CMATH_FUNCS[name]
    if len(args) != nargs:
        raise RuleError(f"cmath.{name}() takes {nargs} argument{'s' if nargs > 1 else ''}, got {len(args)}")
    for t in args:
        if not is_numeric(t):
            raise RuleError(f"cmath.{name}() needs numbers, not {t}")
    if name == "rect":
        if any(is_complex(t) for t in args):
            raise RuleError("cmath.rect() takes two real numbers (Python raises TypeError)", "pass abs(z), phase(z)")
        return [WEAK_FLOAT, WEAK_FLOAT], result
    return [WEAK_COMPLEX] * nargs, result


def builtin_call(name: str, args: list[Type]) -> tuple[list[Type], Type]:
    """Types of ``len``, ``abs``, ``min``, ``max``: (operand types, result)."""
    if name == "len":
        if len(args) != 1 or not isinstance(args[0], (ArrayT, TupleT)):
            raise RuleError("len() takes one array", "len(a) is the size of a's first dimension")
        return list(args), WEAK_INT
    if name == "abs":
        if len(args) != 1 or not is_numeric(args[0]):
            raise RuleError("abs() takes one number")
        if is_complex(args[0]):  # the magnitude: a real of the matching precision
            return list(args), component(args[0])
        if args[0] == WEAK_BOOL:  # abs(True) is the int 1; NumPy's abs of a bool is the bool
            return [WEAK_INT], WEAK_INT
        return list(args), enum_operand(args[0], WEAK_INT)
    if name in ("min", "max"):
        if len(args) < 2:
            raise RuleError(f"{name}() in kernel code takes two or more numbers", "to reduce an array, loop over it")
        if any(is_complex(t) for t in args):
            raise RuleError(
                f"{name}() of complex numbers: complex numbers are not ordered (Python raises TypeError)",
                "compare abs(z), z.real or z.imag",
            )
        result = args[0]
        for t in args[1:]:
            result = common(result, t, f"{name}()")
        return [result] * len(args), result
    raise RuleError(
        f"`{name}` is not supported in kernel code",
        "kernels can call len, abs, min, max, int, float, bool, range (in for loops), "
        "math functions and helper functions",
    )
