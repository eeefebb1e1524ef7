"""Sanitized host code: what a kernel's accesses and barriers tell the CPU sanitizer.

A wheel's native library carries, beside each kernel's fast entry, a sanitized one, lowered from the
same typed IR with ``HostFlavour(triple, sanitize=True)``: bounds checks on, threads that meet run as loops
over threads as in the fast entry (the state machine of :mod:`.threads` where a barrier stands under a
condition that differs between threads, so that the driver knows where each thread stopped), and

* every load, store and atomic of an array element is checked against the sanitizer's shadow cells
  (``sanitize.c`` in :mod:`hatch_hybrid.targets.host`; their layout in :mod:`hybrid_runtime.abi`) with
  the address, its bytes, how it is accessed, its check site, the thread's linear index in the grid and
  the number of barriers passed in its block;
* every ``syncthreads()`` adds one to that number.

Most accesses are checked inline. An array whose place is known here (a kernel parameter, a view of one,
or the block's shared memory: :attr:`ArrayValue.root`) has its region found without a search: a
parameter nobody writes in the launch has none (the runtime's table says so) and is not checked at all,
and an access that finds its cell free of another thread's concurrent access updates the cell in a few
instructions (:func:`fast_check`). Everything else, and every cell that holds another thread's access,
calls ``hybrid_san1_access``, which does the whole check and reports.

The C side keeps a shadow cell per element of the launch's arrays and per granule of the block's
shared memory (who wrote it last, who read it last, in which epoch, from which site) and reports
shared memory read before any thread of the block wrote it (initcheck), and two threads' accesses
of one element, one of them a write, with no barrier between them (racecheck). A finding records
itself in the launch's error slot and the kernel returns as from a failed check; the runtime
(``hybrid_runtime.sanitizer``) turns the sanitizer's report into a :class:`SanitizerError`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from hybrid_runtime.abi import SANITIZER_CELL_BYTES, SANITIZER_PARAMS, SANITIZER_REGIONS, SANITIZER_WRITTEN
from llvmlite import ir as llir

from .... import ir
from ....errors import Loc
from ....lower.hooks import ATOMIC, READ, SHARED, WRITE
from ....lower.ops import I1, I32, I64, PTR, declare
from ....lower.parts import LowererParts
from ....lower.sites import located
from ....lower.values import ArrayValue, Value
from . import context as hx
from .fission_state import FissionState
from .record import host_record, sanitizing
from .sanitize_segments import assignment_counts

ACCESS = "hybrid_san1_access"
QUIET = "hybrid_san1_quiet"
_LO, _SHADOW, _SHIFT = 0, 2, 3  # a region's words


class Roots:
    """Where a function's arrays lie, as far as lowering knows (sanitized code only)."""

    def __init__(self, body: list[ir.Stmt], names: Iterable[str]) -> None:
        counts = assignment_counts(body)
        self.once = {n for n in names if counts.get(n, 0) <= 1}  # assigned at most once: their root holds
        self.locals: dict[str, int] = {}
        self.elements: dict[int, tuple[llir.Value, int]] = {}  # id(element pointer) -> (it, its array's root)


class SanitizeLowerer(LowererParts):
    ctx: llir.Value
    body: list[ir.Stmt]
    fs: FissionState | None  # FissionLowerer's: the block loops' state (None: no plan)
    roots: Roots | None = None

    # ---------------------------------------------------------------- where arrays lie
    def _roots(self) -> Roots | None:
        if not sanitizing(self.parent):
            return None
        if self.roots is None:
            self.roots = Roots(self.body, self.tf.locals)
        return self.roots

    def root_of_local(self, name: str, value: Value) -> None:
        """``value`` stored in local ``name``: a local assigned once keeps its array's root."""
        roots = self._roots()
        if roots is not None and isinstance(value, ArrayValue) and value.root is not None and name in roots.once:
            roots.locals[name] = value.root

    def local_root(self, name: str, value: Value) -> Value:
        """``value`` loaded from local ``name``, with its array's root where known."""
        root = self.roots.locals.get(name) if self.roots is not None else None
        if root is not None and isinstance(value, ArrayValue):
            value.root = root
        return value

    def element_root(self, ptr: llir.Value, arr: ArrayValue) -> None:
        """``ptr`` is an element of ``arr``."""
        roots = self._roots()
        if roots is not None and arr.root is not None:
            roots.elements[id(ptr)] = (ptr, arr.root)

    def _root(self, ptr: llir.Value) -> int | None:
        found = self.roots.elements.get(id(ptr)) if self.roots is not None else None
        return found[1] if found is not None and found[0] is ptr else None

    # ---------------------------------------------------------------- accesses
    def access(self, ptr: llir.Value, nbytes: int, how: int, loc: Loc) -> None:
        if sanitizing(self.parent):
            self.sanitize_access(ptr, nbytes, how, loc)

    def sanitize_access(self, ptr: llir.Value, nbytes: int, how: int, loc: Loc) -> None:
        """Check an access of ``nbytes`` at ``ptr``; leave as a failed check does if the sanitizer found a
        hazard (it has recorded it in the error slot)."""
        parent = self.parent
        site = parent.checks.site(located(self.tf.fn.module, loc, kind="access"))
        b = self.b
        state = hx.ctx_pointer(self.ops, self.ctx, "sanitizer")
        me = b.add(self.grid_thread(), llir.Constant(I64, 1))
        epoch = hx.ctx_load(self.ops, self.ctx, "epoch")
        root = self._root(ptr)
        slow = self.fn.append_basic_block("sanitize.call")
        done = self.fn.append_basic_block("sanitize.done")
        if root is not None and how != ATOMIC:
            if root == SHARED:
                region = b.gep(state, [llir.Constant(I64, SANITIZER_REGIONS)], source_etype=I64)
            else:
                table = self._invariant(b.gep(state, [llir.Constant(I64, SANITIZER_PARAMS)], source_etype=I64))
                region = self._invariant(b.gep(table, [llir.Constant(I64, root)], source_etype=I64))
                inline = self.fn.append_basic_block("sanitize.inline")
                b.cbranch(b.icmp_unsigned("==", b.ptrtoint(region, I64), llir.Constant(I64, 0)), done, inline)
                b.position_at_end(inline)
            now = b.or_(
                b.and_(me, llir.Constant(I64, 0xFFFFFFFF)),
                b.or_(
                    b.shl(b.and_(epoch, llir.Constant(I64, 0xFFFF)), llir.Constant(I64, 32)),
                    llir.Constant(I64, (site & 0x7FFF) << 48),
                ),
            )
            if root == SHARED and how == READ and self.fs is not None and self.fs.quiet_all is not None:
                marked = self.fn.append_basic_block("sanitize.marked")
                b.cbranch(self.fs.quiet_all, done, marked)
                b.position_at_end(marked)
                written = self._invariant(b.gep(state, [llir.Constant(I64, SANITIZER_WRITTEN)], source_etype=I64))
                ok = b.call(quiet_check(parent.module), [region, ptr, llir.Constant(I64, nbytes), written])
            else:
                args = [region, ptr, llir.Constant(I64, nbytes), now, me]
                if root == SHARED:
                    linear = hx.ctx_load(self.ops, self.ctx, "linear")
                    args += [b.sub(me, linear), hx.ctx_load(self.ops, self.ctx, "threads")]
                ok = b.call(fast_check(parent.module, how, root == SHARED), args)
            b.cbranch(ok, done, slow)
        else:
            b.branch(slow)
        b.position_at_end(slow)
        fn = declare(parent.module, ACCESS, I32, [PTR, PTR, I64, I64, I64, I64])
        found = b.call(
            fn,
            [
                state,
                ptr,
                llir.Constant(I64, nbytes),
                llir.Constant(I64, site << 2 | how),
                b.sub(me, llir.Constant(I64, 1)),
                epoch,
            ],
        )
        leave = self.fn.append_basic_block("sanitize.found")
        b.cbranch(b.icmp_unsigned("!=", found, llir.Constant(I32, 0)), leave, done).set_weights([1, 1 << 20])
        b.position_at_end(leave)
        self.host_return_failed()  # type: ignore[attr-defined]
        b.position_at_end(done)

    def _invariant(self, ptr: llir.Value) -> llir.Value:
        """A pointer in the sanitizer's tables, which no code changes during a launch (LLVM may hoist it)."""
        load = self.b.load(ptr, typ=PTR)
        load.set_metadata("invariant.load", self.parent.module.add_metadata([]))
        return load

    def grid_thread(self) -> llir.Value:
        """The thread's linear index in the grid: its block's linear index times the block's threads,
        plus its own linear index in the block."""
        return self.b.add(self._block_start(), hx.ctx_load(self.ops, self.ctx, "linear"))

    def _block_start(self) -> llir.Value:
        """The linear index in the grid of the block's first thread."""
        b, ops, ctx = self.b, self.ops, self.ctx
        bx, by, bz = (hx.ctx_load(ops, ctx, f"block_idx_{a}") for a in "xyz")
        gx, gy = (hx.ctx_load(ops, ctx, f"grid_dim_{a}") for a in "xy")
        block = b.add(bx, b.mul(gx, b.add(by, b.mul(gy, bz))))
        return b.mul(block, hx.ctx_load(ops, ctx, "threads"))

    def sanitize_quiet(self) -> llir.Value:
        """At the start of a piece whose segment writes no shared memory (block level): mark the granules
        of shared memory the block has written (``hybrid_san1_quiet``); true when it wrote every one, so
        that the piece's reads of shared memory need no check (false: each tests its granule's mark)."""
        b = self.b
        state = hx.ctx_pointer(self.ops, self.ctx, "sanitizer")
        first = b.add(self._block_start(), llir.Constant(I64, 1))
        found = b.call(declare(self.parent.module, QUIET, I32, [PTR, I64]), [state, first])
        return b.icmp_unsigned("!=", found, llir.Constant(I32, 0))

    def sanitize_barrier(self) -> None:
        """Before a thread stops at ``syncthreads()`` (or after a block passed a planned barrier): one
        more barrier passed."""
        epoch = hx.ctx_load(self.ops, self.ctx, "epoch")
        hx.ctx_store(self.ops, self.ctx, "epoch", self.b.add(epoch, llir.Constant(I64, 1)))

    def yield_site(self, loc: Loc, what: str) -> None:
        """Sanitized: the check site of the place a thread stops next (``what``: "barrier" or "warp"),
        which the sanitizer's synccheck names by its position."""
        host_record(self.parent.flavour).yield_sites.append(
            self.parent.checks.site(located(self.tf.fn.module, loc, kind=what))
        )


def fast_check(module: llir.Module, how: int, shared: bool) -> llir.Function:
    """The inline check of a read or a write (``how``) of one cell of a region (of the block's shared
    memory if ``shared``): true when the cell holds no access of another thread that this one may race
    with, or (shared memory) that leaves it unwritten by the block; the cell is then updated as
    ``hybrid_san1_access`` would. False: the caller makes that call, which decides and reports.

    Arguments: the region, the address, its bytes, this access (the i64 a cell holds: the grid thread's
    index plus one, the epoch, the site), the thread's index plus one; for shared memory also the block's
    first thread's index plus one and the block's threads. An access spanning two cells goes to the call."""
    kind = "write" if how == WRITE else "read"
    name = f"hybrid_san1_fast_{'shared' if shared else 'global'}_{kind}"
    found = module.globals.get(name)
    if found is not None:
        return found
    args = [PTR, PTR, I64, I64, I64] + ([I64, I64] if shared else [])
    fn = llir.Function(module, llir.FunctionType(I1, args), name)
    fn.linkage = "internal"
    fn.attributes.add("alwaysinline")
    b = llir.IRBuilder(fn.append_basic_block("entry"))
    region, addr, nbytes, now, me = fn.args[:5]

    g, single = _granule(b, region, addr, nbytes)
    shadow = b.inttoptr(_word(b, region, _SHADOW), PTR)
    cell = b.gep(shadow, [b.mul(g, llir.Constant(I64, SANITIZER_CELL_BYTES))], source_etype=llir.IntType(8))
    slots = [b.gep(cell, [llir.Constant(I64, k)], source_etype=I64) for k in range(3)]
    write, read, other = (b.load(s, typ=I64) for s in slots)
    low = llir.Constant(I64, 0xFFFFFFFF)
    zero = llir.Constant(I64, 0)

    def tid(x: llir.Value) -> llir.Value:
        return b.and_(x, low)

    def same_epoch(x: llir.Value) -> llir.Value:  # bits 32-47
        return b.icmp_unsigned("==", b.and_(b.xor(x, now), llir.Constant(I64, 0xFFFF << 32)), zero)

    def mine(x: llir.Value) -> llir.Value:
        return b.icmp_unsigned("==", tid(x), me)

    def none_or_mine(x: llir.Value) -> llir.Value:
        return b.or_(b.icmp_unsigned("==", tid(x), zero), mine(x))

    if not shared:  # any other thread's access of a launch's array is concurrent
        if how == WRITE:
            ok = b.and_(
                b.and_(single, none_or_mine(write)), b.and_(none_or_mine(read), b.icmp_unsigned("==", tid(other), zero))
            )
            b.store(b.select(ok, now, write), slots[0])
        else:
            ok = b.and_(single, b.and_(none_or_mine(write), none_or_mine(read)))
            b.store(b.select(ok, now, read), slots[1])
        b.ret(ok)
        return fn
    first, threads = fn.args[5:]

    def counts(x: llir.Value) -> llir.Value:  # by a thread of this block (0: none)
        return b.icmp_unsigned("<", b.sub(tid(x), first), threads)

    def concurrent(x: llir.Value) -> llir.Value:  # another thread of the block, no barrier between
        return b.and_(counts(x), b.and_(b.not_(mine(x)), same_epoch(x)))

    if how == WRITE:
        clash = b.or_(concurrent(write), b.or_(concurrent(read), concurrent(other)))
        ok = b.and_(single, b.not_(clash))
        b.store(b.select(ok, now, write), slots[0])
        b.ret(ok)
        return fn
    ok = b.and_(single, b.and_(counts(write), b.not_(concurrent(write))))
    # the reads kept: a read a barrier separates from this one (or none) gives way to this one alone
    reset = b.or_(b.not_(counts(read)), b.and_(b.not_(mine(read)), b.not_(same_epoch(read))))
    b.store(b.select(b.and_(ok, b.or_(reset, mine(read))), now, read), slots[1])
    kept = b.select(reset, zero, b.select(mine(read), other, now))
    b.store(b.select(ok, kept, other), slots[2])
    b.ret(ok)
    return fn


def quiet_check(module: llir.Module) -> llir.Function:
    """The inline check of a read of shared memory in a segment with no write to it
    (:mod:`.sanitize_segments`) where the block has not written all of it: true when the granule read is
    marked written (``hybrid_san1_quiet``). Arguments: the region, the address, its bytes, the map."""
    found = module.globals.get("hybrid_san1_fast_quiet")
    if found is not None:
        return found
    fn = llir.Function(module, llir.FunctionType(I1, [PTR, PTR, I64, PTR]), "hybrid_san1_fast_quiet")
    fn.linkage = "internal"
    fn.attributes.add("alwaysinline")
    b = llir.IRBuilder(fn.append_basic_block("entry"))
    region, addr, nbytes, written = fn.args
    g, single = _granule(b, region, addr, nbytes)
    mark = b.load(b.gep(written, [g], source_etype=llir.IntType(8)), typ=llir.IntType(8))
    b.ret(b.and_(single, b.icmp_unsigned("==", mark, llir.Constant(llir.IntType(8), 1))))
    return fn


def _word(b: llir.IRBuilder, region: llir.Value, k: int) -> llir.Value:
    """Word ``k`` of a region, which holds for the whole launch (LLVM may hoist it)."""
    load = b.load(b.gep(region, [llir.Constant(I64, k)], source_etype=I64), typ=I64)
    load.set_metadata("invariant.load", b.module.add_metadata([]))
    return load


def _granule(b: llir.IRBuilder, region: llir.Value, addr: llir.Value, nbytes: llir.Value) -> tuple[Any, Any]:
    """The granule of ``region`` that an access of ``nbytes`` at ``addr`` starts in, and whether it ends
    there too."""
    shift = _word(b, region, _SHIFT)
    offset = b.sub(b.ptrtoint(addr, I64), _word(b, region, _LO))
    g = b.lshr(offset, shift)
    return g, b.icmp_unsigned("==", g, b.lshr(b.add(offset, b.sub(nbytes, llir.Constant(I64, 1))), shift))
