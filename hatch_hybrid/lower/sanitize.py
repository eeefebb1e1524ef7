"""Sanitized host code: what a kernel's accesses and barriers tell the CPU sanitizer.

A wheel's native library carries, beside each kernel's fast entry, a sanitized one, lowered from the
same typed IR with ``ModuleLowerer(sanitize=True)``: bounds checks on, threads that meet always run
as the state machine of :mod:`.host` (so the driver knows where each thread stopped), and

* every load, store and atomic of an array element calls ``hybrid_san1_access`` (``sanitize.c`` in
  :mod:`hatch_hybrid.targets.host`) with the address, its bytes, how it is accessed, its check site,
  the thread's linear index in the grid and the number of barriers it has passed in its block;
* every ``syncthreads()`` adds one to that number before the thread stops.

The C side keeps a shadow cell per element of the launch's arrays and per granule of the block's
shared memory (who wrote it last, who read it last, in which epoch, from which site) and reports
shared memory read before any thread of the block wrote it (initcheck), and two threads' accesses
of one element, one of them a write, with no barrier between them (racecheck). A finding records
itself in the launch's error slot and the kernel returns as from a failed check; the runtime
(``hybrid_runtime.sanitizer``) turns the sanitizer's report into a :class:`SanitizerError`.
"""

from __future__ import annotations

from llvmlite import ir as llir

from ..errors import Loc
from . import host_context as hx
from .ops import I32, I64, PTR, declare
from .parts import LowererParts
from .sites import located

ACCESS = "hybrid_san1_access"
# how an element is accessed (the low two bits of the site word)
READ, WRITE, ATOMIC = 0, 1, 2


class SanitizeLowerer(LowererParts):
    ctx: llir.Value

    def sanitize_access(self, ptr: llir.Value, nbytes: int, how: int, loc: Loc) -> None:
        """Report an access of ``nbytes`` at ``ptr`` to the sanitizer; leave as a failed check does if
        it found a hazard (the sanitizer has recorded it in the error slot)."""
        parent = self.parent
        site = parent.checks.site(located(self.tf.fn.module, loc, kind="access"))
        b = self.b
        fn = declare(parent.module, ACCESS, I32, [PTR, PTR, I64, I64, I64, I64])
        found = b.call(
            fn,
            [
                hx.ctx_pointer(self.ops, self.ctx, "sanitizer"),
                ptr,
                llir.Constant(I64, nbytes),
                llir.Constant(I64, site << 2 | how),
                self.grid_thread(),
                hx.ctx_load(self.ops, self.ctx, "epoch"),
            ],
        )
        leave = self.fn.append_basic_block("sanitize.found")
        cont = self.fn.append_basic_block("sanitize.ok")
        b.cbranch(b.icmp_unsigned("!=", found, llir.Constant(I32, 0)), leave, cont).set_weights([1, 1 << 20])
        b.position_at_end(leave)
        self.host_return_failed()  # type: ignore[attr-defined]
        b.position_at_end(cont)

    def grid_thread(self) -> llir.Value:
        """The thread's linear index in the grid: its block's linear index times the block's threads,
        plus its own linear index in the block."""
        b, ops, ctx = self.b, self.ops, self.ctx
        bx, by, bz = (hx.ctx_load(ops, ctx, f"block_idx_{a}") for a in "xyz")
        gx, gy = (hx.ctx_load(ops, ctx, f"grid_dim_{a}") for a in "xy")
        block = b.add(bx, b.mul(gx, b.add(by, b.mul(gy, bz))))
        return b.add(b.mul(block, hx.ctx_load(ops, ctx, "threads")), hx.ctx_load(ops, ctx, "linear"))

    def sanitize_barrier(self) -> None:
        """Before a thread stops at ``syncthreads()``: one more barrier passed."""
        epoch = hx.ctx_load(self.ops, self.ctx, "epoch")
        hx.ctx_store(self.ops, self.ctx, "epoch", self.b.add(epoch, llir.Constant(I64, 1)))

    def yield_site(self, loc: Loc, what: str) -> None:
        """Sanitized: the check site of the place a thread stops next (``what``: "barrier" or "warp"),
        which the sanitizer's synccheck names by its position."""
        self.parent.yield_sites.append(self.parent.checks.site(located(self.tf.fn.module, loc, kind=what)))
