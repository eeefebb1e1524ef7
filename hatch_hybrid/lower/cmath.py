"""``cmath`` functions in LLVM IR, built from real operations and ``math`` functions the way CPython's
``cmathmodule.c`` computes them for finite arguments (same operations in the same order, the same
scalings near underflow and overflow), so native CPU code, which calls the same C library, gives
CPython's bits. Infinite and NaN parts give what CPython's C99 special-value tables give: for
``sqrt exp log rect`` the formulas already do for most and selects fix the rest (found by comparing
every class of value); the trigonometric and hyperbolic functions read CPython's tables themselves
(:mod:`hybrid_runtime.cmath_special`, a constant of the module) as CPython does.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable

import numpy as np
from hybrid_runtime import cmath_special
from llvmlite import ir as llir

from . import intrinsics
from .ops import F64, I64, Ops
from .tables import TableGlobals
from .values import TupleValue, Value

DBL_MIN = sys.float_info.min
LARGE = sys.float_info.max / 4  # CPython's CM_LARGE_DOUBLE
LOG_LARGE = math.log(LARGE)  # CM_LOG_LARGE_DOUBLE
SCALE_UP = 2.0**53  # ldexp(x, CM_SCALE_UP): exact scalings by powers of two
SCALE_DOWN = 2.0**-27  # ldexp(x, CM_SCALE_DOWN)
LN10 = 2.302585092994045684  # CPython's M_LN10
LN2 = 0.6931471805599453094  # M_LN2
SQRT_LARGE = math.sqrt(LARGE)  # CM_SQRT_LARGE_DOUBLE
SQRT_DBL_MIN = math.sqrt(DBL_MIN)  # CM_SQRT_DBL_MIN
#: cmath.<name>(z) is -i * <hyperbolic>(i z) (cos: cosh(i z) itself), as CPython computes them
ROTATED = {"asin": "asinh", "atan": "atanh", "cos": "cosh", "sin": "sinh", "tan": "tanh"}

Parts = tuple[llir.Value, llir.Value]


class CMath:
    def __init__(self, ops: Ops, tables: TableGlobals) -> None:
        self.ops = ops
        self.b = ops.b
        self.c = ops.complex
        self.tables = tables

    def k(self, value: float) -> llir.Constant:
        return llir.Constant(F64, value)

    def m(self, name: str, *args: llir.Value) -> llir.Value:
        return intrinsics.math_call(self.ops, name, list(args))

    def call(self, name: str, args: list[llir.Value]) -> Value:
        if name == "rect":
            return self.rect(args[0], args[1])
        z = args[0]
        re, im = self.c.parts(z)
        if name in ("isnan", "isinf"):
            return self.b.or_(self.m(name, re), self.m(name, im))
        if name == "isfinite":
            return self.b.and_(self.m(name, re), self.m(name, im))
        if name == "phase":
            return self.m("atan2", im, re)
        if name == "polar":
            return TupleValue([self.c.abs(z), self.m("atan2", im, re)])
        if name in ("sqrt", "exp", "log", "log10"):
            return {"sqrt": self.sqrt, "exp": self.exp, "log": self.log, "log10": self.log10}[name](re, im)
        if name in ROTATED:  # -i f(i z): f of (-im, re), then (imag, -real)
            real, imag = self.tabled(ROTATED[name], self.b.fneg(im), re)
            return self.c.pack(real, imag) if name == "cos" else self.c.pack(imag, self.b.fneg(real))
        return self.c.pack(*self.tabled(name, re, im))

    # ------------------------------------------------ functions with CPython's special-value tables
    def tabled(self, name: str, re: llir.Value, im: llir.Value) -> Parts:
        """``name`` (acos acosh asinh atanh cosh sinh tanh) of ``re + im j``: its formula for finite parts,
        else (as CPython's ``SPECIAL_VALUE``) the table's entry for the classes of the parts."""
        b = self.b
        formula: dict[str, Callable[[llir.Value, llir.Value], Parts]] = {
            "acos": self.acos, "acosh": self.acosh, "asinh": self.asinh, "atanh": self.atanh,
            "cosh": self.cosh, "sinh": self.sinh, "tanh": self.tanh,
        }  # fmt: skip
        real, imag = formula[name](re, im)
        table_re, table_im = self.special(name, re, im)
        finite = b.and_(self.m("isfinite", re), self.m("isfinite", im))
        parts = b.select(finite, real, table_re), b.select(finite, imag, table_im)
        return self.infinite_real(name, re, im, parts) if name in ("cosh", "sinh", "tanh") else parts

    def special(self, name: str, re: llir.Value, im: llir.Value) -> Parts:
        """The entry of CPython's table of ``name`` for the classes of ``re`` and ``im``."""
        table = np.array([[(z.real, z.imag) for z in row] for row in cmath_special.TABLES[name]], np.float64)
        gv = self.tables.constant(f"cmath_{name}", table, 8)
        ptr = self.ops.flavour.table_pointer(self.b, gv)
        b = self.b
        index = b.mul(self.special_type(re), llir.Constant(I64, 14))
        index = b.add(index, b.mul(self.special_type(im), llir.Constant(I64, 2)))
        parts = []
        for offset in (0, 1):
            at = b.gep(ptr, [b.add(index, llir.Constant(I64, offset))], source_etype=F64)
            value = b.load(at, typ=F64, align=8)
            value.set_metadata("invariant.load", self.ops.module.add_metadata([]))
            parts.append(value)
        return parts[0], parts[1]

    def special_type(self, x: llir.Value) -> llir.Value:
        """CPython's ``special_type``: NINF 0, NEG 1, NZERO 2, PZERO 3, POS 4, PINF 5, NAN 6 (as i64)."""
        b, k = self.b, self.k

        def n(v: int) -> llir.Constant:
            return llir.Constant(I64, v)

        negative = b.icmp_signed("<", b.bitcast(x, I64), n(0))
        finite_class = b.select(
            b.fcmp_ordered("==", x, k(0.0)),
            b.select(negative, n(cmath_special.NZERO), n(cmath_special.PZERO)),
            b.select(negative, n(cmath_special.NEG), n(cmath_special.POS)),
        )
        infinite_class = b.select(negative, n(cmath_special.NINF), n(cmath_special.PINF))
        other = b.select(self.m("isnan", x), n(cmath_special.NAN), infinite_class)
        return b.select(self.m("isfinite", x), finite_class, other)

    def _large_log(self, re: llir.Value, im: llir.Value) -> llir.Value:
        """``log(hypot(re/2., im/2.)) + M_LN2*2.``: CPython's log of a large magnitude."""
        f, k = self.c.fop, self.k
        return f("fadd", self.m("log", self.m("hypot", f("fdiv", re, k(2.0)), f("fdiv", im, k(2.0)))), k(LN2 * 2.0))

    def _large(self, re: llir.Value, im: llir.Value) -> llir.Value:
        b, k = self.b, self.k
        return b.or_(
            b.fcmp_ordered(">", self.m("fabs", re), k(LARGE)), b.fcmp_ordered(">", self.m("fabs", im), k(LARGE))
        )

    def acos(self, re: llir.Value, im: llir.Value) -> Parts:
        """CPython's ``cmath_acos_impl`` for finite parts."""
        b, f, k = self.b, self.c.fop, self.k
        big_re = self.m("atan2", self.m("fabs", im), re)
        big_im = b.fneg(self.m("copysign", self._large_log(re, im), im))
        s1 = self.sqrt_parts(f("fsub", k(1.0), re), b.fneg(im))
        s2 = self.sqrt_parts(f("fadd", k(1.0), re), im)
        real = f("fmul", k(2.0), self.m("atan2", s1[0], s2[0]))
        imag = self.m("asinh", f("fsub", f("fmul", s2[0], s1[1]), f("fmul", s2[1], s1[0])))
        large = self._large(re, im)
        return b.select(large, big_re, real), b.select(large, big_im, imag)

    def acosh(self, re: llir.Value, im: llir.Value) -> Parts:
        """CPython's ``cmath_acosh_impl`` for finite parts."""
        b, f, k = self.b, self.c.fop, self.k
        s1 = self.sqrt_parts(f("fsub", re, k(1.0)), im)
        s2 = self.sqrt_parts(f("fadd", re, k(1.0)), im)
        real = self.m("asinh", f("fadd", f("fmul", s1[0], s2[0]), f("fmul", s1[1], s2[1])))
        imag = f("fmul", k(2.0), self.m("atan2", s1[1], s2[0]))
        large = self._large(re, im)
        return b.select(large, self._large_log(re, im), real), b.select(large, self.m("atan2", im, re), imag)

    def asinh(self, re: llir.Value, im: llir.Value) -> Parts:
        """CPython's ``cmath_asinh_impl`` for finite parts (its two large cases are one for a finite real
        part: ``-copysign(L, -x)`` is ``copysign(L, x)``)."""
        b, f, k = self.b, self.c.fop, self.k
        big_re = self.m("copysign", self._large_log(re, im), re)
        big_im = self.m("atan2", im, self.m("fabs", re))
        s1 = self.sqrt_parts(f("fadd", k(1.0), im), b.fneg(re))
        s2 = self.sqrt_parts(f("fsub", k(1.0), im), re)
        real = self.m("asinh", f("fsub", f("fmul", s1[0], s2[1]), f("fmul", s2[0], s1[1])))
        imag = self.m("atan2", im, f("fsub", f("fmul", s1[0], s2[0]), f("fmul", s1[1], s2[1])))
        large = self._large(re, im)
        return b.select(large, big_re, real), b.select(large, big_im, imag)

    def atanh(self, re: llir.Value, im: llir.Value) -> Parts:
        """CPython's ``cmath_atanh_impl`` for finite parts: ``-atanh(-z)`` for a negative real part; ``1/z``
        plus or minus ``pi/2 j`` for a large ``z``; the limits next to 1; else its log1p formula."""
        b, f, k = self.b, self.c.fop, self.k
        flip = b.fcmp_ordered("<", re, k(0.0))
        x, y = b.select(flip, b.fneg(re), re), b.select(flip, b.fneg(im), im)
        ay = self.m("fabs", y)
        # |z| large
        h = self.m("hypot", f("fdiv", x, k(2.0)), f("fdiv", y, k(2.0)))
        big_re = f("fdiv", f("fdiv", f("fdiv", x, k(4.0)), h), h)
        big_im = self.m("copysign", k(math.pi / 2.0), y)
        large = b.or_(b.fcmp_ordered(">", x, k(SQRT_LARGE)), b.fcmp_ordered(">", ay, k(SQRT_LARGE)))
        # next to 1: atanh(1 +- 0j) is inf +- 0j (CPython raises ValueError; the Python path returns this)
        root = f("fdiv", self.m("sqrt", ay), self.m("sqrt", self.m("hypot", ay, k(2.0))))
        one_re = b.select(b.fcmp_ordered("==", ay, k(0.0)), k(math.inf), b.fneg(self.m("log", root)))
        one_half = f("fdiv", self.m("atan2", k(2.0), b.fneg(ay)), k(2.0))
        one_im = b.select(b.fcmp_ordered("==", ay, k(0.0)), y, self.m("copysign", one_half, y))
        near_one = b.and_(b.fcmp_ordered("==", x, k(1.0)), b.fcmp_ordered("<", ay, k(SQRT_DBL_MIN)))
        # otherwise
        one_minus = f("fsub", k(1.0), x)
        denominator = f("fadd", f("fmul", one_minus, one_minus), f("fmul", ay, ay))
        real = f("fdiv", self.m("log1p", f("fdiv", f("fmul", k(4.0), x), denominator)), k(4.0))
        angle = self.m(
            "atan2", f("fmul", k(-2.0), y), f("fsub", f("fmul", one_minus, f("fadd", k(1.0), x)), f("fmul", ay, ay))
        )
        imag = b.fneg(f("fdiv", angle, k(2.0)))
        real, imag = b.select(near_one, one_re, real), b.select(near_one, one_im, imag)
        real, imag = b.select(large, big_re, real), b.select(large, big_im, imag)
        return b.select(flip, b.fneg(real), real), b.select(flip, b.fneg(imag), imag)

    def _hyperbolic(self, re: llir.Value, im: llir.Value, real_fn: str, imag_fn: str) -> Parts:
        """``cos(im) * real_fn(re), sin(im) * imag_fn(re)`` (cosh: cosh, sinh; sinh: sinh, cosh), with
        ``re - copysign(1, re)`` and a factor e where ``real_fn(re)`` alone would overflow."""
        b, f, k = self.b, self.c.fop, self.k
        large = b.fcmp_ordered(">", self.m("fabs", re), k(LOG_LARGE))
        x = b.select(large, f("fsub", re, self.m("copysign", k(1.0), re)), re)
        cos, sin = self.m("cos", im), self.m("sin", im)
        real, imag = f("fmul", cos, self.m(real_fn, x)), f("fmul", sin, self.m(imag_fn, x))
        real = b.select(large, f("fmul", real, k(math.e)), real)
        return real, b.select(large, f("fmul", imag, k(math.e)), imag)

    def infinite_real(self, name: str, re: llir.Value, im: llir.Value, otherwise: Parts) -> Parts:
        """CPython's special case of cosh, sinh and tanh ahead of their tables: an infinite real part and
        a finite nonzero imaginary part give infinities (cosh, sinh) or +-1 (tanh) with the signs of
        ``cos(im)`` and ``sin(im)``; ``otherwise`` elsewhere."""
        b, f, k = self.b, self.c.fop, self.k
        case = b.and_(self.m("isinf", re), b.and_(self.m("isfinite", im), b.fcmp_ordered("!=", im, k(0.0))))
        cos, sin = self.m("cos", im), self.m("sin", im)
        positive = b.fcmp_ordered(">", re, k(0.0))
        inf_cos, inf_sin = self.m("copysign", k(math.inf), cos), self.m("copysign", k(math.inf), sin)
        if name == "cosh":
            real, imag = inf_cos, b.select(positive, inf_sin, b.fneg(inf_sin))
        elif name == "sinh":
            real, imag = b.select(positive, inf_cos, b.fneg(inf_cos)), inf_sin
        else:
            real = b.select(positive, k(1.0), k(-1.0))
            imag = self.m("copysign", k(0.0), f("fmul", f("fmul", k(2.0), sin), cos))
        return b.select(case, real, otherwise[0]), b.select(case, imag, otherwise[1])

    def cosh(self, re: llir.Value, im: llir.Value) -> Parts:
        return self._hyperbolic(re, im, "cosh", "sinh")

    def sinh(self, re: llir.Value, im: llir.Value) -> Parts:
        return self._hyperbolic(re, im, "sinh", "cosh")

    def tanh(self, re: llir.Value, im: llir.Value) -> Parts:
        """CPython's ``cmath_tanh_impl``: ``tanh(x)(1 + tan(y)^2) / (1 + tan(y)^2 tanh(x)^2)`` and ``tan(y) /
        cosh(x)^2`` over the same denominator; ``4 sin(y) cos(y) exp(-2|x|)`` for a large ``x``."""
        b, f, k = self.b, self.c.fop, self.k
        sin, cos = self.m("sin", im), self.m("cos", im)
        tx, ty = self.m("tanh", re), self.m("tan", im)
        cx = f("fdiv", k(1.0), self.m("cosh", re))
        txty = f("fmul", tx, ty)
        denominator = f("fadd", k(1.0), f("fmul", txty, txty))
        real = f("fdiv", f("fmul", tx, f("fadd", k(1.0), f("fmul", ty, ty))), denominator)
        imag = f("fmul", f("fmul", f("fdiv", ty, denominator), cx), cx)
        large = b.fcmp_ordered(">", self.m("fabs", re), k(LOG_LARGE))
        big_im = f(
            "fmul", f("fmul", f("fmul", k(4.0), sin), cos), self.m("exp", f("fmul", k(-2.0), self.m("fabs", re)))
        )
        return b.select(large, self.m("copysign", k(1.0), re), real), b.select(large, big_im, imag)

    def sqrt(self, re: llir.Value, im: llir.Value) -> llir.Value:
        return self.c.pack(*self.sqrt_parts(re, im))

    def sqrt_parts(self, re: llir.Value, im: llir.Value) -> Parts:
        """CPython's ``cmath_sqrt_impl``: ``s = 2*sqrt(ax/8 + hypot(ax/8, ay/8))`` (scaled up first where
        both parts are below DBL_MIN), ``d = ay / (2*s)``, parts placed by the sign of the real part."""
        b, f, k = self.b, self.c.fop, self.k
        ax, ay = self.m("fabs", re), self.m("fabs", im)
        tiny = b.and_(b.fcmp_ordered("<", ax, k(DBL_MIN)), b.fcmp_ordered("<", ay, k(DBL_MIN)))
        ax_up = f("fmul", ax, k(SCALE_UP))
        root = self.m("sqrt", f("fadd", ax_up, self.m("hypot", ax_up, f("fmul", ay, k(SCALE_UP)))))
        s_tiny = f("fmul", root, k(SCALE_DOWN))
        ax8 = f("fdiv", ax, k(8.0))
        s_big = f("fmul", k(2.0), self.m("sqrt", f("fadd", ax8, self.m("hypot", ax8, f("fdiv", ay, k(8.0))))))
        s = b.select(tiny, s_tiny, s_big)
        d = f("fdiv", ay, f("fmul", k(2.0), s))
        nonnegative = b.fcmp_ordered(">=", re, k(0.0))
        real = b.select(nonnegative, s, d)
        imag = self.m("copysign", b.select(nonnegative, d, s), im)
        zero = b.and_(b.fcmp_ordered("==", re, k(0.0)), b.fcmp_ordered("==", im, k(0.0)))
        real, imag = b.select(zero, k(0.0), real), b.select(zero, im, imag)
        infinite = self.m("isinf", im)  # C99 (CPython's table): sqrt(x +- inf j) = inf +- inf j, even for a NaN x
        return b.select(infinite, k(math.inf), real), b.select(infinite, im, imag)

    def exp(self, re: llir.Value, im: llir.Value) -> llir.Value:
        """CPython's ``cmath_exp_impl``: ``exp(re) * (cos(im), sin(im))``, with ``exp(re - 1) * ... * e``
        where ``exp(re)`` alone would overflow."""
        b, f, k = self.b, self.c.fop, self.k
        large = b.fcmp_ordered(">", re, k(LOG_LARGE))
        l_ = self.m("exp", b.select(large, f("fsub", re, k(1.0)), re))
        cos, sin = self.m("cos", im), self.m("sin", im)
        real, imag = f("fmul", l_, cos), f("fmul", l_, sin)
        real = b.select(large, f("fmul", real, k(math.e)), real)
        imag = b.select(large, f("fmul", imag, k(math.e)), imag)
        # CPython's special values (C99): a zero imaginary part stays for an infinite or NaN real part;
        # exp(-inf + inf j) and exp(-inf + nan j) are 0; exp(inf + nan j) is inf + nan j
        finite_re, finite_im = self.m("isfinite", re), self.m("isfinite", im)
        keep_zero = b.and_(b.not_(finite_re), b.fcmp_ordered("==", im, k(0.0)))
        real, imag = b.select(keep_zero, self.m("exp", re), real), b.select(keep_zero, im, imag)
        to_zero = b.and_(b.fcmp_ordered("==", re, k(-math.inf)), b.not_(finite_im))
        real, imag = b.select(to_zero, k(0.0), real), b.select(to_zero, k(0.0), imag)
        inf_nan = b.and_(b.fcmp_ordered("==", re, k(math.inf)), self.m("isnan", im))
        return self.c.pack(b.select(inf_nan, k(math.inf), real), imag)

    def log(self, re: llir.Value, im: llir.Value) -> llir.Value:
        """CPython's ``c_log``: ``log(hypot)`` with ``log1p`` near |z| = 1 and scalings near overflow
        and underflow; the imaginary part is ``atan2(im, re)``. ``log(0)`` is -inf (CPython raises
        ValueError; the Python path returns NumPy's -inf, as for ``math.log(0.0)``)."""
        b, f, k = self.b, self.c.fop, self.k
        ax, ay = self.m("fabs", re), self.m("fabs", im)
        big = b.or_(b.fcmp_ordered(">", ax, k(LARGE)), b.fcmp_ordered(">", ay, k(LARGE)))
        tiny = b.and_(b.fcmp_ordered("<", ax, k(DBL_MIN)), b.fcmp_ordered("<", ay, k(DBL_MIN)))
        r_big = f("fadd", self.m("log", self.m("hypot", f("fdiv", ax, k(2.0)), f("fdiv", ay, k(2.0)))), k(math.log(2)))
        scaled = self.m("log", self.m("hypot", f("fmul", ax, k(2.0**53)), f("fmul", ay, k(2.0**53))))
        r_tiny = f("fsub", scaled, k(53 * math.log(2)))
        zero = b.and_(b.fcmp_ordered("==", ax, k(0.0)), b.fcmp_ordered("==", ay, k(0.0)))
        r_tiny = b.select(zero, k(-math.inf), r_tiny)
        h = self.m("hypot", ax, ay)
        near_one = b.and_(b.fcmp_ordered("<=", k(0.71), h), b.fcmp_ordered("<=", h, k(1.73)))
        x_larger = b.fcmp_ordered(">", ax, ay)
        am, an = b.select(x_larger, ax, ay), b.select(x_larger, ay, ax)
        arg = f("fadd", f("fmul", f("fsub", am, k(1.0)), f("fadd", am, k(1.0))), f("fmul", an, an))
        r_near = f("fdiv", self.m("log1p", arg), k(2.0))
        r_mid = b.select(near_one, r_near, self.m("log", h))
        real = b.select(big, r_big, b.select(tiny, r_tiny, r_mid))
        return self.c.pack(real, self.m("atan2", im, re))

    def log10(self, re: llir.Value, im: llir.Value) -> llir.Value:
        """CPython's ``cmath_log10_impl``: ``c_log``'s parts divided by ``M_LN10``."""
        real, imag = self.c.parts(self.log(re, im))
        ln10 = self.k(LN10)
        return self.c.pack(self.c.fop("fdiv", real, ln10), self.c.fop("fdiv", imag, ln10))

    def rect(self, r: llir.Value, phi: llir.Value) -> llir.Value:
        """CPython's ``cmath_rect_impl``: ``(r*cos(phi), r*sin(phi))``, and ``(r, r*phi)`` for a zero phi."""
        b, f = self.b, self.c.fop
        k = self.k
        real = f("fmul", r, self.m("cos", phi))
        imag = f("fmul", r, self.m("sin", phi))
        zero = b.fcmp_ordered("==", phi, k(0.0))
        # CPython's special values: a zero angle's sign times the radius' (+0 for a NaN radius); a zero
        # radius with an infinite or NaN angle is 0; an infinite radius with a NaN angle is inf + nan j
        zero_imag = b.select(self.m("isnan", r), k(0.0), f("fmul", phi, self.m("copysign", k(1.0), r)))
        real, imag = b.select(zero, r, real), b.select(zero, zero_imag, imag)
        vanish = b.and_(b.fcmp_ordered("==", r, k(0.0)), b.not_(self.m("isfinite", phi)))
        real, imag = b.select(vanish, k(0.0), real), b.select(vanish, k(0.0), imag)
        inf_nan = b.and_(self.m("isinf", r), self.m("isnan", phi))
        return self.c.pack(b.select(inf_nan, k(math.inf), real), imag)
