"""Sanitized block loops: the stretches of a kernel between barriers in which no thread writes shared
memory, where a read of shared memory needs only the initcheck (:mod:`.sanitize`).

A race on shared memory needs a write and another thread's access with no barrier between them: both
in one *segment*, the code a block runs between two barriers. Where a plan (:mod:`.fission_plan`) runs
the kernel's threads as loops, its barriers are reached by every thread of the block that has not
returned (sanitized kernels with a barrier under a condition that differs between threads keep the
state machine), so a segment is the pieces that control reaches from one barrier without passing
another, loops' back edges included. In a segment with no write to shared memory, a read's cell need
not record the read (no write of this segment can race with it, and later ones are past a barrier):
the read is checked for having been written by the block, which costs a load and a compare, instead of
the load, compare and two stores of a cell's full update.
"""

from __future__ import annotations

from collections.abc import Callable

from .... import ir
from ....typecheck.typed import TypedFunction
from ....types import ArrayT
from .fission_pieces import (
    Barrier,
    Exchange,
    Inline,
    LaneLoop,
    MaskedIf,
    MaskedLoop,
    Piece,
    Region,
    UniformIf,
    UniformLoop,
)
from .fission_plan import all_stmts


def quiet_pieces(tf: TypedFunction, pieces: list[Piece]) -> set[int]:
    """The ids of the pieces (of the kernel's plan and of helpers inlined in it) whose segment writes no
    shared memory. Conservative: a store or atomic through any array but one of the kernel's parameters
    (in a helper inlined: a parameter given one), and any call of a helper not inlined, counts."""
    return _Segments().quiet(_Scope(tf, _unassigned_arrays(tf, lambda name: True)), pieces)


class _Scope:
    """A function whose pieces are walked, and its locals that hold one of the kernel's parameters."""

    def __init__(self, tf: TypedFunction, globals_: set[str]) -> None:
        self.tf, self.globals = tf, globals_

    def global_array(self, e: ir.Expr) -> bool:
        return isinstance(e, ir.Name) and e.id in self.globals


def assignment_counts(body: list[ir.Stmt]) -> dict[str, int]:
    """How often each local is assigned whole in ``body`` (an augmented assignment or a loop variable
    counts twice: it takes more than one value)."""
    counts: dict[str, int] = {}
    for s in all_stmts(body):
        if isinstance(s, (ir.Assign, ir.AugAssign, ir.ForRange)):
            for n in ir.target_names(s.target):
                counts[n.id] = counts.get(n.id, 0) + (1 if isinstance(s, ir.Assign) else 2)
    return counts


def _unassigned_arrays(tf: TypedFunction, given: Callable[[str], bool]) -> set[str]:
    """``tf``'s array parameters that its body never assigns and that ``given`` a kernel's parameter."""
    assigned = assignment_counts(tf.fn.body)
    return {
        p.name
        for p, t in zip(tf.fn.params, tf.arg_types)
        if isinstance(t, ArrayT) and p.name not in assigned and given(p.name)
    }


class _Segments:
    def __init__(self) -> None:
        self.parent: list[int] = []
        self.writes: list[bool] = []
        self.of: dict[int, int] = {}  # id(piece) -> its segment

    def quiet(self, scope: _Scope, pieces: list[Piece]) -> set[int]:
        self.walk(scope, pieces, {self.new()})
        return {p for p, s in self.of.items() if not self.writes[self.find(s)]}

    def new(self) -> int:
        self.parent.append(len(self.parent))
        self.writes.append(False)
        return len(self.parent) - 1

    def find(self, k: int) -> int:
        while self.parent[k] != k:
            self.parent[k] = self.parent[self.parent[k]]
            k = self.parent[k]
        return k

    def union(self, a: int, b: int) -> int:
        a, b = self.find(a), self.find(b)
        if a != b:
            self.parent[b] = a
            self.writes[a] = self.writes[a] or self.writes[b]
        return a

    def member(self, p: Piece, open_: set[int], writes: bool) -> set[int]:
        """``p`` runs in the segment every open one flows into."""
        segments = list(open_) + ([self.of[id(p)]] if id(p) in self.of else [])
        s = segments[0]
        for other in segments[1:]:
            s = self.union(s, other)
        self.of[id(p)] = s
        if writes:
            self.writes[self.find(s)] = True
        return {s}

    def walk(self, scope: _Scope, pieces: list[Piece], open_: set[int]) -> set[int]:
        """Assign ``pieces`` (of ``scope``'s function) to segments, control arriving from ``open_``;
        returns the segments it leaves by."""
        for p in pieces:
            if isinstance(p, Barrier):
                open_ = {self.new()}
            elif isinstance(p, Region):
                open_ = self.member(p, open_, _writes_shared(scope, p.stmts))
            elif isinstance(p, LaneLoop):
                open_ = self.member(p, open_, _writes_shared(scope, [*p.body, *p.steps]))
            elif isinstance(p, Exchange):
                open_ = self.member(p, open_, _writes_shared(scope, [p.stmt]))
            elif isinstance(p, (UniformIf, MaskedIf)):
                open_ = self.walk(scope, p.body, open_) | self.walk(scope, p.orelse, open_)
            elif isinstance(p, (UniformLoop, MaskedLoop)):
                around = self.walk(scope, p.body, open_)
                open_ = open_ | self.walk(scope, p.body, open_ | around)  # again, entered by the back edge
            elif isinstance(p, Inline):
                open_ = self.member(p, open_, False)  # its arguments, bound before its pieces run
                given = {param.name: arg for param, arg in zip(p.target.fn.params, p.args)}
                inner = _unassigned_arrays(p.target, lambda name: scope.global_array(given[name]))
                open_ = self.walk(_Scope(p.target, inner), p.plan.pieces, open_)
            else:
                raise AssertionError(p)
        return open_


def _writes_shared(scope: _Scope, stmts: list[ir.Stmt]) -> bool:
    for s in all_stmts(stmts):
        if isinstance(s, (ir.Assign, ir.AugAssign)) and any(
            isinstance(t, ir.Subscript) and not scope.global_array(t.value) for t in _flat_targets(s.target)
        ):
            return True
        for n in ir.walk(s) if not isinstance(s, (ir.If, ir.While, ir.ForRange)) else _headers(s):
            if isinstance(n, ir.Call):
                callee = scope.tf.callees.get(n.nid)
                if callee is not None and callee.kind in ("helper", "method"):
                    return True
                if callee is not None and callee.name.startswith("atomic_"):
                    if not n.args or not scope.global_array(n.args[0]):
                        return True
    return False


def _headers(s: ir.Stmt) -> list[ir.Node]:
    """The expressions of a compound statement's own header (its body's statements are visited apart)."""
    if isinstance(s, ir.If) or isinstance(s, ir.While):
        return list(ir.walk(s.test))
    if isinstance(s, ir.ForRange):
        return [n for a in s.args for n in ir.walk(a)]
    return []


def _flat_targets(t: ir.Expr) -> list[ir.Expr]:
    return [x for item in t.elts for x in _flat_targets(item)] if isinstance(t, ir.TupleExpr) else [t]
