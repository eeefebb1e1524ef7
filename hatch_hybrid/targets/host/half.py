"""Half-precision conversions that the native libraries carry themselves.

LLVM converts f16 to and from f32 on x86-64 CPUs without F16C (the x86-64-v2 baseline), and f64 to
f16 on every x86-64 CPU (F16C has no instruction for it; a detour through f32 would round twice), by
calling compiler-rt's ``__extendhfsf2``, ``__truncsfhf2`` and ``__truncdfhf2``. The libraries are
linked without compiler-rt or libgcc (``-nostdlib``: lld-link refuses the DLL, and on Linux and macOS
the library would not load), so each x86-64 library whose code calls them gets them from this
module: built from integer operations only (LLVM cannot turn them back into calls of themselves),
rounding to nearest even as compiler-rt, the hardware and NumPy do; hidden, so that no other code
in the process binds to them. AArch64 has the conversions as instructions and needs none of this.

The f16 side is passed as LLVM passes it to these calls: in an XMM register on Linux and Windows
(GCC's ``_Float16`` convention), as a 16-bit integer in a general register on macOS (Apple's
compiler-rt takes and returns ``uint16_t``).
"""

from __future__ import annotations

from functools import cache

import llvmlite.binding as llvm
from llvmlite import ir as llir

from .emit import target_machine

#: the functions, and the source float type each converts from or to
BUILTINS = {"__extendhfsf2": llir.FloatType(), "__truncsfhf2": llir.FloatType(), "__truncdfhf2": llir.DoubleType()}
F16 = llir.HalfType()
I16 = llir.IntType(16)


def needed(objects: list[bytes]) -> bool:
    """Whether any of these object files refers to one of the conversions (by name; a name that turns
    up for another reason only links a few unused hidden functions in)."""
    return any(name.encode() in blob for blob in objects for name in BUILTINS)


@cache
def builtins_object(target: str) -> bytes:
    """An object file of the three conversions for ``target``'s baseline CPU."""
    tm = target_machine(target)
    mod = llvm.parse_assembly(str(_module(I16 if "apple" in tm.triple else F16)))
    mod.triple = tm.triple
    mod.data_layout = str(tm.target_data)
    for fn in mod.functions:
        if fn.name in BUILTINS:
            fn.visibility = "hidden"
    mod.verify()
    pb = llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options(speed_level=2))
    pb.getModulePassManager().run(mod, pb)
    return bytes(tm.emit_object(mod))


def _module(half: llir.Type) -> llir.Module:
    """The conversions, taking or returning the f16 value as ``half`` (the LLVM type, or i16)."""
    module = llir.Module("hybrid_half")
    _extend(module, half)
    for name, src in BUILTINS.items():
        if name.startswith("__trunc"):
            _truncate(module, name, src, half)
    return module


def _extend(module: llir.Module, half: llir.Type) -> None:
    """f16 -> f32: exact. Subnormals are normalised by their leading zeros; NaN payloads are kept."""
    i32 = llir.IntType(32)
    fn = llir.Function(module, llir.FunctionType(llir.FloatType(), [half]), "__extendhfsf2")
    b = llir.IRBuilder(fn.append_basic_block("entry"))

    def c(v: int) -> llir.Constant:
        return llir.Constant(i32, v)

    h = b.zext(fn.args[0] if half == I16 else b.bitcast(fn.args[0], I16), i32)
    sign = b.shl(b.and_(h, c(0x8000)), c(16))
    exp = b.and_(b.lshr(h, c(10)), c(0x1F))
    mant = b.and_(h, c(0x3FF))
    normal = b.or_(b.shl(b.add(exp, c(127 - 15)), c(23)), b.shl(mant, c(13)))
    inf_nan = b.or_(c(0x7F800000), b.shl(mant, c(13)))
    # a subnormal mant * 2**-24: shift the leading one into the implicit bit (mant == 0: shift 11, unused)
    ctlz = llir.Function(module, llir.FunctionType(i32, [i32, llir.IntType(1)]), "llvm.ctlz.i32")
    shift = b.sub(b.call(ctlz, [mant, llir.Constant(llir.IntType(1), 0)]), c(21))
    subnormal = b.or_(b.shl(b.sub(c(127 - 14), shift), c(23)), b.shl(b.and_(b.shl(mant, shift), c(0x3FF)), c(13)))
    tiny = b.select(b.icmp_unsigned("==", mant, c(0)), c(0), subnormal)
    bits = b.select(
        b.icmp_unsigned("==", exp, c(0x1F)), inf_nan, b.select(b.icmp_unsigned("==", exp, c(0)), tiny, normal)
    )
    b.ret(b.bitcast(b.or_(bits, sign), llir.FloatType()))


def _truncate(module: llir.Module, name: str, src: llir.Type, half: llir.Type) -> None:
    """f32 or f64 -> f16, rounded to nearest even (compiler-rt's ``fp_trunc``, as straight-line code)."""
    width, man = (32, 23) if isinstance(src, llir.FloatType) else (64, 52)
    bias = (1 << (width - man - 2)) - 1
    ity = llir.IntType(width)
    fn = llir.Function(module, llir.FunctionType(half, [src]), name)
    b = llir.IRBuilder(fn.append_basic_block("entry"))

    def c(v: int) -> llir.Constant:
        return llir.Constant(ity, v)

    drop = man - 10  # significand bits that f16 has not
    round_mask, halfway = c((1 << drop) - 1), c(1 << (drop - 1))

    def rounded(kept: llir.Value, source: llir.Value) -> llir.Value:
        rest = b.and_(source, round_mask)
        up = b.or_(
            b.icmp_unsigned(">", rest, halfway),
            b.and_(b.icmp_unsigned("==", rest, halfway), b.trunc(kept, llir.IntType(1))),
        )
        return b.add(kept, b.zext(up, ity))

    a = b.bitcast(fn.args[0], ity)
    magnitude = b.and_(a, c((1 << (width - 1)) - 1))
    smallest_normal, too_large = c((bias - 14) << man), c((bias + 16) << man)  # 2**-14 and 2**16
    # f16 normals (rounding the largest ones up carries into the exponent: inf, as it should)
    normal = rounded(b.sub(b.lshr(magnitude, c(drop)), c((bias - 15) << 10)), magnitude)
    # subnormals and zero: the significand with its implicit bit, shifted right keeping a sticky bit
    shift = b.sub(c(bias - 14), b.lshr(magnitude, c(man)))
    clamped = b.select(b.icmp_unsigned(">", shift, c(man + 1)), c(man + 1), shift)
    clamped = b.select(b.icmp_unsigned("<", clamped, c(1)), c(1), clamped)
    significand = b.or_(b.and_(a, c((1 << man) - 1)), c(1 << man))
    sticky = b.icmp_unsigned("!=", b.shl(significand, b.sub(c(width), clamped)), c(0))
    denormal = b.or_(b.lshr(significand, clamped), b.zext(sticky, ity))
    subnormal = rounded(b.lshr(denormal, c(drop)), denormal)
    subnormal = b.select(b.icmp_unsigned(">", shift, c(man)), c(0), subnormal)
    # NaN stays NaN (quiet, the top of its payload kept); finite values from 2**16 up and inf are inf
    nan = b.or_(c(0x7E00), b.and_(b.lshr(magnitude, c(drop)), c(0x1FF)))
    is_nan = b.icmp_unsigned(">", magnitude, c(((1 << (width - man - 1)) - 1) << man))
    big = b.select(is_nan, nan, c(0x7C00))
    small = b.select(b.icmp_unsigned("<", magnitude, smallest_normal), subnormal, normal)
    bits = b.select(b.icmp_unsigned(">=", magnitude, too_large), big, small)
    sign = b.and_(b.lshr(a, c(width - 16)), c(0x8000))
    result = b.trunc(b.or_(bits, sign), I16)
    b.ret(result if half == I16 else b.bitcast(result, F16))
