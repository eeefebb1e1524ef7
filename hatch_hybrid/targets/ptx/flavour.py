"""NVPTX's lowering flavour: kernels as entry points (``nvvm.annotations``), libdevice's math, the error
slot in global memory, constant memory for tables, and where ptxas must be kept from changing a result
(each hook says what it found)."""

from __future__ import annotations

from typing import Any

from llvmlite import ir as llir

from ... import ir
from ...errors import Loc
from ...lower.abi import ERROR_SLOT, INDEX32_SUFFIX
from ...lower.calls import shuffle_width
from ...lower.flavour import Flavour
from ...lower.function import ModuleLowerer
from ...lower.ops import I8, I32, I64, PTR, VOID, signalling
from ...lower.tables import CONSTANT, CONSTANT_BANK_BYTES, GLOBAL
from ...typecheck.typed import Callee, TypedFunction
from ...types import WEAK_INT, Scalar
from . import intrinsics

TRIPLE = "nvptx64-nvidia-cuda"


def lower_kernel(lowerer: ModuleLowerer, tf: TypedFunction, index32: bool = False) -> llir.Module:
    """The kernel as an entry point; with ``index32`` also its 32-bit-index variant (``symbol`` +
    :data:`INDEX32_SUFFIX`), which helpers get their own copies for."""
    md = lowerer.module.add_named_metadata("nvvm.annotations")
    for suffix in ("", INDEX32_SUFFIX) if index32 else ("",):
        lowerer.suffix = suffix
        kernel = lowerer.function(tf)
        lowerer.lower_pending()
        md.add(
            lowerer.module.add_metadata([kernel, llir.MetaDataString(lowerer.module, "kernel"), llir.Constant(I32, 1)])
        )
    lowerer.suffix = ""
    return lowerer.module


class PtxFlavour(Flavour):
    name = "ptx"
    triple = TRIPLE

    def __init__(self) -> None:
        self._error_slot: llir.GlobalVariable | None = None

    def error_slot(self, module: llir.Module) -> llir.GlobalVariable:
        """``hybrid_error``: where the first failed device-side check of a launch records itself
        (site, two values); the runtime reads and clears it. A check never traps: a trap would leave
        the CUDA context unusable for the rest of the process."""
        if self._error_slot is None:
            gv = llir.GlobalVariable(module, llir.ArrayType(I64, 4), ERROR_SLOT, addrspace=1)
            gv.initializer = llir.Constant(gv.value_type, None)
            gv.align = 8
            self._error_slot = gv
        return self._error_slot

    def math_function(self, module: llir.Module, name: str, ret: llir.Type, args: list[llir.Value]) -> llir.Function:
        """libdevice's ``__nv_<name>`` (linked into the module before O3: targets/ptx/optimize.py)."""
        return super().math_function(module, f"__nv_{name}", ret, args)

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
        # ptxas takes PTX's abs to be non-negative, which abs of the most negative value is not (it wraps, as
        # NumPy's does), and folds what follows by it (`7 // abs(x)` of -2**63 gave 0, not -1: found by the
        # fuzzer on an H200). Below 64 bits: abs twice as wide, where no input is the most negative value, then
        # wrapped by truncating; of 64 bits: the most negative value selected back explicitly. Both in inline
        # asm, which LLVM cannot fold back into its own abs (NVPTX emits that as PTX's abs)
        if s.bits >= 64:
            asm = llir.InlineAsm(
                llir.FunctionType(I64, [I64]),
                "{ .reg .s64 t; .reg .pred p; abs.s64 t, $1; setp.eq.s64 p, $1, 0x8000000000000000; "
                "selp.b64 $0, $1, t, p; }",
                "=l,l",
            )
            return b.call(asm, [v])
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

    # ------------------------------------------------------- the GPU's own operations
    def thread_register(self, fl: Any, name: str) -> llir.Value:
        return intrinsics.special_register(fl.ops, name)

    def gpu_call(self, fl: Any, e: ir.Call, callee: Callee) -> Any:
        name = callee.name
        if name == "syncthreads":
            intrinsics.syncthreads(fl.ops)
            return None
        if name == "threadfence":
            intrinsics.threadfence(fl.ops)
            return None
        if name == "grid_wait":
            intrinsics.grid_wait(fl.ops, self.error_slot(fl.parent.module))
            return None
        if name == "lane_id":
            return intrinsics.lane_id(fl.ops)
        if name == "lanemask_lt":
            return intrinsics.lanemask_lt(fl.ops)
        # a partial mask (cuda.*_sync(m, ...) with m not the whole warp's): the lanes that take part
        mask = fl.ops.b.trunc(fl.coerce(e.mask, WEAK_INT), I32) if e.mask is not None else None
        if name == "syncwarp":
            return intrinsics.syncwarp(fl.ops, mask)
        if name.startswith("shfl_"):
            value_t = fl.tf.types[e.nid]
            value, lane = fl.coerce(e.args[0], value_t), fl.coerce(e.args[1], WEAK_INT)
            return intrinsics.shuffle(fl.ops, name, value, lane, shuffle_width(fl.tf, e), mask)
        if name == "match_any":
            return intrinsics.match_any(fl.ops, fl.coerce(e.args[0], fl.tf.callees[e.nid].arg_types[0]), mask)
        if name in ("ballot", "all_", "any_"):
            return intrinsics.vote(fl.ops, name, fl.condition(e.args[0]), mask)
        return intrinsics.special_register(fl.ops, name)

    def static_shared(self, fl: Any, key: tuple[str, int], size: int, item: int, shape: Any, loc: Loc) -> llir.Value:
        return fl.b.addrspacecast(intrinsics.shared_global(fl.parent.module, I8, size, max(item, 8)), PTR)

    def dynamic_shared(self, fl: Any, item: int) -> tuple[llir.Value, llir.Value]:
        b = fl.b
        ptr = b.addrspacecast(intrinsics.dynamic_shared(fl.parent.module), PTR)
        return ptr, b.zext(intrinsics.dynamic_shared_size(fl.ops), I64)

    def check_failed(self, fl: Any, ok: llir.Value, site_id: int, kind: str, values: tuple[llir.Value, ...]) -> None:
        """Record the site (and up to two i64 values) in the error slot if it is still empty, then end the
        thread (PTX ``exit``; never a trap, which would leave the CUDA context unusable)."""
        b = fl.b
        fail = fl.fn.append_basic_block(f"{kind}.fail")
        cont = fl.fn.append_basic_block(f"{kind}.ok")
        b.cbranch(ok, cont, fail)
        b.position_at_end(fail)
        slot = b.addrspacecast(self.error_slot(fl.parent.module), PTR)
        first = b.extract_value(
            b.cmpxchg(slot, llir.Constant(I64, 0), llir.Constant(I64, site_id), "monotonic", "monotonic"),
            1,
        )
        record, done = fl.fn.append_basic_block(f"{kind}.record"), fl.fn.append_basic_block(f"{kind}.exit")
        b.cbranch(first, record, done)
        b.position_at_end(record)
        for k, v in enumerate(values[:2]):
            b.store(v, b.gep(slot, [llir.Constant(I64, k + 1)], source_etype=I64), align=8)
        b.branch(done)
        b.position_at_end(done)
        b.call(llir.InlineAsm(llir.FunctionType(VOID, []), "exit;", "", side_effect=True), [])
        b.unreachable()
        b.position_at_end(cont)

    def print_header(self, fl: Any) -> llir.Value:
        return fl.b.addrspacecast(fl.parent.prints.buffer(fl.ops.module), PTR)
