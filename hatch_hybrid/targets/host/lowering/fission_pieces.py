"""What a host kernel's plan of loops over threads is made of (:mod:`.fission_plan` makes it,
:mod:`.fission` lowers it): the kernel body as a tree of pieces — :class:`Region` (statements every
thread runs in turn), :class:`Barrier`, :class:`Exchange` (a warp shuffle or vote: every lane posts,
then every lane reads), branches and loops on the block's or a thread's own condition, grid-stride
loops run with the threads as lanes, helpers that meet — and :class:`Plan`, which also says where
each local lives."""

from __future__ import annotations

from dataclasses import dataclass, field

from .... import ir
from ....typecheck.typed import TypedFunction


class NotFissionable(Exception):
    """Why a kernel keeps the state machine (shown in the build output)."""

    def __init__(self, loc: object, reason: str) -> None:
        super().__init__(reason)
        self.loc, self.reason = loc, reason


@dataclass
class Region:
    """Statements with no meeting point: one loop over the active threads."""

    stmts: list[ir.Stmt]
    in_loop: bool  # inside a block-uniform loop that meets: runs again with the locals of before
    guards: list[ir.Expr] = field(default_factory=list)  # conditions a thread runs the statements under
    only: dict[int, int] = field(default_factory=dict)  # thread axis (0-2) -> the one index that runs


@dataclass
class Barrier:
    stmt: ir.Stmt


@dataclass
class Exchange:
    """``name = gpu.<shuffle or vote>(...)``: the lanes post, then read each other's posts."""

    stmt: ir.Assign
    call: ir.Call
    name: str  # the gpu function


@dataclass
class UniformIf:
    stmt: ir.If
    body: list[Piece]
    orelse: list[Piece]


@dataclass
class MaskedIf:
    """An ``if`` on a condition that differs between threads, with meeting points inside: each thread
    records its outcome, then both sides run for the threads that took them."""

    stmt: ir.If
    body: list[Piece]
    orelse: list[Piece]


@dataclass
class UniformLoop:
    stmt: ir.While | ir.ForRange
    body: list[Piece]


@dataclass
class MaskedLoop:
    """A ``while`` loop with meeting points whose condition may differ between threads: it runs while
    any thread's condition holds, each thread until its own condition fails."""

    stmt: ir.While
    body: list[Piece]


@dataclass
class LaneLoop:
    """A ``while`` loop with no meeting point whose condition differs between threads (a grid-stride
    loop), run with the thread loop inside: each round, every thread still in the loop tests its
    condition and runs the body, so the block's threads are the lanes of one vectorised loop. Its
    ``steps`` (``i += stride`` at the end of the body, the stride the same for the block) move
    :attr:`Plan.drift` locals, which are therefore their first value plus one block-wide sum: thread
    ``t`` reads ``i0(t) + drift``, so that loads through ``i`` are contiguous across the lanes."""

    stmt: ir.While
    body: list[ir.Stmt]  # the loop's body without its steps
    steps: list[ir.AugAssign]
    plain_test: bool  # the condition reads no memory and cannot fail: evaluated for every thread


@dataclass
class Inline:
    """A helper that meets other threads, called as a statement: its body planned the same way."""

    stmt: ir.ExprStmt
    call: ir.Call
    target: TypedFunction
    args: list[ir.Expr]
    plan: Plan
    uniform_args: bool  # every argument the same for the block: bound once, not per thread


Piece = Region | Barrier | Exchange | UniformIf | MaskedIf | UniformLoop | MaskedLoop | LaneLoop | Inline


@dataclass
class Plan:
    tf: TypedFunction
    pieces: list[Piece]
    per_thread: set[str] = field(default_factory=set)
    block: set[str] = field(default_factory=set)
    remat: dict[str, ir.Expr] = field(default_factory=dict)  # locals recomputed where read (thread indices)
    drift: dict[str, ir.Expr] = field(default_factory=dict)  # locals a LaneLoop steps: their first value
    # drift locals never negative (thread indices plus non-negative steps): as indices they need no
    # wrapping from the end, which would keep the lanes' loads from being contiguous
    nonnegative: set[str] = field(default_factory=set)
    exits: bool = False  # a thread may return before the others are done: an exited mask
