"""``math`` functions and atomics in LLVM IR, as every LLVM target lowers them (the GPU's own intrinsics:
the targets' flavours, :mod:`hatch_hybrid.targets.ptx.intrinsics` and
:mod:`hatch_hybrid.targets.host.lowering.context`)."""

from __future__ import annotations

import math

from llvmlite import ir as llir

from ..types import Scalar
from .ops import F32, I1, I32, I64, Ops

# math functions that are one PTX instruction as LLVM intrinsics; the rest come from libdevice
_LLVM_MATH = {
    "sqrt": "llvm.sqrt",
    "fabs": "llvm.fabs",
    "floor": "llvm.floor",
    "ceil": "llvm.ceil",
    "trunc": "llvm.trunc",
    "copysign": "llvm.copysign",
    "fma": "llvm.fma",  # one rounding, as C's fma and Python 3.13's math.fma
}
_CLASSIFY = {"isnan", "isinf", "isfinite"}
_SCALE = {"degrees": 180.0 / math.pi, "radians": math.pi / 180.0}
# Python's names where the C library (and libdevice) name the function differently
_LIBDEVICE_NAMES = {"gamma": "tgamma"}
# exactly rounded at any precision: computing them in f32 for an f32 argument gives the same bits
EXACT_IN_F32 = {"sqrt", "fabs"}
# @kernel(fastmath=True): f32 math on f32 arguments uses the target's approximate variants where it has
# them (``fast_<name>``: libdevice's, one PTX instruction each: sin.approx, ex2.approx, lg2.approx, ...;
# the C library's own function natively); others use their f32 versions
FAST_F32 = {
    "sin": "fast_sinf",
    "cos": "fast_cosf",
    "tan": "fast_tanf",
    "exp": "fast_expf",
    "log": "fast_logf",
    "log2": "fast_log2f",
    "log10": "fast_log10f",
    "pow": "fast_powf",
}


def bit_op(ops: Ops, name: str, v: llir.Value) -> llir.Value:
    """CUDA's ``__popc``, ``__clz``, ``__ffs`` (the 1-based position of the lowest set bit, 0 for 0) and
    ``__brev`` in the operand's width, through LLVM's bit intrinsics (PTX's popc, clz, brev; x86's
    popcnt, lzcnt, tzcnt where the CPU level has them)."""
    b, ty = ops.b, v.type
    if name == "popc":
        return b.call(ops.intrinsic("llvm.ctpop", [ty]), [v])
    if name == "brev":
        return b.call(ops.intrinsic("llvm.bitreverse", [ty]), [v])
    counted = "llvm.ctlz" if name == "clz" else "llvm.cttz"
    full = f"{counted}.{ty}"
    fn = ops.module.globals.get(full) or llir.Function(ops.module, llir.FunctionType(ty, [ty, I1]), full)
    zeros = b.call(fn, [v, llir.Constant(I1, 0)])  # defined for 0: the width
    if name == "clz":
        return zeros
    zero = llir.Constant(ty, 0)
    return b.select(b.icmp_unsigned("==", v, zero), zero, b.add(zeros, llir.Constant(ty, 1)))


def copysign(ops: Ops, x: llir.Value, y: llir.Value) -> llir.Value:
    """``math.copysign(x, y)`` and ``np.copysign(x, y)``: x with y's sign, a NaN y counting as positive. IEEE
    754 leaves the sign of a NaN result open (the GPU gives the canonical NaN, +, where x86 gives its
    default NaN, -, or passes an operand's on, and the C library and NumPy make their own): read as it
    is, it would make ``copysign(1.0, math.acos(2.0))`` and ``copysign(1.0, inf - inf)`` differ between
    the paths. The Python path reads it so too (``hybrid_runtime.python_math``); docs/language.md."""
    b = ops.b
    fabs = ops.intrinsic("llvm.fabs", [y.type])
    sign = b.select(b.fcmp_unordered("uno", y, y), b.call(fabs, [y]), y)
    return b.call(ops.intrinsic("llvm.copysign", [x.type], nargs=2), [x, sign], fastmath=ops.fp_flags)


def math_call(ops: Ops, name: str, args: list[llir.Value]) -> llir.Value:
    """A ``math`` function on f64 (or, for :data:`EXACT_IN_F32` and with fastmath, f32) operands
    (``ldexp``'s exponent: i64)."""
    b = ops.b
    ty = args[0].type
    if name in _LLVM_MATH:
        return b.call(ops.intrinsic(_LLVM_MATH[name], [ty], nargs=len(args)), args, fastmath=ops.fp_flags)
    if name in _CLASSIFY:
        if name == "isnan":
            return b.fcmp_unordered("uno", args[0], args[0])
        return ops.is_inf(args[0]) if name == "isinf" else ops.is_finite(args[0])
    if name in _SCALE:  # CPython: x * (180 / pi), x * (pi / 180), the constants rounded once
        return b.fmul(args[0], llir.Constant(ty, _SCALE[name]), flags=ops.fp_flags)
    if name == "ldexp":  # C takes an int exponent; beyond +-2**16 every result is 0 or inf already
        low, high = llir.Constant(I64, -(1 << 16)), llir.Constant(I64, 1 << 16)
        clamped = ops.intrinsic("llvm.smax", [I64], nargs=2)
        n = b.call(ops.intrinsic("llvm.smin", [I64], nargs=2), [b.call(clamped, [args[1], low]), high])
        args = [args[0], b.trunc(n, I32)]
    if ops.fastmath and ty == F32 and name in FAST_F32:
        return ops.libcall(FAST_F32[name], args, ty)
    if name == "pow":  # CPython's math.pow: 1.0 for pow(x, 0) and pow(1, y), whatever x and y
        return ops.python_power(args[0], args[1], Scalar("f32" if ty == F32 else "f64"))
    suffix = "f" if ty == F32 else ""
    return ops.libcall(f"{_LIBDEVICE_NAMES.get(name, name)}{suffix}", args, ty)


_RMW = {
    "atomic_add": ("add", "add", "fadd"),
    "atomic_min": ("min", "umin", "fmin"),
    "atomic_max": ("max", "umax", "fmax"),
    "atomic_exch": ("xchg", "xchg", "xchg"),
    "atomic_sub": ("sub", "sub", "fsub"),
    "atomic_and": ("and", "and", ""),
    "atomic_or": ("or", "or", ""),
    "atomic_xor": ("xor", "xor", ""),
    "atomic_inc": ("", "uinc_wrap", ""),  # CUDA's atomicInc/atomicDec (PTX atom.inc/dec)
    "atomic_dec": ("", "udec_wrap", ""),
}


def ordered_extreme(ops: Ops, is_max: bool, ptr: llir.Value, dtype: Scalar, value: llir.Value) -> llir.Value:
    """numba's ``cuda.atomic.max/min`` of floats: the value is stored only where the ordered comparison says
    it is larger (smaller) than the one in memory, so a NaN already stored stays and a NaN value changes
    nothing (``nanmax``/``nanmin``, the language's ``atomic_max``, take the number over a NaN). A
    compare-and-swap loop on the bits, as numba's is; returns the old value."""
    b = ops.b
    bits = llir.IntType(dtype.dtype.itemsize * 8)
    start = b.block
    head, attempt, done = (b.function.append_basic_block(f"atomic.ext.{s}") for s in ("head", "try", "done"))
    first = b.load_atomic(ptr, "monotonic", dtype.dtype.itemsize, typ=bits)
    b.branch(head)
    b.position_at_end(head)
    seen = b.phi(bits)
    seen.add_incoming(first, start)
    old = b.bitcast(seen, value.type)
    b.cbranch(b.fcmp_ordered("<" if is_max else ">", old, value), attempt, done)
    b.position_at_end(attempt)
    pair = b.cmpxchg(ptr, seen, b.bitcast(value, bits), "monotonic", "monotonic")
    seen.add_incoming(b.extract_value(pair, 0), attempt)
    b.cbranch(b.extract_value(pair, 1), done, head)
    b.position_at_end(done)
    result = b.phi(bits)
    result.add_incoming(seen, head)
    result.add_incoming(seen, attempt)
    return b.bitcast(result, value.type)


def atomic(ops: Ops, name: str, ptr: llir.Value, dtype: Scalar, values: list[llir.Value]) -> llir.Value:
    b = ops.b
    if name == "atomic_cas":
        expected, new = values
        pair = b.cmpxchg(ptr, expected, new, "monotonic", "monotonic")
        return b.extract_value(pair, 0)
    if name in ("atomic_max_ordered", "atomic_min_ordered"):
        if dtype.kind != "f":
            name = name.removesuffix("_ordered")
        else:
            return ordered_extreme(ops, name == "atomic_max_ordered", ptr, dtype, values[0])
    signed, unsigned, floating = _RMW[name]
    op = floating if dtype.kind == "f" else (signed if dtype.kind == "i" else unsigned)
    return b.atomic_rmw(op, ptr, values[0], "monotonic")


def plain_rmw(ops: Ops, name: str, ptr: llir.Value, dtype: Scalar, values: list[llir.Value]) -> llir.Value:
    """The atomic ``name`` as an ordinary read-modify-write of ``ptr``: where the memory is the block's own
    and its threads run one after another (shared memory in native CPU code: a block runs on one worker,
    its threads as loops), this is the atomic, in the same order, without a locked instruction or a
    compare-and-swap loop. Returns the old value, as the atomic does."""
    b = ops.b
    size = dtype.dtype.itemsize
    old = b.load(ptr, typ=values[-1].type, align=size)
    value = values[-1]
    floating = dtype.kind == "f"
    if name in ("atomic_max_ordered", "atomic_min_ordered") and not floating:
        name = name.removesuffix("_ordered")
    if name == "atomic_cas":  # store the new value where the old one is the expected one (compared as bits)
        expected = values[0]
        if floating:
            bits = llir.IntType(size * 8)
            same = b.icmp_unsigned("==", b.bitcast(old, bits), b.bitcast(expected, bits))
        else:
            same = b.icmp_unsigned("==", old, expected)
        new = b.select(same, value, old)
    elif name in ("atomic_max_ordered", "atomic_min_ordered"):  # numba's: only where ordered-larger (smaller)
        new = b.select(b.fcmp_ordered("<" if name == "atomic_max_ordered" else ">", old, value), value, old)
    elif name in ("atomic_min", "atomic_max") and floating:  # atomicrmw fmin/fmax: a NaN operand is ignored
        which = "llvm.minnum" if name == "atomic_min" else "llvm.maxnum"
        new = b.call(ops.intrinsic(which, [old.type], 2), [old, value])
    elif name in ("atomic_min", "atomic_max"):
        compare = b.icmp_signed if dtype.kind == "i" else b.icmp_unsigned
        new = b.select(compare("<" if name == "atomic_min" else ">", value, old), value, old)
    elif name == "atomic_inc":  # CUDA's atomicInc: 0 once the old value reaches the operand, else one more
        wrap = b.icmp_unsigned(">=", old, value)
        new = b.select(wrap, llir.Constant(old.type, 0), b.add(old, llir.Constant(old.type, 1)))
    elif name == "atomic_dec":  # atomicDec: the operand where the old value is 0 or above it, else one less
        zero = b.icmp_unsigned("==", old, llir.Constant(old.type, 0))
        wrap = b.or_(zero, b.icmp_unsigned(">", old, value))
        new = b.select(wrap, value, b.sub(old, llir.Constant(old.type, 1)))
    elif name == "atomic_exch":
        new = value
    else:
        op = {"atomic_add": "add", "atomic_sub": "sub", "atomic_and": "and_", "atomic_or": "or_"}.get(name, "xor")
        if floating:
            new = (b.fadd if op == "add" else b.fsub)(old, value)
        else:
            new = getattr(b, op)(old, value)
    b.store(new, ptr, align=size)
    return old
