"""Kernels whose threads outside a launch-wide range of global positions do nothing: the range, so that
the driver runs only the threads inside it and the kernel no longer tests it per thread.

The commonest kernel shape is a guard on the thread's global position::

    i = gpu.global_tid_x()
    partner = i ^ j
    if partner > i and i < len(x):
        ...

A thread with ``i >= len(x)`` does nothing. Run as a loop over threads, the test ``i < len(x)`` is one
more compare and branch per element, and it keeps LLVM from proving the loop's accesses in bounds (the
bitonic pass above ran 1.7x slower with it than without). This is LLVM's inductive range check
elimination done where the source still says what the test means: the kernel gets a *range function*
that computes ``[lo, hi)`` for the x and y axes once per launch, the driver clamps its loops over threads
to it, and in the kernel the links of the guard that the range implies are known to be true.

What makes the transformation exact (:func:`thread_range` returns None otherwise):

* the body is assignments to locals, then one ``if`` without ``else``, and nothing after it: a thread
  whose test is false ends without an effect;
* everything evaluated before the ``if``'s body (those assignments and the test) has no effect and
  cannot fail: locals, constants, arithmetic other than division, remainder and power (which raise on
  zero) and other than a Python int made a narrower NumPy integer (``b + i`` with ``b: i8`` raises
  OverflowError beyond its range), comparisons, ``and``/``or``/``not``, conditional expressions,
  thread indices, ``len()`` and shapes of arrays (not of slices), integer casts of NumPy integers (of
  a Python int: only to ``i64``), and array elements; no calls of helpers or methods;
* the bounds are *uniform* (the same for every thread of the launch): constants, parameters never
  assigned, ``len()`` and shapes of those, block and grid sizes, ``+ - *`` of these, and locals assigned
  once before the ``if`` from such expressions;
* each link the range comes from compares a global position (:mod:`.coordinates`: ``global_tid_x()``,
  ``gpu.grid(n)``'s values, ``block_idx * block_dim + thread_idx``, or a local assigned once from one;
  never a parameter) with a bound as 64-bit integers (``i64`` or Python ints: a narrower bound makes
  the comparison a narrower one, which is left to the kernel);
* the kernel does not check (``debug=True`` or checked native code keep every thread, so that a
  failing check of a thread outside the range still fails) and its threads never meet (barrier kernels
  run their own loops, :mod:`.fission`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .... import ir
from ....typecheck.rules import GPU_INDEX
from ....typecheck.typed import TypedFunction
from ....types import I64, ArrayT, Scalar, Weak
from .context import AGG_BASE, CTX_WORDS
from .coordinates import Coordinates

RANGE_SUFFIX = "__range"  # the range function: <symbol>__range__thread
#: where the range function leaves each axis's [lo, hi): words of the driver's context after its own
RANGE_WORDS = {
    f"{end}_{axis}": CTX_WORDS + k for k, (end, axis) in enumerate((e, a) for a in "xy" for e in ("lo", "hi"))
}
# a forwarded tile's kernel (tile_forward.py): the global x positions whose clamped reads clamp nothing
RANGE_WORDS.update(inner_lo_x=CTX_WORDS + 4, inner_hi_x=CTX_WORDS + 5)
RANGE_WORDS.update(forward_ok=CTX_WORDS + 6)  # ... and whether its wrapped reads' divisors are all nonzero
assert AGG_BASE == CTX_WORDS + len(RANGE_WORDS)  # (the entry's combined atomics follow these words)

#: ``gpu`` intrinsics with neither effect nor failure
_INDEX_CALLS = GPU_INDEX | {"grid", "gridsize", "lane_id"}
#: the same for every thread of a launch
_UNIFORM_CALLS = {name for name in GPU_INDEX if name.startswith(("block_dim", "grid_dim", "global_size"))}
_SAFE_BINOPS = {"+", "-", "*", "&", "|", "^"}
#: ``i < e`` as a bound on i: (lower or upper, what to add to e): lo <= i < hi
_BOUND = {"<": ("upper", 0), "<=": ("upper", 1), ">": ("lower", 1), ">=": ("lower", 0)}
_MIRROR = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}


@dataclass
class Bound:
    """``expr + add``: a lower bound (inclusive) or upper bound (exclusive) of a global position."""

    expr: ir.Expr
    add: int


@dataclass
class AxisRange:
    lower: list[Bound] = field(default_factory=list)
    upper: list[Bound] = field(default_factory=list)


@dataclass
class ThreadRange:
    axes: dict[str, AxisRange]  # "x" and/or "y"
    defs: list[ir.Assign]  # the assignments of the uniform locals the bounds read, in order
    known: set[tuple[int, int]]  # (compare node id, link): the links the range makes true
    # a forwarded kernel's reads at x + offset that clamp or wrap (tile_forward.py): each one's (lo, hi,
    # offset, inclusive): they change nothing for x + offset in [lo, hi] (inclusive) or [0, hi) (lo None)
    inner: list[tuple[ir.Expr | None, ir.Expr, int, bool]] = field(default_factory=list)
    nonzero: list[ir.Expr] = field(default_factory=list)  # its wrapped reads' divisors (forward_ok)


def thread_range(
    tf: TypedFunction, body: list[ir.Stmt] | None = None, block: tuple[int, int] | None = None
) -> ThreadRange | None:
    """The range of ``tf`` (a kernel whose threads never meet, lowered without checks), if it has one;
    ``body``: the statements to read instead of its own (a forwarded kernel's, :mod:`.tile_forward`), run
    only by launches of the block shape ``block``."""
    body = [s for s in (tf.fn.body if body is None else body) if not isinstance(s, ir.Pass)]
    if not body or not isinstance(body[-1], ir.If) or body[-1].orelse:
        return None
    walk = _Walk(tf, block)
    for s in body[:-1]:
        if not (isinstance(s, ir.Assign) and isinstance(s.target, (ir.Name, ir.TupleExpr))):
            return None
        if not all(isinstance(n, ir.Name) for n in ir.target_names(s.target)) or not walk.safe(s.value):
            return None
    return walk.guard_range([body[-1].test])


def _conjuncts(e: ir.Expr) -> list[ir.Expr]:
    if isinstance(e, ir.BoolOp) and e.op == "and":
        return [c for v in e.values for c in _conjuncts(v)]
    return [e]


def _needed(defs: dict[str, ir.Assign], names: set[str]) -> list[ir.Assign]:
    """The assignments of ``names`` and of the locals they read, in the body's order."""
    seen: set[str] = set()
    todo = [n for n in names if n in defs]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo += [n.id for n in ir.walk(defs[name].value) if isinstance(n, ir.Name) and n.id in defs]
    return [s for n, s in defs.items() if n in seen]


class _Walk:
    def __init__(self, tf: TypedFunction, block: tuple[int, int] | None = None) -> None:
        self.tf = tf
        self.coords = Coordinates(tf, block=block)
        self.params = {p.name for p in tf.fn.params if not self.coords.counts.get(p.name)}
        # locals assigned once, at the top level, from uniform values: uniform after that
        self.uniform_defs: dict[str, ir.Assign] = {}
        for s in tf.fn.body:
            if isinstance(s, ir.Assign) and isinstance(s.target, ir.Name) and self.coords.counts.get(s.target.id) == 1:
                if self.safe(s.value) and self.uniform(s.value):
                    self.uniform_defs[s.target.id] = s

    def guard_range(self, tests: list[ir.Expr]) -> ThreadRange | None:
        """The range that ``tests``, all of which a thread must pass (each safe: it runs for threads
        outside the range too), imply."""
        if not all(self.safe(t) for t in tests):
            return None
        axes: dict[str, AxisRange] = {}
        known: set[tuple[int, int]] = set()
        for test in (c for t in tests for c in _conjuncts(t)):
            if not isinstance(test, ir.Compare):
                continue
            left = test.left
            for k, (op, right) in enumerate(zip(test.ops, test.comparators)):
                found = self.link(test, k, left, op, right)
                if found is not None:
                    axis, side, bound = found
                    getattr(axes.setdefault(axis, AxisRange()), side).append(bound)
                    known.add((test.nid, k))
                left = right
        if not axes:
            return None
        bounds = [b for a in axes.values() for b in a.lower + a.upper]
        used = {n.id for b in bounds for n in ir.walk(b.expr) if isinstance(n, ir.Name)}
        return ThreadRange(axes, _needed(self.uniform_defs, used), known)

    def _callee(self, e: ir.Expr) -> tuple[str, str] | None:
        callee = self.tf.callees.get(e.nid)
        return (callee.kind, callee.name) if callee is not None else None

    def safe(self, e: ir.Expr) -> bool:
        """``e`` has no effect and cannot fail (compiled without checks)."""
        if isinstance(e, (ir.Const, ir.Name)):
            return True
        if isinstance(e, (ir.BinOp, ir.UnaryOp)) and e.nid in self.tf.callees:
            return False  # a struct's operator method
        if isinstance(e, ir.BinOp):
            ops = self.tf.optypes.get(e.nid)
            if ops is None or e.op not in _SAFE_BINOPS or not self.safe(e.left) or not self.safe(e.right):
                return False
            # a Python int made a narrower NumPy integer is checked (OverflowError), debug or not
            sides = ((e.left, ops.left), (e.right, ops.right))
            return not any(_weak_int(self.tf.types.get(v.nid)) and _narrow(t) for v, t in sides)
        if isinstance(e, ir.UnaryOp):
            return e.op in ("-", "+", "not", "~") and self.safe(e.operand)
        if isinstance(e, ir.Compare):
            return self.safe(e.left) and all(self.safe(c) for c in e.comparators)
        if isinstance(e, ir.BoolOp):
            return all(self.safe(v) for v in e.values)
        if isinstance(e, ir.IfExp):
            return self.safe(e.test) and self.safe(e.body) and self.safe(e.orelse)
        if isinstance(e, ir.Attribute):
            array = isinstance(self.tf.types.get(e.value.nid), ArrayT)
            return array and e.attr in ("shape", "size", "ndim") and self.safe(e.value)
        if isinstance(e, ir.Subscript):
            base = self.tf.types.get(e.value.nid)
            index = e.index.elts if isinstance(e.index, ir.TupleExpr) else [e.index]
            if isinstance(e.value, ir.Attribute) and e.value.attr == "shape":
                return self.safe(e.value) and isinstance(self.tf.consts.get(e.index.nid), int)
            element = isinstance(base, ArrayT) and not isinstance(self.tf.types.get(e.nid), ArrayT)
            return element and self.safe(e.value) and all(not isinstance(i, ir.Slice) and self.safe(i) for i in index)
        if isinstance(e, ir.Call):
            callee = self._callee(e)
            if callee == ("builtin", "len"):
                array = len(e.args) == 1 and isinstance(self.tf.types.get(e.args[0].nid), ArrayT)
                return array and self.safe(e.args[0])
            if callee is not None and callee[0] == "gpu":
                return callee[1] in _INDEX_CALLS
            if callee in (("builtin", "min"), ("builtin", "max")):  # of 64-bit integers: no conversion to check
                ints = all(_int64(self.tf.types.get(a.nid)) for a in e.args) and _int64(self.tf.types.get(e.nid))
                return len(e.args) >= 2 and not e.keywords and ints and all(self.safe(a) for a in e.args)
            if callee is not None and callee[0] == "cast" and len(e.args) == 1 and not e.keywords:
                # integer to integer; a Python int only to i64 (narrower casts of one are checked)
                to, source = self.tf.types.get(e.nid), self.tf.types.get(e.args[0].nid)
                fits = not _weak_int(source) or to == I64
                return _integer(to) and _integer(source) and fits and self.safe(e.args[0])
            return False
        return False

    def uniform(self, e: ir.Expr) -> bool:
        """``e`` (already safe) has one value for every thread of the launch."""
        if isinstance(e, ir.Const):
            return True
        if isinstance(e, ir.Name):
            return e.id in self.params or e.id in self.uniform_defs
        if isinstance(e, ir.BinOp):
            return e.op in ("+", "-", "*") and self.uniform(e.left) and self.uniform(e.right)
        if isinstance(e, ir.UnaryOp):
            return e.op == "-" and self.uniform(e.operand)
        if isinstance(e, ir.Subscript) and isinstance(e.value, ir.Attribute) and e.value.attr == "shape":
            return self.uniform(e.value.value)
        if isinstance(e, ir.Attribute) and e.attr == "size":
            return self.uniform(e.value)
        if isinstance(e, ir.Call):
            callee = self._callee(e)
            if callee == ("builtin", "len"):
                return self.uniform(e.args[0])
            return callee is not None and callee[0] == "gpu" and callee[1] in _UNIFORM_CALLS
        return False

    def link(self, test: ir.Compare, k: int, left: ir.Expr, op: str, right: ir.Expr) -> tuple[str, str, Bound] | None:
        """Link ``k`` of ``test`` (``left op right``) as (axis, "lower" or "upper", bound), if it compares
        a global position with a uniform bound as 64-bit integers."""
        types = self.tf.cmptypes.get((test.nid, k))
        if types is None or op not in _BOUND or not all(_int64(t) for t in (types.left, types.right)):
            return None
        for position, bound, how in ((left, right, op), (right, left, _MIRROR[op])):
            coord = self.coords.of(position)
            if coord is not None and coord[1] == "global" and coord[0] in "xy" and self.safe(bound):
                if self.uniform(bound) and _integer(self.tf.types.get(bound.nid)):
                    side, add = _BOUND[how]
                    return coord[0], side, Bound(bound, add)
        return None


def _integer(t: object) -> bool:
    """An integer type whose values all fit in an i64."""
    if isinstance(t, Scalar):
        return t.kind == "i" or (t.kind == "u" and t.bits < 64)
    return isinstance(t, Weak) and t.kind == "int"


def _weak_int(t: object) -> bool:
    return isinstance(t, Weak) and t.kind == "int"


def _narrow(t: object) -> bool:
    """A NumPy integer type that cannot hold every Python int the devices compute with (all but i64)."""
    return isinstance(t, Scalar) and t.kind in "iu" and t != I64


def _int64(t: object) -> bool:
    return t == I64 or (isinstance(t, Weak) and t.kind == "int")
