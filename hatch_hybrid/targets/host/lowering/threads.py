"""Lowering for the host CPU: what differs from the GPU when a kernel's threads become loops.

A kernel becomes a function the driver calls once per thread (``ctx``, the kernel's parameters) and
that returns a status. Where threads must meet (``gpu.syncthreads()``, warp shuffles and votes) the
function *yields*: it records where it stopped and returns; the driver runs the other threads up to
the same point and calls it again, and its entry jumps back to where it stopped (loop fission at
barriers, as MCUDA does, done as a state machine so that barriers inside loops and branches need
nothing special). Such kernels keep their locals in the thread's frame, memory that outlives the
returns. Helpers that meet other threads are lowered inline into the kernel so that their locals
live there too. Warp shuffles and votes post their value to the block's exchange buffer, yield to
the warp, then read their lanes'.

:class:`HostLowerer` is mixed into :class:`~.function.HostFunctionLowerer`.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING

from llvmlite import ir as llir

from .... import ir
from ....errors import CompileError, Loc
from ....lower.calls import lane_in_mask, shuffle_source_lane, shuffle_width
from ....lower.ops import I1, I32, I64, as_bits, bit_width, llvm_type
from ....lower.parts import LowererParts
from ....typecheck.rules import MATCHES, SHUFFLES, WARP_CALLS
from ....types import WEAK_INT, ArrayT, EnumT, Scalar, StructT, TupleT, Type, Weak, storage
from . import context as hx
from .record import host_record, sanitizing

if TYPE_CHECKING:
    from ....typecheck.typed import TypedFunction


class NativeUnsupported(CompileError):
    """A kernel the host backend cannot compile; it runs on the CPU through its Python function."""


class Frame:
    """Where a kernel whose threads meet keeps its locals: in the thread's frame (memory that survives
    the returns at barriers), not in registers, so a thread resumes with nothing to restore."""

    def __init__(self, entry: llir.Block, base: llir.Value) -> None:
        self.entry = entry
        self.size = 0
        self.base = base  # the kernel function's frame argument (noalias)
        self.slots: set[int] = set()  # the locals' addresses in it

    def place(self, ty: llir.Type) -> int:
        """Room for a value of ``ty`` (aligned to its size, up to 16): its offset."""
        width = _size_of(ty)
        align = 1
        while align < min(width, 16):
            align *= 2
        offset = (self.size + align - 1) // align * align
        self.size = offset + width
        return offset

    def slot(self, b: llir.IRBuilder, ty: llir.Type, name: str) -> llir.Value:
        offset = self.place(ty)
        with b.goto_block(self.entry):
            if self.entry.instructions:
                b.position_before(self.entry.instructions[0])
            ptr = b.gep(self.base, [llir.Constant(I64, offset)], source_etype=llir.IntType(8), name=name)
        ptr.allocated_type = ty  # read like an alloca's
        self.slots.add(id(ptr))
        return ptr

    def mark_accesses(self, fn: llir.Function, module: llir.Module, shared_bases: set[int] | None = None) -> None:
        """Tell LLVM that the frame and the block's shared memory are memory of their own (alias
        scopes): a store to a local or to a shared tile then never has to wait for, or be kept because
        of, an access to an array argument, and a loop over threads needs no run-time overlap checks
        between a tile and the arrays."""
        domain = module.add_metadata([llir.MetaDataString(module, "hybrid.frame.domain")])
        frame = module.add_metadata([llir.MetaDataString(module, "hybrid.frame"), domain])
        shared = module.add_metadata([llir.MetaDataString(module, "hybrid.shared"), domain])
        in_frame, in_shared = module.add_metadata([frame]), module.add_metadata([shared])
        neither = module.add_metadata([frame, shared])
        accesses = []
        stored: dict[int, list[llir.Value]] = {}  # alloca -> the values stored into it
        for block in fn.blocks:
            for ins in block.instructions:
                if isinstance(ins, llir.LoadInstr):
                    accesses.append((ins, ins.operands[0]))
                elif isinstance(ins, llir.StoreInstr):
                    accesses.append((ins, ins.operands[1]))
                    stored.setdefault(id(ins.operands[1]), []).append(ins.operands[0])
        shared_of = _SharedPointers(shared_bases or set(), stored)
        for ins, ptr in accesses:
            if id(ptr) in self.slots:
                ins.set_metadata("alias.scope", in_frame)
                ins.set_metadata("noalias", in_shared)
            elif shared_of(ptr):
                ins.set_metadata("alias.scope", in_shared)
                ins.set_metadata("noalias", in_frame)
            else:
                ins.set_metadata("noalias", neither)

    @property
    def bytes(self) -> int:
        return (self.size + 15) // 16 * 16


class _SharedPointers:
    """Is a pointer into the block's shared memory: computed from its base by address arithmetic
    (GEPs, casts), also through a local (an alloca) that holds only such pointers (a shared array
    kept in a variable)?"""

    def __init__(self, bases: set[int], stored: dict[int, list[llir.Value]]) -> None:
        self.bases, self.stored = bases, stored
        self.known: dict[int, bool] = {}

    def __call__(self, ptr: llir.Value, depth: int = 0) -> bool:
        if not self.bases or depth > 8:
            return False
        found = self.known.get(id(ptr))
        if found is not None:
            return found
        self.known[id(ptr)] = False  # a cycle through a local: not shown to be shared
        value = ptr
        for _ in range(64):
            if id(value) in self.bases:
                found = True
                break
            if isinstance(value, (llir.GEPInstr, llir.CastInstr)):
                value = value.operands[0]
                continue
            if isinstance(value, llir.LoadInstr) and isinstance(value.operands[0], llir.AllocaInstr):
                values = self.stored.get(id(value.operands[0]), [])
                found = bool(values) and all(self(v, depth + 1) for v in values)
                break
            found = False
            break
        self.known[id(ptr)] = bool(found)
        return bool(found)


class Yield:
    """One place where a kernel's thread stops: where it goes on, and what it tells the driver."""

    def __init__(self, cont: llir.Block, status: int) -> None:
        self.cont, self.status = cont, status


class HostLowerer(LowererParts):
    entry: llir.Block
    ctx: llir.Value
    kernel_fn: llir.Function | None  # the host kernel function being built (also while inlining into it)
    yields: list[Yield]
    frame: Frame | None  # kernels whose threads meet: their locals' home
    inline_exit: tuple[llir.Block, list[llir.AllocaInstr]] | None

    @property
    def in_kernel(self) -> bool:
        return self.kernel_fn is not None and self.fn is self.kernel_fn

    # --------------------------------------------------------------- leaving
    def host_return_failed(self) -> None:
        """Leave the function after a failed check: the kernel tells the driver; helpers set the
        thread's ``failed`` word, which their callers test after the call."""
        b = self.b
        if self.in_kernel:
            b.ret(llir.Constant(I32, hx.FAILED))
            return
        hx.ctx_store(self.ops, self.ctx, "failed", llir.Constant(I64, 1))
        ret = self.fn.function_type.return_type
        if isinstance(ret, llir.VoidType):
            b.ret_void()
        else:
            b.ret(llir.Constant(ret, None))

    def after_call(self) -> None:
        """After a call to a helper that may have failed a check: leave too if it did."""
        b = self.b
        failed = b.icmp_unsigned("!=", hx.ctx_load(self.ops, self.ctx, "failed"), llir.Constant(I64, 0))
        leave = self.fn.append_basic_block("failed.leave")
        cont = self.fn.append_basic_block("call.ok")
        b.cbranch(failed, leave, cont)
        b.position_at_end(leave)
        self.host_return_failed()
        b.position_at_end(cont)

    def host_check(self, ok: llir.Value, site_id: int, values: tuple[llir.Value, ...]) -> None:
        """Unless ``ok``: record the site (and up to two values) in the launch's error slot if it is
        still empty, and leave."""
        b = self.b
        fail = self.fn.append_basic_block("check.fail")
        cont = self.fn.append_basic_block("check.ok")
        br = b.cbranch(ok, cont, fail)
        br.set_weights([1 << 20, 1])
        b.position_at_end(fail)
        slot = hx.ctx_pointer(self.ops, self.ctx, "error")
        pair = b.cmpxchg(slot, llir.Constant(I64, 0), llir.Constant(I64, site_id), "monotonic", "monotonic")
        record, done = self.fn.append_basic_block("check.record"), self.fn.append_basic_block("check.leave")
        b.cbranch(b.extract_value(pair, 1), record, done)
        b.position_at_end(record)
        for k, v in enumerate(values[:2]):
            b.store(v, b.gep(slot, [llir.Constant(I64, k + 1)], source_etype=I64), align=8)
        b.branch(done)
        b.position_at_end(done)
        self.host_return_failed()
        b.position_at_end(cont)

    # ---------------------------------------------------------------- yields
    def yield_point(self, status: int, loc: Loc) -> None:
        """Stop this thread here until the driver has run the others (of the block, or of the warp)
        to the same point; the locals stay in the frame, and the next call goes on from here."""
        if self.kernel_fn is None:
            raise NativeUnsupported(loc, "a barrier outside a kernel cannot run natively")
        b = self.b
        k = len(self.yields) + 1
        if sanitizing(self.parent):
            self.yield_site(loc, "barrier" if status == hx.AT_BARRIER else "warp")  # type: ignore[attr-defined]
        hx.ctx_store(self.ops, self.ctx, "state", llir.Constant(I64, k))
        b.ret(llir.Constant(I32, status))
        cont = self.fn.append_basic_block(f"yield{k}.cont")
        self.yields.append(Yield(cont, status))
        b.position_at_end(cont)

    def finish_host_kernel(self, body: llir.Block) -> int:
        """Close the kernel function: its entry dispatches on the thread's state to the start or to a
        resumption point. Returns the bytes of the thread's frame."""
        b = self.b
        if self.frame is not None:
            b.position_at_end(self.entry)
            state = hx.ctx_load(self.ops, self.ctx, "state")
            switch = b.switch(state, body)
            for k, y in enumerate(self.yields, start=1):
                switch.add_case(llir.Constant(I64, k), y.cont)
            self.frame.mark_accesses(self.fn, self.ops.module, self.ops.shared_bases)
            host_record(self.parent.flavour).warp_calls = any(y.status == hx.AT_WARP for y in self.yields)
            return self.frame.bytes
        assert not self.yields  # only kernels whose threads meet yield, and those have a frame
        b.position_at_end(self.entry)
        b.branch(body)
        return 0

    # ------------------------------------------------------------ warp calls
    def warp_call(self, e: ir.Call, name: str, loc: Loc) -> llir.Value:
        """A shuffle or vote: post (value, argument), yield to the warp, read the lanes' posts.
        Only reached for statements :func:`hoist_warp_calls` made: ``tmp = gpu.shfl_down(v, d)``."""
        b = self.b
        ops = self.ops
        t = self.tf.types[e.nid]
        if name in SHUFFLES or name in MATCHES:
            value_t = t if name in SHUFFLES else self.tf.callees[e.nid].arg_types[0]
            value = self.coerce(e.args[0], value_t)
            arg = self.coerce(e.args[1], WEAK_INT) if name in SHUFFLES else llir.Constant(I64, 0)
            bits = as_bits(b, value)
        else:
            bits = b.zext(self.condition(e.args[0]), I64)
            arg = llir.Constant(I64, 0)
        # the lanes that take part (a partial mask; else the whole warp), kept in the slot's fourth word
        members = self.coerce(e.mask, WEAK_INT) if e.mask is not None else llir.Constant(I64, 0xFFFFFFFF)
        count = hx.ctx_load(ops, self.ctx, "exchanges")
        tag = b.add(count, llir.Constant(I64, 1))
        hx.ctx_store(ops, self.ctx, "exchanges", tag)
        linear = hx.ctx_load(ops, self.ctx, "linear")
        slot = hx.exchange_slot(ops, self.ctx, b.and_(count, llir.Constant(I64, 1)), linear)
        # the post's tag: this lane's exchange count and the call site, so that lanes at another warp call
        # (the other side of a branch, with as many exchanges behind them) are not read as taking part
        site = llir.Constant(I64, (e.nid & 0x7FFF) << 48)
        for k, v in enumerate((bits, arg, b.or_(tag, site), members)):
            b.store(v, b.gep(slot, [llir.Constant(I64, k)], source_etype=I64), align=8)
        self.yield_point(hx.AT_WARP, loc)
        # resumed: every lane of the warp that takes part has posted to the same buffer
        tag = hx.ctx_load(ops, self.ctx, "exchanges")
        parity = b.and_(b.sub(tag, llir.Constant(I64, 1)), llir.Constant(I64, 1))
        tag = b.or_(tag, site)
        linear = hx.ctx_load(ops, self.ctx, "linear")
        lane = b.and_(linear, llir.Constant(I64, 31))
        base = b.sub(linear, lane)
        threads = hx.ctx_load(ops, self.ctx, "threads")

        def post(lane_k: llir.Value) -> tuple[llir.Value, llir.Value]:
            """(whether lane k of this warp posted in this exchange, its value)"""
            index = b.add(base, lane_k)
            exists = b.icmp_unsigned("<", index, threads)
            safe = b.select(exists, index, linear)
            s = hx.exchange_slot(ops, self.ctx, parity, safe)
            got_tag = b.load(b.gep(s, [llir.Constant(I64, 2)], source_etype=I64), typ=I64, align=8)
            posted = b.and_(exists, b.icmp_unsigned("==", got_tag, tag))
            return posted, b.load(s, typ=I64, align=8)

        own = hx.exchange_slot(ops, self.ctx, parity, linear)
        mine = b.load(own, typ=I64, align=8)
        members = b.load(b.gep(own, [llir.Constant(I64, 3)], source_etype=I64), typ=I64, align=8)

        def member(lane_k: llir.Value) -> llir.Value:
            return lane_in_mask(b, members, lane_k)  # one of the lanes that take part (this lane's mask)

        if name in SHUFFLES:
            d = b.load(b.gep(own, [llir.Constant(I64, 1)], source_etype=I64), typ=I64, align=8)
            src = shuffle_source_lane(b, name, lane, d, shuffle_width(self.tf, e))
            in_warp = b.icmp_unsigned("<", src, llir.Constant(I64, 32))
            posted, theirs = post(b.select(in_warp, src, lane))
            got = b.select(b.and_(b.and_(in_warp, posted), member(src)), theirs, mine)
            return _from_bits(b, got, value_t)
        if name in MATCHES:  # the lanes that posted this lane's bits
            lanes: llir.Value = llir.Constant(I64, 0)
            for k in range(32):
                posted, theirs = post(llir.Constant(I64, k))
                posted = b.and_(posted, member(llir.Constant(I64, k)))
                bit = b.and_(posted, b.icmp_unsigned("==", theirs, mine))
                lanes = b.or_(lanes, b.shl(b.zext(bit, I64), llir.Constant(I64, k)))
            return lanes
        # votes: over the lanes that posted
        ballot: llir.Value = llir.Constant(I64, 0)
        for k in range(32):
            posted, theirs = post(llir.Constant(I64, k))
            posted = b.and_(posted, member(llir.Constant(I64, k)))
            bit = b.and_(posted, b.icmp_unsigned("!=", theirs, llir.Constant(I64, 0)))
            ballot = b.or_(ballot, b.shl(b.zext(bit, I64), llir.Constant(I64, k)))
            if name == "all_":
                ballot = b.or_(ballot, b.shl(b.zext(b.xor(posted, llir.Constant(I1, 1)), I64), llir.Constant(I64, k)))
        if name == "ballot":
            return ballot
        if name == "any_":
            return b.icmp_unsigned("!=", ballot, llir.Constant(I64, 0))
        return b.icmp_unsigned("==", ballot, llir.Constant(I64, 0xFFFFFFFF))


def _size_of(t: llir.Type) -> int:
    if isinstance(t, llir.IntType):
        return max(1, t.width // 8)
    if isinstance(t, (llir.HalfType, llir.FloatType, llir.DoubleType)):
        return bit_width(t) // 8
    if isinstance(t, llir.PointerType):
        return 8
    if isinstance(t, llir.ArrayType):
        return t.count * _size_of(t.element)
    if isinstance(t, llir.LiteralStructType):  # a complex number: two parts, no padding
        return sum(_size_of(e) for e in t.elements)
    raise AssertionError(t)


def _from_bits(b: llir.IRBuilder, v: llir.Value, t: Type) -> llir.Value:
    ty = llvm_type(storage(t))
    if isinstance(ty, llir.IntType):
        return b.trunc(v, ty) if ty.width < 64 else v
    bits = bit_width(ty)
    return b.bitcast(b.trunc(v, llir.IntType(bits)) if bits < 64 else v, ty)


# --------------------------------------------------------------------- hoisting
def hoist_warp_calls(tf: TypedFunction) -> list[ir.Stmt]:
    """The function's body with every call that meets other threads (a warp call, or a helper that
    reaches a barrier or a warp call, which is lowered inline) moved into a statement of its own,
    ``tmp = call``, just before the statement that used it: a thread can only yield between
    statements, where no partial expression is live. What Python evaluates before such a call in the
    same expression moves into a temporary before it, so the order of reads and writes is kept. The
    types of the new nodes are added to ``tf``."""
    counter = [0]

    def is_warp(node: ir.Node) -> bool:
        callee = tf.callees.get(node.nid) if isinstance(node, ir.Call) else None
        if callee is None:
            return False
        if callee.kind == "gpu":
            return callee.name in WARP_CALLS
        return callee.target is not None and callee.target.uses_barrier

    def temporary(e: ir.Expr, out: list[ir.Stmt]) -> ir.Expr:
        counter[0] += 1
        name = f"__warp{counter[0]}"
        t = tf.types[e.nid]
        tf.locals[name] = t
        target = ir.Name(name, loc=e.loc)
        tf.types[target.nid] = t
        out.append(ir.Assign(target, e, loc=e.loc))
        use = ir.Name(name, loc=e.loc)
        tf.types[use.nid] = t
        return use

    def settled(e: ir.Expr) -> bool:
        """Is ``e``'s value the same before and after a call (so it need not be read first)?"""
        return isinstance(e, (ir.Const, ir.Name)) or e.nid in tf.consts or not _storable(tf.types.get(e.nid))

    def children(e: ir.Expr) -> list[tuple[str, int | str | None, ir.Expr]]:
        """``e``'s operands in the order Python evaluates them: (field, list index or dict key, node)."""
        out: list[tuple[str, int | str | None, ir.Expr]] = []
        for f in vars(e):
            if f == "func" or (f == "value" and isinstance(e, ir.Attribute)):
                continue  # what is called, or a struct field's owner: never evaluated apart
            value = getattr(e, f)
            if isinstance(value, ir.Expr):
                out.append((f, None, value))
            elif isinstance(value, list):
                out += [(f, k, v) for k, v in enumerate(value) if isinstance(v, ir.Expr)]
            elif isinstance(value, dict):
                out += [(f, k, v) for k, v in value.items() if isinstance(v, ir.Expr)]
        return out

    def put(e: ir.Expr, field: str, key: int | str | None, value: ir.Expr) -> None:
        if key is None:
            setattr(e, field, value)
        else:
            getattr(e, field)[key] = value

    def replace(e: ir.Expr, out: list[ir.Stmt], keep: bool = False) -> ir.Expr:
        """``e`` with its warp calls replaced by temporaries, whose assignments go to ``out``; ``e``
        itself stays when ``keep`` (a statement may be one call)."""
        parts = children(e)
        last = max((k for k, (_, _, c) in enumerate(parts) if has_warp(c)), default=-1)
        if (
            last >= 0
            and isinstance(e, (ir.BoolOp, ir.IfExp))
            and any(is_helper_call(n) for _, _, c in parts[1:] for n in ir.walk(c))
        ):
            raise NativeUnsupported(e.loc, "a helper that meets other threads, called in `and`/`or`/`if`-`else`")
        for k, (field, key, child) in enumerate(parts):
            if k < last and not has_warp(child) and not settled(child):
                put(e, field, key, temporary(child, out))
            elif k <= last:
                put(e, field, key, replace(child, out))
        return e if keep or not is_warp(e) else temporary(e, out)

    def is_helper_call(node: ir.Node) -> bool:
        return is_warp(node) and tf.callees[node.nid].kind != "gpu"

    def has_warp(e: ir.Node | None) -> bool:
        return e is not None and any(is_warp(n) for n in ir.walk(e))

    def block(stmts: list[ir.Stmt]) -> list[ir.Stmt]:
        out: list[ir.Stmt] = []
        for s in stmts:
            if isinstance(s, ir.While):
                if has_warp(s.test):
                    raise NativeUnsupported(s.test.loc, "a warp shuffle or vote in a `while` condition")
                s.body = block(s.body)
            elif isinstance(s, ir.ForRange):
                if any(has_warp(a) for a in s.args):
                    raise NativeUnsupported(s.loc, "a warp shuffle or vote in `range(...)`")
                s.body = block(s.body)
            elif isinstance(s, ir.If):
                s.test = replace(s.test, out)
                s.body, s.orelse = block(s.body), block(s.orelse)
            elif isinstance(s, ir.Assign) and is_warp(s.value) and isinstance(s.target, ir.Name):
                s.value = replace(s.value, out, keep=True)
            elif isinstance(s, (ir.Assign, ir.AugAssign)):
                if (
                    isinstance(s, ir.AugAssign)
                    and not isinstance(s.target, ir.Name)
                    and any(is_helper_call(n) for n in ir.walk(s.value))
                ):  # Python reads the target's element before the call, which may write it
                    raise NativeUnsupported(s.loc, "`a[i] op= f(...)` where f meets other threads")
                s.value = replace(s.value, out)
                if has_warp(s.target):
                    raise NativeUnsupported(s.target.loc, "a warp shuffle or vote in an assignment target")
            elif isinstance(s, (ir.ExprStmt, ir.Return)) and s.value is not None:
                s.value = replace(s.value, out, keep=is_helper_call(s.value))
            elif isinstance(s, ir.Assert):
                s.test = replace(s.test, out)
            out.append(s)
        return out

    return block(copy.deepcopy(tf.fn.body))  # the parsed body is shared with the GPU lowering


def _storable(t: Type | None) -> bool:
    """Can a value of type ``t`` live in a local (so an operand can be read into a temporary)?"""
    return isinstance(t, (Scalar, Weak, EnumT, ArrayT, TupleT, StructT))
