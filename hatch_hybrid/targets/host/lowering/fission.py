"""Lowering a planned kernel (:mod:`.fission_plan`) as loops over the block's threads.

The host kernel function then runs a whole block per call: each :class:`~.fission_plan.Region` is a
loop nest over the threads (``x`` innermost, the thread's context words set per iteration, so that
after inlining they are the loop's induction variables), locals that cross regions live in per-thread
slots laid out one array per local (``frame + offset * threads``: thread ``t``'s value at index ``t``,
so a region's loads and stores of them are contiguous), block-uniform conditions and loop bounds are
evaluated once, for the first thread still running, and warp calls are thread loops over arrays of
posts (:mod:`.fission_warps`). :class:`FissionLowerer` is mixed into :class:`~.function.HostFunctionLowerer`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from llvmlite import ir as llir

from .... import ir
from ....lower.loops import counted_loop
from ....lower.ops import I1, I8, I64, const
from ....typecheck.typed import SymbolT
from . import context as hx
from .fission_pieces import (
    Barrier,
    Exchange,
    Inline,
    LaneLoop,
    MaskedIf,
    MaskedLoop,
    NotFissionable,
    Piece,
    Plan,
    Region,
    UniformIf,
    UniformLoop,
)
from .fission_plan import plan_fission
from .fission_state import FissionState, ThreadFrame
from .fission_warps import WarpCallLowerer
from .record import host_record, sanitizing
from .sanitize_segments import quiet_pieces
from .threads import Frame

_ZERO, _ONE = llir.Constant(I64, 0), llir.Constant(I64, 1)


class FissionLowerer(WarpCallLowerer):
    plan: Plan | None = None  # the kernel's plan (None: no meeting points, or the state machine runs)
    fs: FissionState | None = None
    fission_inner = False  # lowering a helper planned inline
    ctx: llir.Value
    entry: llir.Block
    frame: Frame | None
    kernel_fn: llir.Function | None
    body: list[ir.Stmt]
    while_: Callable[..., None]  # from LoopLowerer
    for_range: Callable[..., None]
    store_to: Callable[..., None]

    def plan_block_loops(self) -> None:
        """Plan the kernel's threads as loops between meeting points (:mod:`.fission_plan`); where the
        plan does not fit, record why and keep the state machine of :mod:`.threads`. Sanitized kernels
        are planned too, unless a barrier stands under a condition that differs between threads: the
        state machine then keeps each thread's progress, which the sanitizer's synccheck reads (every
        other barrier of a plan is reached by every thread of the block that has not returned)."""
        try:
            plan = plan_fission(self.tf, self.body)
            if sanitizing(self.parent) and _masked_barrier(plan.pieces):
                raise NotFissionable(None, "sanitized: a barrier under a condition that differs between threads")
        except NotFissionable as exc:
            host_record(self.parent.flavour).fission_reason = (
                f"{exc.loc}: {exc.reason}" if exc.loc is not None else exc.reason
            )
            return
        self.plan = plan
        self.frame = ThreadFrame(self.entry, self.fn.args[1])
        self.fs = FissionState(self.frame, self.plan)
        if sanitizing(self.parent):
            self.fs.quiet = quiet_pieces(self.tf, self.plan.pieces)
        record = host_record(self.parent.flavour)
        record.fission = True
        record.lane_loops = [str(p.stmt.loc) for p in self.plan.pieces if isinstance(p, LaneLoop)]

    # ---------------------------------------------------------------- per-thread slots
    def planned_slots(self, name: str, types: list[llir.Type] | None = None) -> list[llir.Value] | None:
        """The slots of a local that lives per thread, one per part (``types``: the parts of a value
        being stored), at the thread being lowered for; None for a local that does not."""
        if self.plan is None or name not in self.plan.per_thread:
            return None
        assert self.fs is not None
        key = (self.tf.symbol, name)
        types = self.fs.types.setdefault(key, types) if types is not None else self.fs.types[key]
        return [self.thread_pointer((self.tf.symbol, name, k), ty) for k, ty in enumerate(types)]

    def thread_pointer(self, key: tuple[Any, ...], ty: llir.Type) -> llir.Value:
        fs = self.fs
        assert fs is not None and fs.thread is not None, "a per-thread value read outside a thread's code"
        return self.slot_at(key, ty, fs.thread)

    def slot_at(self, key: tuple[Any, ...], ty: llir.Type, index: llir.Value) -> llir.Value:
        """Slot ``index`` of the per-thread array of ``key`` (another thread's, or a warp's)."""
        assert self.fs is not None
        return self.fs.frame.pointer(self.b, key, ty, self.fs.threads, index)

    def thread_local_array(self, ty: llir.Type) -> llir.Value:
        """A ``gpu.local_array``'s storage: a slot per thread (it may cross regions)."""
        assert self.fs is not None
        self.fs.local_arrays += 1
        return self.thread_pointer(("local.array", self.fs.local_arrays), ty)

    # ---------------------------------------------------------------- the block function
    def fission_kernel(self, params: list[tuple[str, Any]]) -> None:
        """Lower the kernel as a function that runs its whole block; ``params``: names and values."""
        assert self.plan is not None and self.fs is not None
        fs, b = self.fs, self.b
        fs.dims = [hx.ctx_load(self.ops, self.ctx, f"block_dim_{a}") for a in "xyz"]
        fs.threads = b.mul(b.mul(fs.dims[0], fs.dims[1]), fs.dims[2])
        wide = b.icmp_unsigned(">=", fs.threads, llir.Constant(I64, 32))
        fs.post_shift = b.select(wide, llir.Constant(I64, 32), _ZERO)
        for name in self.plan.drift:
            zero = const(self.tf.locals[name], 0)
            fs.drift[name] = self._alloca(zero.type, f"{name}.drift")
            b.store(zero, fs.drift[name])
        per_thread = [(n, v) for n, v in params if n in self.plan.per_thread]
        for name, value in params:
            if name not in self.plan.per_thread:
                self.store_local(name, value)
        if per_thread or fs.exits:

            def init(t: llir.Value, nxt: llir.Block) -> None:
                for name, value in per_thread:
                    self.store_local(name, value)
                if fs.exits:
                    b.store(llir.Constant(I8, 0), self.thread_pointer(("exited",), I8))

            self.thread_loop(init, guard=False)
        self.run_pieces(self.plan.pieces)
        if not b.block.is_terminated:
            b.ret(llir.Constant(llir.IntType(32), hx.DONE))

    def run_pieces(self, pieces: list[Piece]) -> None:
        assert self.fs is not None
        for p in pieces:
            quiet = id(p) in self.fs.quiet and isinstance(p, (Region, LaneLoop, Exchange))
            self.fs.quiet_all = self.sanitize_quiet() if quiet else None  # type: ignore[attr-defined]
            if isinstance(p, Region):
                self.region(p)
            elif isinstance(p, Barrier):  # the regions on either side are loops of their own
                if sanitizing(self.parent):
                    self.sanitize_barrier()  # type: ignore[attr-defined]
            elif isinstance(p, Exchange):
                self.exchange(p)
            elif isinstance(p, UniformIf):
                self.uniform_if(p)
            elif isinstance(p, MaskedIf):
                self.masked_if(p)
            elif isinstance(p, UniformLoop):
                self.uniform_loop(p)
            elif isinstance(p, MaskedLoop):
                self.masked_loop(p)
            elif isinstance(p, LaneLoop):
                self.lane_loop(p)
            elif isinstance(p, Inline):
                self.inline_piece(p)
            else:
                raise AssertionError(p)
            self.fs.quiet_all = None

    # ---------------------------------------------------------------- loops over threads
    def count_loop(self, start: llir.Value, stop: llir.Value, body: Callable[[llir.Value], None], name: str) -> None:
        counted_loop(self.b, self.fn, self._alloca(I64, f"{name}.i"), start, stop, body, name)

    def set_thread(self, tx: llir.Value, ty: llir.Value, tz: llir.Value, t: llir.Value) -> None:
        """This thread's context words (the thread loop's induction variables, once inlined)."""
        assert self.fs is not None
        b, ops, ctx = self.b, self.ops, self.ctx
        for axis, v, dim in zip("xyz", (tx, ty, tz), self.fs.dims):
            hx.ctx_store(ops, ctx, f"thread_idx_{axis}", v)
            block = hx.ctx_load(ops, ctx, f"block_idx_{axis}")
            hx.ctx_store(ops, ctx, f"global_tid_{axis}", b.add(b.mul(block, dim), v))
        hx.ctx_store(ops, ctx, "linear", t)
        self.fs.thread = t

    def active(self, t: llir.Value) -> llir.Value:
        """Whether thread ``t`` runs the code being lowered (it has not returned; its branch)."""
        assert self.fs is not None
        b, fs = self.b, self.fs
        ok: llir.Value = llir.Constant(I1, 1)
        if fs.mask is not None:
            ok = b.and_(ok, b.icmp_unsigned("!=", b.load(self.slot_at(fs.mask, I8, t), typ=I8), llir.Constant(I8, 0)))
        if fs.exits:
            ok = b.and_(
                ok, b.icmp_unsigned("==", b.load(self.slot_at(("exited",), I8, t), typ=I8), llir.Constant(I8, 0))
            )
        return ok

    def thread_loop(
        self, body: Callable[[llir.Value, llir.Block], None], guard: bool = True, only: dict[int, int] | None = None
    ) -> None:
        """``body(t, next)`` for every thread of the block (with ``guard``, every active one), x fastest;
        ``only``: the threads whose index on an axis is the given one (none if the block is smaller)."""
        assert self.fs is not None
        fs, b = self.fs, self.b
        bdx, bdy, bdz = fs.dims
        bounds = []
        for axis, dim in enumerate(fs.dims):
            k = (only or {}).get(axis)
            if k is None:
                bounds.append((_ZERO, dim))
            else:
                start = llir.Constant(I64, k)
                inside = b.icmp_unsigned("<", start, dim)
                bounds.append((start, b.select(inside, llir.Constant(I64, k + 1), start)))

        def z_body(tz: llir.Value) -> None:
            def y_body(ty: llir.Value) -> None:
                row = b.mul(bdx, b.add(ty, b.mul(bdy, tz)))

                def x_body(tx: llir.Value) -> None:
                    t = b.add(tx, row)
                    nxt = self.fn.append_basic_block("thread.next")
                    self.set_thread(tx, ty, tz, t)
                    if guard and (fs.mask is not None or fs.exits):
                        go = self.fn.append_basic_block("thread.run")
                        b.cbranch(self.active(t), go, nxt)
                        b.position_at_end(go)
                    saved = fs.region_next
                    fs.region_next = nxt
                    body(t, nxt)
                    fs.region_next = saved
                    if not b.block.is_terminated:
                        b.branch(nxt)
                    b.position_at_end(nxt)

                self.count_loop(*bounds[0], x_body, "tx")

            self.count_loop(*bounds[1], y_body, "ty")

        self.count_loop(*bounds[2], z_body, "tz")
        fs.thread = None

    def at_representative(self, body: Callable[[], None], skip: llir.Block) -> None:
        """Lower block-level code (a uniform condition, loop bounds) for one thread that runs: the
        first active one (its values are every active thread's: the condition is uniform); with none,
        go to ``skip``."""
        assert self.fs is not None
        fs, b = self.fs, self.b
        if fs.mask is None and not fs.exits:
            self.set_thread(_ZERO, _ZERO, _ZERO, _ZERO)
            body()
            return
        found = self._alloca(I64, "first.active")
        b.store(fs.threads, found)

        def search(t: llir.Value) -> None:
            hit = self.fn.append_basic_block("first.hit")
            cont = self.fn.append_basic_block("first.next")
            first = b.load(found, typ=I64)
            b.cbranch(b.and_(b.icmp_unsigned("==", first, fs.threads), self.active(t)), hit, cont)
            b.position_at_end(hit)
            b.store(t, found)
            b.branch(cont)
            b.position_at_end(cont)

        self.count_loop(_ZERO, fs.threads, search, "first")
        t = b.load(found, typ=I64)
        go = self.fn.append_basic_block("first.go")
        b.cbranch(b.icmp_unsigned("<", t, fs.threads), go, skip)
        b.position_at_end(go)
        bdx, bdy = fs.dims[0], fs.dims[1]
        rest = b.udiv(t, bdx)
        self.set_thread(b.urem(t, bdx), b.urem(rest, bdy), b.udiv(rest, bdy), t)
        body()

    def uniform_value(self, compute: Callable[[], llir.Value]) -> llir.Value:
        """An i1 computed at the representative thread (false when no thread runs)."""
        b = self.b
        skip = self.fn.append_basic_block("uniform.none")
        merge = self.fn.append_basic_block("uniform.merge")
        got: list[tuple[llir.Value, llir.Block]] = []

        def body() -> None:
            got.append((compute(), b.block))
            b.branch(merge)

        self.at_representative(body, skip)
        b.position_at_end(skip)
        b.branch(merge)
        b.position_at_end(merge)
        phi = b.phi(I1)
        phi.add_incoming(got[0][0], got[0][1])
        phi.add_incoming(llir.Constant(I1, 0), skip)
        return phi

    # ---------------------------------------------------------------- pieces
    def region(self, p: Region) -> None:
        def body(t: llir.Value, nxt: llir.Block) -> None:
            for guard in p.guards:  # the enclosing `if` of a split region (fission_plan.split)
                go = self.fn.append_basic_block("guard.true")
                self.b.cbranch(self.condition(guard), go, nxt)
                self.b.position_at_end(go)
            self.block(p.stmts)

        self.thread_loop(body, only=p.only)

    def uniform_if(self, p: UniformIf) -> None:
        b = self.b
        cond = self.uniform_value(lambda: self.condition(p.stmt.test))
        then, other, after = (self.fn.append_basic_block(f"uif.{k}") for k in ("then", "else", "end"))
        b.cbranch(cond, then, other)
        for block, pieces in ((then, p.body), (other, p.orelse)):
            b.position_at_end(block)
            self.run_pieces(pieces)
            if not b.block.is_terminated:
                b.branch(after)
        b.position_at_end(after)

    def masked_if(self, p: MaskedIf) -> None:
        assert self.fs is not None
        fs, b = self.fs, self.b
        yes, no = ("mask", p.stmt.nid), ("mask.else", p.stmt.nid)

        def record(t: llir.Value, nxt: llir.Block) -> None:
            b.store(llir.Constant(I8, 0), self.thread_pointer(yes, I8))
            b.store(llir.Constant(I8, 0), self.thread_pointer(no, I8))
            go = self.fn.append_basic_block("mask.run")
            b.cbranch(self.active(t), go, nxt)
            b.position_at_end(go)
            c = self.condition(p.stmt.test)
            b.store(b.zext(c, I8), self.thread_pointer(yes, I8))
            b.store(b.zext(b.xor(c, llir.Constant(I1, 1)), I8), self.thread_pointer(no, I8))

        self.thread_loop(record, guard=False)
        saved = fs.mask
        fs.mask = yes
        self.run_pieces(p.body)
        if p.orelse:
            fs.mask = no
            self.run_pieces(p.orelse)
        fs.mask = saved

    def uniform_loop(self, p: UniformLoop) -> None:
        s = p.stmt
        if isinstance(s, ir.While):
            self.while_(
                s, body=lambda: self.run_pieces(p.body), test=lambda: self.uniform_value(lambda: self.condition(s.test))
            )
            return
        b = self.b
        after = self.fn.append_basic_block("uloop.skip")

        def loop() -> None:
            self.for_range(s, body_fn=lambda: self.run_pieces(p.body))
            b.branch(after)

        self.at_representative(loop, after)
        b.position_at_end(after)

    def enter_loop(self, stmt: ir.While) -> tuple[tuple[Any, ...], tuple[Any, ...] | None]:
        """A loop's mask (each thread's flag: still in the loop), set for the threads that run the code
        around it, and made the mask of the code inside; returns it and the mask around it."""
        assert self.fs is not None
        fs, b = self.fs, self.b
        key = ("loop", stmt.nid)

        def enter(t: llir.Value, nxt: llir.Block) -> None:
            b.store(b.zext(self.active(t), I8), self.thread_pointer(key, I8))

        self.thread_loop(enter, guard=False)
        saved, fs.mask = fs.mask, key
        return key, saved

    def masked_loop(self, p: MaskedLoop) -> None:
        """Each thread runs the loop until its own condition fails (its flag in the loop's mask); the
        loop goes round while any thread's does."""
        assert self.fs is not None
        fs, b = self.fs, self.b
        key, saved = self.enter_loop(p.stmt)
        head, inside, after = (self.fn.append_basic_block(f"mloop.{k}") for k in ("head", "body", "end"))
        b.branch(head)
        b.position_at_end(head)
        going = self._alloca(I1, "mloop.any")
        b.store(llir.Constant(I1, 0), going)

        def test(t: llir.Value, nxt: llir.Block) -> None:
            c = self.condition(p.stmt.test)
            b.store(b.zext(c, I8), self.thread_pointer(key, I8))
            b.store(b.or_(b.load(going, typ=I1), c), going)

        self.thread_loop(test)
        b.cbranch(b.load(going, typ=I1), inside, after)
        b.position_at_end(inside)
        self.run_pieces(p.body)
        if not b.block.is_terminated:
            b.branch(head)
        b.position_at_end(after)
        fs.mask = saved

    def lane_loop(self, p: LaneLoop) -> None:
        """A grid-stride loop with the thread loop inside (:class:`~.fission_plan.LaneLoop`): each round,
        every thread still in it tests its condition and runs the body; then the block's drift takes
        the steps, and the loop goes round while any thread's condition held."""
        assert self.fs is not None
        fs, b = self.fs, self.b
        key, saved = self.enter_loop(p.stmt)
        head, after = self.fn.append_basic_block("lane.head"), self.fn.append_basic_block("lane.end")
        going = self._alloca(I1, "lane.any")
        steps = self.fn.append_basic_block("lane.steps")
        leaves = any(isinstance(n, (ir.Return, ir.Break, ir.Continue)) for s in p.body for n in ir.walk(s))
        full = p.plain_test and saved is None and not fs.exits and not leaves
        everyone = self._full_rounds(p, key) if full else None
        b.branch(head)
        b.position_at_end(head)
        b.store(llir.Constant(I1, 0), going)
        if everyone is not None:
            self._full_round(p, everyone, going, steps)

        def round_(t: llir.Value, nxt: llir.Block) -> None:
            c = self.condition(p.stmt.test)
            if p.plain_test:  # tested for every thread, so that the round has a single branch
                c = b.and_(self.active(t), c)
            b.store(b.zext(c, I8), self.thread_pointer(key, I8))
            b.store(b.or_(b.load(going, typ=I1), c), going)
            go = self.fn.append_basic_block("lane.body")
            b.cbranch(c, go, nxt)
            b.position_at_end(go)
            self.block(p.body)

        self.thread_loop(round_, guard=not p.plain_test)
        b.branch(steps)
        b.position_at_end(steps)
        for step in p.steps:
            assert isinstance(step.target, ir.Name)
            ops = self.tf.optypes[step.nid]
            drift = fs.drift[step.target.id]
            now = b.load(drift, typ=drift.allocated_type)
            moved = self.ops.binop(step.op, now, self.coerce(step.value, ops.right), ops.left)
            b.store(moved, drift)
        b.cbranch(b.load(going, typ=I1), head, after)
        b.position_at_end(after)
        fs.mask = saved

    def _full_rounds(self, p: LaneLoop, key: tuple[Any, ...]) -> llir.AllocaInstr:
        """Whether every thread of the block is in lane loop ``p`` (at its start: every thread that entered
        it; each round that every thread's condition held keeps it so): a flag, set here."""
        b = self.b
        everyone = self._alloca(I1, "lane.everyone")
        b.store(llir.Constant(I1, 1), everyone)

        def entered(t: llir.Value, nxt: llir.Block) -> None:
            b.store(b.and_(b.load(everyone, typ=I1), self.active(t)), everyone)

        self.thread_loop(entered, guard=False)
        return everyone

    def _full_round(self, p: LaneLoop, everyone: llir.AllocaInstr, going: llir.AllocaInstr, steps: llir.Block) -> None:
        """A round of lane loop ``p`` (its condition plain: no memory read, no failure) while every thread
        is in it: where every thread's condition holds (tested first, for all of them: one vectorisable
        pass), the body for every thread without the per-thread flags (their flags stay set), then the
        steps; otherwise on to the round with the flags, and no more such rounds (a grid-stride loop's
        threads leave it for good: the round that tests a thread out is the last with everyone)."""
        b = self.b
        check, full, masked = (self.fn.append_basic_block(f"lane.full.{k}") for k in ("check", "body", "masked"))
        b.cbranch(b.load(everyone, typ=I1), check, masked)
        b.position_at_end(check)
        holds = self._alloca(I1, "lane.holds")
        b.store(llir.Constant(I1, 1), holds)

        def test(t: llir.Value, nxt: llir.Block) -> None:
            b.store(b.and_(b.load(holds, typ=I1), self.condition(p.stmt.test)), holds)

        self.thread_loop(test, guard=False)
        all_hold = b.load(holds, typ=I1)
        b.store(all_hold, everyone)
        b.cbranch(all_hold, full, masked)
        b.position_at_end(full)

        def run(t: llir.Value, nxt: llir.Block) -> None:
            self.block(p.body)

        self.thread_loop(run, guard=False)
        b.store(llir.Constant(I1, 1), going)
        b.branch(steps)
        b.position_at_end(masked)

    def drifted(self, name: str) -> llir.Value:
        """A LaneLoop's stepped local at the thread being lowered for: its first value plus the drift."""
        assert self.plan is not None and self.fs is not None
        e, t = self.plan.drift[name], self.tf.locals[name]
        first = self.convert_value(self.expr(e), self.tf.types[e.nid], t)
        drift = self.fs.drift[name]
        value = self.ops.binop("+", first, self.b.load(drift, typ=drift.allocated_type), t)
        if name in self.plan.nonnegative:
            self.ops.nonnegative.add(id(value))
        return value

    def inline_piece(self, p: Inline) -> None:
        """A helper that meets other threads: its parameters bound (once when its arguments are the
        same for the block, else per thread), then its pieces."""
        assert self.fs is not None
        b = self.b
        inner: Any = type(self)(self.parent, p.target, inline_into=self)  # type: ignore[call-arg]
        inner.plan, inner.fs, inner.fission_inner = p.plan, self.fs, True
        # (a parameter given a function, type or module has no value: the specialisation is of it)
        bound = [
            (q.name, n) for q, n, t in zip(p.target.fn.params, p.args, p.target.arg_types) if not isinstance(t, SymbolT)
        ]
        names = [name for name, _ in bound]
        if p.uniform_args and not (set(names) & p.plan.per_thread):
            after = self.fn.append_basic_block("inline.skip")

            def bind() -> None:
                for name, node in bound:
                    inner.store_local(
                        name, self.convert_value(self.expr(node), self.tf.types[node.nid], p.target.locals[name])
                    )
                inner.run_pieces(p.plan.pieces)
                if not b.block.is_terminated:
                    b.branch(after)

            self.at_representative(bind, after)
            b.position_at_end(after)
            return

        def bind_each(t: llir.Value, nxt: llir.Block) -> None:
            for name, node in bound:
                inner.store_local(
                    name, self.convert_value(self.expr(node), self.tf.types[node.nid], p.target.locals[name])
                )

        self.thread_loop(bind_each)
        inner.run_pieces(p.plan.pieces)

    def fission_return(self, s: ir.Return) -> None:
        """``return`` in a region: the thread is done (the kernel's) or leaves the helper (its last
        statement); it goes on with the next thread."""
        assert self.fs is not None and self.fs.region_next is not None
        if s.value is not None:
            self.expr(s.value)
        if not self.fission_inner and self.fs.exits:
            self.b.store(llir.Constant(I8, 1), self.thread_pointer(("exited",), I8))
        self.b.branch(self.fs.region_next)


def _masked_barrier(pieces: list[Piece], masked: bool = False) -> bool:
    """Does a barrier stand under a condition that differs between threads (a masked branch or loop)?"""
    for p in pieces:
        if isinstance(p, Barrier) and masked:
            return True
        if isinstance(p, (UniformIf, MaskedIf)):
            inner = masked or isinstance(p, MaskedIf)
            if _masked_barrier(p.body, inner) or _masked_barrier(p.orelse, inner):
                return True
        elif isinstance(p, (UniformLoop, MaskedLoop)) and _masked_barrier(p.body, masked or isinstance(p, MaskedLoop)):
            return True
        elif isinstance(p, Inline) and _masked_barrier(p.plan.pieces, masked):
            return True
    return False
