"""NVPTX's own intrinsics in LLVM IR: thread indices, barriers, warp shuffles and votes, shared memory."""

from __future__ import annotations

from llvmlite import ir as llir

from ...lower.calls import lane_in_mask, shuffle_source_lane
from ...lower.ops import I32, I64, PTR, VOID, Ops, bit_width, declare

_SREG = {"thread_idx": "tid", "block_idx": "ctaid", "block_dim": "ntid", "grid_dim": "nctaid"}
_GRID = {"x": 2**31, "y": 65536, "z": 65536}
_BLOCK = {"x": 1025, "y": 1025, "z": 65}
_SREG_RANGE = {
    **{("thread_idx", a): (0, _BLOCK[a] - 1) for a in "xyz"},
    **{("block_dim", a): (1, _BLOCK[a]) for a in "xyz"},
    **{("block_idx", a): (0, _GRID[a] - 1) for a in "xyz"},
    **{("grid_dim", a): (1, _GRID[a]) for a in "xyz"},
}


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


def shuffle(
    ops: Ops, name: str, value: llir.Value, lane: llir.Value, width: int = 32, mask: llir.Value | None = None
) -> llir.Value:
    """Any scalar through ``shfl.sync`` (32-bit pieces; 64-bit values in two halves), in segments of
    ``width`` lanes (PTX's segment mask in bits 8-12 of the clamp operand). ``mask`` (i32): the lanes that
    take part (None: the whole warp); a lane whose source is not one of them keeps its own value, as
    natively and on the Python path (PTX leaves it undefined)."""
    b = ops.b
    mode, c = _SHUFFLE[name]
    c |= (32 - width) << 8
    i32 = I32
    wide = b.zext(lane, I64) if lane.type != I64 else lane
    lane = b.trunc(lane, i32) if lane.type != i32 else lane
    members = mask if mask is not None else llir.Constant(i32, FULL_MASK)
    fn_name = f"llvm.nvvm.shfl.sync.{mode}.i32"
    fn = declare(ops.module, fn_name, i32, [i32] * 4)
    fn.attributes.add("convergent")

    def shfl32(v: llir.Value) -> llir.Value:
        return b.call(fn, [members, v, lane, llir.Constant(i32, c)])

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
    if mask is not None:  # a source outside the mask: this lane's own value
        src = shuffle_source_lane(b, name, lane_id(ops), wide, width)
        member = b.and_(b.icmp_unsigned("<", src, llir.Constant(I64, 32)), lane_in_mask(b, b.zext(mask, I64), src))
        out = b.select(member, out, as_int)
    return b.bitcast(out, ty) if not isinstance(ty, llir.IntType) else out


def match_any(ops: Ops, value: llir.Value, mask: llir.Value | None = None) -> llir.Value:
    """The lanes whose ``value`` has this lane's bits (``match.any.sync.b32``/``.b64``, sm_70 on), as an i64."""
    b = ops.b
    bits = bit_width(value.type)
    as_int = b.bitcast(value, llir.IntType(bits)) if not isinstance(value.type, llir.IntType) else value
    width = I32 if bits <= 32 else I64
    as_int = b.zext(as_int, width) if bits < width.width else as_int
    fn = declare(ops.module, f"llvm.nvvm.match.any.sync.i{width.width}", I32, [I32, width])
    fn.attributes.add("convergent")
    members = mask if mask is not None else llir.Constant(I32, FULL_MASK)
    return b.zext(b.call(fn, [members, as_int]), I64)


def vote(ops: Ops, name: str, predicate: llir.Value, mask: llir.Value | None = None) -> llir.Value:
    b = ops.b
    kind = {"ballot": "ballot", "all_": "all", "any_": "any"}[name]
    ret = I32 if kind == "ballot" else llir.IntType(1)
    if kind == "ballot" and mask is None and isinstance(predicate, llir.Constant) and predicate.constant in (1, True):
        # ballot(True) is `cuda.activemask()`: the lanes executing here, which in a divergent branch is not
        # the full warp (a full-mask vote.sync there would wait for lanes that never come)
        active = declare(ops.module, "llvm.nvvm.activemask", I32, [])
        active.attributes.add("convergent")
        return b.zext(b.call(active, []), I64)
    fn_name = f"llvm.nvvm.vote.{kind}.sync"
    fn = declare(ops.module, fn_name, ret, [I32, llir.IntType(1)])
    fn.attributes.add("convergent")
    out = b.call(fn, [mask if mask is not None else llir.Constant(I32, FULL_MASK), predicate])
    return b.zext(out, I64) if kind == "ballot" else out


def lane_id(ops: Ops) -> llir.Value:
    fn_name = "llvm.nvvm.read.ptx.sreg.laneid"
    fn = declare(ops.module, fn_name, I32, [])
    return ops.b.zext(ops.b.call(fn, []), I64)


def lanemask_lt(ops: Ops) -> llir.Value:
    """The lanes below this one (PTX's %lanemask_lt)."""
    fn = declare(ops.module, "llvm.nvvm.read.ptx.sreg.lanemask.lt", I32, [])
    return ops.b.zext(ops.b.call(fn, []), I64)


def syncwarp(ops: Ops, mask: llir.Value | None = None) -> llir.Value:
    """CUDA's ``__syncwarp(mask)``: the lanes meet, and their memory operations are ordered."""
    fn = declare(ops.module, "llvm.nvvm.bar.warp.sync", VOID, [I32])
    fn.attributes.add("convergent")
    ops.b.call(fn, [mask if mask is not None else llir.Constant(I32, FULL_MASK)])
    return llir.Constant(llir.IntType(1), 1)


GRID_BARRIER = "hybrid_grid_barrier"  # i32[2] global: blocks arrived, and the barrier's generation


def grid_wait(ops: Ops, error_slot: llir.GlobalVariable) -> None:
    """The middle of a barrier of the whole grid (``cuda.cg.this_grid().sync()``, which the spelling pass
    expands into ``syncthreads``, this in the block's first thread, ``syncthreads``), for a cooperative
    launch (every block resident at once: the runtime launches such kernels with
    ``cuLaunchCooperativeKernel``): the block is counted in, and the last block to arrive resets the count
    and starts the next generation, which the others wait for; fences order the blocks' writes around it.
    (CUDA's cooperative groups implement ``grid.sync()`` the same way.) A block that waits gives up, ending
    its thread, once a failed check has recorded itself in ``error_slot`` (the failing thread may be the one
    that would have counted its block in)."""
    b, module = ops.b, ops.module
    bar = module.globals.get(GRID_BARRIER)
    if bar is None:
        bar = llir.GlobalVariable(module, llir.ArrayType(I32, 2), GRID_BARRIER, addrspace=1)
        bar.linkage = "internal"
        bar.initializer = llir.Constant(bar.value_type, None)
        bar.align = 8
    base = b.addrspacecast(bar, PTR)
    count, generation = (b.gep(base, [llir.Constant(I32, k)], source_etype=I32) for k in (0, 1))
    fn = b.function
    release, spin, done = (fn.append_basic_block(f"grid.{s}") for s in ("release", "spin", "done"))
    threadfence(ops)
    seen = b.load_atomic(generation, "monotonic", 4, typ=I32)
    dims = [special_register(ops, f"grid_dim_{a}") for a in "xyz"]
    blocks = b.trunc(b.mul(b.mul(dims[0], dims[1]), dims[2]), I32)
    arrived = b.atomic_rmw("add", count, llir.Constant(I32, 1), "monotonic")
    b.cbranch(b.icmp_unsigned("==", arrived, b.sub(blocks, llir.Constant(I32, 1))), release, spin)
    b.position_at_end(release)  # the last block: reset the count, then let the others go
    b.atomic_rmw("xchg", count, llir.Constant(I32, 0), "monotonic")
    threadfence(ops)
    b.atomic_rmw("add", generation, llir.Constant(I32, 1), "monotonic")
    b.branch(done)
    b.position_at_end(spin)
    failed = b.load_atomic(b.addrspacecast(error_slot, PTR), "monotonic", 8, typ=I64)
    give_up, poll = fn.append_basic_block("grid.give_up"), fn.append_basic_block("grid.poll")
    b.cbranch(b.icmp_unsigned("!=", failed, llir.Constant(I64, 0)), give_up, poll)
    b.position_at_end(give_up)
    b.call(llir.InlineAsm(llir.FunctionType(VOID, []), "exit;", "", side_effect=True), [])
    b.unreachable()
    b.position_at_end(poll)
    now = b.load_atomic(generation, "monotonic", 4, typ=I32)
    b.cbranch(b.icmp_unsigned("==", now, seen), spin, done)
    b.position_at_end(done)
    threadfence(ops)


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
