"""Sanitized code: the array parameters whose every element only one thread of a launch touches.

A race on an array argument needs two threads that access one element. When every access of a parameter
(load, store, or in a helper it is passed to) has the same index, and that index is a function of the
thread that no two threads share, there is none: thread ``i`` of ``y[i] = a * x[i] + y[i]`` only ever
touches ``y[i]``. Such a parameter needs no shadow cells (the runtime leaves it without a region, so
that its accesses cost one branch, as a parameter nobody writes). The index is a tuple of *coordinates*,
each a function of one axis of the thread's position, recognised where it is written as

* ``gpu.global_tid_x()`` (one of ``gpu.grid(n)``'s values): ``block_idx_x * block_dim_x + thread_idx_x``;
* ``gpu.block_idx_x() * C + gpu.thread_idx_x()`` for an integer constant ``C`` (either order, either side),
  or with ``gpu.block_dim_x()`` for ``C``;
* ``gpu.thread_idx_x()`` or ``gpu.block_idx_x()`` alone;

or a local assigned once from one of these (or a helper's parameter given one). Whether the index tuple
tells the launch's threads apart depends on the launch (``C`` must be at least the block's size on its
axis; an axis no coordinate names must have one block and one thread), so the compiler records the
coordinates and the runtime decides at each launch (``hybrid_runtime.sanitizer``), where it also makes
sure that the array's elements do not overlap each other or another argument.
"""

from __future__ import annotations

from typing import Any

from .... import ir
from ....typecheck.typed import TypedFunction
from ....types import ArrayT
from .fission_plan import all_stmts
from .sanitize_segments import assignment_counts

#: One coordinate of an index: (axis, how): how is "global" (block * block_dim + thread), "thread",
#: "block", or an int C (block * C + thread).
Coord = tuple[str, Any]
#: Attributes of an array that read none of its elements.
_METADATA = {"shape", "size", "ndim", "strides", "dtype", "itemsize", "nbytes"}


class _NotOwned(Exception):
    """An access or a use that the analysis cannot show to be the thread's own element."""


def owned_params(tf: TypedFunction) -> list[tuple[int, list[list[Any]]]]:
    """The kernel's array parameters (by position) whose every access has one index of coordinates,
    with those coordinates; parameters never accessed are left out."""
    out: list[tuple[int, list[list[Any]]]] = []
    for k, (p, t) in enumerate(zip(tf.fn.params, tf.arg_types)):
        if not isinstance(t, ArrayT):
            continue
        try:
            found = _Walk(tf, p.name, {}).patterns()
        except _NotOwned:
            continue
        if len(found) == 1:
            (pattern,) = found
            out.append((k, [list(c) for c in pattern]))
    return out


class _Walk:
    """The indices with which one function accesses its array ``name`` (``given``: its parameters whose
    value a caller knows to be a coordinate)."""

    def __init__(self, tf: TypedFunction, name: str, given: dict[str, Coord], depth: int = 0) -> None:
        self.tf, self.name, self.depth = tf, name, depth
        self.found: set[tuple[Coord, ...]] = set()
        counts = assignment_counts(tf.fn.body)
        if counts.get(name):
            raise _NotOwned  # the name holds another array somewhere
        self.coords: dict[str, Coord] = {n: c for n, c in given.items() if not counts.get(n)}
        for s in all_stmts(tf.fn.body):
            if isinstance(s, ir.Assign) and all(counts.get(n.id) == 1 for n in ir.target_names(s.target)):
                self._bind(s.target, s.value)

    def patterns(self) -> set[tuple[Coord, ...]]:
        for s in all_stmts(self.tf.fn.body):
            for e in ir.children(s):  # every statement's own expressions, assignment targets included
                if isinstance(e, ir.Expr):
                    self._expr(e)
        return self.found

    # ---------------------------------------------------------------- uses of the array
    def _expr(self, e: ir.Node) -> None:
        if _named(e, self.name):
            raise _NotOwned  # the array itself as a value: passed on, printed, aliased
        if isinstance(e, ir.Subscript) and _named(e.value, self.name):
            self._element(e)
            self._expr(e.index)
            return
        if isinstance(e, ir.Attribute) and _named(e.value, self.name) and e.attr in _METADATA:
            return
        if isinstance(e, ir.Call):
            callee = self.tf.callees.get(e.nid)
            if callee is not None and callee.kind == "builtin" and callee.name == "len" and len(e.args) == 1:
                if _named(e.args[0], self.name):
                    return
            if callee is not None and callee.kind == "helper" and callee.target is not None:
                self._helper(e, callee.target)
                return
        for child in ir.children(e):
            self._expr(child)

    def _element(self, e: ir.Subscript) -> None:
        """``e``, an element of the array: its index must be coordinates."""
        if isinstance(self.tf.type_of(e), ArrayT):
            raise _NotOwned  # a view: its elements are other threads' too
        index = e.index.elts if isinstance(e.index, ir.TupleExpr) else [e.index]
        coords = tuple(self._coord(i) for i in index)
        if any(c is None for c in coords):
            raise _NotOwned
        self.found.add(coords)  # type: ignore[arg-type]

    def _helper(self, call: ir.Call, target: TypedFunction) -> None:
        """A helper called with the array: its accesses count as this function's."""
        sources = self.tf.call_args.get(call.nid)
        if sources is None or self.depth > 32:
            raise _NotOwned
        given: dict[str, Coord] = {}
        passed = []
        for param, source in zip(target.fn.params, sources):
            if isinstance(source, ir.Const):
                continue
            arg = call.args[source] if isinstance(source, int) else call.keywords[source]
            if _named(arg, self.name):
                passed.append(param.name)
                continue
            self._expr(arg)
            coord = self._coord(arg)
            if coord is not None:
                given[param.name] = coord
        for name in passed:
            self.found |= _Walk(target, name, given, self.depth + 1).patterns()

    # ---------------------------------------------------------------- coordinates
    def _bind(self, target: ir.Expr, value: ir.Expr) -> None:
        if isinstance(target, ir.Name):
            coord = self._coord(value)
            if coord is not None:
                self.coords[target.id] = coord
        elif isinstance(target, ir.TupleExpr) and self._gpu(value) == "grid" and isinstance(value, ir.Call):
            n = self.tf.consts.get(value.nid)
            if n == len(target.elts):
                for axis, t in zip("xyz", target.elts):
                    if isinstance(t, ir.Name):
                        self.coords[t.id] = (axis, "global")

    def _coord(self, e: ir.Expr) -> Coord | None:
        if isinstance(e, ir.Name):
            return self.coords.get(e.id)
        name = self._gpu(e)
        if name is not None:
            what, _, axis = name.rpartition("_")
            if what in ("global_tid", "thread_idx", "block_idx"):
                return axis, {"global_tid": "global", "thread_idx": "thread", "block_idx": "block"}[what]
            if name == "grid" and self.tf.consts.get(e.nid) == 1:
                return "x", "global"
            return None
        if isinstance(e, ir.BinOp) and e.op == "+":
            for scaled, thread in ((e.left, e.right), (e.right, e.left)):
                t = self._coord(thread)
                s = self._scaled(scaled)
                if t is not None and s is not None and t == (s[0], "thread"):
                    return s
        return None

    def _scaled(self, e: ir.Expr) -> Coord | None:
        """``block_idx * C`` (or ``* block_dim``) on one axis."""
        if not isinstance(e, ir.BinOp) or e.op != "*":
            return None
        for block, scale in ((e.left, e.right), (e.right, e.left)):
            b = self._coord(block)
            if b is None or b[1] != "block":
                continue
            if self._gpu(scale) == f"block_dim_{b[0]}":
                return b[0], "global"
            c = self.tf.consts.get(scale.nid)
            if isinstance(c, int) and not isinstance(c, bool) and c > 0:
                return b[0], c
        return None

    def _gpu(self, e: ir.Expr) -> str | None:
        """The name of the ``gpu`` intrinsic ``e`` calls, if it calls one."""
        if not isinstance(e, ir.Call):
            return None
        callee = self.tf.callees.get(e.nid)
        return callee.name if callee is not None and callee.kind == "gpu" else None


def _named(e: ir.Node, name: str) -> bool:
    return isinstance(e, ir.Name) and e.id == name
