"""Python ints known not to be negative.

``b ** e`` of two Python ints is an int in Python only while ``e >= 0``; a negative ``e`` gives a float,
whose type would depend on a value the device sees only at run time. The compiler therefore accepts
such a power only where it can tell from the source that ``e`` is not negative: a constant, a thread
or block index or size, ``len``, an array's shape, ``abs``, a comparison, a ``range`` loop variable counting from a
non-negative start (or down to a non-negative stop) and never assigned otherwise, and ``+ * // % & | >>
min max`` and conditional expressions of those.
"""

from __future__ import annotations

import numpy as np

from .. import ir
from ..types import ArrayT
from . import rules
from .typed import TypedFunction

_GPU_NONNEGATIVE = rules.GPU_INDEX | {"lane_id"}
_BOTH = {"+", "*", "//", "|", ">>", "<<"}  # non-negative when both operands are


def nonnegative(e: ir.Expr, tf: TypedFunction) -> bool:
    """Whether the Python int ``e`` cannot be negative (ignoring wrap-around beyond 64 bits)."""
    return _nonnegative(e, tf, _counters(tf))


def _nonnegative(e: ir.Expr, tf: TypedFunction, counters: set[str]) -> bool:
    value = tf.consts.get(e.nid)
    if isinstance(value, (int, np.integer)):
        return bool(value >= 0)
    if isinstance(e, ir.Name):
        return e.id in counters
    if isinstance(e, ir.Subscript):  # a.shape[k] of an array
        base = e.value.value if isinstance(e.value, ir.Attribute) else None
        return (
            isinstance(e.value, ir.Attribute)
            and e.value.attr == "shape"
            and isinstance(tf.types.get(base.nid) if base is not None else None, ArrayT)
        )
    if isinstance(e, ir.Compare):  # a bool: 0 or 1
        return True
    if isinstance(e, ir.IfExp):
        return _nonnegative(e.body, tf, counters) and _nonnegative(e.orelse, tf, counters)
    if isinstance(e, ir.BinOp):
        left, right = (_nonnegative(x, tf, counters) for x in (e.left, e.right))
        return (e.op in _BOTH and left and right) or (e.op == "%" and right) or (e.op == "&" and (left or right))
    if isinstance(e, ir.Call):
        callee = tf.callees.get(e.nid)
        if callee is None:
            return False
        if callee.kind == "gpu":
            return callee.name in _GPU_NONNEGATIVE
        if callee.kind == "builtin" and callee.name in ("len", "abs"):
            return True
        if callee.kind == "builtin" and callee.name in ("min", "max"):
            signs = [_nonnegative(a, tf, counters) for a in e.args]
            return all(signs) if callee.name == "min" else any(signs)
    return False


def nonnegative_locals(tf: TypedFunction) -> set[str]:
    """The Python-int locals that are never negative: the counting ``range`` variables, and the locals
    assigned once (by a plain assignment) from an expression that is never negative given these."""
    counters = _counters(tf)
    writes: dict[str, list[ir.Stmt]] = {}
    for node in ir.walk(tf.fn):
        if isinstance(node, (ir.Assign, ir.AugAssign)):
            for name in ir.target_names(node.target):
                writes.setdefault(name.id, []).append(node)
        elif isinstance(node, ir.ForRange):
            writes.setdefault(node.target.id, []).append(node)
    params = {p.name for p in tf.fn.params}
    single = {
        name: stmts[0]
        for name, stmts in writes.items()
        if len(stmts) == 1 and name not in params and isinstance(stmts[0], ir.Assign)
        and isinstance(stmts[0].target, ir.Name)
    }  # fmt: skip
    found = set(counters)
    changed = True
    while changed:
        changed = False
        for local, stmt in single.items():
            assert isinstance(stmt, ir.Assign)
            if local not in found and _nonnegative(stmt.value, tf, found):
                found.add(local)
                changed = True
    return found


def nonnegative_given(e: ir.Expr, tf: TypedFunction, names: set[str]) -> bool:
    """:func:`nonnegative`, with ``names`` (from :func:`nonnegative_locals`) known not to be negative."""
    return _nonnegative(e, tf, names)


def _counters(tf: TypedFunction) -> set[str]:
    """The ``range`` loop variables that are never negative: assigned only by loops over ranges that
    count up from a non-negative start or down to a stop of -1 or more."""
    assigned = {p.name for p in tf.fn.params}
    loops: dict[str, list[ir.ForRange]] = {}
    for node in ir.walk(tf.fn):
        if isinstance(node, ir.ForRange):
            loops.setdefault(node.target.id, []).append(node)
        elif isinstance(node, (ir.Assign, ir.AugAssign)):
            assigned.update(name.id for name in ir.target_names(node.target))
    counters: set[str] = set()
    changed = True
    while changed:  # a loop may start from another loop's variable
        changed = False
        for name, fors in loops.items():
            if name not in counters and name not in assigned and all(_counts(f, tf, counters) for f in fors):
                counters.add(name)
                changed = True
    return counters


def _counts(loop: ir.ForRange, tf: TypedFunction, counters: set[str]) -> bool:
    args = loop.args
    if len(args) == 1:
        return True
    step = tf.consts.get(args[2].nid) if len(args) == 3 else 1
    if not isinstance(step, (int, np.integer)):
        return False
    if step > 0:
        return _nonnegative(args[0], tf, counters)
    stop = tf.consts.get(args[1].nid)  # counting down: every value is above the stop
    return bool(isinstance(stop, (int, np.integer)) and stop >= -1) or _nonnegative(args[1], tf, counters)
