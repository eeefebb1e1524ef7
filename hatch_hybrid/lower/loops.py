"""Lowering of loops: ``while`` and ``for ... in range(...)``, with the unroll hint NVCC gives
grid-stride loops (run-time trip counts), and not for loops that synchronise threads or exit early.

:class:`LoopLowerer` is mixed into :class:`~.function.FunctionLowerer`, which provides the builder,
``block``/``condition``/``coerce``, locals and the enclosing :class:`~.function.ModuleLowerer`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from llvmlite import ir as llir

from .. import ir
from ..typecheck.rules import MATCHES, SHUFFLES, VOTES
from ..types import WEAK_INT
from .ops import I64, const
from .parts import LowererParts

_CONVERGENT = {"syncthreads"} | SHUFFLES | VOTES | MATCHES
RANGE_STEP_ZERO = "range() arg 3 must not be zero"  # CPython's (hybrid_runtime.checks knows it as a check)


def counted_loop(
    b: llir.IRBuilder,
    fn: llir.Function,
    counter: llir.Value,
    start: llir.Value,
    stop: llir.Value,
    body: Callable[[llir.Value], None],
    name: str,
) -> None:
    """``body(i)`` for i in [start, stop) (i64), the count kept in ``counter`` (an alloca: LLVM's mem2reg
    makes it a register); for the loops the compiler makes itself (over blocks, over threads)."""
    b.store(start, counter)
    head, inner, after = (fn.append_basic_block(f"{name}.{k}") for k in ("head", "body", "end"))
    b.branch(head)
    b.position_at_end(head)
    i = b.load(counter, typ=I64)
    b.cbranch(b.icmp_signed("<", i, stop), inner, after)
    b.position_at_end(inner)
    body(i)
    if not b.block.is_terminated:
        b.store(b.add(b.load(counter, typ=I64), llir.Constant(I64, 1), flags=["nsw"]), counter)
        b.branch(head)
    b.position_at_end(after)


class Loop:
    """Where `continue` and `break` go in the innermost loop being lowered."""

    def __init__(self, continue_to: llir.Block, break_to: llir.Block) -> None:
        self.continue_to = continue_to
        self.break_to = break_to


class LoopLowerer(LowererParts):
    loops: list[Loop]
    threads_as_loops: bool  # (FunctionLowerer's: a host CPU's block runs its threads as loops)

    def while_(
        self, s: ir.While, body: Callable[[], None] | None = None, test: Callable[[], llir.Value] | None = None
    ) -> None:
        """``body``/``test``: how to lower the body and the condition instead (host: the loop of a
        block that runs its threads as loops, see targets/host/lowering/fission.py)."""
        head = self.fn.append_basic_block("while.cond")
        inside = self.fn.append_basic_block("while.body")
        after = self.fn.append_basic_block("while.end")
        self.b.branch(head)
        self.b.position_at_end(head)
        self.b.cbranch(self.condition(s.test) if test is None else test(), inside, after)
        self.b.position_at_end(inside)
        if body is None:
            self.loops.append(Loop(head, after))
            self.block(s.body)
            self.loops.pop()
        else:
            body()
        if not self.b.block.is_terminated:
            back = self.b.branch(head)
            if self._run_time_bound(s.test) and self._unrollable(s.body):
                back.set_metadata("llvm.loop", self.parent.loop_id())
        self.b.position_at_end(after)

    def _run_time_bound(self, test: ir.Expr) -> bool:
        """Is this loop test a comparison with bounds known only at run time (``i < n``)? Loops with
        constant bounds are better left to LLVM's full unrolling."""
        if not isinstance(test, ir.Compare):
            return False
        return not any(isinstance(c, ir.Const) or c.nid in self.tf.consts for c in [test.left, *test.comparators])

    def _unrollable(self, body: list[ir.Stmt]) -> bool:
        """Whether a run-time-bound loop should carry the unroll hint. Not when it synchronises threads
        (LLVM cannot unroll it with a remainder) or leaves early (break/return: the escape-time loop of
        a Mandelbrot runs slower unrolled, and NVCC leaves such loops alone too)."""
        return not self._has_barrier(body) and not self._exits(body, top=True)

    def _exits(self, body: list[ir.Stmt], top: bool) -> bool:
        for stmt in body:
            if isinstance(stmt, ir.Return) or (top and isinstance(stmt, ir.Break)):
                return True
            if isinstance(stmt, ir.If) and (self._exits(stmt.body, top) or self._exits(stmt.orelse, top)):
                return True
            if isinstance(stmt, (ir.While, ir.ForRange)) and self._exits(stmt.body, top=False):
                return True
        return False

    def _has_barrier(self, body: list[ir.Stmt]) -> bool:
        """Does the loop body synchronise threads?"""
        for stmt in body:
            for node in ir.walk(stmt):
                callee = self.tf.callees.get(node.nid) if isinstance(node, ir.Call) else None
                if callee is not None and (
                    callee.kind == "gpu"
                    and callee.name in _CONVERGENT
                    or (callee.target is not None and callee.target.uses_barrier)
                ):
                    return True
        return False

    def for_range(self, s: ir.ForRange, body_fn: Callable[[], None] | None = None) -> None:
        b = self.b
        args = [self.coerce(a, WEAK_INT) for a in s.args]
        consts = [self.tf.consts.get(a.nid) for a in s.args]
        step_const: object = 1  # the step when known at compile time (it picks the loop test)
        if len(args) == 1:
            start, stop, step = const(WEAK_INT, 0), args[0], const(WEAK_INT, 1)
        else:
            start, stop = args[0], args[1]
            step = args[2] if len(args) == 3 else const(WEAK_INT, 1)
            if len(args) == 3:
                step_const = consts[2] if isinstance(s.args[2], ir.Const) else None
                node = s.args[2]
                if isinstance(node, ir.UnaryOp) and node.op == "-" and isinstance(node.operand, ir.Const):
                    assert not isinstance(node.operand.value, complex)  # range() takes integers
                    step_const = -int(node.operand.value or 0)
        if len(args) == 3 and not isinstance(consts[2], (int, np.integer)):
            # a step known only at run time: Python's range raises for 0 (the Python path does), so the
            # compiled code fails there too rather than running no iteration
            ok = b.icmp_signed("!=", step, const(WEAK_INT, 0))
            self.check(ok, "value", s.loc, RANGE_STEP_ZERO)
        counter = self._alloca(I64, f"{s.target.id}.counter")
        b.store(start, counter)
        if self.threads_as_loops:  # bounds in slots: a thread that yields in the body restores them
            stop_slot, step_slot = self._alloca(I64, "for.stop"), self._alloca(I64, "for.step")
            b.store(stop, stop_slot)
            b.store(step, step_slot)
        head = self.fn.append_basic_block("for.cond")
        body = self.fn.append_basic_block("for.body")
        incr = self.fn.append_basic_block("for.incr")
        after = self.fn.append_basic_block("for.end")
        b.branch(head)
        b.position_at_end(head)
        if self.threads_as_loops:
            stop, step = b.load(stop_slot, typ=I64), b.load(step_slot, typ=I64)
        i = b.load(counter, typ=I64)
        zero = const(WEAK_INT, 0)
        if isinstance(step_const, int) and step_const != 0:
            cond = b.icmp_signed("<" if step_const > 0 else ">", i, stop)
        else:  # unknown sign: count up, count down, or (step 0) not at all
            up = b.and_(b.icmp_signed(">", step, zero), b.icmp_signed("<", i, stop))
            down = b.and_(b.icmp_signed("<", step, zero), b.icmp_signed(">", i, stop))
            cond = b.or_(up, down)
        b.cbranch(cond, body, after)
        b.position_at_end(body)
        self.store_local(s.target.id, self.ops.convert(i, WEAK_INT, self.tf.locals[s.target.id]))  # a merged counter
        if body_fn is None:
            self.loops.append(Loop(incr, after))
            self.block(s.body)
            self.loops.pop()
        else:
            body_fn()
        if not b.block.is_terminated:
            b.branch(incr)
        b.position_at_end(incr)
        if self.threads_as_loops:
            step = b.load(step_slot, typ=I64)
        b.store(b.add(b.load(counter, typ=I64), step, flags=["nsw"]), counter)  # a Python int
        back = b.branch(head)
        stop = s.args[0] if len(s.args) == 1 else s.args[1]
        if not (isinstance(stop, ir.Const) or stop.nid in self.tf.consts) and self._unrollable(s.body):
            back.set_metadata("llvm.loop", self.parent.loop_id())
        b.position_at_end(after)
