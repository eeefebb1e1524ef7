"""numba-cuda's ``cuda.libdevice`` and ``cuda.fp16`` math functions, as NumPy's functions of one type.

numba exposes NVIDIA's libdevice by name (``libdevice.sinf(x)``, ``libdevice.fast_sinf(x)``,
``libdevice.exp10(x)``) and half-precision math as ``cuda.fp16.hsin(x)``. Here each is the NumPy
function of that type — ``sinf`` is ``np.sin(np.float32(x))``, ``sin`` ``np.sin(np.float64(x))``,
``hsin`` ``np.sin(np.float16(x))`` — on every device, the compiled ones and the Python path alike, so a
kernel means one thing wherever it runs (the transcendental functions as NumPy's in kernels are: the C
library's natively, libdevice's on a GPU, NumPy's own on the Python path, each within its documented
ulps; see docs/language.md). The ``fast_`` variants (libdevice's approximations) are the accurate
functions. :func:`resolve` is the one table; the compiler reads it too.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import numpy as np

#: libdevice's names (without ``__nv_``, the ``f`` of single precision and ``fast_``) -> NumPy's function and
#: a leading argument (``exp10(x)`` is ``power(10, x)``)
_FUNCTIONS: dict[str, tuple[str, float | None]] = {
    "sqrt": ("sqrt", None), "cbrt": ("cbrt", None), "exp": ("exp", None), "exp2": ("exp2", None),
    "exp10": ("power", 10.0), "expm1": ("expm1", None), "log": ("log", None), "log2": ("log2", None),
    "log10": ("log10", None), "log1p": ("log1p", None), "sin": ("sin", None), "cos": ("cos", None),
    "tan": ("tan", None), "asin": ("arcsin", None), "acos": ("arccos", None), "atan": ("arctan", None),
    "sinh": ("sinh", None), "cosh": ("cosh", None), "tanh": ("tanh", None), "asinh": ("arcsinh", None),
    "acosh": ("arccosh", None), "atanh": ("arctanh", None), "fabs": ("fabs", None), "floor": ("floor", None),
    "ceil": ("ceil", None), "trunc": ("trunc", None), "rint": ("rint", None), "nearbyint": ("rint", None),
    "copysign": ("copysign", None), "fmin": ("fmin", None), "fmax": ("fmax", None), "pow": ("power", None),
    "atan2": ("arctan2", None), "hypot": ("hypot", None),
}  # fmt: skip
#: cuda.fp16's names (``h`` + the function) that are math functions of float16
_HALF = {"h" + name: name for name in _FUNCTIONS} | {"habs": "fabs", "hmax": "fmax", "hmin": "fmin"}
LIBDEVICE, FP16 = "libdevice", "fp16"
#: cuda.fp16's arithmetic: Python's operator on the arguments as float16 (``hfma``: ``a * b + c`` computed in
#: float64 and rounded once to float16)
FP16_OPERATORS: dict[str, str] = {
    "hadd": "+", "hsub": "-", "hmul": "*", "hdiv": "/", "hneg": "neg", "heq": "==", "hne": "!=", "hlt": "<",
    "hle": "<=", "hgt": ">", "hge": ">=", "hfma": "fma", "hrcp": "rcp", "hrsqrt": "rsqrt",
}  # fmt: skip
#: libdevice's (sin, cos) pairs: the two functions of the same argument
SINCOS = {"sincosf": "f", "fast_sincosf": "f", "sincos": ""}
_I, _U, _L, _UL, _F, _D = "int32", "uint32", "int64", "uint64", "float32", "float64"
_MATH = [("erf", "erf", 1, "a"), ("erfc", "erfc", 1, "a"), ("lgamma", "lgamma", 1, "a"),
         ("tgamma", "gamma", 1, "a"), ("fmod", "fmod", 2, "a, b"), ("remainder", "remainder", 2, "a, b")]  # fmt: skip
#: libdevice's bit, integer, round-to-nearest and classification functions: (the operands' dtypes, the
#: function as an expression of the kernel language over the operands ``a`` and ``b``, converted to those
#: dtypes, each used once). The compiler rewrites a call into its expression
#: (:mod:`hatch_hybrid.typecheck.cuda_spelling`); the Python path evaluates the same expression with NumPy's
#: scalars (:func:`function`), so the two cannot disagree. ``popc clz ffs brev`` are the language's bit
#: operations, the other names libdevice's math functions above.
OPERATIONS: dict[str, tuple[tuple[str, ...], str]] = {
    "popc": ((_I,), "popc(a)"), "popcll": ((_L,), "int32(popc(a))"), "clz": ((_I,), "clz(a)"),
    "clzll": ((_L,), "int32(clz(a))"), "ffs": ((_I,), "ffs(a)"), "ffsll": ((_L,), "int32(ffs(a))"),
    "brev": ((_U,), "brev(a)"), "brevll": ((_UL,), "brev(a)"),
    **{prefix + op: ((t, t), op + "(a, b)") for prefix, t in (("", _I), ("u", _U), ("ll", _L), ("ull", _UL))
       for op in ("min", "max")},
    "abs": ((_I,), "abs(a)"), "llabs": ((_L,), "abs(a)"),
    "mulhi": ((_I, _I), "int32((int64(a) * int64(b)) >> 32)"),
    "umulhi": ((_U, _U), "uint32((uint64(a) * uint64(b)) >> 32)"),
    "hadd": ((_I, _I), "int32((int64(a) + int64(b)) >> 1)"),
    "rhadd": ((_I, _I), "int32((int64(a) + int64(b) + 1) >> 1)"),
    "uhadd": ((_U, _U), "uint32((uint64(a) + uint64(b)) >> 1)"),
    "urhadd": ((_U, _U), "uint32((uint64(a) + uint64(b) + 1) >> 1)"),
    **{f"{p}{op}_rn": ((t, t), f"a {symbol} b") for p, t in (("f", _F), ("d", _D))
       for op, symbol in (("add", "+"), ("sub", "-"), ("mul", "*"), ("div", "/"))},
    "fdividef": ((_F, _F), "a / b"), "frcp_rn": ((_F,), "float32(1) / a"), "drcp_rn": ((_D,), "float64(1) / a"),
    "fsqrt_rn": ((_F,), "sqrtf(a)"), "dsqrt_rn": ((_D,), "sqrt(a)"),
    "rsqrtf": ((_F,), "float32(1) / sqrtf(a)"), "rsqrt": ((_D,), "float64(1) / sqrt(a)"),
    "saturatef": ((_F,), "fminf(fmaxf(a, float32(0)), float32(1))"),  # a NaN gives 0, as CUDA's
    "isnanf": ((_F,), "int32(not fabsf(a) <= inf)"), "isnand": ((_D,), "int32(not fabs(a) <= inf)"),
    "isinff": ((_F,), "int32(fabsf(a) == inf)"), "isinfd": ((_D,), "int32(fabs(a) == inf)"),
    "finitef": ((_F,), "int32(fabsf(a) < inf)"), "isfinited": ((_D,), "int32(fabs(a) < inf)"),
    # (a NaN's sign reads as positive, as copysign's does on every device: see docs/language.md)
    "signbitf": ((_F,), "int32(copysignf(float32(1), a) < 0)"), "signbitd": ((_D,), "int32(copysign(1.0, a) < 0)"),
    # libdevice's math that NumPy lacks: the language's `math` function (single precision: of the f32
    # operand in f64, rounded to f32 once; fmod, remainder and ldexp are exact either way)
    **{name: ((_D,) * n, f"{fn}({args})") for name, fn, n, args in _MATH},
    **{name + "f": ((_F,) * n, f"float32({fn}({args}))") for name, fn, n, args in _MATH},
    # bits read as another type (NumPy's view)
    "float_as_int": ((_F,), "a.view(int32)"), "int_as_float": ((_I,), "a.view(float32)"),
    "float_as_uint": ((_F,), "a.view(uint32)"), "uint_as_float": ((_U,), "a.view(float32)"),
    "double_as_longlong": ((_D,), "a.view(int64)"), "longlong_as_double": ((_L,), "a.view(float64)"),
    "double2hiint": ((_D,), "int32(a.view(int64) >> 32)"),
    "double2loint": ((_D,), "uint32(a.view(uint64) & uint64(4294967295)).view(int32)"),
    "hiloint2double": ((_I, _I), "((int64(a) << 32) | int64(b.view(uint32))).view(float64)"),
    "ldexp": ((_D, _I), "ldexp(a, b)"), "ldexpf": ((_F, _I), "float32(ldexp(a, b))"),
    "scalbn": ((_D, _I), "ldexp(a, b)"), "scalbnf": ((_F, _I), "float32(ldexp(a, b))"),
}  # fmt: skip
#: the language's math functions the expressions above call (through ``cuda.libdevice``, whose name for
#: the function ``math`` calls gamma is tgamma)
MATH_CALLED = ("erf", "erfc", "lgamma", "gamma", "fmod", "remainder", "ldexp")
#: libdevice's arithmetic in a directed rounding mode (``fadd_rz``, ``fsqrt_ru``...): the CPU paths compute in
#: the rounding to nearest only, so these are refused with a hint naming the ``_rn`` function
DIRECTED = re.compile(r"^(f|d)(add|sub|mul|div|rcp|sqrt|maf?)_(rz|ru|rd)$")


def resolve(module: str, name: str) -> tuple[str, str, float | None] | None:
    """(NumPy's function, the dtype it computes in, a leading argument) of ``cuda.<module>.<name>``, or None
    where it is not one of the functions kernels take."""
    if module == FP16:
        found = _HALF.get(name)
        return (_FUNCTIONS[found][0], "float16", _FUNCTIONS[found][1]) if found is not None else None
    base = name.removeprefix("fast_")
    if base.endswith("f") and base[:-1] in _FUNCTIONS:
        return (*_FUNCTIONS[base[:-1]][:1], "float32", _FUNCTIONS[base[:-1]][1])
    if base in _FUNCTIONS and not name.startswith("fast_"):
        return (_FUNCTIONS[base][0], "float64", _FUNCTIONS[base][1])
    return None


def names(module: str) -> list[str]:
    """The functions of ``cuda.<module>`` that kernels take (for messages)."""
    if module == FP16:
        return sorted([*_HALF, *FP16_OPERATORS])
    fast = ["fast_" + n + "f" for n in ("sin", "cos", "tan", "exp", "exp10", "log", "log2", "log10", "pow")]
    return sorted([*_FUNCTIONS, *(n + "f" for n in _FUNCTIONS), *SINCOS, *fast, *OPERATIONS])


def _operator(op: str) -> Callable[..., Any]:
    half, f64 = np.float16, np.float64
    binary = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide, "==": np.equal, "!=": np.not_equal,
              "<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal}  # fmt: skip
    if op in binary:
        return lambda a, b: binary[op](half(a), half(b))[()]
    if op == "neg":
        return lambda a: -half(a)
    if op == "fma":
        return lambda a, b, c: half(f64(half(a)) * f64(half(b)) + f64(half(c)))
    if op == "rcp":
        return lambda a: half(1) / half(a)
    return lambda a: half(1) / np.sqrt(half(a))  # rsqrt


def function(module: str, name: str) -> Callable[..., Any]:
    """The Python path's ``cuda.<module>.<name>``: NumPy's function on the arguments converted to its type."""
    if module == FP16 and name in FP16_OPERATORS:
        operator = _operator(FP16_OPERATORS[name])

        def arithmetic(*args: Any) -> Any:
            with np.errstate(all="ignore"):
                return operator(*args)

        return arithmetic
    if module == LIBDEVICE and name in OPERATIONS:
        return _operation(name)
    if module == LIBDEVICE and name in SINCOS:
        sin, cos = function(module, "sin" + SINCOS[name]), function(module, "cos" + SINCOS[name])
        return lambda x: (sin(x), cos(x))
    found = resolve(module, name)
    if found is None:
        raise AttributeError(
            f"hybrid_runtime.cuda.{module} has no function {name!r} (it has: {', '.join(names(module))})"
        )
    ufunc, dtype, lead = getattr(np, found[0]), np.dtype(found[1]).type, found[2]

    def call(*args: Any) -> Any:
        values = [dtype(a) for a in ((lead, *args) if lead is not None else args)]
        with np.errstate(all="ignore"):
            return ufunc(*values)

    call.__name__ = call.__qualname__ = name
    return call


def _operation(name: str) -> Callable[..., Any]:
    """The Python path's :data:`OPERATIONS` function: its expression, evaluated with NumPy's scalars."""
    from . import gpu
    from .python_math import ieee_math

    dtypes, expression = OPERATIONS[name]
    code = compile(expression, f"<libdevice.{name}>", "eval")
    scope: dict[str, Any] = {d: np.dtype(d).type for d in (_I, _U, _L, _UL, _F, _D)}
    scope |= {"popc": gpu.popc, "clz": gpu.clz, "ffs": gpu.ffs, "brev": gpu.brev, "inf": math.inf}
    scope |= {f: function(LIBDEVICE, f) for f in ("sqrt", "sqrtf", "fabs", "fabsf", "fminf", "fmaxf")}
    scope |= {f: function(LIBDEVICE, f) for f in ("copysign", "copysignf")}
    scope |= {f: getattr(ieee_math, f) for f in MATH_CALLED}

    def call(*args: Any) -> Any:
        if len(args) != len(dtypes):
            raise TypeError(f"cuda.libdevice.{name}() takes {len(dtypes)} argument{'s' * (len(dtypes) > 1)}")
        operands = {p: np.dtype(d).type(a) for p, d, a in zip("ab", dtypes, args)}
        with np.errstate(all="ignore"):
            return eval(code, scope, operands)  # noqa: S307 (the table's own expressions)

    call.__name__ = call.__qualname__ = name
    return call


class _Namespace:
    """``cuda.libdevice`` / ``cuda.fp16``: their functions by attribute."""

    def __init__(self, module: str) -> None:
        self._module = module

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("__"):
            raise AttributeError(name)
        made = function(self._module, name)
        setattr(self, name, made)
        return made


libdevice, fp16 = _Namespace(LIBDEVICE), _Namespace(FP16)
