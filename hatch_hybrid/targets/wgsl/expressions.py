"""Expressions in the WGSL renderer: literals, conversions with NumPy's checks, operators with NumPy's
meaning (wrapping integers, floor division, correctly rounded f32 division), comparisons, ``and``/``or``,
and the failed checks they report through the error buffer."""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
from hybrid_runtime.abi import WGSL_ERROR_WORDS

from ... import ir
from ...errors import Loc
from ...lower.abi import NONE_USED
from ...lower.expressions import PYTHON_POW_OVERFLOW
from ...lower.sites import located
from ...typecheck import folding
from ...types import (
    F32,
    F64,
    NONE,
    WEAK_INT,
    ArrayT,
    EnumT,
    OptionalT,
    Scalar,
    StructT,
    TupleT,
    Type,
    Weak,
    component,
    is_float,
    is_int,
    storage,
)
from . import remainders
from .prelude import (
    DIV_F32,
    DIV_F64,
    F32_TO_F16,
    F64_BITS,
    FUSED_FMA,
    FUSED_FMA64,
    NOFMA,
    NOFMA64,
    SQRT_F32,
    SQRT_F64,
    ULP_F64,
    constant_expression,
    divmod_fn,
    ipow_fn,
    number,
    shift_fn,
    widen,
)
from .shader import RendererParts, WgslUnsupported, magnitude_vs_inf


def wrapped(v: str, s: Scalar) -> str:
    """An integer held in 32 bits (:data:`.shader.WGSL_SCALARS`) wrapped to the width of ``s`` (8 or 16 bits, as
    NumPy's int8 ... uint16 wrap; a wider type: as it is)."""
    if s.kind not in "iu" or s.bits >= 32:
        return v
    if s.kind == "u":
        return f"({v} & {(1 << s.bits) - 1}u)"
    return f"(({v} << {32 - s.bits}u) >> {32 - s.bits}u)"


def opaque_float(value: float, wt: str) -> str:
    """A float constant whose value no driver can see: its bits or'ed with the uniform word ``hh_zero``, which
    the runtime sets to 0. Drivers need not keep the sign of zero (naga asks SPIR-V for no signed-zero
    preservation), so a visible 0.0 lets Mesa fold ``0.0 + x`` into ``x``; adding a uniform -0.0 to the
    literal (the first version) left the literal visible, and was folded too."""
    if wt == "f64":
        return f"bitcast<f64>({int(np.float64(value).view(np.uint64))}lu | u64(hh_p.hh_zero))"
    return f"bitcast<f32>({int(np.float32(value).view(np.uint32))}u | hh_p.hh_zero)"


class ExpressionRenderer(RendererParts):
    def check(self, ok: str, kind: str, loc: Loc, msg: str | None = None, values: tuple[str, ...] = ()) -> None:
        """Unless ``ok``: record the site (and up to two i64 values) in the error buffer if it is empty,
        then leave the function."""
        site = located(self.tf.fn.module, loc, kind=kind)
        if msg is not None:
            site["msg"] = msg
        site_id = self.m.sites.site(site)
        values = tuple(self.temp(v) if constant_expression(v) else v for v in values)  # see temp()
        self.emit(f"if (!({ok})) {{")
        with self.indented():
            # the first failure takes the count from 0 and fills the record (the runtime reads it after)
            self.emit(f"if (atomicAdd(&hh_err[{WGSL_ERROR_WORDS - 1}], 1u) == 0u) {{")
            with self.indented():
                self.emit(f"atomicStore(&hh_err[0], {site_id}u);")
                for k, v in enumerate(values[:2]):
                    self.emit(f"atomicStore(&hh_err[{1 + 2 * k}], u32({v} & 4294967295li));")
                    self.emit(f"atomicStore(&hh_err[{2 + 2 * k}], u32({v} >> 32u));")
            self.emit("}")
            if self.kernel or self.tf.return_type == NONE:
                self.emit("return;")
            else:
                self.emit(f"return {self.zero(self.tf.return_type)};")
        self.emit("}")

    # ---------------------------------------------------------- expressions

    def condition(self, e: ir.Expr) -> str:
        return self.truth(self.expr(e), self.tf.types[e.nid], e.loc)

    def truth(self, v: str, t: Type, loc: Loc) -> str:
        s = storage(t) if not isinstance(t, TupleT) else None
        if s is None:
            raise WgslUnsupported(loc, "the truth of a tuple")
        if s.kind == "b":
            return v
        if s.kind == "c":
            return self.complex_truth(v, t)
        if s.kind == "f":  # (NaN is true: `!=` may not say so)
            return f"!({self.h2f(v) if s.name == 'f16' else v} == {'0.0lf' if s.name == 'f64' else '0.0f'})"
        return f"({v} != {self.wt(t, loc)}(0))"

    def coerce(self, e: ir.Expr, to: Type, context: str | None = None) -> str:
        src = self.tf.types[e.nid]
        if isinstance(to, StructT) or isinstance(src, StructT):
            return self.expr(e)
        if to in (F32, F64) and isinstance(e, ir.Call):
            callee = self.tf.callees.get(e.nid)
            if callee is not None and callee.kind == "math" and callee.name in ("sqrt", "fabs"):
                if all(self.tf.types[a.nid] == to for a in e.args):
                    fn = self.exact_op("sqrt", to.name) if callee.name == "sqrt" else "abs"
                    return self.temp(f"{fn}({self.expr(e.args[0])})", to.name)
        const = self.const_of(e)
        if const is not None and not isinstance(to, TupleT):
            return self.literal(const, to, e.loc)
        value = self.expr(e)
        if context is not None:
            self.convert_check(value, src, to, e.loc, context)
        return self.convert(value, src, to)

    def convert_check(self, v: str, src: Type, dst: Type, loc: Loc, context: str) -> None:
        """``MemoryLowerer.convert_checked``'s checks: where NumPy refuses a conversion, fail as it raises."""
        if not (is_int(dst) and isinstance(src, (Scalar, Weak, EnumT))):
            return
        d = None if isinstance(dst, Weak) else storage(dst)  # None: a Python int
        weak = isinstance(src, (Weak, EnumT))
        stored = context == "store" and d is not None and (weak or d.kind == "i")
        if is_int(src) and d is not None and (weak or stored):
            self.int_fits(v, storage(src), d, loc)
        elif is_int(src) and d is None and context == "cast" and storage(src).name == "u64":
            self.int_fits(v, storage(src), storage(WEAK_INT), loc, "int")
        elif is_float(src) and (stored or (context == "cast" and (d is None or weak))):
            wide = storage(src).name == "f64"
            self.float_fits(self.h2f(v) if storage(src).name == "f16" else v, d, loc, wide)

    def int_fits(self, v: str, s: Scalar, d: Scalar, loc: Loc, name: str | None = None) -> None:
        have, want = np.iinfo(s.dtype), np.iinfo(d.dtype)
        if want.min <= have.min and have.max <= want.max:
            return
        tests = []
        if have.min < want.min:
            tests.append(f"{v} >= {self.literal(int(want.min), s, loc)}")
        if have.max > want.max:
            tests.append(f"{v} <= {self.literal(int(want.max), s, loc)}")
        as64 = v if s.bits == 64 else widen(v, s, storage(WEAK_INT))
        if s.name == "u64":
            as64 = f"bitcast<i64>({v})"
        self.check(" && ".join(tests), "convert", loc, name or d.dtype.name, (as64, "1li" if s.kind == "u" else "0li"))

    def float_fits(self, v: str, d: Scalar | None, loc: Loc, wide: bool = False) -> None:
        """An f32 (``wide``: an f64) to a Python int (``d`` None: held in i64) or stored in an integer array:
        NaN, infinities and values out of range fail (the record holds the value as f64 bits, as on the
        other targets)."""
        f = "lf" if wide else "f"
        if d is None:
            ok = f"(abs({v}) < 9223372036854775808.0{f} || {v} == -9223372036854775808.0{f})"
        else:
            info = np.iinfo(d.dtype)  # the bounds are powers of two (or 0): exact in f32
            t = self.temp(f"trunc({v})", "f64" if wide else "f32")
            ok = f"({t} >= {float(info.min)!r}{f} && {t} < {float(info.max) + 1.0!r}{f})"
        bits = f"bitcast<i64>({v})" if wide else f"{self.m.need('hh_f64_bits', F64_BITS)}({v})"
        self.check(ok, "convert", loc, d.dtype.name if d else "int", (bits, "2li"))

    def literal(self, value: int | float | bool, t: Type, loc: Loc, plain: bool = False, internal: bool = False) -> str:
        """``value`` as a WGSL value of ``t``. An infinite or NaN constant of the kernel's own (not ``internal``
        to an operation the renderer writes) is refused: WGSL lets drivers assume no value is infinite or
        NaN, and they fold comparisons with it (an ``inf`` sentinel in a running minimum gave wrong results
        on lavapipe), so such a kernel is not built for this target rather than built with another meaning."""
        if isinstance(value, float) and not math.isfinite(value) and not internal:
            raise WgslUnsupported(
                loc, "an infinite or NaN constant (WGSL lets drivers assume no value is infinite or NaN)"
            )
        if folding.beyond_i64(value):  # a Python int beyond i64: its value as ``t`` (or refused, as NumPy does)
            value = folding.wide_int_as(value, t, loc)
        if isinstance(t, (Scalar, Weak)) and storage(t).kind == "c":
            return self.complex_literal(complex(value), t)
        wt = self.wt(t, loc)
        if wt == "bool":
            return "true" if value else "false"
        if wt == "f16":  # the f16's own value, which the literal holds exactly
            h = np.float16(value)
            if not np.isfinite(h):
                return f"f16({self.literal(float(h), F32, loc)})"
            return f"{float(h)!r}h"
        if wt == "f32":
            x = np.float32(value)
            if not np.isfinite(x):
                bits = int(x.view(np.uint32))
                return f"bitcast<f32>({bits}u)"
            return f"{float(x)!r}f"  # repr: the shortest digits that read back as this f32
        if wt == "f64":
            y = float(value)
            # naga cannot evaluate math functions of f64 constants, or convert them, at build time (`abs(0.5lf)`
            # and `i32(0.5lf)` fail validation): an f64 literal is a value known only at run time, unless a
            # constant is needed (``plain``: a constant table's values)
            if not plain:
                return opaque_float(y, "f64")
            return f"bitcast<f64>({int(np.float64(y).view(np.uint64))}lu)" if not np.isfinite(y) else f"{y!r}lf"
        if isinstance(value, float):
            raise WgslUnsupported(loc, "a float constant where an integer is needed")
        bits = storage(t).bits if storage(t).kind in "iu" else {"i32": 32, "u32": 32, "i64": 64, "u64": 64}[wt]
        v = int(value) & ((1 << bits) - 1)
        if wt in ("i32", "i64") and v >= 1 << (bits - 1):
            v -= 1 << bits
        suffix = {"i32": "i", "u32": "u", "i64": "li", "u64": "lu"}[wt]
        if v == -(1 << (bits - 1)) and bits in (32, 64):  # the most negative value has no literal
            return f"({wt}({v + 1}{suffix}) - {wt}(1{suffix}))"
        return f"{wt}({v}{suffix})" if v < 0 else f"{v}{suffix}"

    def convert(self, v: str, src: Type, dst: Type) -> str:
        if isinstance(dst, OptionalT) and not isinstance(src, OptionalT):  # a number, or None: (it, whether)
            if src == NONE:
                return f"{self.wt(dst, None)}()"
            return self.temp(f"{self.wt(dst, None)}({self.convert(v, src, dst.inner)}, true)")
        if isinstance(src, TupleT) and isinstance(dst, TupleT) and src != dst:  # item by item
            whole = self.temp(v)
            items = [self.convert(f"{whole}.i{k}", a, b) for k, (a, b) in enumerate(zip(src.items, dst.items))]
            return self.temp(f"{self.wt(dst, None)}({', '.join(items)})")
        if isinstance(src, (TupleT, StructT)) or isinstance(dst, (TupleT, StructT)):
            return v
        s, d = storage(src), storage(dst)
        if s == d:
            return v
        if "c" in (s.kind, d.kind):
            return self.complex_convert(v, src, dst)
        if s.name == "f16":  # by way of f32, which holds every f16 exactly
            return self.convert(self.h2f(v), F32, dst)
        if d.name == "f16" and s.name == "f64":  # (by way of f32 it would round twice)
            raise WgslUnsupported(self.loc, "f64 values converted to f16")
        if d.name == "f16" and s.kind != "b":  # an int rounds once: below 2**24 f32 holds it, above f16 overflows
            return self.f2h(self.convert(v, src, F32))
        dw = self.wt(dst, None)
        if d.kind == "b":
            return self.truth(v, src, self.tf.fn.loc)
        if s.kind == "b":
            return f"select({dw}(0), {dw}(1), {v})"
        if s.kind in "iu" and d.kind in "iu":  # (8- and 16-bit integers are held in 32 bits)
            held_s, held_d = max(s.bits, 32), max(d.bits, 32)
            if held_s == held_d:
                same = v if self.wt(src, None) == dw else f"bitcast<{dw}>({v})"
                return wrapped(same, d) if d.bits < s.bits or s.kind != d.kind else same
            if held_s > held_d:
                return wrapped(f"{dw}({v})", d)  # narrowing keeps the low bits
            return widen(v, s, d)
        if d.kind == "f":
            if s.bits == 64 and s.kind in "iu":  # naga cannot evaluate this conversion at build time: keep it
                return f"{dw}({v} | {s.name}(hh_p.hh_zero))"  # to run time
            return f"{dw}({v})"
        # float -> int: saturating, NaN -> 0 (LLVM's fptosi.sat). WGSL clamps to the largest float below
        # the type's maximum (2147483520 for i32), so the values from 2**bits on are set apart
        top = 1 << (d.bits - 1 if d.kind == "i" else d.bits)
        largest = self.literal(top - 1, dst, self.tf.fn.loc)
        f = "lf" if s.name == "f64" else "f"
        converted = f"{dw}({v})"
        if d.bits < 32 and d.kind == "i":  # the bottom of an 8- or 16-bit type too (WGSL saturates at i32's)
            converted = f"max({converted}, {self.literal(-top, dst, self.tf.fn.loc)})"
        return f"select(select({converted}, {largest}, {v} >= {float(top)!r}{f}), {dw}(0), {v} != {v})"

    def h2f(self, v: str) -> str:
        """An f16 widened to f32 (exact)."""
        return f"f32({v})"

    def f2h(self, v: str) -> str:
        """An f32 rounded to the nearest f16 by its bits, as NumPy rounds (:data:`.prelude.F32_TO_F16`)."""
        return f"{self.m.need('hh_f2h', F32_TO_F16)}({v})"

    def expr(self, e: ir.Expr) -> str:
        value = self._expr(e)
        if e.nid in self.tf.unwraps:  # a helper's number-or-None used as a number: TypeError where None
            self.check(f"{value}.i1", "type", e.loc, NONE_USED)
            return f"{value}.i0"
        return value

    def _expr(self, e: ir.Expr) -> str:
        tf = self.tf
        if tf.tables.get(e.nid) is not None:
            raise WgslUnsupported(e.loc, "constant tables")
        if e.nid in tf.consts and (not isinstance(e, ir.Call) or tf.callees[e.nid].kind == "cast"):
            if isinstance(tf.consts[e.nid], (complex, np.complexfloating)):
                return self.complex_literal(complex(tf.consts[e.nid]), tf.types[e.nid])
            const = number(tf.consts[e.nid])
            if const is not None:
                return self.literal(const, tf.types[e.nid], e.loc)
            raise WgslUnsupported(e.loc, f"a constant of type {type(tf.consts[e.nid]).__name__}")
        if isinstance(e, ir.Const):
            if e.value is None:
                return ""
            if isinstance(e.value, complex):
                return self.complex_literal(e.value, tf.types[e.nid])
            return self.literal(e.value, tf.types[e.nid], e.loc)
        if isinstance(e, ir.Name):
            if e.id in self.params:
                return self.params[e.id]
            if e.id in self.locals:
                return self.locals[e.id]
            raise WgslUnsupported(e.loc, f"the value of `{e.id}` here")
        if isinstance(e, ir.TupleExpr):
            t = tf.types[e.nid]
            assert isinstance(t, TupleT)
            items = [self.coerce(elt, item) for elt, item in zip(e.elts, t.items)]
            return self.temp(f"{self.wt(t, e.loc)}({', '.join(items)})")
        if isinstance(e, ir.Attribute):
            base_t = tf.types[e.value.nid]
            if isinstance(base_t, StructT):
                return f"{self.expr(e.value)}.f_{e.attr}"
            if isinstance(base_t, (Scalar, Weak)) and e.attr in ("real", "imag"):
                if storage(base_t).kind == "c":
                    return f"{self.temp(self.expr(e.value))}.{e.attr[:2]}"
                t = tf.types[e.nid]  # x.real of a real number: x; x.imag: 0
                return self.coerce(e.value, t) if e.attr == "real" else self.literal(0, t, e.loc)
            if isinstance(base_t, TupleT) and e.attr in base_t.names:  # a namedtuple's field
                return f"{self.expr(e.value)}.i{base_t.names.index(e.attr)}"
            if isinstance(base_t, ArrayT) and e.attr == "shape":  # a tuple of its dimensions
                return self.temp(f"{self.wt(tf.types[e.nid], e.loc)}({', '.join(self.array(e.value).shape)})")
            if isinstance(base_t, ArrayT) and e.attr == "size":
                ref = self.array(e.value)
                return self.temp(" * ".join(ref.shape), "i64")
            raise WgslUnsupported(e.loc, f"`.{e.attr}` of {base_t}")
        if isinstance(e, (ir.BinOp, ir.UnaryOp)) and e.nid in tf.callees:  # an operator method of a struct
            operands = [e.left, e.right] if isinstance(e, ir.BinOp) else [e.operand]
            return self.call_function(tf.callees[e.nid], operands, e.loc)
        if isinstance(e, ir.BinOp):
            return self.binop(e)
        if isinstance(e, ir.UnaryOp):
            return self.unary(e)
        if isinstance(e, ir.Compare):
            return self.compare(e)
        if isinstance(e, ir.BoolOp):
            return self.bool_op(e)
        if isinstance(e, ir.IfExp):
            t = tf.types[e.nid]
            result = self.var(self.wt(t, e.loc))
            self.emit(f"if ({self.condition(e.test)}) {{")
            with self.indented():
                self.emit(f"{result} = {self.coerce(e.body, t)};")
            self.emit("} else {")
            with self.indented():
                self.emit(f"{result} = {self.coerce(e.orelse, t)};")
            self.emit("}")
            return result
        if isinstance(e, ir.Subscript):
            return self.subscript(e)
        if isinstance(e, ir.Call):
            return self.call(e)
        raise WgslUnsupported(e.loc, f"{type(e).__name__} expressions")

    def opaque_constant(self, v: str) -> str:
        """An f32 literal as a value no driver can see (:func:`opaque_float`): Mesa's NIR, and so lavapipe,
        folds ``0.5 + (C + x)`` into ``(0.5 + C) + x``, which rounds differently, and ``0.0 + x`` into ``x``,
        which is -0.0 for x = -0.0 (both found by the differential tests). Other operands are returned as
        they are (f64 literals are opaque already)."""
        if re.fullmatch(r"-?\d[\d.e+-]*f", v):
            return opaque_float(float(v[:-1]), "f32")
        return v

    def nofma(self, wide: bool) -> str:
        """The prelude function that keeps a product of f32 (``wide``: f64) out of an FMA (:data:`NOFMA`)."""
        return self.m.need("hh_nofma64", NOFMA64) if wide else self.m.need("hh_nofma", NOFMA)  # type: ignore[no-any-return]

    def exact(self, name: str, text: str) -> str:
        """A correctly rounded f32 operation of the prelude (see :data:`.prelude.DIV_F32`)."""
        self.m.need("hh_fused_fma", FUSED_FMA)
        return str(self.m.need(name, text))

    def exact_op(self, op: str, wt: str) -> str:
        """The prelude's correctly rounded ``op`` (div or sqrt) of ``wt`` (f32 or f64)."""
        if wt == "f64":
            self.m.need("hh_fused_fma64", FUSED_FMA64)
            self.m.need("hh_ulp_f64", ULP_F64)
            return str(self.m.need(f"hh_{op}_f64", {"div": DIV_F64, "sqrt": SQRT_F64}[op]))
        return self.exact(f"hh_{op}_f32", {"div": DIV_F32, "sqrt": SQRT_F32}[op])

    def fmod(self, wt: str, name: str = "fmod") -> str:
        """The prelude's exact ``fmod`` or ``remainder`` of ``wt`` (:mod:`.remainders`)."""
        self.m.need(f"hh_fmod_{wt}", remainders.fmod_fn(wt))
        if name == "remainder":
            return str(self.m.need(f"hh_remainder_{wt}", remainders.remainder_fn(wt)))
        return f"hh_fmod_{wt}"

    def float_divmod(self, wt: str) -> str:
        """The prelude's ``//`` and ``%`` of floats (a struct of both)."""
        self.fmod(wt)
        return str(self.m.need(f"hh_fdivmod_{wt}", remainders.fdivmod_fn(wt, self.exact_op("div", wt))))

    def binop(self, e: ir.BinOp) -> str:
        ops = self.tf.optypes[e.nid]
        if e.op == "*":  # a product whose value goes straight into another product: no addition to fuse it with
            self.multiplied.update(x.nid for x in (e.left, e.right) if isinstance(x, ir.BinOp) and x.op == "*")
        left = self.coerce(e.left, ops.left, "arith")
        return self.binop_values(e.op, left, ops.left, e.right, ops, e.loc, fusable=e.nid not in self.multiplied)

    def binop_values(
        self, op: str, left: str, left_t: Type, right_node: ir.Expr, ops: Any, loc: Loc, fusable: bool = True
    ) -> str:
        """``left op right`` with ``left`` already of ``ops.left``: Python's and NumPy's meaning. ``fusable``:
        a float product's value may meet an addition (so it keeps its FMA barrier)."""
        e_loc = loc
        right = self.coerce(right_node, ops.right, "arith")
        python_numbers = isinstance(ops.left, Weak) and isinstance(ops.right, Weak)
        right_const = number(self.tf.consts.get(right_node.nid))
        s = storage(ops.left)
        wt = self.wt(ops.left, e_loc)
        half = s.name == "f16"  # computed in f32 and rounded once to f16, as NumPy computes float16 arithmetic
        if half:
            left, right, wt = self.h2f(left), self.h2f(right), "f32"
        if s.kind == "c":
            if op in ("/",) and python_numbers and right_const is None:
                self.check(self.truth(right, ops.right, e_loc), "zerodiv", e_loc)
            if op == "**" and python_numbers and isinstance(right_const, int) and right_const < 0:
                # CPython: 1 / z**-n, which raises ZeroDivisionError where z**-n is zero (as lower.expressions)
                power = self.temp(self.complex_power(self.temp(left), -right_const, ops.left))
                self.check(self.complex_truth(power, ops.left), "zerodiv", e_loc)
                one = self.complex_value(ops.left, self.literal(1.0, component(ops.left), e_loc), self.literal(
                    0.0, component(ops.left), e_loc))  # fmt: skip
                quotient = self.complex_divide(self.temp(one), power, ops.left, python=True)
                return self.convert(quotient, ops.left, ops.result)
            return self.convert(self.complex_binop(op, left, right, ops.left, right_const), ops.left, ops.result)
        if op in ("/", "//", "%") and python_numbers and right_const is None:
            self.check(self.truth(right, ops.right, e_loc), "zerodiv", e_loc)
        if op in ("<<", ">>") and python_numbers and not (isinstance(right_const, int) and right_const >= 0):
            self.check(f"{right} >= 0li", "value", e_loc, "negative shift count")
        if s.kind == "b" and op in ("+", "*"):
            result = f"({left} {'|' if op == '+' else '&'} {right})"
        elif op in ("+", "-"):
            if s.kind == "f":  # a constant a driver cannot see, so that it cannot reassociate sums of constants
                left, right = (self.opaque_constant(v) for v in (left, right))
            result = f"({left} {op} {right})"
        elif op == "*":
            result = f"({left} * {right})"
            if s.kind == "f" and fusable:  # a product that no driver may fuse into an FMA (see wgsl_fma_barrier)
                result = f"{self.nofma(wt == 'f64')}({result})"
        elif op == "/":
            if s.kind != "f":
                raise WgslUnsupported(e_loc, "true division of integers (an f64 result)")
            result = f"{self.exact_op('div', wt)}({left}, {right})"
        elif op in ("//", "%"):
            if s.kind == "f":
                fn = self.float_divmod(wt)
            else:
                fn = self.m.need(f"hh_divmod_{wt}", divmod_fn(wt))
            result = f"{fn}({left}, {right}).{'q' if op == '//' else 'r'}"
        elif op == "**":
            if s.kind == "f" and right_const == 2:
                result = f"{self.nofma(wt == 'f64')}({left} * {left})"
            elif s.kind in "iu":
                if s.kind == "i" and not (isinstance(right_const, int) and right_const >= 0):
                    self.check(
                        f"{right} >= {wt}(0)", "value", e_loc, "Integers to negative integer powers are not allowed."
                    )
                fn = self.m.need(f"hh_ipow_{wt}", ipow_fn(wt))
                result = f"{fn}({left}, {right})"
            elif s.kind == "f" and not half:  # C's pow (math.pow, NumPy's and Python's **), in f64
                f64 = Scalar("f64")
                x, y = (self.temp(self.convert(v, ops.left, f64), "f64") for v in (left, right))
                if python_numbers and not (isinstance(right_const, (int, float)) and right_const >= 0):
                    self.check(f"!({x} == 0.0lf && {y} < 0.0lf)", "zerodiv", e_loc)  # CPython raises
                result = self.temp(self.libm_of("pow", [x, y], [f64, f64], f64, e_loc), "f64")
                if python_numbers:  # CPython raises OverflowError where finite operands give inf
                    finite = " && ".join(magnitude_vs_inf(v, "f64", "<") for v in (x, y))
                    infinite = magnitude_vs_inf(result, "f64", "==")
                    self.check(f"!({infinite} && {finite})", "overflow", e_loc, PYTHON_POW_OVERFLOW)
                result = self.convert(result, f64, ops.left)
            else:
                raise WgslUnsupported(e_loc, f"`**` of {ops.left}")
        elif op in ("&", "|", "^"):
            result = f"({left} {op} {right})"
        elif op in ("<<", ">>"):
            rw = self.wt(ops.right, e_loc)
            fn = self.m.need(f"hh_shift_{op == '<<'}_{wt}_{rw}", shift_fn(op, wt, rw, s.bits))
            result = f"{fn}({left}, {right})"
        else:  # pragma: no cover
            raise WgslUnsupported(e_loc, f"operator {op}")
        out = self.temp(self.f2h(result), "f16") if half else self.temp(wrapped(result, s), wt)
        return self.convert(out, ops.left, ops.result)

    def unary(self, e: ir.UnaryOp) -> str:
        if e.op == "not":
            return self.temp(f"!({self.condition(e.operand)})")
        t = self.tf.types[e.nid]
        v = self.coerce(e.operand, t)
        if e.op == "+":
            return v
        if e.op == "-":
            s = storage(t)
            if s.kind == "c":
                return self.complex_negate(v, t)
            if s.name == "f16":
                return self.temp(self.f2h(f"-{self.h2f(v)}"), "f16")
            if s.kind == "u":
                return self.temp(wrapped(f"(0u - {v})", s) if s.bits <= 32 else f"(0lu - {v})")
            return self.temp(wrapped(f"(-{v})", s))
        if e.op == "~":
            if storage(t).kind == "b":  # NumPy's ~ of a bool is `not` (WGSL's ~ takes integers only)
                return self.temp(f"!({v})", "bool")
            return self.temp(wrapped(f"(~{v})", storage(t)))
        raise WgslUnsupported(e.loc, f"unary {e.op}")

    def compare(self, e: ir.Compare) -> str:
        if e.ops[0] in ("is", "is not"):  # `x is None` of a value that may be None (else known: a constant)
            present = f"{self.expr(e.left)}.i1"
            return self.temp(present if e.ops[0] == "is not" else f"!{present}", "bool")
        result = self.var("bool", "false")
        left_node, left = e.left, self.operand(e.left)
        closes = 0
        for k, (op, comp) in enumerate(zip(e.ops, e.comparators)):
            ops = self.tf.cmptypes[(e.nid, k)]
            right = self.operand(comp)
            lt, rt = self.tf.types[left_node.nid], self.tf.types[comp.nid]
            ta = folding.compared_as(self.tf.consts.get(left_node.nid), ops.left, rt)  # a Python int beyond i64
            tb = folding.compared_as(self.tf.consts.get(comp.nid), ops.right, lt)
            sa, sb = storage(ta), storage(tb)
            a, b = self.value_as(left_node, left, ta), self.value_as(comp, right, tb)
            if sa != sb:  # NumPy compares mixed integers exactly: in a type that holds both
                if sa.kind not in "iu" or sb.kind not in "iu" or "u64" in (sa.name, sb.name):
                    raise WgslUnsupported(e.loc, f"comparing {ta} with {tb}")
                wide = storage(WEAK_INT)
                a = a if sa.name == "i64" else widen(a, sa, wide)
                b = b if sb.name == "i64" else widen(b, sb, wide)
            if sa.name == "f16":  # compared as f32 (drivers may flush f16 subnormals)
                a, b = self.h2f(a), self.h2f(b)
            if sa.kind == "c":
                ok = self.temp(self.complex_compare(op, a, b), "bool")
            else:
                ok = self.temp(f"({a} {op} {b})" if sa.kind != "f" or op != "!=" else f"!({a} == {b})", "bool")
            if k == len(e.ops) - 1:
                self.emit(f"{result} = {ok};")
            else:
                self.emit(f"if ({ok}) {{")
                self.depth += 1
                closes += 1
            left, left_node = right, comp
        for _ in range(closes):
            self.depth -= 1
            self.emit("}")
        return result

    def const_of(self, e: ir.Expr) -> int | float | bool | None:
        """The value of a number known at build time (a literal, or what the checker folded)."""
        if isinstance(e, ir.Const) and not isinstance(e.value, complex):
            return e.value
        callee = self.tf.callees.get(e.nid) if isinstance(e, ir.Call) else None
        if isinstance(e, ir.Call) and (callee is None or callee.kind != "cast"):
            return None
        return number(self.tf.consts.get(e.nid))

    def operand(self, e: ir.Expr) -> str:
        """An operand's value ("" for a constant, which :meth:`value_as` writes in the type it is used as)."""
        if self.const_of(e) is not None:
            return ""
        return self.expr(e)

    def value_as(self, e: ir.Expr, value: str, to: Type) -> str:
        if value == "":
            const = self.const_of(e)
            assert const is not None
            return self.literal(const, to, e.loc)
        return self.convert(value, self.tf.types[e.nid], to)

    def bool_op(self, e: ir.BoolOp) -> str:
        t = self.tf.types[e.nid]
        result = self.var(self.wt(t, e.loc))
        closes = 0
        for k, v in enumerate(e.values):
            value = self.coerce(v, t)
            self.emit(f"{result} = {value};")
            if k < len(e.values) - 1:
                truth = self.truth(result, t, v.loc)
                self.emit(f"if ({truth if e.op == 'or' else '!' + truth}) {{ }} else {{")
                self.depth += 1
                closes += 1
        for _ in range(closes):
            self.depth -= 1
            self.emit("}")
        return result

    # ---------------------------------------------------------------- calls
