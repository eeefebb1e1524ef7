"""Scalar semantics in LLVM IR: conversions and operators that behave as NumPy/Python do.

Integer ``//`` and ``%`` floor (a zero divisor gives 0, as NumPy does); float ``//`` and ``%``
follow NumPy's ``npy_divmod`` step by step so results are bit-identical; shifts past the width
give 0 (or -1); fixed-width arithmetic wraps; float-to-int conversion saturates.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir as llir

from ..types import F32 as F32_SCALAR
from ..types import Scalar, Type, storage
from .complex import ComplexOps, struct_type
from .flavour import Flavour

I1 = llir.IntType(1)
I8 = llir.IntType(8)
I32 = llir.IntType(32)
I64 = llir.IntType(64)
I128 = llir.IntType(128)
F16 = llir.HalfType()
F32 = llir.FloatType()
F64 = llir.DoubleType()
VOID = llir.VoidType()
FLOAT_TYPES = (llir.HalfType, llir.FloatType, llir.DoubleType)
PTR = llir.PointerType()


def llvm_type(t: Scalar) -> llir.Type:
    """The register type of a scalar (booleans are i1)."""
    if t.kind == "b":
        return I1
    if t.kind == "f":
        return {16: F16, 32: F32}.get(t.bits, F64)
    if t.kind == "c":  # (real, imaginary), as NumPy lays it out
        return struct_type(F32 if t.bits == 64 else F64)
    return llir.IntType(t.bits)


def declare(module: llir.Module, name: str, ret: llir.Type, args: list[llir.Type]) -> llir.Function:
    """The module's function ``name``, declared with this type if it is not there yet."""
    fn = module.globals.get(name)
    return fn if fn is not None else llir.Function(module, llir.FunctionType(ret, args), name)


def bit_width(ty: llir.Type) -> int:
    """The bits of an integer or float register type."""
    if isinstance(ty, llir.IntType):
        return int(ty.width)
    return {F16: 16, F32: 32}.get(ty, 64)


def memory_type(t: Scalar) -> llir.Type:
    """The in-memory type of an array element (booleans take a byte, as in NumPy)."""
    return I8 if t.kind == "b" else llvm_type(t)


def const(t: Type, value: int | float | complex | bool) -> llir.Constant:
    s = storage(t)
    if isinstance(value, complex) or s.kind == "c":
        z = complex(value)
        return llir.Constant(llvm_type(s), [z.real, z.imag])
    if s.kind == "b":
        return llir.Constant(I1, int(bool(value)))
    if s.kind == "f":
        if s.bits == 16:  # an f16 constant must be exact: rounded as NumPy rounds (to inf beyond the range)
            with np.errstate(over="ignore"):
                value = float(np.float16(value))
        return llir.Constant(llvm_type(s), float(value))
    bits = s.bits
    return llir.Constant(llvm_type(s), int(value) & ((1 << bits) - 1))


def signalling(b: llir.IRBuilder, v: llir.Value, s: Scalar) -> llir.Value:
    """Whether ``v`` is a signalling NaN: the one NaN whose quiet bit (the top of the mantissa) is clear."""
    ity = llir.IntType(s.bits)
    quiet = llir.Constant(ity, 1 << (22 if s.bits == 32 else 51))
    clear = b.icmp_unsigned("==", b.and_(b.bitcast(v, ity), quiet), llir.Constant(ity, 0))
    return b.and_(b.fcmp_unordered("uno", v, v), clear)


def _mangle(t: llir.Type) -> str:
    if t == F16:
        return "f16"
    if t == F32:
        return "f32"
    if t == F64:
        return "f64"
    return str(t)


class Ops:
    """Emits scalar operations through one builder; ``intrinsic``/``libdevice`` declare callees."""

    def __init__(
        self,
        builder: llir.IRBuilder,
        module: llir.Module,
        libdevice: set[str],
        flavour: Flavour,
        fastmath: bool = False,
    ):
        self.b = builder
        self.module = module
        self.libdevice = libdevice  # the math functions called (on the host: the C library's)
        self.flavour = flavour  # what the target lowers its own way
        self.shared_bases: set[int] = set()  # host: the block's shared memory pointers (ids), for alias scopes
        # fastmath=True lets LLVM contract a*b+c into one FMA (one rounding instead of two) and use
        # approximate division, reciprocals and square roots (div.approx, rcp.approx, sqrt.approx)
        self.fastmath = fastmath
        self.nonnegative: set[int] = set()  # ids of i64 values known >= 0 (indices that need no wrapping)
        # i64 values converted from u64 (by id, kept alive): as an index, 2**63 and more are past the end, not
        # negative (checked so with debug=True)
        self.unsigned: dict[int, llir.Value] = {}
        self.fp_flags = ["contract", "afn", "arcp"] if fastmath else []
        self.complex = ComplexOps(self)

    # --------------------------------------------------------------- callees
    def intrinsic(
        self, name: str, overloads: list[llir.Type], nargs: int = 1, ret: llir.Type | None = None
    ) -> llir.Function:
        """Declare ``name.<overload types>``; by default ``overloads[0]`` in and out, ``nargs`` times."""
        full = name + "".join("." + _mangle(t) for t in overloads)
        fn = self.module.globals.get(full)
        if fn is None:
            args = [overloads[-1]] * nargs
            fn = llir.Function(self.module, llir.FunctionType(ret or overloads[0], args), full)
        return fn

    def libcall(self, name: str, args: list[llir.Value], ret: llir.Type) -> llir.Value:
        """Call the math function ``name``, by the C library's name (``sinf``; ``fast_sinf``: an approximate
        variant where the target has one), as the target computes it (the flavour's math_function:
        libdevice's ``__nv_sinf`` on NVIDIA GPUs, the C library's natively)."""
        fn = self.flavour.math_function(self.module, name, ret, args)
        self.libdevice.add(fn.name)
        return self.b.call(fn, args)

    # ----------------------------------------------------------- conversions
    def convert(self, v: llir.Value, src: Type, dst: Type) -> llir.Value:
        s, d = storage(src), storage(dst)
        if s == d:
            return v
        if "c" in (s.kind, d.kind):
            return self.complex.convert(v, src, dst)
        b = self.b
        if d.kind == "b":
            return self.truth(v, src)
        dt = llvm_type(d)
        if s.kind == "b":
            return b.uitofp(v, dt) if d.kind == "f" else b.zext(v, dt)
        if s.kind in "iu" and d.kind in "iu":
            if d.bits < s.bits:
                return b.trunc(v, dt)
            if d.bits == s.bits:
                return v
            return b.sext(v, dt) if s.kind == "i" else b.zext(v, dt)
        if s.kind in "iu":  # -> float
            return b.sitofp(v, dt) if s.kind == "i" else b.uitofp(v, dt)
        if d.kind in "iu":  # float -> int: saturating, NaN -> 0 (C leaves this undefined)
            name = "llvm.fptosi.sat" if d.kind == "i" else "llvm.fptoui.sat"
            return b.call(self.intrinsic(name, [dt, v.type], ret=dt), [v])
        return b.fpext(v, dt) if d.bits > s.bits else b.fptrunc(v, dt)

    def opaque_zero(self, v: llir.Value) -> llir.Value:
        """A floating-point zero constant of the program (``0.0 if c else x``, ``v = f64(0)``, ``o[i] = 0.0``),
        behind ``llvm.arithmetic.fence``, which no optimisation looks through and which compiles to nothing
        (a register holding the zero; LICM takes it out of loops, which still vectorise). LLVM's InstCombine
        (llvm/llvm-project#157254, open in LLVM 22) turns ``select (fcmp ogt x, 0), +0.0, fpext x`` into the
        min/max ``fpext (select (fcmp oge x, 0), +0.0, x)``, which gives +0.0 for x = -0.0 where Python
        gives x; the same for fptrunc and every strict ordered or unordered comparison of x with zero,
        either way round. Such a select comes from ``f64(0) if 0 < x else f64(x)``, ``f64(x) if x <= 0 else
        f64(0)``, an ``if`` statement assigning a variable or an element, np.where, a helper's arguments or
        returns. The fold needs the select's other arm to be a constant: a zero behind the fence is out of
        its reach. Other values pass unchanged."""
        if isinstance(v, llir.Constant) and isinstance(v.type, FLOAT_TYPES) and v.constant == 0:
            return self.b.call(self.intrinsic("llvm.arithmetic.fence", [v.type]), [v])
        return v

    def truth(self, v: llir.Value, t: Type) -> llir.Value:
        s = storage(t)
        if s.kind == "b":
            return v
        if s.kind == "c":
            return self.complex.truth(v)
        if s.kind == "f":
            return self.b.fcmp_unordered("!=", v, llir.Constant(v.type, 0.0))
        return self.b.icmp_unsigned("!=", v, llir.Constant(v.type, 0))

    # -------------------------------------------------------------- operators
    def binop(self, op: str, a: llir.Value, b_: llir.Value, t: Type, right_const: object = None) -> llir.Value:
        """``a op b`` with both operands already of type ``t`` (shifts: any int types of equal width)."""
        s = storage(t)
        if s.kind == "c":
            return self.complex.binop(op, a, b_, t, right_const)
        b = self.b
        is_float = s.kind == "f"
        # Python ints are i64 on every path, the Python path included, and wrap at 64 bits as NumPy's
        # integers do: no `nsw` (which would make an overflow undefined, and LLVM compute anything)
        if s.kind == "b" and op in ("+", "*"):  # NumPy's booleans: + is `or`, * is `and`
            return b.or_(a, b_) if op == "+" else b.and_(a, b_)
        if op == "+":
            return b.fadd(a, b_, flags=self.fp_flags) if is_float else b.add(a, b_)
        if op == "-":
            return b.fsub(a, b_, flags=self.fp_flags) if is_float else b.sub(a, b_)
        if op == "*":
            return b.fmul(a, b_, flags=self.fp_flags) if is_float else b.mul(a, b_)
        if op == "/":
            return b.fdiv(a, b_, flags=self.fp_flags)
        if is_float and s.bits == 16 and op in ("//", "%", "**") and not (op == "**" and right_const == 2):
            # NumPy's float16 loops compute these in float32 and round the result to float16 once
            wide = self.binop(op, b.fpext(a, F32), b.fpext(b_, F32), F32_SCALAR, right_const)
            return b.fptrunc(wide, F16)
        if op in ("//", "%"):
            if is_float:
                div, mod = self.float_divmod(a, b_)
            else:
                div, mod = self.int_divmod(a, b_, signed=s.kind == "i")
            return div if op == "//" else mod
        if op == "**":
            return self.power(a, b_, s, right_const)
        if op == "&":
            return b.and_(a, b_)
        if op == "|":
            return b.or_(a, b_)
        if op == "^":
            return b.xor(a, b_)
        if op in ("<<", ">>"):
            return self.shift(op, a, b_, s)
        raise AssertionError(op)

    def int_divmod(self, a: llir.Value, d: llir.Value, signed: bool) -> tuple[llir.Value, llir.Value]:
        b = self.b
        ty = a.type
        zero, one = llir.Constant(ty, 0), llir.Constant(ty, 1)
        is_zero = b.icmp_unsigned("==", d, zero)
        if not signed:
            safe = b.select(is_zero, one, d)
            q, r = b.udiv(a, safe), b.urem(a, safe)
            return b.select(is_zero, zero, q), b.select(is_zero, zero, r)
        minus_one = llir.Constant(ty, -1)
        is_m1 = b.icmp_signed("==", d, minus_one)
        safe = b.select(b.or_(is_zero, is_m1), one, d)
        q, r = b.sdiv(a, safe), b.srem(a, safe)
        # floor: when the remainder is non-zero and its sign differs from the divisor's
        adjust = b.and_(b.icmp_signed("!=", r, zero), b.icmp_signed("<", b.xor(r, d), zero))
        q = b.select(adjust, b.sub(q, one), q)
        r = b.select(adjust, b.add(r, d), r)
        q = b.select(is_m1, b.sub(zero, a), q)  # a // -1 wraps as NumPy does
        r = b.select(is_m1, zero, r)
        return b.select(is_zero, zero, q), b.select(is_zero, zero, r)

    def float_divmod(self, a: llir.Value, d: llir.Value) -> tuple[llir.Value, llir.Value]:
        """NumPy's ``npy_divmod``, operation for operation."""
        b = self.b
        ty = a.type
        zero, one, half = llir.Constant(ty, 0.0), llir.Constant(ty, 1.0), llir.Constant(ty, 0.5)
        fmod = "fmodf" if ty == F32 else "fmod"
        mod = self.libcall(fmod, [a, d], ty)
        copysign = self.intrinsic("llvm.copysign", [ty], nargs=2)
        floor = self.intrinsic("llvm.floor", [ty])
        div = b.fdiv(b.fsub(a, mod), d)
        mod_nonzero = b.fcmp_unordered("!=", mod, zero)
        signs_differ = b.icmp_unsigned("!=", b.fcmp_ordered("<", d, zero), b.fcmp_ordered("<", mod, zero))
        fix = b.and_(mod_nonzero, signs_differ)
        mod_fixed = b.select(fix, b.fadd(mod, d), mod)
        div = b.select(fix, b.fsub(div, one), div)
        mod_out = b.select(mod_nonzero, mod_fixed, b.call(copysign, [zero, d]))
        floordiv = b.call(floor, [div])
        floordiv = b.select(b.fcmp_ordered(">", b.fsub(div, floordiv), half), b.fadd(floordiv, one), floordiv)
        div_nonzero = b.fcmp_unordered("!=", div, zero)
        quotient = b.fdiv(a, d)
        floordiv = b.select(div_nonzero, floordiv, b.call(copysign, [zero, quotient]))
        d_zero = b.fcmp_ordered("==", d, zero)
        return b.select(d_zero, quotient, floordiv), b.select(d_zero, mod, mod_out)

    def power(self, a: llir.Value, e: llir.Value, s: Scalar, right_const: object) -> llir.Value:
        b = self.b
        if s.kind == "f":
            if right_const == 2:
                return b.fmul(a, a)  # the correctly rounded square; libm's pow may be off by an ulp
            name = "powf" if s.bits == 32 else "pow"
            return self.flavour.pow(b, a, e, s, self.libcall(name, [a, e], a.type))
        return b.call(self._ipow(a.type, signed=s.kind == "i"), [a, e])

    def python_power(self, a: llir.Value, e: llir.Value, s: Scalar) -> llir.Value:
        """``pow`` as CPython computes ``float ** float`` and ``math.pow``: 1.0 where the exponent is 0 or
        the base 1, whatever the other operand (a signalling NaN too, where C's ``pow`` gives NaN)."""
        b, one = self.b, llir.Constant(a.type, 1.0)
        result = self.power(a, e, s, None)
        exact = b.or_(b.fcmp_ordered("==", e, llir.Constant(e.type, 0.0)), b.fcmp_ordered("==", a, one))
        return b.select(exact, one, result)

    def is_finite(self, v: llir.Value) -> llir.Value:
        """``|v| < inf``: false for infinities and NaN."""
        return self._magnitude_vs_inf("<", v)

    def is_inf(self, v: llir.Value) -> llir.Value:
        """``|v| == inf``."""
        return self._magnitude_vs_inf("==", v)

    def _magnitude_vs_inf(self, op: str, v: llir.Value) -> llir.Value:
        magnitude = self.b.call(self.intrinsic("llvm.fabs", [v.type]), [v])
        return self.b.fcmp_ordered(op, magnitude, llir.Constant(v.type, float("inf")))

    def _ipow(self, ty: llir.IntType, signed: bool) -> llir.Function:
        """Integer power by squaring (wrapping); negative exponents, which NumPy rejects, give 1."""
        name = f"__hybrid_ipow_{'i' if signed else 'u'}{ty.width}"
        fn = self.module.globals.get(name)
        if fn is not None:
            return fn
        fn = llir.Function(self.module, llir.FunctionType(ty, [ty, ty]), name)
        fn.linkage = "internal"
        base, exp = fn.args
        entry, loop, done = (fn.append_basic_block(n) for n in ("entry", "loop", "done"))
        b = llir.IRBuilder(entry)
        zero, one = llir.Constant(ty, 0), llir.Constant(ty, 1)
        positive = b.icmp_signed(">", exp, zero) if signed else b.icmp_unsigned("!=", exp, zero)
        b.cbranch(positive, loop, done)
        b.position_at_end(loop)
        acc = b.phi(ty)
        bb = b.phi(ty)
        ee = b.phi(ty)
        odd = b.icmp_unsigned("!=", b.and_(ee, one), zero)
        acc2 = b.select(odd, b.mul(acc, bb), acc)
        bb2 = b.mul(bb, bb)
        ee2 = b.lshr(ee, one)
        acc.add_incoming(one, entry)
        bb.add_incoming(base, entry)
        ee.add_incoming(exp, entry)
        acc.add_incoming(acc2, loop)
        bb.add_incoming(bb2, loop)
        ee.add_incoming(ee2, loop)
        b.cbranch(b.icmp_unsigned("!=", ee2, zero), loop, done)
        b.position_at_end(done)
        result = b.phi(ty)
        result.add_incoming(one, entry)
        result.add_incoming(acc2, loop)
        b.ret(result)
        return fn

    def shift(self, op: str, a: llir.Value, n: llir.Value, s: Scalar) -> llir.Value:
        b = self.b
        ty = a.type
        width = llir.Constant(ty, s.bits)
        n = self.flavour.shift_count(b, n, s)
        too_far = b.icmp_unsigned(">=", n, width)  # also catches negative counts
        safe = b.select(too_far, llir.Constant(ty, 0), n)
        if op == "<<":
            return b.select(too_far, llir.Constant(ty, 0), b.shl(a, safe))
        if s.kind == "u":
            return b.select(too_far, llir.Constant(ty, 0), b.lshr(a, safe))
        fill = b.ashr(a, llir.Constant(ty, s.bits - 1))
        return b.select(too_far, fill, b.ashr(a, safe))

    def compare(self, op: str, a: llir.Value, b_: llir.Value, ta: Type, tb: Type) -> llir.Value:
        sa, sb = storage(ta), storage(tb)
        b = self.b
        if sa.kind == "c":
            return self.complex.compare(op, a, b_)
        if sa.kind == "f":
            if op == "!=":
                return b.fcmp_unordered("!=", a, b_)
            return b.fcmp_ordered(op, a, b_)
        if sa != sb:  # NumPy compares mixed signed/unsigned 64-bit integers exactly
            a = b.sext(a, I128) if sa.kind == "i" else b.zext(a, I128)
            b_ = b.sext(b_, I128) if sb.kind == "i" else b.zext(b_, I128)
            return b.icmp_signed(op, a, b_)
        if sa.kind in "ib":
            return b.icmp_signed(op, a, b_) if sa.kind == "i" else b.icmp_unsigned(op, a, b_)
        return b.icmp_unsigned(op, a, b_)

    def unary(self, op: str, v: llir.Value, t: Type) -> llir.Value:
        b = self.b
        s = storage(t)
        if s.kind == "c":
            return self.complex.unary(op, v)
        if op == "+":
            return v
        if op == "-":
            return b.fneg(v) if s.kind == "f" else b.sub(llir.Constant(v.type, 0), v)
        if op == "~":
            return b.xor(v, llir.Constant(v.type, -1))
        if op == "not":
            return b.xor(self.truth(v, t), llir.Constant(I1, 1))
        raise AssertionError(op)

    def abs(self, v: llir.Value, t: Type) -> llir.Value:
        s = storage(t)
        if s.kind == "c":
            return self.complex.abs(v)
        if s.kind == "f":
            return self.b.call(self.intrinsic("llvm.fabs", [v.type]), [v])
        if s.kind in "ub":
            return v
        special = self.flavour.int_abs(self.b, v, s)
        if special is not None:
            return special
        neg = self.b.icmp_signed("<", v, llir.Constant(v.type, 0))
        return self.b.select(neg, self.b.sub(llir.Constant(v.type, 0), v), v)

    def minmax(self, name: str, values: list[llir.Value], t: Type) -> llir.Value:
        """Python's min/max: keep the current value unless the next one is strictly smaller/larger."""
        s = storage(t)
        special = self.flavour.int_minmax(self.b, name, values, s) if s.kind in "iu" else None
        if special is not None:
            return special
        result = values[0]
        op = "<" if name == "min" else ">"
        for v in values[1:]:
            better = self.compare(op, v, result, t, t)
            result = self.b.select(better, v, result)
        return result


def as_bits(b: llir.IRBuilder, v: llir.Value) -> llir.Value:
    """A scalar's bits as i64 (zero-extended): how print records and warp exchanges carry values."""
    ty = v.type
    if isinstance(ty, llir.IntType):
        return b.zext(v, I64) if ty.width < 64 else v
    bits = bit_width(ty)
    as_int = b.bitcast(v, llir.IntType(bits))
    return b.zext(as_int, I64) if bits < 64 else as_int
