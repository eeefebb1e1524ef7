"""Complex numbers in LLVM IR: a ``{float, float}`` / ``{double, double}`` value (real, imaginary),
laid out in memory as NumPy lays out ``complex64``/``complex128``.

Arithmetic reproduces the CPU path operation for operation, with no contraction: NumPy's
algorithms for NumPy complex scalars, CPython's for Python ``complex`` values (weakly typed).
``*`` is the textbook product in both; ``/`` is Smith's method, which NumPy (its ``divide`` loop:
``1/denominator`` times each numerator) and CPython (``_Py_c_quot``: each numerator divided by the
denominator) write differently; ``abs`` is the C library's ``hypot`` (libdevice's on the GPU).
"""

from __future__ import annotations

from typing import Protocol

from llvmlite import ir as llir

from ..types import Type, Weak, component, is_complex, storage


class Emitter(Protocol):
    """What complex operations need of :class:`~.ops.Ops` (which holds a :class:`ComplexOps`)."""

    b: llir.IRBuilder
    fp_flags: list[str]

    def intrinsic(
        self, name: str, overloads: list[llir.Type], nargs: int = 1, ret: llir.Type | None = None
    ) -> llir.Function: ...

    def libcall(self, name: str, args: list[llir.Value], ret: llir.Type) -> llir.Value: ...

    def convert(self, v: llir.Value, src: Type, dst: Type) -> llir.Value: ...


def struct_type(part: llir.Type) -> llir.LiteralStructType:
    return llir.LiteralStructType([part, part])


class ComplexOps:
    """Complex operations emitted through an :class:`~.ops.Ops` (its builder and callees)."""

    def __init__(self, ops: Emitter) -> None:
        self.ops = ops
        self.b = ops.b

    # ----------------------------------------------------------------- parts
    def pack(self, re: llir.Value, im: llir.Value) -> llir.Value:
        v = self.b.insert_value(llir.Constant(struct_type(re.type), None), re, 0)
        return self.b.insert_value(v, im, 1)

    def parts(self, v: llir.Value) -> tuple[llir.Value, llir.Value]:
        return self.b.extract_value(v, 0), self.b.extract_value(v, 1)

    def fop(self, name: str, a: llir.Value, b_: llir.Value) -> llir.Value:
        """``fadd``/``fsub``/``fmul``/``fdiv`` with the function's floating-point flags (none: exact)."""
        result: llir.Value = getattr(self.b, name)(a, b_, flags=self.ops.fp_flags)
        return result

    # ----------------------------------------------------------- conversions
    def convert(self, v: llir.Value, src: Type, dst: Type) -> llir.Value:
        """To a complex type from a number (imaginary part +0.0, as NumPy and Python), or between
        precisions part by part; to a boolean: nonzero."""
        if storage(dst).kind == "b":
            return self.truth(v)
        part = component(dst)
        if is_complex(src):
            re, im = self.parts(v)
            src_part = component(src)
            return self.pack(self.ops.convert(re, src_part, part), self.ops.convert(im, src_part, part))
        re = self.ops.convert(v, src, part)
        return self.pack(re, llir.Constant(re.type, 0.0))

    def truth(self, v: llir.Value) -> llir.Value:
        re, im = self.parts(v)
        zero = llir.Constant(re.type, 0.0)
        return self.b.or_(self.b.fcmp_unordered("!=", re, zero), self.b.fcmp_unordered("!=", im, zero))

    # -------------------------------------------------------------- operators
    def binop(self, op: str, a: llir.Value, b_: llir.Value, t: Type, right_const: object = None) -> llir.Value:
        if op == "**":  # an integer exponent known at build time (see typecheck.rules)
            assert isinstance(right_const, int)
            return self.power(a, int(right_const), isinstance(t, Weak))
        (ar, ai), (br, bi) = self.parts(a), self.parts(b_)
        if op in ("+", "-"):
            name = "fadd" if op == "+" else "fsub"
            return self.pack(self.fop(name, ar, br), self.fop(name, ai, bi))
        if op == "*":
            return self.multiply(ar, ai, br, bi)
        assert op == "/", op
        return self._python_divide(ar, ai, br, bi) if isinstance(t, Weak) else self._numpy_divide(ar, ai, br, bi)

    def multiply(self, ar: llir.Value, ai: llir.Value, br: llir.Value, bi: llir.Value) -> llir.Value:
        """``(ar*br - ai*bi, ar*bi + ai*br)``: NumPy's scalar multiply and CPython's ``_Py_c_prod``."""
        f = self.fop
        real = f("fsub", f("fmul", ar, br), f("fmul", ai, bi))
        return self.pack(real, f("fadd", f("fmul", ar, bi), f("fmul", ai, br)))

    def _product(self, a: llir.Value, b_: llir.Value) -> llir.Value:
        return self.multiply(*self.parts(a), *self.parts(b_))

    def power(self, a: llir.Value, n: int, weak: bool) -> llir.Value:
        """``a ** n`` for an integer ``n`` known at build time (``-100 < n < 100``), by repeated products.

        NumPy's ``npy_cpow``: 1 for ``n == 0``; 0 (nan for ``n < 0``) for a zero ``a``; ``a``, ``a*a``,
        ``a*(a*a)`` for 1, 2, 3; else binary powering from 1 and, for ``n < 0``, ``1 / result`` by its
        Smith division. CPython's ``c_powu`` (Python complex, ``n >= 0``; the caller divides for ``n <
        0``): binary powering from 1, every step a product, also the first.
        """
        ty = self.parts(a)[0].type
        one = self.pack(llir.Constant(ty, 1.0), llir.Constant(ty, 0.0))
        if weak or abs(n) > 3 or n <= 0:
            result, p, mask = one, a, 1
            while abs(n) >= mask:
                if abs(n) & mask:
                    result = self._product(result, p)
                mask <<= 1
                if abs(n) >= mask:
                    p = self._product(p, p)
        else:
            result = a if n == 1 else self._product(a, a)
            result = self._product(a, result) if n == 3 else result
        if weak:
            return result
        if n < 0:
            result = self._numpy_divide(*self.parts(one), *self.parts(result))
        if n == 0:
            return one
        re, im = self.parts(a)
        zero = llir.Constant(ty, 0.0)
        is_zero = self.b.and_(self.b.fcmp_ordered("==", re, zero), self.b.fcmp_ordered("==", im, zero))
        value = llir.Constant(ty, 0.0 if n > 0 else float("nan"))
        return self.b.select(is_zero, self.pack(value, value), result)

    def _fabs(self, x: llir.Value) -> llir.Value:
        return self.b.call(self.ops.intrinsic("llvm.fabs", [x.type]), [x])

    def _smith(
        self, ar: llir.Value, ai: llir.Value, br: llir.Value, bi: llir.Value
    ) -> tuple[llir.Value, llir.Value, llir.Value, llir.Value, llir.Value]:
        """What both branches of Smith's method share, with one division for the ratio: the branch taken
        (|br| >= |bi|), ``ratio`` (bi/br or br/bi), ``denom`` (br + bi*ratio or bi + br*ratio) and the two
        numerators ``ar + ai*ratio`` / ``ai - ar*ratio`` (or ``ai + ar*ratio`` / ``ai*ratio - ar``).
        Operands are swapped, never reordered within an operation, except for the commutative ``+``
        and ``*``, so each branch computes the same bits as its own formula."""
        b, f = self.b, self.fop
        real_larger = b.fcmp_ordered(">=", self._fabs(br), self._fabs(bi))
        p, q = b.select(real_larger, br, bi), b.select(real_larger, bi, br)
        x, y = b.select(real_larger, ar, ai), b.select(real_larger, ai, ar)
        ratio = f("fdiv", q, p)
        denom = f("fadd", p, f("fmul", q, ratio))
        re = f("fadd", x, f("fmul", y, ratio))
        im = b.select(real_larger, f("fsub", ai, f("fmul", ar, ratio)), f("fsub", f("fmul", ai, ratio), ar))
        return real_larger, ratio, denom, re, im

    def _numpy_divide(self, ar: llir.Value, ai: llir.Value, br: llir.Value, bi: llir.Value) -> llir.Value:
        """NumPy's complex ``divide`` loop (which its scalar division calls)::

            if |br| >= |bi|:
                if |br| == 0 and |bi| == 0: (ar / |br|, ai / |br|)
                else: rat = bi / br; scl = 1 / (br + bi*rat); ((ar + ai*rat)*scl, (ai - ar*rat)*scl)
            else: rat = br / bi; scl = 1 / (bi + br*rat); ((ar*rat + ai)*scl, (ai*rat - ar)*scl)

        A zero divisor gives ``x / +0``, which is ``x * +inf`` bit for bit.
        """
        b, f = self.b, self.fop
        _, _, denom, re, im = self._smith(ar, ai, br, bi)
        scl = f("fdiv", llir.Constant(ar.type, 1.0), denom)
        zero = llir.Constant(ar.type, 0.0)
        both_zero = b.and_(b.fcmp_ordered("==", br, zero), b.fcmp_ordered("==", bi, zero))
        inf = llir.Constant(ar.type, float("inf"))
        re = b.select(both_zero, f("fmul", ar, inf), f("fmul", re, scl))
        return self.pack(re, b.select(both_zero, f("fmul", ai, inf), f("fmul", im, scl)))

    def _python_divide(self, ar: llir.Value, ai: llir.Value, br: llir.Value, bi: llir.Value) -> llir.Value:
        """CPython's ``_Py_c_quot`` (a zero divisor has been refused before: ZeroDivisionError)::

        if |br| >= |bi|: ratio = bi / br; denom = br + bi*ratio
                         ((ar + ai*ratio) / denom, (ai - ar*ratio) / denom)
        elif |bi| >= |br|: ratio = br / bi; denom = br*ratio + bi
                           ((ar*ratio + ai) / denom, (ai*ratio - ar) / denom)
        else (a NaN): (nan, nan)
        """
        b, f = self.b, self.fop
        real_larger, _, denom, re, im = self._smith(ar, ai, br, bi)
        # neither branch (a NaN part): nan
        either = b.or_(real_larger, b.fcmp_ordered(">=", self._fabs(bi), self._fabs(br)))
        nan = llir.Constant(ar.type, float("nan"))
        return self.pack(b.select(either, f("fdiv", re, denom), nan), b.select(either, f("fdiv", im, denom), nan))

    def compare(self, op: str, a: llir.Value, b_: llir.Value) -> llir.Value:
        """``==``: both parts equal; ``!=``: either part differs (NaN differs from everything)."""
        (ar, ai), (br, bi) = self.parts(a), self.parts(b_)
        b = self.b
        if op == "==":
            return b.and_(b.fcmp_ordered("==", ar, br), b.fcmp_ordered("==", ai, bi))
        assert op == "!=", op
        return b.or_(b.fcmp_unordered("!=", ar, br), b.fcmp_unordered("!=", ai, bi))

    def unary(self, op: str, v: llir.Value) -> llir.Value:
        if op == "+":
            return v
        if op == "not":
            return self.b.xor(self.truth(v), llir.Constant(llir.IntType(1), 1))
        assert op == "-", op
        re, im = self.parts(v)
        return self.pack(self.b.fneg(re), self.b.fneg(im))

    def conjugate(self, v: llir.Value) -> llir.Value:
        re, im = self.parts(v)
        return self.pack(re, self.b.fneg(im))

    def abs(self, v: llir.Value) -> llir.Value:
        """``hypot(re, im)``: NumPy's ``npy_cabs`` and CPython's ``_Py_c_abs`` (whose inf/nan rules are
        C99's ``hypot``'s; CPython raises OverflowError where the result overflows, the device gives inf)."""
        re, im = self.parts(v)
        return self.ops.libcall("hypotf" if re.type == llir.FloatType() else "hypot", [re, im], re.type)

    def part(self, v: llir.Value, name: str) -> llir.Value:
        return self.b.extract_value(v, 0 if name == "real" else 1)
