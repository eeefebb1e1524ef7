"""Sanitized code: the array parameters whose every element only one thread of a launch touches.

A race on an array argument needs two threads that access one element. When every access of a parameter
(load, store, or in a helper it is passed to) has the same index, and that index is a function of the
thread that no two threads share, there is none: thread ``i`` of ``y[i] = a * x[i] + y[i]`` only ever
touches ``y[i]``. Such a parameter needs no shadow cells (the runtime leaves it without a region, so
that its accesses cost one branch, as a parameter nobody writes). The index is a tuple of
*coordinates* (:mod:`.coordinates`). Whether the index tuple tells the launch's threads apart depends
on the launch (``C`` must be at least the block's size on its axis; an axis no coordinate names must
have one block and one thread), so the compiler records the
coordinates and the runtime decides at each launch (``hybrid_runtime.sanitizer``), where it also makes
sure that the array's elements do not overlap each other or another argument.
"""

from __future__ import annotations

from typing import Any

from .... import ir
from ....typecheck.typed import TypedFunction
from ....types import ArrayT
from .coordinates import Coord, Coordinates
from .fission_plan import all_stmts

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
        self.coords = Coordinates(tf, given)
        if self.coords.counts.get(name):
            raise _NotOwned  # the name holds another array somewhere

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
        coords = tuple(self.coords.of(i) for i in index)
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
            coord = self.coords.of(arg)
            if coord is not None:
                given[param.name] = coord
        for name in passed:
            self.found |= _Walk(target, name, given, self.depth + 1).patterns()


def _named(e: ir.Node, name: str) -> bool:
    return isinstance(e, ir.Name) and e.id == name
