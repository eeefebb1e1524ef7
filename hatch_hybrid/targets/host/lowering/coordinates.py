"""Where a kernel's expressions say which thread runs them: *coordinates*, each a function of one axis of
the thread's position, recognised where they are written as

* ``gpu.global_tid_x()`` (one of ``gpu.grid(n)``'s values): ``block_idx_x * block_dim_x + thread_idx_x``;
* ``gpu.block_idx_x() * C + gpu.thread_idx_x()`` for an integer constant ``C`` (either order, either side),
  or with ``gpu.block_dim_x()`` for ``C`` (the product may be a local of its own: a block's origin);
* ``gpu.thread_idx_x()`` or ``gpu.block_idx_x()`` alone;

or a local assigned once from one of these (or a helper's parameter given one). The sanitizer's owned
parameters (:mod:`.sanitize_owned`) and the thread ranges of :mod:`.thread_range` read them.
"""

from __future__ import annotations

from typing import Any

from .... import ir
from ....typecheck.typed import TypedFunction
from .fission_plan import all_stmts
from .sanitize_segments import assignment_counts

#: One coordinate: (axis, how): how is "global" (block * block_dim + thread), "thread", "block", or an
#: int C (block * C + thread).
Coord = tuple[str, Any]


class Coordinates:
    """The coordinates of one function's expressions (``given``: its parameters whose value a caller
    knows to be a coordinate)."""

    def __init__(
        self, tf: TypedFunction, given: dict[str, Coord] | None = None, block: tuple[int, int] | None = None
    ) -> None:
        """``block``: the launch's block shape (x, y; z 1), where only launches of that shape run the code
        (a forwarded tile's kernel): ``block * C + thread`` with C its size on that axis is global."""
        self.tf = tf
        self.block = block
        self.counts = assignment_counts(tf.fn.body)
        self.locals: dict[str, Coord] = {n: c for n, c in (given or {}).items() if not self.counts.get(n)}
        self.origins: dict[str, Coord] = {}  # locals assigned once a block's origin, ``block_idx * C``
        params = {p.name for p in tf.fn.params}  # a parameter assigned once held the caller's value before
        for s in all_stmts(tf.fn.body):
            if not isinstance(s, ir.Assign):
                continue
            if all(self.counts.get(n.id) == 1 and n.id not in params for n in ir.target_names(s.target)):
                self._bind(s.target, s.value)

    def _bind(self, target: ir.Expr, value: ir.Expr) -> None:
        if isinstance(target, ir.Name):
            coord = self.of(value)
            if coord is not None:
                self.locals[target.id] = coord
            origin = self._scaled(value)
            if origin is not None:
                self.origins[target.id] = origin
        elif isinstance(target, ir.TupleExpr) and self.gpu(value) == "grid" and isinstance(value, ir.Call):
            n = self.tf.consts.get(value.nid)
            if n == len(target.elts):
                for axis, t in zip("xyz", target.elts):
                    if isinstance(t, ir.Name):
                        self.locals[t.id] = (axis, "global")

    def of(self, e: ir.Expr) -> Coord | None:
        """``e``'s coordinate, if it is one."""
        if isinstance(e, ir.Name):
            return self.locals.get(e.id)
        name = self.gpu(e)
        if name is not None:
            what, _, axis = name.rpartition("_")
            if what in ("global_tid", "thread_idx", "block_idx"):
                return axis, {"global_tid": "global", "thread_idx": "thread", "block_idx": "block"}[what]
            if name == "grid" and self.tf.consts.get(e.nid) == 1:
                return "x", "global"
            return None
        if isinstance(e, ir.BinOp) and e.op == "+":
            for scaled, thread in ((e.left, e.right), (e.right, e.left)):
                t = self.of(thread)
                s = self._scaled(scaled)
                if t is not None and s is not None and t == (s[0], "thread"):
                    size = {"x": self.block[0], "y": self.block[1]}.get(s[0]) if self.block else None
                    return (s[0], "global") if s[1] == size else s
        return None

    def _scaled(self, e: ir.Expr) -> Coord | None:
        """``block_idx * C`` (or ``* block_dim``) on one axis, or a local assigned once such a value."""
        if isinstance(e, ir.Name):
            return self.origins.get(e.id)
        if not isinstance(e, ir.BinOp) or e.op != "*":
            return None
        for block, scale in ((e.left, e.right), (e.right, e.left)):
            b = self.of(block)
            if b is None or b[1] != "block":
                continue
            if self.gpu(scale) == f"block_dim_{b[0]}":
                return b[0], "global"
            c = self.tf.consts.get(scale.nid)
            if isinstance(c, int) and not isinstance(c, bool) and c > 0:
                return b[0], c
        return None

    def gpu(self, e: ir.Expr) -> str | None:
        """The name of the ``gpu`` intrinsic ``e`` calls, if it calls one."""
        if not isinstance(e, ir.Call):
            return None
        callee = self.tf.callees.get(e.nid)
        return callee.name if callee is not None and callee.kind == "gpu" else None
