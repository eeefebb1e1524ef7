"""Lowering of NumPy's scalar functions (``np.sqrt(x)``, ``np.minimum(a, b)``, ``np.where(c, a, b)``, ...)
as NumPy computes them for scalars (its types: :mod:`..typecheck.numpy_funcs`).

Operands are converted to the loop's type as NumPy converts them (a Python int that an integer type
cannot hold raises OverflowError, as NumPy does). f16 is
computed in f32 and rounded once, as NumPy's half loops do. The C library's functions are libdevice's
on the GPU; minimum/maximum, fmin/fmax, sign and clip are NumPy's own definitions, signed zeros and
NaNs included.

:class:`NumpyLowerer` is mixed into :class:`~.function.FunctionLowerer`.
"""

from __future__ import annotations

import math

import numpy as np
from llvmlite import ir as llir

from .. import ir
from ..typecheck.numpy_funcs import BINARY_TRANSCENDENTAL, TRANSCENDENTAL
from ..typecheck.rules import OpTypes
from ..typecheck.typed import Callee
from ..types import F16, F32, WEAK_INT, Scalar, Weak
from . import intrinsics
from .ops import I1
from .parts import LowererParts

#: x * (180 / pi) and x * (pi / 180) with the division done in the loop's type, as NumPy's loops do
#: (``180.0f / NPY_PIf``): (numerator, denominator)
_DEGREES = {"degrees": (180, math.pi), "rad2deg": (180, math.pi), "radians": (math.pi, 180), "deg2rad": (math.pi, 180)}
#: NumPy functions of floats that are the C library's (libdevice's; LLVM's intrinsics where one instruction)
_C_FUNCTIONS = {
    **TRANSCENDENTAL,
    **BINARY_TRANSCENDENTAL,
    **{n: n for n in ("floor", "ceil", "trunc", "fabs", "isnan", "isinf", "isfinite")},
}


class NumpyLowerer(LowererParts):
    def call_numpy(self, e: ir.Call, callee: Callee) -> llir.Value:
        name, result = callee.name, self.tf.types[e.nid]
        assert isinstance(result, Scalar)
        if name == "where":
            return self._where(e, result)
        if name == "clip":
            return self._clip(e, result)
        if name == "power":  # NumPy scalars' **: C's pow, integer powers wrap, negative ones raise
            left = self.expr(e.args[0])
            return self._binop_values(
                "**", left, self.tf.types[e.args[0].nid], e.args[1], OpTypes(result, result, result), e.loc
            )
        loop = callee.arg_types[0]
        assert isinstance(loop, Scalar)
        args = [self.coerce(a, t, "arith") for a, t in zip(e.args, callee.arg_types)]
        classify = name in ("isnan", "isinf", "isfinite")
        if loop.kind != "f":  # integers and bools are never NaN or infinite
            return llir.Constant(I1, int(name == "isfinite")) if classify else self._integer(name, args, loop)
        # floats: f16 in f32, rounded once at the end
        work = F32 if loop == F16 else loop
        args = [self.ops.convert(a, loop, work) for a in args]
        value = self._float(name, args, work)
        return value if classify else self.ops.convert(value, work, result)

    # ------------------------------------------------------------------ floats
    def _float(self, name: str, args: list[llir.Value], s: Scalar) -> llir.Value:
        b, ops = self.b, self.ops
        x = args[0]
        if name == "copysign":
            return intrinsics.copysign(ops, x, args[1])
        if name in _C_FUNCTIONS:
            return intrinsics.math_call(ops, _C_FUNCTIONS[name], args)
        if name == "rint":
            return b.call(ops.intrinsic("llvm.rint", [x.type]), [x])
        if name == "absolute":
            return ops.abs(x, s)
        if name == "square":
            return b.fmul(x, x, flags=ops.fp_flags)
        if name in _DEGREES:
            num, den = (s.dtype.type(v) for v in _DEGREES[name])
            return b.fmul(x, llir.Constant(x.type, float(num / den)), flags=ops.fp_flags)
        if name == "sign":  # x > 0 ? 1 : x < 0 ? -1 : x == 0 ? 0 : x (NaN stays NaN; -0.0 gives 0.0)
            one, zero = llir.Constant(x.type, 1.0), llir.Constant(x.type, 0.0)
            nonzero = b.select(b.fcmp_ordered(">", x, zero), one, b.fsub(zero, one))
            return b.select(b.fcmp_ordered("!=", x, zero), nonzero, b.select(b.fcmp_ordered("==", x, zero), zero, x))
        y = args[1]
        isnan = self._isnan
        if name == "minimum":  # a < b or a is NaN ? a : b (on equal values, b: minimum(0.0, -0.0) is -0.0)
            return b.select(b.or_(b.fcmp_ordered("<", x, y), isnan(x)), x, y)
        if name == "maximum":
            return b.select(b.or_(b.fcmp_ordered(">", x, y), isnan(x)), x, y)
        if name == "fmin":  # a < b or b is NaN ? a : b (NaN only where both are)
            return b.select(b.or_(b.fcmp_ordered("<", x, y), isnan(y)), x, y)
        if name == "fmax":
            return b.select(b.or_(b.fcmp_ordered(">", x, y), isnan(y)), x, y)
        raise AssertionError(name)

    def _isnan(self, v: llir.Value) -> llir.Value:
        return intrinsics.math_call(self.ops, "isnan", [v])

    # ------------------------------------------------------ integers and bools
    def _integer(self, name: str, args: list[llir.Value], s: Scalar) -> llir.Value:
        b, ops = self.b, self.ops
        x = args[0]
        if name in ("floor", "ceil", "trunc"):  # NumPy 2: of an integer, that integer
            return x
        if name == "absolute":
            return ops.abs(x, s)
        if name == "square":
            return b.mul(x, x)
        if name == "sign":
            zero = llir.Constant(x.type, 0)
            positive = b.zext(ops.compare(">", x, zero, s, s), x.type)
            if s.kind == "u":
                return positive
            return b.sub(positive, b.zext(ops.compare("<", x, zero, s, s), x.type))
        if name in ("minimum", "fmin", "maximum", "fmax"):
            return ops.minmax("min" if name in ("minimum", "fmin") else "max", args, s)
        raise AssertionError(f"np.{name} of {s}")

    # ----------------------------------------------------------- where, clip
    def _where(self, e: ir.Call, result: Scalar) -> llir.Value:
        """Both values are computed and converted, as NumPy's arguments are: a Python int the type cannot
        hold raises OverflowError whichever value is chosen (NumPy 2.5; 2.4 wrapped it)."""
        condition = self.condition(e.args[0])
        a, b_ = (self.coerce(n, result, "arith") for n in e.args[1:])
        return self.b.select(condition, a, b_)

    def _clip(self, e: ir.Call, result: Scalar) -> llir.Value:
        """NumPy's clip: min(max(x, lo), hi), where max(a, b) is a if a is NaN else (a >= b ? a : b) and
        min likewise (x itself where it equals a bound: its zero's sign). A Python int bound beyond the
        integer type on its own side is no bound (NumPy 2); one beyond it on the other side raises
        OverflowError, as NumPy does."""
        b = self.b
        x = self.coerce(e.args[0], result, "arith")
        bounds = []
        for node, side in zip(e.args[1:], ("lo", "hi")):
            t = self.tf.types[node.nid]
            if result.kind in "iu" and isinstance(t, Weak) and t.kind == "int":
                value = self.coerce(node, WEAK_INT)
                info = np.iinfo(result.dtype)
                limit = int(info.min if side == "lo" else info.max)
                if -(1 << 63) < limit < (1 << 63) - 1:  # else every value held in an i64 is within it
                    bound = llir.Constant(value.type, limit)
                    beyond = b.icmp_signed("<" if side == "lo" else ">", value, bound)
                    value = b.select(beyond, bound, value)
                bounds.append(self.convert_checked(value, WEAK_INT, result, node.loc, "arith"))
            else:
                bounds.append(self.coerce(node, result, "arith"))
        lo, hi = bounds
        if result.kind != "f":
            return self.ops.minmax("min", [self.ops.minmax("max", [x, lo], result), hi], result)
        work = F32 if result == F16 else result
        x, lo, hi = (self.ops.convert(v, result, work) for v in (x, lo, hi))
        raised = b.select(b.or_(b.fcmp_ordered(">=", x, lo), self._isnan(x)), x, lo)  # x where equal (its zero)
        clipped = b.select(b.or_(b.fcmp_ordered("<=", raised, hi), self._isnan(raised)), raised, hi)
        return self.ops.convert(clipped, work, result)
