"""NumPy's scalar functions in kernels (``np.sqrt(x)``, ``np.minimum(a, b)``, ``np.where(c, a, b)``, ...),
typed as NumPy types them.

On the Python path a kernel's ``np.sqrt(x)`` is NumPy's own call, so the compiled code must give what
NumPy gives: the result is a NumPy scalar (strong, even of Python numbers: ``np.sqrt(2.0)`` is an
``np.float64``), of the type NumPy's loop resolution picks with NEP 50's weak Python numbers
(``np.sqrt(i8)`` is an f16, ``np.minimum(f32, 2.0)`` an f32). The types are asked of NumPy itself,
as :mod:`.rules` does for operators. What each function computes is in
:mod:`..lower.numpy_calls`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..types import (
    I64,
    EnumT,
    Scalar,
    Type,
    Weak,
    is_complex,
    is_numeric,
    scalar_of_dtype,
)
from .rules import RuleError

#: Unary functions of floats, computed by the C library (libdevice on the GPU): NumPy's name -> C's
TRANSCENDENTAL = {
    "sqrt": "sqrt", "cbrt": "cbrt", "exp": "exp", "exp2": "exp2", "expm1": "expm1", "log": "log",
    "log2": "log2", "log10": "log10", "log1p": "log1p", "sin": "sin", "cos": "cos", "tan": "tan",
    "arcsin": "asin", "arccos": "acos", "arctan": "atan", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh",
    "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh",
}  # fmt: skip
#: Binary functions of floats computed by the C library
BINARY_TRANSCENDENTAL = {"arctan2": "atan2", "hypot": "hypot"}
#: Functions whose result is the loop's own type, computed in :mod:`..lower.numpy_calls`
OWN = {
    "absolute": 1, "fabs": 1, "floor": 1, "ceil": 1, "trunc": 1, "rint": 1, "sign": 1, "square": 1,
    "degrees": 1, "radians": 1, "rad2deg": 1, "deg2rad": 1, "isnan": 1, "isinf": 1, "isfinite": 1,
    "minimum": 2, "maximum": 2, "fmin": 2, "fmax": 2, "power": 2, "copysign": 2,
}  # fmt: skip
#: Other names NumPy has for the same functions
ALIASES = {"abs": "absolute", "pow": "power", "asin": "arcsin", "acos": "arccos", "atan": "arctan",
           "atan2": "arctan2", "asinh": "arcsinh", "acosh": "arccosh", "atanh": "arctanh"}  # fmt: skip
#: Functions that are not ufuncs: their result types come from calling them on zeros of the operand types
NOT_UFUNCS = {"where": 3, "clip": 3}

#: NumPy's Python float constants kernels read (``np.pi``): weak, as Python floats are
CONSTANTS = {n: float(getattr(np, n)) for n in ("pi", "e", "inf", "nan", "euler_gamma")}
#: ``np.finfo(T).<attr>`` / ``np.iinfo(T).<attr>`` that kernels read: numbers known at build time
FINFO = ("max", "min", "eps", "epsneg", "tiny", "smallest_normal", "smallest_subnormal", "resolution", "bits",
         "precision", "maxexp", "minexp", "nmant", "nexp")  # fmt: skip
IINFO = ("max", "min", "bits")

#: NumPy functions kernels do not take, and the spelling that they do take
_SPELLINGS = {
    "remainder": "x % y", "mod": "x % y", "floor_divide": "x // y", "fmod": "math.fmod(x, y)",
    "ldexp": "math.ldexp(x, n)", "frexp": "math.frexp(x)", "modf": "math.modf(x)", "round": "np.rint(x)",
    "around": "np.rint(x)", "true_divide": "x / y", "divide": "x / y", "multiply": "x * y", "add": "x + y",
    "subtract": "x - y", "negative": "-x", "positive": "+x", "reciprocal": "1 / x", "max": "max(x, y) or np.maximum",
    "min": "min(x, y) or np.minimum", "amax": "np.maximum(x, y)", "amin": "np.minimum(x, y)",
    "logaddexp": "np.log(np.exp(x) + np.exp(y))", "signbit": "math.copysign(1.0, x) < 0",
    "select": "np.where(c, x, y)", "sum": "a loop over the array", "dot": "a loop over the arrays",
}  # fmt: skip


def name_of(name: str) -> str:
    """NumPy's canonical name for a function kernels take (``abs`` is ``absolute``)."""
    return ALIASES.get(name, name)


def supported(name: str) -> bool:
    name = name_of(name)
    return name in TRANSCENDENTAL or name in BINARY_TRANSCENDENTAL or name in OWN or name in NOT_UFUNCS


def spelling_hint(name: str) -> str:
    """The hint for a NumPy function kernels do not take."""
    spelling = _SPELLINGS.get(name)
    listed = ", ".join(sorted({*TRANSCENDENTAL, *BINARY_TRANSCENDENTAL, *OWN, *NOT_UFUNCS, *ALIASES}))
    return (f"write {spelling}; " if spelling else "") + f"kernels take these NumPy functions of scalars: {listed}"


def _operand(t: Type) -> Any:
    """What NumPy's loop resolution is given for an operand of type ``t``: a Python type for a weak
    number, a dtype for a NumPy scalar (an enum member is a Python int subclass, which NumPy takes as int64)."""
    if isinstance(t, Weak):
        return {"bool": np.dtype(bool), "int": int, "float": float, "complex": complex}[t.kind]
    if isinstance(t, EnumT):
        return I64.dtype
    assert isinstance(t, Scalar)
    return t.dtype


def _sample(t: Type) -> Any:
    """A zero of type ``t`` as the Python path holds it."""
    if isinstance(t, Weak):
        return {"bool": False, "int": 0, "float": 0.0, "complex": 0j}[t.kind]
    if isinstance(t, EnumT):
        return np.int64(0)
    assert isinstance(t, Scalar)
    return t.dtype.type(0)


def _scalar(dtype: np.dtype[Any], name: str) -> Scalar:
    try:
        return scalar_of_dtype(dtype)
    except KeyError:
        raise RuleError(f"np.{name} gives a {dtype} here, which kernels do not have") from None


def numpy_call(name: str, args: list[Type]) -> tuple[list[Type], Type]:
    """The types of ``np.<name>(*args)``: (what each operand is converted to, the result)."""
    canonical = name_of(name)
    nargs = NOT_UFUNCS.get(canonical) or OWN.get(canonical) or (2 if canonical in BINARY_TRANSCENDENTAL else 1)
    if len(args) != nargs:
        raise RuleError(f"np.{name}() takes {nargs} argument{'s' * (nargs > 1)} in kernel code, got {len(args)}")
    for t in args:
        if not is_numeric(t):
            raise RuleError(f"np.{name}() needs numbers here, not {t}", "index arrays to get their elements")
        if is_complex(t):
            raise RuleError(
                f"np.{name}() of a complex number ({t}) is not supported in kernel code",
                "use cmath's functions, abs(z), z.real and z.imag",
            )
    if canonical in NOT_UFUNCS:
        with np.errstate(all="ignore"):
            samples = [_sample(t) for t in args]
            result = _scalar(np.asarray(getattr(np, canonical)(*samples)).dtype, name)
        if canonical == "where":
            return [args[0], result, result], result
        return [result] * 3, result
    ufunc = getattr(np, canonical)
    try:
        dtypes = ufunc.resolve_dtypes((*(_operand(t) for t in args), None))
    except (TypeError, np.exceptions.DTypePromotionError) as exc:  # np.sign(True): no loop for a bool
        described = ", ".join(map(str, args))
        raise RuleError(f"NumPy has no np.{name}() of {described} ({exc})", "convert the operand first") from None
    operands: list[Type] = [_scalar(d, name) for d in dtypes[:-1]]
    return operands, _scalar(dtypes[-1], name)


def info_value(which: str, dtype: np.dtype[Any], attr: str) -> Any:
    """``np.finfo(dtype).attr`` or ``np.iinfo(dtype).attr`` as NumPy gives it, or a RuleError."""
    allowed = FINFO if which == "finfo" else IINFO
    kind = "fc" if which == "finfo" else "iu"
    if dtype.kind not in kind:
        other = "iinfo" if which == "finfo" else "finfo"
        raise RuleError(f"np.{which}() takes a {'float' if which == 'finfo' else 'integer'} type, not {dtype}",
                        f"use np.{other}({dtype.name}) for this type")  # fmt: skip
    if attr not in allowed:
        raise RuleError(f"np.{which}(...).{attr} is not a number kernels can read", "read: " + ", ".join(allowed))
    info = np.finfo(dtype) if which == "finfo" else np.iinfo(dtype)
    return getattr(info, attr)


def libdevice_call(module: str, name: str, args: list[Type]) -> tuple[str, list[Type], Type]:
    """``cuda.libdevice.sinf(x)``, ``cuda.fp16.hsin(x)``: NumPy's function of one type (the runtime's
    :mod:`hybrid_runtime.libdevice` table, which the Python path runs too); (NumPy's name, the operand
    types, the result). A leading argument the table gives (``exp10(x)``: ``power(10, x)``) is already
    among ``args`` (put there by the ``cuda`` spelling's rewrite)."""
    from hybrid_runtime.libdevice import names, resolve

    found = resolve(module, name)
    if found is None:
        raise RuleError(
            f"`cuda.{module}.{name}` is not supported in kernel code",
            f"cuda.{module} offers {', '.join(names(module))}; or use math's and NumPy's functions",
        )
    ufunc, dtype, _ = found
    for t in args:
        if not is_numeric(t) or is_complex(t):
            raise RuleError(f"cuda.{module}.{name}() needs real numbers, not {t}")
    operands, result = numpy_call(ufunc, [scalar_of_dtype(np.dtype(dtype))] * len(args))
    return ufunc, operands, result
