"""GPU intrinsics and ``math`` functions in LLVM IR (NVPTX)."""

from __future__ import annotations

import math

from llvmlite import ir as llir

from ..types import Scalar
from .ops import F32, I32, I64, VOID, Ops, bit_width, declare

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
# Python's names where libdevice (and the C library) name the function differently
_LIBDEVICE_NAMES = {"gamma": "tgamma"}
# exactly rounded at any precision: computing them in f32 for an f32 argument gives the same bits
EXACT_IN_F32 = {"sqrt", "fabs"}
# @kernel(fastmath=True): f32 math on f32 arguments uses libdevice's approximate variants (one PTX
# instruction each: sin.approx, ex2.approx, lg2.approx, ...); others use their f32 versions
FAST_F32 = {
    "sin": "__nv_fast_sinf",
    "cos": "__nv_fast_cosf",
    "tan": "__nv_fast_tanf",
    "exp": "__nv_fast_expf",
    "log": "__nv_fast_logf",
    "log2": "__nv_fast_log2f",
    "log10": "__nv_fast_log10f",
    "pow": "__nv_fast_powf",
}

_SREG = {"thread_idx": "tid", "block_idx": "ctaid", "block_dim": "ntid", "grid_dim": "nctaid"}
_GRID = {"x": 2**31, "y": 65536, "z": 65536}
_BLOCK = {"x": 1025, "y": 1025, "z": 65}
_SREG_RANGE = {
    **{("thread_idx", a): (0, _BLOCK[a] - 1) for a in "xyz"},
    **{("block_dim", a): (1, _BLOCK[a]) for a in "xyz"},
    **{("block_idx", a): (0, _GRID[a] - 1) for a in "xyz"},
    **{("grid_dim", a): (1, _GRID[a]) for a in "xyz"},
}


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
    return ops.libcall(f"__nv_{_LIBDEVICE_NAMES.get(name, name)}{suffix}", args, ty)


def special_register(ops: Ops, name: str) -> llir.Value:
    """``thread_idx_x`` ... ``global_size_z`` as i64 (Python ints on the CPU path)."""
    what, axis = name.rsplit("_", 1)
    if what == "global_tid":
        ctaid, ntid, tid = (special_register(ops, f"{w}_{axis}") for w in ("block_idx", "block_dim", "thread_idx"))
        return ops.b.add(ops.b.mul(ctaid, ntid, flags=["nuw", "nsw"]), tid, flags=["nuw", "nsw"])
    if what == "global_size":
        return ops.b.mul(
            special_register(ops, f"grid_dim_{axis}"), special_register(ops, f"block_dim_{axis}"), flags=["nuw", "nsw"]
        )
    reg = f"llvm.nvvm.read.ptx.sreg.{_SREG[what]}.{axis}"
    fn = declare(ops.module, reg, I32, [])
    value = ops.b.call(fn, [])
    # What PTX guarantees about each register: sizes are positive, indices below them. Telling LLVM
    # lets it compute trip counts of grid-stride loops (and so unroll them) and drop index checks.
    low, high = _SREG_RANGE[(what, axis)]
    value.set_metadata("range", ops.module.add_metadata([llir.Constant(I32, low), llir.Constant(I32, high)]))
    return ops.b.zext(value, I64)


def syncthreads(ops: Ops) -> None:
    fn = ops.module.globals.get("llvm.nvvm.barrier0")
    if fn is None:
        fn = llir.Function(ops.module, llir.FunctionType(VOID, []), "llvm.nvvm.barrier0")
        fn.attributes.add("convergent")
        fn.attributes.add("nounwind")
    ops.b.call(fn, [])


FULL_MASK = 0xFFFFFFFF
# shfl.sync modes and their "c" operand: clamp 31 (whole warp) for all but up, which clamps at 0
_SHUFFLE = {"shfl_down": ("down", 0x1F), "shfl_up": ("up", 0), "shfl_xor": ("bfly", 0x1F), "shfl_idx": ("idx", 0x1F)}


def shuffle(ops: Ops, name: str, value: llir.Value, lane: llir.Value, width: int = 32) -> llir.Value:
    """Any scalar through ``shfl.sync`` (32-bit pieces; 64-bit values in two halves), in segments of
    ``width`` lanes (PTX's segment mask in bits 8-12 of the clamp operand)."""
    b = ops.b
    mode, c = _SHUFFLE[name]
    c |= (32 - width) << 8
    i32 = I32
    lane = b.trunc(lane, i32) if lane.type != i32 else lane
    fn_name = f"llvm.nvvm.shfl.sync.{mode}.i32"
    fn = declare(ops.module, fn_name, i32, [i32] * 4)
    fn.attributes.add("convergent")

    def shfl32(v: llir.Value) -> llir.Value:
        return b.call(fn, [llir.Constant(i32, FULL_MASK), v, lane, llir.Constant(i32, c)])

    ty = value.type
    bits = bit_width(ty)
    as_int = b.bitcast(value, llir.IntType(bits)) if not isinstance(ty, llir.IntType) else value
    if bits <= 32:
        widened = b.zext(as_int, i32) if bits < 32 else as_int
        out = shfl32(widened)
        out = b.trunc(out, llir.IntType(bits)) if bits < 32 else out
    else:
        lo = shfl32(b.trunc(as_int, i32))
        hi = shfl32(b.trunc(b.lshr(as_int, llir.Constant(I64, 32)), i32))
        out = b.or_(b.zext(lo, I64), b.shl(b.zext(hi, I64), llir.Constant(I64, 32)))
    return b.bitcast(out, ty) if not isinstance(ty, llir.IntType) else out


def vote(ops: Ops, name: str, predicate: llir.Value) -> llir.Value:
    b = ops.b
    kind = {"ballot": "ballot", "all_": "all", "any_": "any"}[name]
    ret = I32 if kind == "ballot" else llir.IntType(1)
    fn_name = f"llvm.nvvm.vote.{kind}.sync"
    fn = declare(ops.module, fn_name, ret, [I32, llir.IntType(1)])
    fn.attributes.add("convergent")
    out = b.call(fn, [llir.Constant(I32, FULL_MASK), predicate])
    return b.zext(out, I64) if kind == "ballot" else out


def lane_id(ops: Ops) -> llir.Value:
    fn_name = "llvm.nvvm.read.ptx.sreg.laneid"
    fn = declare(ops.module, fn_name, I32, [])
    return ops.b.zext(ops.b.call(fn, []), I64)


def threadfence(ops: Ops) -> None:
    fn_name = "llvm.nvvm.membar.gl"
    fn = declare(ops.module, fn_name, VOID, [])
    ops.b.call(fn, [])


def shared_global(module: llir.Module, elem: llir.Type, count: int, align: int) -> llir.GlobalVariable:
    n = sum(1 for g in module.global_values if g.name.startswith("__shared_"))
    gv = llir.GlobalVariable(module, llir.ArrayType(elem, count), f"__shared_{n}", addrspace=3)
    gv.linkage = "internal"
    gv.initializer = llir.Constant(gv.value_type, llir.Undefined)
    gv.align = max(align, 16)
    return gv


def dynamic_shared(module: llir.Module) -> llir.GlobalVariable:
    """The block's dynamic shared memory (``shared_bytes=`` at launch), one per module as in CUDA."""
    gv = module.globals.get("__shared_dynamic")
    if gv is None:
        gv = llir.GlobalVariable(module, llir.ArrayType(llir.IntType(8), 0), "__shared_dynamic", addrspace=3)
        gv.linkage = "external"
        gv.align = 16
    return gv


def dynamic_shared_size(ops: Ops) -> llir.Value:
    """``%dynamic_smem_size``: the bytes of dynamic shared memory this launch has."""
    asm = llir.InlineAsm(llir.FunctionType(I32, []), "mov.u32 $0, %dynamic_smem_size;", "=r", side_effect=False)
    return ops.b.call(asm, [])


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


def atomic(ops: Ops, name: str, ptr: llir.Value, dtype: Scalar, values: list[llir.Value]) -> llir.Value:
    b = ops.b
    if name == "atomic_cas":
        expected, new = values
        pair = b.cmpxchg(ptr, expected, new, "monotonic", "monotonic")
        return b.extract_value(pair, 0)
    signed, unsigned, floating = _RMW[name]
    op = floating if dtype.kind == "f" else (signed if dtype.kind == "i" else unsigned)
    return b.atomic_rmw(op, ptr, values[0], "monotonic")
