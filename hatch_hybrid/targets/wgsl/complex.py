"""Complex numbers in the WGSL renderer, as :mod:`hatch_hybrid.lower.complex` computes them: a value is a struct
of its two parts (``HhC64 { re: f32, im: f32 }``, ``HhC128 { re: f64, im: f64 }``; NumPy's layout, so arrays
of them are storage buffers as they are), and every operation is the same sequence of IEEE operations: the
textbook product (each product kept out of an FMA), NumPy's and CPython's versions of Smith's division
(each quotient correctly rounded, :data:`.prelude.DIV_F32`), powers by repeated products, ``==`` and
``!=`` part by part. ``abs`` (the C library's ``hypot``) and ``cmath`` are not built for this target."""

from __future__ import annotations

from ...types import Type, Weak, component, storage
from .shader import RendererParts, WgslUnsupported, complex_struct


class ComplexRenderer(RendererParts):
    def complex_value(self, t: Type, re: str, im: str) -> str:
        return self.temp(f"{complex_struct(t, self.m.structs)}({re}, {im})")

    def complex_literal(self, value: complex, t: Type) -> str:
        part = component(t)
        loc = self.loc
        return self.complex_value(t, self.literal(value.real, part, loc), self.literal(value.imag, part, loc))

    def complex_convert(self, v: str, src: Type, dst: Type) -> str:
        """To a complex type from a number (imaginary part +0.0), or between precisions part by part; to a
        boolean: nonzero."""
        if storage(dst).kind == "b":
            return self.complex_truth(v, src)
        part = component(dst)
        if storage(src).kind == "c":
            whole = self.temp(v)
            src_part = component(src)
            re, im = (self.convert(f"{whole}.{p}", src_part, part) for p in ("re", "im"))
            return self.complex_value(dst, re, im)
        return self.complex_value(dst, self.convert(v, src, part), self.literal(0.0, part, self.loc, plain=True))

    def complex_truth(self, v: str, t: Type) -> str:
        whole = self.temp(v)
        zero = "0.0lf" if storage(t).name == "c128" else "0.0f"
        return f"(!({whole}.re == {zero}) || !({whole}.im == {zero}))"

    def complex_binop(self, op: str, a: str, b: str, t: Type, right_const: object) -> str:
        a, b = self.temp(a), self.temp(b)
        if op == "**":  # an integer exponent known at build time (typecheck.rules)
            if not isinstance(right_const, int):
                raise WgslUnsupported(self.loc, "complex powers with an exponent known at run time")
            return self.complex_power(a, right_const, t)
        if op in ("+", "-"):
            return self.complex_value(t, f"({a}.re {op} {b}.re)", f"({a}.im {op} {b}.im)")
        if op == "*":
            return self.complex_product(a, b, t)
        if op != "/":
            raise WgslUnsupported(self.loc, f"`{op}` of complex numbers")
        return self.complex_divide(a, b, t, python=isinstance(t, Weak))

    def mul(self, wt: str, x: str, y: str) -> str:
        return f"{self.nofma(wt == 'f64')}({x} * {y})"

    def div(self, wt: str, x: str, y: str) -> str:
        return f"{self.exact_op('div', wt)}({x}, {y})"

    def complex_product(self, a: str, b: str, t: Type) -> str:
        """``(ar*br - ai*bi, ar*bi + ai*br)``: NumPy's and CPython's product."""
        wt = self.wt(component(t), self.loc)
        m = self.mul
        re = f"({m(wt, f'{a}.re', f'{b}.re')} - {m(wt, f'{a}.im', f'{b}.im')})"
        return self.complex_value(t, re, f"({m(wt, f'{a}.re', f'{b}.im')} + {m(wt, f'{a}.im', f'{b}.re')})")

    def complex_divide(self, a: str, b: str, t: Type, python: bool) -> str:
        """Smith's method: NumPy's ``divide`` loop (``1/denom`` times each numerator; a zero divisor gives
        each part times inf) or CPython's ``_Py_c_quot`` (each numerator divided by ``denom``; a NaN part:
        nan), each operation as :meth:`hatch_hybrid.lower.complex.ComplexOps._smith` orders it."""
        wt = self.wt(component(t), self.loc)
        m, d = self.mul, self.div
        real_larger = self.temp(f"(abs({b}.re) >= abs({b}.im))", "bool")
        p = self.temp(f"select({b}.im, {b}.re, {real_larger})", wt)
        q = self.temp(f"select({b}.re, {b}.im, {real_larger})", wt)
        x = self.temp(f"select({a}.im, {a}.re, {real_larger})", wt)
        y = self.temp(f"select({a}.re, {a}.im, {real_larger})", wt)
        ratio = self.temp(d(wt, q, p), wt)
        denom = self.temp(f"({p} + {m(wt, q, ratio)})", wt)
        re = self.temp(f"({x} + {m(wt, y, ratio)})", wt)
        im = self.temp(
            f"select(({m(wt, f'{a}.im', ratio)} - {a}.re), ({a}.im - {m(wt, f'{a}.re', ratio)}), {real_larger})", wt
        )
        part = component(t)
        if python:
            either = f"({real_larger} || abs({b}.im) >= abs({b}.re))"
            nan = self.literal(float("nan"), part, self.loc, internal=True)
            return self.complex_value(
                t, f"select({nan}, {d(wt, re, denom)}, {either})", f"select({nan}, {d(wt, im, denom)}, {either})"
            )
        one = self.literal(1.0, part, self.loc)
        scl = self.temp(d(wt, one, denom), wt)
        zero = "0.0lf" if wt == "f64" else "0.0f"
        both_zero = self.temp(f"({b}.re == {zero} && {b}.im == {zero})", "bool")
        inf = self.literal(float("inf"), part, self.loc, internal=True)
        return self.complex_value(
            t,
            f"select({m(wt, re, scl)}, {m(wt, f'{a}.re', inf)}, {both_zero})",
            f"select({m(wt, im, scl)}, {m(wt, f'{a}.im', inf)}, {both_zero})",
        )

    def complex_power(self, a: str, n: int, t: Type) -> str:
        """``a ** n`` as :meth:`hatch_hybrid.lower.complex.ComplexOps.power` computes it (NumPy's ``npy_cpow``,
        CPython's ``c_powu``)."""
        weak = isinstance(t, Weak)
        part = component(t)
        one = self.complex_value(t, self.literal(1.0, part, self.loc), self.literal(0.0, part, self.loc))
        if weak or abs(n) > 3 or n <= 0:
            result, p, mask = one, a, 1
            while abs(n) >= mask:
                if abs(n) & mask:
                    result = self.complex_product(result, p, t)
                mask <<= 1
                if abs(n) >= mask:
                    p = self.complex_product(p, p, t)
        else:
            result = a if n == 1 else self.complex_product(a, a, t)
            result = self.complex_product(a, result, t) if n == 3 else result
        if weak:
            return result
        if n < 0:
            result = self.complex_divide(one, result, t, python=False)
        if n == 0:
            return one
        wt = self.wt(part, self.loc)
        zero = "0.0lf" if wt == "f64" else "0.0f"
        value = self.literal(0.0 if n > 0 else float("nan"), part, self.loc, internal=True)
        is_zero = f"({a}.re == {zero} && {a}.im == {zero})"
        return self.complex_value(
            t, f"select({result}.re, {value}, {is_zero})", f"select({result}.im, {value}, {is_zero})"
        )

    def complex_compare(self, op: str, a: str, b: str) -> str:
        """``==``: both parts equal; ``!=``: either part differs."""
        a, b = self.temp(a), self.temp(b)
        if op == "==":
            return f"({a}.re == {b}.re && {a}.im == {b}.im)"
        if op != "!=":
            raise WgslUnsupported(self.loc, f"`{op}` of complex numbers")
        return f"(!({a}.re == {b}.re) || !({a}.im == {b}.im))"

    def complex_negate(self, v: str, t: Type) -> str:
        whole = self.temp(v)
        return self.complex_value(t, f"(-{whole}.re)", f"(-{whole}.im)")

    def complex_conjugate(self, v: str, t: Type) -> str:
        whole = self.temp(v)
        return self.complex_value(t, f"{whole}.re", f"(-{whole}.im)")
