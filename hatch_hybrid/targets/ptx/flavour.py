"""NVPTX's lowering flavour: libdevice's math, constant memory for tables, and where ptxas must be kept from
changing a result (each hook says what it found)."""

from __future__ import annotations

from llvmlite import ir as llir

from ...lower.abi import TRIPLE
from ...lower.flavour import Flavour
from ...lower.ops import I32, I64, PTR, signalling
from ...lower.tables import CONSTANT, CONSTANT_BANK_BYTES, GLOBAL
from ...types import Scalar


class PtxFlavour(Flavour):
    name = "ptx"
    triple = TRIPLE

    def pow(self, b: llir.IRBuilder, a: llir.Value, e: llir.Value, s: Scalar, result: llir.Value) -> llir.Value:
        # the C library's pow (the Python path's) gives NaN where either operand is a signalling NaN
        # (sNaN ** 0, 1 ** sNaN), libdevice's 1
        either = b.or_(signalling(b, a, s), signalling(b, e, s))
        return b.select(either, b.fadd(a, e), result)

    def shift_count(self, b: llir.IRBuilder, n: llir.Value, s: Scalar) -> llir.Value:
        if s.bits != 64:
            return n
        # NVPTX folds the width test that follows into PTX's shl/shr (which give 0 or the sign from the width
        # on), but passes them the count's low 32 bits: `7 << 2**32` gave 7. Count 2**32 and up as 255
        limit = llir.Constant(n.type, 255)
        return b.select(b.icmp_unsigned(">", n, limit), limit, n)

    def int_abs(self, b: llir.IRBuilder, v: llir.Value, s: Scalar) -> llir.Value | None:
        if s.bits >= 64:
            return None
        # ptxas takes PTX's abs to be non-negative, which abs of the most negative value is not (it wraps, as
        # NumPy's does): take abs twice as wide, where no input is the most negative value, behind inline asm
        # that LLVM cannot fold back, then wrap by truncating
        wide, reg, suffix = (I32, "r", "s32") if s.bits < 32 else (I64, "l", "s64")
        asm = llir.InlineAsm(llir.FunctionType(wide, [wide]), f"abs.{suffix} $0, $1;", f"={reg},{reg}")
        return b.trunc(b.call(asm, [b.sext(v, wide)]), v.type)

    def int_minmax(self, b: llir.IRBuilder, name: str, values: list[llir.Value], s: Scalar) -> llir.Value | None:
        """min/max of 8- and 16-bit integers, taken on 32-bit registers: ptxas miscompiled ``min.s16`` of a
        ``neg.s16`` result (``min(x, -y, z)`` of 3, 1, 0 gave 0), and LLVM narrows 32-bit min/max of extended
        values back to 16 bits, so the 32-bit one is inline PTX."""
        if s.bits >= 32:
            return None
        signed = s.kind == "i"
        suffix = "s32" if signed else "u32"
        asm = llir.InlineAsm(llir.FunctionType(I32, [I32, I32]), f"{name}.{suffix} $0, $1, $2;", "=r,r,r")
        wide = [b.sext(v, I32) if signed else b.zext(v, I32) for v in values]
        result = wide[0]
        for v in wide[1:]:
            result = b.call(asm, [result, v])
        return b.trunc(result, values[0].type)

    def table_space(self, used: dict[int, int], size: int) -> int:
        """Constant memory (cached, broadcast to a warp) while the 64 KiB bank lasts, then global memory."""
        return CONSTANT if used.get(CONSTANT, 0) + size <= CONSTANT_BANK_BYTES else GLOBAL

    def table_pointer(self, b: llir.IRBuilder, table: llir.GlobalVariable) -> llir.Value:
        return b.addrspacecast(table, PTR)
