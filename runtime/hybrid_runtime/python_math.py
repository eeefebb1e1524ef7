"""The Python path's ``math`` and ``cmath``: the device's results where Python's raise.

On the GPU and in native CPU code ``math.sqrt(-1.0)`` is nan, ``math.log(0.0)`` is -inf and
``math.exp(1000.0)`` is inf (IEEE 754, as NumPy). Python's ``math`` raises ``ValueError`` or
``OverflowError`` there instead. The Python path therefore runs kernels (and the helpers they
call) with their ``math`` names bound to this module: every call first asks Python's ``math``,
so ordinary results are the very same floats, and only where it would raise is the IEEE result
taken from NumPy. ``gamma`` and ``lgamma`` are the exception: CPython computes them itself (Lanczos)
where native code calls the C library, so here they are the C library's ``tgamma`` and ``lgamma``
too, called through ctypes, and the two paths give the same bits.
"""

from __future__ import annotations

import cmath
import ctypes
import math
import operator
import sys
import types
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from . import cmath_special

#: Python's math functions that raise where IEEE 754 has a result, and NumPy's IEEE version.
_IEEE: dict[str, Callable[..., Any]] = {
    "sqrt": np.sqrt, "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p, "exp": np.exp,
    "expm1": np.expm1, "pow": np.power, "asin": np.arcsin, "acos": np.arccos, "sinh": np.sinh,
    "cosh": np.cosh, "tan": np.tan, "sin": np.sin, "cos": np.cos, "atanh": np.arctanh, "fmod": np.fmod,
    "hypot": np.hypot, "acosh": np.arccosh,
}  # fmt: skip


def _c_library() -> ctypes.CDLL:
    """The C library whose math native code calls: the process's on Linux and macOS (Python has libm
    loaded), ucrtbase.dll on Windows (see hatch_hybrid.targets.host.link)."""
    return ctypes.CDLL("ucrtbase") if sys.platform == "win32" else ctypes.CDLL(None)


def _c_function(c_name: str, name: str) -> Callable[[float], float]:
    """The C library's ``double c_name(double)``, as Python's ``math.<name>``: looked up at the first
    call; where no C library can be loaded (a static interpreter), Python's own, with C's results
    where Python raises (a pole or an overflow: inf)."""
    found: list[Any] = []

    def call(x: float) -> float:
        if not found:
            try:
                function = getattr(_c_library(), c_name)
                function.argtypes, function.restype = [ctypes.c_double], ctypes.c_double
                found.append(function)
            except (OSError, AttributeError):
                found.append(None)
        if found[0] is not None:
            return float(found[0](float(x)))
        try:
            return float(getattr(math, name)(x))
        except (ValueError, OverflowError):
            if name in _C_RESULT:
                return _C_RESULT[name](x)
            return math.nan if x < 0 and (math.isinf(x) or x == math.floor(x)) and name == "gamma" else math.inf

    call.__name__ = call.__qualname__ = name
    return call


def _fma(x: float, y: float, z: float) -> float:
    """C's ``fma`` where Python's raises: NaN for an invalid operation (inf * 0, inf - inf), else the
    infinity of an overflow (the float product and sum have its sign)."""
    with np.errstate(all="ignore"):
        return float(np.float64(x) * np.float64(y) + np.float64(z))


def _copysign(x: Any, y: Any) -> float:
    """``math.copysign`` reading a NaN's sign as positive, as the device does (IEEE 754 leaves the sign of
    a NaN result open, and x86, the GPU, the C library and NumPy each make their own: see
    ``hatch_hybrid.lower.intrinsics.copysign``)."""
    return math.copysign(x, abs(y) if y != y else y)  # noqa: PLR0124 (NaN)


def _np_copysign(x: Any, y: Any, *args: Any, **kwargs: Any) -> Any:
    """``np.copysign`` so too (``abs`` keeps a Python float one and a NumPy scalar its type)."""
    return np.copysign(x, abs(y) if np.ndim(y) == 0 and y != y else y, *args, **kwargs)  # noqa: PLR0124


def _from_numpy(ufunc: Callable[..., Any]) -> Callable[..., float]:
    def c(*args: Any) -> float:
        with np.errstate(all="ignore"):
            return float(ufunc(*(np.float64(a) for a in args)))

    return c


#: Python's math functions that raise where C's give a result, and C's result in those cases.
_C_RESULT: dict[str, Callable[..., float]] = {
    **{name: _from_numpy(ufunc) for name, ufunc in _IEEE.items()},
    "exp2": lambda x: math.inf,  # overflow
    "ldexp": lambda x, i: math.copysign(math.inf, x),  # overflow
    "remainder": lambda x, y: math.nan,  # x infinite or y zero
    "fma": _fma,
}


def int64_overflow(value: int) -> str:
    """The message for a Python int made from a value beyond 64 bits (kernels hold Python ints in i64)."""
    return f"Python integer {value} out of bounds for int64 (kernels hold Python ints in 64 bits)"


def _in_64_bits(value: int) -> int:
    if not -(2**63) <= value < 2**63:
        raise OverflowError(int64_overflow(value))
    return value


def _int(*args: Any, **kwargs: Any) -> Any:
    """``int(x)`` in kernels: a Python int, which must fit in 64 bits as it does on the device (``int``
    of a float of 1e300 or of a u64 beyond 2**63 - 1 raises OverflowError on every path)."""
    result = int(*args, **kwargs)
    return _in_64_bits(result) if isinstance(result, int) else result


def _trunc(x: Any) -> int:
    """``math.trunc`` of NumPy numbers too (``numpy.float32`` and ``numpy.int32`` have no ``__trunc__``),
    through a float as Python's ``math.floor`` and ``ceil`` take NumPy integers, within 64 bits."""
    if isinstance(x, (np.floating, np.integer, np.bool_)):
        x = float(x)
    return _in_64_bits(math.trunc(x))


def _rounding(name: str) -> Callable[[Any], int]:
    python = getattr(math, name)

    def function(x: Any) -> int:
        return _in_64_bits(python(x))

    function.__name__ = function.__qualname__ = name
    return function


def _c_result(name: str) -> Callable[..., Any]:
    python, c = getattr(math, name), _C_RESULT[name]

    def function(*args: Any) -> Any:
        if name == "ldexp":  # Python's takes a Python int only; kernels pass NumPy's too (np.int32 from an array)
            args = (args[0], operator.index(args[1]))
        try:
            return python(*args)
        except (ValueError, OverflowError):
            return c(*args)

    function.__name__ = function.__qualname__ = name
    return function


def _cmath_ieee(name: str, *args: Any) -> Any:
    """What the device computes where Python's ``cmath`` raises (the device's formulas, in IEEE arithmetic)."""
    with np.errstate(all="ignore"):
        if name == "rect":
            r, phi = np.float64(args[0]), np.float64(args[1])
            return complex(r * np.cos(phi), r * np.sin(phi))
        z = complex(args[0])
        if name == "log":  # log(0): -inf, as math.log(0.0)
            return complex(-math.inf, math.atan2(z.imag, z.real))
        if name == "log10":  # CPython's: log's parts over M_LN10
            return complex(-math.inf / 2.302585092994045684, math.atan2(z.imag, z.real) / 2.302585092994045684)
        if name == "polar":  # the magnitude overflows, or the angle underflows
            return float(np.hypot(z.real, z.imag)), math.atan2(z.imag, z.real)
        if name == "phase":  # the angle underflows (CPython raises OverflowError)
            return math.atan2(z.imag, z.real)
        if name in ("cosh", "sinh"):  # cosh(re) overflows: CPython's formula, the C library's functions
            return _hyperbolic(name, z)
        if name == "atanh":  # atanh(+-1 +- 0j)
            return complex(math.copysign(math.inf, z.real), z.imag)
        assert name == "exp", name  # exp(re) overflows: exp(re - 1) * (cos, sin) * e
        big = z.real > math.log(sys.float_info.max / 4)
        scale = _C_MATH["exp"](z.real - 1.0 if big else z.real)
        e = math.e if big else 1.0
        return complex(scale * _C_MATH["cos"](z.imag) * e, scale * _C_MATH["sin"](z.imag) * e)


def _hyperbolic(name: str, z: complex) -> complex:
    """CPython's ``cmath_cosh_impl``/``cmath_sinh_impl`` for finite arguments whose result overflows."""
    real_fn, imag_fn = (_C_MATH["cosh"], _C_MATH["sinh"]) if name == "cosh" else (_C_MATH["sinh"], _C_MATH["cosh"])
    x = z.real
    if abs(x) > math.log(sys.float_info.max / 4):
        x -= math.copysign(1.0, x)
        return complex(_C_MATH["cos"](z.imag) * real_fn(x) * math.e, _C_MATH["sin"](z.imag) * imag_fn(x) * math.e)
    return complex(_C_MATH["cos"](z.imag) * real_fn(x), _C_MATH["sin"](z.imag) * imag_fn(x))


_C_MATH = {name: _c_function(name, name) for name in ("exp", "cos", "sin", "cosh", "sinh")}
#: cmath.<name>(z) is -i * <hyperbolic>(i z) (cos: cosh(i z) itself), as CPython computes them
_ROTATED = {"asin": "asinh", "atan": "atanh", "cos": "cosh", "sin": "sinh", "tan": "tanh"}


def _cmath_tabled(name: str) -> Callable[[Any], complex]:
    """A cmath function with a special-value table: the table's entry for an infinite or NaN part
    (:mod:`.cmath_special`, the tables of CPython 3.14, which changed ``acosh(0 + nan j)`` and ``tanh(0 + nan
    j)`` from earlier versions, so every Python gives what the device gives), else CPython's, and where
    CPython raises for an overflow or at a pole, the IEEE result."""
    rotated = _ROTATED.get(name)
    python = getattr(cmath, name)

    def function(x: Any) -> complex:
        z = complex(x)
        if rotated is not None:
            s = _TABLED[rotated](complex(-z.imag, z.real))
            return s if name == "cos" else complex(s.imag, -s.real)
        if not (math.isfinite(z.real) and math.isfinite(z.imag)):
            if name in ("cosh", "sinh", "tanh") and math.isinf(z.real) and math.isfinite(z.imag) and z.imag != 0:
                return complex(python(z))  # CPython's own case ahead of the table
            return cmath_special.value(name, z)
        try:
            return complex(python(z))
        except (ValueError, OverflowError):
            return complex(_cmath_ieee(name, z))

    function.__name__ = function.__qualname__ = name
    return function


_TABLED = {name: _cmath_tabled(name) for name in (*cmath_special.TABLES, *_ROTATED)}


def _cmath_function(name: str) -> Callable[..., Any]:
    python = getattr(cmath, name)

    def function(*args: Any) -> Any:
        try:
            return python(*args)
        except (ValueError, OverflowError):
            return _cmath_ieee(name, *args)

    function.__name__ = function.__qualname__ = name
    return function


ieee_math = types.ModuleType("math", __doc__)
ieee_math.__dict__.update({k: v for k, v in vars(math).items() if not k.startswith("__")})
ieee_math.__dict__.update({name: _c_result(name) for name in _C_RESULT if hasattr(math, name)})
ieee_math.trunc = _trunc  # type: ignore[attr-defined]
ieee_math.floor, ieee_math.ceil = _rounding("floor"), _rounding("ceil")  # type: ignore[attr-defined]
ieee_math.gamma = _c_function("tgamma", "gamma")  # type: ignore[attr-defined]
ieee_math.lgamma = _c_function("lgamma", "lgamma")  # type: ignore[attr-defined]
ieee_math.copysign = _copysign  # type: ignore[attr-defined]
_PATCHED_MATH = [*(n for n in _C_RESULT if hasattr(math, n)), "trunc", "floor", "ceil", "gamma", "lgamma", "copysign"]
_CMATH_RAISING = ("exp", "log", "log10", "polar", "rect", "phase")  # cmath.sqrt never raises
ieee_cmath = types.ModuleType("cmath", "The Python path's cmath: the device's results where Python's cmath raises.")
ieee_cmath.__dict__.update({k: v for k, v in vars(cmath).items() if not k.startswith("__")})
ieee_cmath.__dict__.update({name: _cmath_function(name) for name in _CMATH_RAISING} | _TABLED)
# NumPy for kernels: np.copysign as the device computes it, everything else NumPy's own
ieee_numpy = types.ModuleType("numpy", np.__doc__)
ieee_numpy.__dict__.update(vars(np))
ieee_numpy.copysign = _np_copysign  # type: ignore[attr-defined]
_REPLACE = {id(getattr(math, name)): getattr(ieee_math, name) for name in _PATCHED_MATH}
_REPLACE.update({id(getattr(cmath, name)): getattr(ieee_cmath, name) for name in (*_CMATH_RAISING, *_TABLED)})
_REPLACE[id(np.copysign)] = _np_copysign
_MODULES = {id(math): ieee_math, id(cmath): ieee_cmath, id(np): ieee_numpy}

_patched: weakref.WeakKeyDictionary[types.FunctionType, types.FunctionType] = weakref.WeakKeyDictionary()


def with_ieee_math(func: types.FunctionType) -> types.FunctionType:
    """``func`` and the module-level functions it reaches, with ``math`` (and names imported from it)
    bound to :data:`ieee_math` and the builtin ``int`` to one whose results fit in 64 bits. The code
    objects are the same: tracebacks and debuggers see the
    user's source lines."""
    found = _patched.get(func)
    if found is not None:
        return found
    globs = dict(func.__globals__)
    # a kernel factory's helpers are in the closure: new cells for them, filled below; other cells shared
    helpers = {i: types.CellType() for i, c in enumerate(func.__closure__ or ()) if _holds_function(c)}
    closure = tuple(helpers.get(i, c) for i, c in enumerate(func.__closure__ or ())) or None
    copy = types.FunctionType(func.__code__, globs, func.__name__, func.__defaults__, closure)
    copy.__kwdefaults__, copy.__dict__ = func.__kwdefaults__, func.__dict__
    _patched[func] = copy
    for i, cell in helpers.items():
        cell.cell_contents = with_ieee_math(func.__closure__[i].cell_contents)  # type: ignore[index]
    names = set(_names(func.__code__))
    if "int" in names and "int" not in globs:  # the builtin: Python ints within 64 bits
        globs["int"] = _int
    for name, value in func.__globals__.items():
        if value is math or value is cmath or value is np:
            globs[name] = _MODULES[id(value)]
        elif id(value) in _REPLACE and any(
            value is getattr(m, getattr(value, "__name__", ""), None) for m in (math, cmath, np)
        ):
            globs[name] = _REPLACE[id(value)]
        elif name in names and isinstance(value, types.FunctionType):
            globs[name] = with_ieee_math(value)
        elif name in names and isinstance(value, types.ModuleType) and _user_module(value):
            globs[name] = _module_with_ieee_math(value, names)
    return copy


def _holds_function(cell: types.CellType) -> bool:
    try:
        return isinstance(cell.cell_contents, types.FunctionType)
    except ValueError:  # empty
        return False


def _user_module(module: types.ModuleType) -> bool:
    """A module of the kernel's package or its dependencies (not the runtime, NumPy or the stdlib)."""
    top = module.__name__.partition(".")[0]
    return top not in ("hybrid_runtime", "numpy") and top not in sys.stdlib_module_names


def _module_with_ieee_math(module: types.ModuleType, names: set[str]) -> types.ModuleType:
    """A stand-in for a module whose functions a kernel calls as ``module.f(...)``: those functions with
    :data:`ieee_math`, everything else the module's own."""
    members = {
        n: with_ieee_math(v)
        for n in names
        if isinstance(v := getattr(module, n, None), types.FunctionType) and v.__module__ == module.__name__
    }
    if not members:
        return module
    proxy = types.ModuleType(module.__name__, module.__doc__)
    proxy.__dict__.update({**vars(module), **members})
    return proxy


def _names(code: types.CodeType) -> list[str]:
    out = list(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            out += _names(const)
    return out
