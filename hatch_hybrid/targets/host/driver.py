"""The exported entry point of a host kernel: a block range run as loops over threads.

``int32 <symbol>(void **params, int64 *launch, int64 first_block, int64 end_block)`` — ``params``
is laid out as CUDA's ``kernelParams`` (one pointer per flattened parameter), ``launch`` holds the
words of :data:`LAUNCH`. Blocks are independent, so the runtime hands block ranges to OS threads.
Kernels whose threads never meet run each block as a loop nest over its threads, which LLVM
inlines and vectorises. Kernels with barriers or warp calls run the state machine that
:mod:`hatch_hybrid.targets.host.lowering.threads` built: every thread of a warp up to its next stop, the warp again
while its lanes stop at warp calls, then the next warp; when all are at the block's barrier, the
next round.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from hybrid_runtime.abi import LAUNCH
from llvmlite import ir as llir

from ...lower import intrinsics
from ...lower.loops import counted_loop
from ...lower.ops import I1, I32, I64, PTR, Ops, declare
from ...lower.values import abi_types
from ...typecheck.typed import TypedFunction
from ...types import I64 as I64_TYPE
from ...types import ArrayT
from .flavour import HostFlavour
from .lowering import context as hx
from .lowering.aggregate import Aggregated, start_value
from .lowering.thread_range import RANGE_WORDS

RUN = 5  # a thread the driver is to call (again)
SANITIZER_SYNC = "hybrid_san1_sync"  # sanitize.c: do a block's threads wait at one barrier?
SANITIZER_BLOCK = "hybrid_san1_block"  # sanitize.c: did the block read shared memory it never wrote?


class _Builder:
    """IRBuilder plus counted loops (counters in allocas: LLVM's mem2reg makes them registers)."""

    def __init__(self, fn: llir.Function) -> None:
        self.fn = fn
        self.entry = fn.append_basic_block("entry")
        self.b = llir.IRBuilder(self.entry)

    def slot(self, ty: llir.Type, name: str) -> llir.AllocaInstr:
        with self.b.goto_block(self.entry):
            if self.entry.instructions:
                self.b.position_before(self.entry.instructions[0])
            return self.b.alloca(ty, name=name)

    def var(self, value: llir.Value, name: str) -> llir.AllocaInstr:
        slot = self.slot(value.type, name)
        self.b.store(value, slot)
        return slot

    def loop(self, start: llir.Value, stop: llir.Value, body: Callable[[llir.Value], None], name: str) -> None:
        counted_loop(self.b, self.fn, self.slot(start.type, name), start, stop, body, name)

    def if_(self, cond: llir.Value, then: Callable[[], None], name: str) -> None:
        b = self.b
        yes, after = self.fn.append_basic_block(f"{name}.then"), self.fn.append_basic_block(f"{name}.end")
        b.cbranch(cond, yes, after)
        b.position_at_end(yes)
        then()
        if not b.block.is_terminated:
            b.branch(after)
        b.position_at_end(after)


@dataclass
class Forward:
    """A kernel's forwarded function (lowering/tile_forward.py): run for launches of this block shape
    (x, y; z 1) whose source arrays (parameters ``sources``) overlap no other array argument; ``ranged``:
    its range function, if it has one (as ``add_entry``'s); ``per_block``: it reads the thread's x index,
    the block's or its linear index; ``inner``: the function without its clamps on x, for the x positions
    the range function gives (``inner_lo_x``, ``inner_hi_x``)."""

    fn: llir.Function
    block: tuple[int, int, int]
    sources: list[int]
    ranged: llir.Function | None = None
    per_block: bool = False  # it reads a thread's index in its block or the block's x index
    inner: llir.Function | None = None  # the function for the x positions its clamped reads clamp nothing at


def _word(b: llir.IRBuilder, base: llir.Value, k: int | llir.Value) -> llir.Value:
    index = llir.Constant(I64, k) if isinstance(k, int) else k
    return b.gep(base, [index], source_etype=I64)


def add_entry(
    module: llir.Module,
    tf: TypedFunction,
    kernel: llir.Function,
    symbol: str,
    frame_bytes: int,
    ctx_reads: set[str],
    warp_calls: bool = True,
    fission: bool = False,
    sanitize: bool = False,
    ranged: llir.Function | None = None,
    forward: Forward | None = None,
    aggregated: tuple[Aggregated, ...] = (),
) -> None:
    """Add the exported entry ``symbol`` that runs ``kernel`` (from :func:`.lowering.function.lower_host_kernel`), which
    reads the thread-context words ``ctx_reads`` and, with ``warp_calls``, stops at warp calls.
    ``frame_bytes``: what each thread of a kernel whose threads meet needs in the frames buffer (its
    context, then its locals). With ``fission`` the kernel function runs a whole block (its threads
    as loops between meeting points, :mod:`hatch_hybrid.targets.host.lowering.fission`) and is called once per block.
    ``sanitize``: the entry of a sanitized kernel (``HostFlavour(triple, sanitize=True)``), whose contexts
    point at the sanitizer and count the barriers passed, and which after each block checks that it
    read no shared memory before any thread wrote it; run as the state machine, also after each round
    of a block that its threads wait at one barrier and none ran past it to the end (synccheck).
    ``ranged``: the kernel's range function (:mod:`.lowering.thread_range`): the loops over threads
    run only the global positions it gives, where the kernel no longer tests them. ``forward``: the
    kernel's forwarded function, run as rows of blocks instead of the block loops where it applies.
    ``aggregated``: the kernel's atomics that the entry combines (:mod:`.lowering.aggregate`; a kernel whose
    threads never meet), applied with one atomic each when the entry's blocks are done."""
    fn = llir.Function(module, llir.FunctionType(I32, [PTR, PTR, I64, I64]), symbol)  # exported: emit.optimise
    params, launch, first, end = fn.args
    lb = _Builder(fn)
    b = lb.b
    values = []
    for k, ty in enumerate(x for t in tf.arg_types for x in abi_types(t, kernel=True)):
        ptr = b.load(_word(b, params, k), typ=PTR)
        values.append(b.load(ptr, typ=ty))
    word = {name: b.load(_word(b, launch, k), typ=I64) for name, k in LAUNCH.items() if name not in ("grid", "block")}
    grid = [b.load(_word(b, launch, LAUNCH["grid"] + a), typ=I64) for a in range(3)]
    block = [b.load(_word(b, launch, LAUNCH["block"] + a), typ=I64) for a in range(3)]
    threads = b.mul(b.mul(block[0], block[1]), block[2])
    zero = llir.Constant(I64, 0)
    ops = Ops(b, module, set(), HostFlavour(module.triple))

    def fill_block(ctx: llir.Value, blk: llir.Value) -> None:
        """The words every thread of a block shares."""
        bx = b.urem(blk, grid[0])
        rest = b.udiv(blk, grid[0])
        by, bz = b.urem(rest, grid[1]), b.udiv(rest, grid[1])
        for name, v in (
            *((f"block_idx_{a}", x) for a, x in zip("xyz", (bx, by, bz))),
            *((f"block_dim_{a}", x) for a, x in zip("xyz", block)),
            *((f"grid_dim_{a}", x) for a, x in zip("xyz", grid)),
            ("shared", word["shared"]),
            ("dynamic", word["dynamic"]),
            ("dynamic_size", word["dynamic_size"]),
            ("error", word["error"]),
            ("exchange", word["exchange"]),
            ("print", word["print"]),
            ("grid", word["grid_barrier"]),
            *((("sanitizer", word["sanitizer"]), ("epoch", llir.Constant(I64, 0))) if sanitize else ()),
            ("threads", threads),
            ("failed", llir.Constant(I64, 0)),
            ("state", llir.Constant(I64, 0)),
            ("exchanges", llir.Constant(I64, 0)),
        ):
            b.store(v, _word(b, ctx, hx.CTX[name]))

    def fill_thread(ctx: llir.Value, tx: llir.Value, ty: llir.Value, tz: llir.Value, linear: llir.Value) -> None:
        for name, v in (("thread_idx_x", tx), ("thread_idx_y", ty), ("thread_idx_z", tz), ("linear", linear)):
            b.store(v, _word(b, ctx, hx.CTX[name]))
        for axis, t in zip("xyz", (tx, ty, tz)):
            bid = b.load(_word(b, ctx, hx.CTX[f"block_idx_{axis}"]), typ=I64)
            dim = b.load(_word(b, ctx, hx.CTX[f"block_dim_{axis}"]), typ=I64)
            b.store(b.add(b.mul(bid, dim), t), _word(b, ctx, hx.CTX[f"global_tid_{axis}"]))

    def leave_if(failed: llir.Value, name: str) -> None:
        """Return 1 (a failed check: the launch stops) if ``failed``."""
        lb.if_(failed, lambda: b.ret(llir.Constant(I32, 1)), name)

    def checked(callee: llir.Function, args: list[llir.Value]) -> llir.Value:
        """Call ``callee`` (a kernel's function); return 1 from the entry if it failed a check."""
        status = b.call(callee, args)
        leave_if(b.icmp_unsigned("==", status, llir.Constant(I32, hx.FAILED)), "failed")
        return status

    def call(ctx: llir.Value) -> llir.Value:
        frame = [b.gep(ctx, [llir.Constant(I64, hx.CTX_WORDS)], source_etype=I64)] if tf.uses_barrier else []
        return checked(kernel, [ctx, *frame, *values])

    ranges = ranged is not None or (forward is not None and forward.ranged is not None)
    ctx_words = hx.AGG_BASE + 2 * len(aggregated) if aggregated else hx.CTX_WORDS + (len(RANGE_WORDS) if ranges else 0)

    def thread_range(ctx: llir.Value, fn: llir.Function | None = ranged) -> dict[str, llir.Value] | None:
        """Each axis's [lo, hi) of global positions whose threads do something (the range function
        ``fn``'s words), or None for a kernel without one."""
        if fn is None:
            return None
        fill_block(ctx, first)
        for name in ("thread_idx_x", "thread_idx_y", "thread_idx_z", "linear", *(f"global_tid_{a}" for a in "xyz")):
            b.store(zero, _word(b, ctx, hx.CTX[name]))
        b.call(fn, [ctx, *values])
        return {name: b.load(_word(b, ctx, k), typ=I64) for name, k in RANGE_WORDS.items()}

    def block_check() -> None:
        """Sanitized: after a block, a read of shared memory that no thread wrote before it."""
        if not sanitize:
            return
        found = b.call(declare(module, SANITIZER_BLOCK, I32, [PTR]), [b.inttoptr(word["sanitizer"], PTR)])
        leave_if(b.icmp_unsigned("!=", found, llir.Constant(I32, 0)), "block.bad")

    def block_of_threads(
        blk: llir.Value, call: Callable[[llir.Value], llir.Value], bounds: dict[str, llir.Value] | None
    ) -> None:
        """Block ``blk``'s threads (those in ``bounds``, the kernel's range) as loops, each run by ``call``."""
        fill_block(ctx, blk)
        x_range = _clamped(ops, ctx, "x", block[0], bounds)
        y_range = _clamped(ops, ctx, "y", block[1], bounds)

        def z_body(tz: llir.Value) -> None:
            def y_body(ty: llir.Value) -> None:
                row = b.mul(block[0], b.add(ty, b.mul(block[1], tz)))

                def x_body(tx: llir.Value) -> None:
                    fill_thread(ctx, tx, ty, tz, b.add(tx, row))
                    call(ctx)

                lb.loop(*x_range, x_body, "tx")

            lb.loop(*y_range, y_body, "ty")

        lb.loop(zero, block[2], z_body, "tz")

    if fission:  # the kernel function runs a whole block, its threads as loops (lowering/fission.py)
        ctx = b.alloca(I64, size=llir.Constant(I64, ctx_words), name="ctx")
        frames = b.inttoptr(word["frames"], PTR)
        if forward is not None:  # launches the forwarding was proved for run its function as rows of blocks
            fits = _forwards(ops, forward, block, _arrays(tf, values))
            bounds = thread_range(ctx, forward.ranged)  # (its words: safe to compute for any launch)
            if bounds is not None:  # and no wrapped read's divisor is 0 (the tiled code raises there)
                fits = b.and_(fits, b.icmp_unsigned("!=", bounds["forward_ok"], zero))
            rows, blocks_ = fn.append_basic_block("forward.rows"), fn.append_basic_block("forward.blocks")
            b.cbranch(fits, rows, blocks_)
            b.position_at_end(rows)

            def call_forward(ctx: llir.Value) -> llir.Value:
                return checked(forward.fn, [ctx, *values])

            def call_inner(ctx: llir.Value) -> llir.Value:
                assert forward.inner is not None
                return checked(forward.inner, [ctx, *values])

            per_block = forward.block[0] if forward.per_block else None
            inner = call_inner if forward.inner is not None else None
            _rows_of_blocks(lb, ops, ctx, (first, end), grid, block, fill_block, call_forward, bounds, per_block, inner)
            b.ret(llir.Constant(I32, 0))
            b.position_at_end(blocks_)

        def run_block(blk: llir.Value) -> None:
            fill_block(ctx, blk)
            checked(kernel, [ctx, frames, *values])
            block_check()

        lb.loop(first, end, run_block, "block")
        b.ret(llir.Constant(I32, 0))
        return
    if not tf.uses_barrier and not hx.PER_BLOCK_X & ctx_reads:
        ctx = b.alloca(I64, size=llir.Constant(I64, ctx_words), name="ctx")
        _start_combined(b, ctx, aggregated)
        _rows_of_blocks(lb, ops, ctx, (first, end), grid, block, fill_block, call, thread_range(ctx))
        _apply_combined(lb, ops, ctx, aggregated)
        b.ret(llir.Constant(I32, 0))
        return
    if not tf.uses_barrier:
        ctx = b.alloca(I64, size=llir.Constant(I64, ctx_words), name="ctx")
        _start_combined(b, ctx, aggregated)
        bounds = thread_range(ctx)

        def run_block(blk: llir.Value) -> None:
            block_of_threads(blk, call, bounds)
            block_check()

        lb.loop(first, end, run_block, "block")
        _apply_combined(lb, ops, ctx, aggregated)
        b.ret(llir.Constant(I32, 0))
        return

    stride = llir.Constant(I64, frame_bytes)
    frames = b.inttoptr(word["frames"], PTR)

    def thread_ctx(t: llir.Value) -> llir.Value:
        return b.gep(frames, [b.mul(t, stride)], source_etype=llir.IntType(8))

    def status_of(t: llir.Value) -> llir.Value:
        return _word(b, thread_ctx(t), hx.CTX["status"])

    def sync_check(blk: llir.Value, waiting_status: int) -> None:
        """Sanitized: every thread of the block that has not left waits at the same barrier."""
        check = declare(module, SANITIZER_SYNC, I32, [PTR, PTR, I64, I64, I64, I64, I64, I64])
        args = (b.inttoptr(word["sanitizer"], PTR), frames, stride, threads, b.mul(blk, threads))
        words = (hx.CTX["status"], hx.CTX["state"], waiting_status)
        found = b.call(check, [*args, *(llir.Constant(I64, w) for w in words)])
        leave_if(b.icmp_unsigned("!=", found, llir.Constant(I32, 0)), "sync.bad")

    def run_block_in_rounds(blk: llir.Value) -> None:
        def init(t: llir.Value) -> None:
            ctx = thread_ctx(t)
            fill_block(ctx, blk)
            tx = b.urem(t, block[0])
            rest = b.udiv(t, block[0])
            fill_thread(ctx, tx, b.urem(rest, block[1]), b.udiv(rest, block[1]), t)
            b.store(llir.Constant(I64, RUN), _word(b, ctx, hx.CTX["status"]))
            for parity in (0, 1) if warp_calls else ():  # no earlier block's tag may pass for this one's
                slot = hx.exchange_slot(ops, ctx, llir.Constant(I64, parity), t)
                b.store(zero, b.gep(slot, [llir.Constant(I64, 2)], source_etype=I64))

        lb.loop(zero, threads, init, "init")
        round_head, round_end = fn.append_basic_block("round"), fn.append_basic_block("round.end")
        b.branch(round_head)
        b.position_at_end(round_head)
        if not warp_calls:  # block barriers only: every thread not done runs to the next barrier
            waiting = lb.var(llir.Constant(I1, 0), "waiting")
            b.store(llir.Constant(I1, 0), waiting)

            def step(t: llir.Value) -> None:
                def go() -> None:
                    status = b.zext(call(thread_ctx(t)), I64)
                    b.store(
                        b.select(
                            b.icmp_unsigned("==", status, llir.Constant(I64, hx.AT_BARRIER)),
                            llir.Constant(I64, RUN),
                            status,
                        ),
                        status_of(t),
                    )
                    b.store(
                        b.or_(
                            b.load(waiting, typ=I1), b.icmp_unsigned("==", status, llir.Constant(I64, hx.AT_BARRIER))
                        ),
                        waiting,
                    )

                current = b.load(status_of(t), typ=I64)
                lb.if_(b.icmp_unsigned("==", current, llir.Constant(I64, RUN)), go, "resume")

            lb.loop(zero, threads, step, "thread")
            if sanitize:
                lb.if_(b.load(waiting, typ=I1), lambda: sync_check(blk, RUN), "sync")
            b.cbranch(b.load(waiting, typ=I1), round_head, round_end)
            b.position_at_end(round_end)
            block_check()
            return
        warps = b.udiv(b.add(threads, llir.Constant(I64, 31)), llir.Constant(I64, 32))

        def run_warp(w: llir.Value) -> None:
            lo = b.mul(w, llir.Constant(I64, 32))
            hi = b.add(lo, llir.Constant(I64, 32))
            hi = b.select(b.icmp_unsigned("<", hi, threads), hi, threads)

            def resume_if(wanted: int, seen: llir.AllocaInstr | None) -> Callable[[llir.Value], None]:
                def body(t: llir.Value) -> None:
                    def go() -> None:
                        if seen is not None:
                            b.store(llir.Constant(I1, 1), seen)
                        status = call(thread_ctx(t))
                        b.store(b.zext(status, I64), status_of(t))

                    current = b.load(status_of(t), typ=I64)
                    lb.if_(b.icmp_unsigned("==", current, llir.Constant(I64, wanted)), go, "resume")

                return body

            lb.loop(lo, hi, resume_if(RUN, None), "lane")
            # lanes stopped at a warp call go on together until none is
            seen = lb.var(llir.Constant(I1, 0), "warp.seen")
            again, done = fn.append_basic_block("warp.again"), fn.append_basic_block("warp.done")
            b.branch(again)
            b.position_at_end(again)
            b.store(llir.Constant(I1, 0), seen)
            lb.loop(lo, hi, resume_if(hx.AT_WARP, seen), "warp.lane")
            b.cbranch(b.load(seen, typ=I1), again, done)
            b.position_at_end(done)

        lb.loop(zero, warps, run_warp, "warp")
        if sanitize:
            sync_check(blk, hx.AT_BARRIER)
        waiting = lb.var(llir.Constant(I1, 0), "waiting")

        def release(t: llir.Value) -> None:
            def go() -> None:
                b.store(llir.Constant(I64, RUN), status_of(t))
                b.store(llir.Constant(I1, 1), waiting)

            current = b.load(status_of(t), typ=I64)
            lb.if_(b.icmp_unsigned("==", current, llir.Constant(I64, hx.AT_BARRIER)), go, "release")

        b.store(llir.Constant(I1, 0), waiting)
        lb.loop(zero, threads, release, "barrier")
        b.cbranch(b.load(waiting, typ=I1), round_head, round_end)
        b.position_at_end(round_end)
        block_check()

    lb.loop(first, end, run_block_in_rounds, "block")
    b.ret(llir.Constant(I32, 0))


def _clamped(
    ops: Ops, ctx: llir.Value, axis: str, dim: llir.Value, bounds: dict[str, llir.Value] | None
) -> tuple[llir.Value, llir.Value]:
    """The thread indices of the block in ``ctx`` on ``axis`` (``[0, dim)``) whose global positions
    are in the kernel's range (all of them without one)."""
    b = ops.b
    if bounds is None:
        return llir.Constant(I64, 0), dim
    base = b.mul(b.load(_word(b, ctx, hx.CTX[f"block_idx_{axis}"]), typ=I64), dim)
    lo, hi = b.sub(bounds[f"lo_{axis}"], base), b.sub(bounds[f"hi_{axis}"], base)
    return ops.minmax("max", [lo, llir.Constant(I64, 0)], I64_TYPE), ops.minmax("min", [hi, dim], I64_TYPE)


def _rows_of_blocks(
    lb: _Builder,
    ops: Ops,
    ctx: llir.Value,
    blocks: tuple[llir.Value, llir.Value],
    grid: list[llir.Value],
    block: list[llir.Value],
    fill_block: Callable[[llir.Value, llir.Value], None],
    call: Callable[[llir.Value], llir.Value],
    bounds: dict[str, llir.Value] | None,
    block_x: int | None = None,
    inner: Callable[[llir.Value], llir.Value] | None = None,
) -> None:
    """Kernels that see a thread's x position only as ``global_tid_x`` (no barriers): the blocks of a
    grid row in ``[first, end)`` run as one loop over global x, so that the innermost loop is long
    (and vectorised once, not once per block); with ``bounds`` (the kernel's range), only the global
    positions in it. ``block_x``: the launch's block size on x, a constant (a forwarded tile's proved
    shape), for a kernel that reads its thread's x index, block's x index or linear index too: they are
    the global position's quotient and remainder by it (which LLVM folds back where a kernel adds them).
    ``inner``: what runs the positions in ``bounds``' ``[inner_lo_x, inner_hi_x)`` instead of ``call``."""
    b, fn = lb.b, lb.fn
    first, end = blocks
    zero = llir.Constant(I64, 0)
    blk = lb.var(first, "blk")
    head, body, after = (fn.append_basic_block(f"rows.{k}") for k in ("head", "body", "end"))
    b.branch(head)
    b.position_at_end(head)
    current = b.load(blk, typ=I64)
    b.cbranch(b.icmp_signed("<", current, end), body, after)
    b.position_at_end(body)
    fill_block(ctx, current)  # the row's y and z block indices (its x index goes unread)
    bx = b.urem(current, grid[0])
    span = b.sub(grid[0], bx)
    left = b.sub(end, current)
    span = b.select(b.icmp_unsigned("<", left, span), left, span)
    x_first, x_end = b.mul(bx, block[0]), b.mul(b.add(bx, span), block[0])
    if bounds is not None:
        x_first = ops.minmax("max", [x_first, bounds["lo_x"]], I64_TYPE)
        x_end = ops.minmax("min", [x_end, bounds["hi_x"]], I64_TYPE)
    y_range = _clamped(ops, ctx, "y", block[1], bounds)

    def z_body(tz: llir.Value) -> None:
        def y_body(ty: llir.Value) -> None:
            for axis, t in (("y", ty), ("z", tz)):
                b.store(t, _word(b, ctx, hx.CTX[f"thread_idx_{axis}"]))
                bid = b.load(_word(b, ctx, hx.CTX[f"block_idx_{axis}"]), typ=I64)
                dim = block[1] if axis == "y" else block[2]
                b.store(b.add(b.mul(bid, dim), t), _word(b, ctx, hx.CTX[f"global_tid_{axis}"]))

            def x_body(run: Callable[[llir.Value], llir.Value]) -> Callable[[llir.Value], None]:
                def body(gx: llir.Value) -> None:
                    b.store(gx, _word(b, ctx, hx.CTX["global_tid_x"]))
                    if block_x is not None:
                        size = llir.Constant(I64, block_x)
                        tx = b.urem(gx, size)
                        b.store(tx, _word(b, ctx, hx.CTX["thread_idx_x"]))
                        b.store(b.udiv(gx, size), _word(b, ctx, hx.CTX["block_idx_x"]))
                        row = b.mul(size, b.add(ty, b.mul(block[1], tz)))
                        b.store(b.add(tx, row), _word(b, ctx, hx.CTX["linear"]))
                    run(ctx)

                return body

            if inner is None or bounds is None:
                lb.loop(x_first, x_end, x_body(call), "gx")
                return
            # [x_first, a) and [c, x_end) clamped, [a, c) not
            a = ops.minmax("min", [ops.minmax("max", [bounds["inner_lo_x"], x_first], I64_TYPE), x_end], I64_TYPE)
            c = ops.minmax("min", [ops.minmax("max", [bounds["inner_hi_x"], a], I64_TYPE), x_end], I64_TYPE)
            lb.loop(x_first, a, x_body(call), "gx.low")
            lb.loop(a, c, x_body(inner), "gx.inner")
            lb.loop(c, x_end, x_body(call), "gx.high")

        lb.loop(*y_range, y_body, "ty")

    lb.loop(zero, block[2], z_body, "tz")
    b.store(b.add(current, span), blk)
    b.branch(head)
    b.position_at_end(after)


def _start_combined(b: llir.IRBuilder, ctx: llir.Value, aggregated: tuple[Aggregated, ...]) -> None:
    for site in aggregated:
        value, address = hx.combined_words(b, ctx, site.k)
        start = start_value(site)
        b.store(start, b.bitcast(value, start.type.as_pointer()))
        b.store(llir.Constant(I64, 0), address)


def _apply_combined(lb: _Builder, ops: Ops, ctx: llir.Value, aggregated: tuple[Aggregated, ...]) -> None:
    """Each combined atomic, once, where a thread of the entry's blocks reached it."""
    b = lb.b
    for site in aggregated:
        value_word, address_word = hx.combined_words(b, ctx, site.k)
        address = b.load(address_word, typ=I64)

        def apply(site: Aggregated = site, value_word: llir.Value = value_word, address: llir.Value = address) -> None:
            value = b.load(value_word, typ=start_value(site).type)
            intrinsics.atomic(ops, site.name, b.inttoptr(address, PTR), site.dtype, [value])

        lb.if_(b.icmp_unsigned("!=", address, llir.Constant(I64, 0)), apply, f"combined.{site.k}")


def _forwards(
    ops: Ops, forward: Forward, block: list[llir.Value], arrays: list[tuple[int, list[llir.Value], int]]
) -> llir.Value:
    """Does the launch run ``forward``'s function: its block shape is the one proved, and no source
    array's bytes overlap another array argument's but another source's (else a source may change while
    it is read; sources are only read)."""
    b = ops.b
    shape = forward.block
    ok: llir.Value = llir.Constant(I1, 1)
    for dim, want in zip(block, shape):
        ok = b.and_(ok, b.icmp_unsigned("==", dim, llir.Constant(I64, want)))
    spans = {k: _span(b, values, item) for k, values, item in arrays}
    for source in forward.sources:
        lo, hi, empty = spans[source]
        for k, (other_lo, other_hi, other_empty) in spans.items():
            if k in forward.sources:
                continue
            apart = b.or_(b.icmp_signed("<=", hi, other_lo), b.icmp_signed("<=", other_hi, lo))
            ok = b.and_(ok, b.or_(b.or_(empty, other_empty), apart))
    return ok


def _span(b: llir.IRBuilder, values: list[llir.Value], item: int) -> tuple[llir.Value, llir.Value, llir.Value]:
    """The bytes an array argument spans, [lo, hi), and whether it has no element (its flattened values:
    data pointer, shape, strides in elements)."""
    ptr, rest = values[0], values[1:]
    n = len(rest) // 2
    zero = llir.Constant(I64, 0)
    base = b.ptrtoint(ptr, I64)
    low, high, empty = zero, zero, llir.Constant(I1, 0)
    for dim, stride in zip(rest[:n], rest[n:]):
        empty = b.or_(empty, b.icmp_signed("<=", dim, zero))
        reach = b.mul(b.sub(dim, llir.Constant(I64, 1)), stride)
        negative = b.icmp_signed("<", reach, zero)
        low = b.add(low, b.select(negative, reach, zero))
        high = b.add(high, b.select(negative, zero, reach))
    size = llir.Constant(I64, item)
    return b.add(base, b.mul(low, size)), b.add(base, b.mul(b.add(high, llir.Constant(I64, 1)), size)), empty


def _arrays(tf: TypedFunction, values: list[llir.Value]) -> list[tuple[int, list[llir.Value], int]]:
    """The kernel's array parameters: each one's index, flattened values and item bytes."""
    out = []
    at = 0
    for k, t in enumerate(tf.arg_types):
        n = len(abi_types(t, kernel=True))
        if isinstance(t, ArrayT):
            out.append((k, values[at : at + n], t.dtype.dtype.itemsize))
        at += n
    return out
