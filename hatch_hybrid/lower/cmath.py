"""``cmath`` functions in LLVM IR, built from real operations and ``math`` functions the way CPython's
``cmathmodule.c`` computes them for finite arguments (same operations in the same order, the same
scalings near underflow and overflow), so native CPU code, which calls the same C library, gives
CPython's bits. Infinite and NaN parts give what CPython's C99 special-value tables give: the
formulas already do for most, selects fix the rest (found by comparing every class of value).
"""

from __future__ import annotations

import math
import sys

from llvmlite import ir as llir

from . import intrinsics
from .ops import F64, Ops
from .values import TupleValue, Value

DBL_MIN = sys.float_info.min
LARGE = sys.float_info.max / 4  # CPython's CM_LARGE_DOUBLE
LOG_LARGE = math.log(LARGE)  # CM_LOG_LARGE_DOUBLE
SCALE_UP = 2.0**53  # ldexp(x, CM_SCALE_UP): exact scalings by powers of two
SCALE_DOWN = 2.0**-27  # ldexp(x, CM_SCALE_DOWN)
LN10 = 2.302585092994045684  # CPython's M_LN10


class CMath:
    def __init__(self, ops: Ops) -> None:
        self.ops = ops
        self.b = ops.b
        self.c = ops.complex

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
        return {"sqrt": self.sqrt, "exp": self.exp, "log": self.log, "log10": self.log10}[name](re, im)

    def sqrt(self, re: llir.Value, im: llir.Value) -> llir.Value:
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
        return self.c.pack(b.select(infinite, k(math.inf), real), b.select(infinite, im, imag))

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
