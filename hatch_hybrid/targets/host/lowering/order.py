"""Whether the order in which a block's threads run shows in what a loop does (which slot an atomic hands
out, the rounding of a float sum, printed lines): the question the fission plan asks before it runs a
grid-stride loop with the threads as lanes (:mod:`.fission_plan`), where the Python path runs each
thread's loop to its end in turn."""

from __future__ import annotations

from .... import ir
from ....typecheck.rules import ATOMICS
from ....typecheck.typed import TypedFunction
from ....typecheck.views import shared_locals
from ....types import ArrayT, Scalar


def ordered(tf: TypedFunction, nodes: list[ir.Stmt], seen: set[str] | None = None) -> bool:
    """Do ``nodes`` (or the helpers they call) print or use atomics, whose results depend on the order in
    which threads run (which slot an atomic hands out, the rounding of a float sum, the printed lines)?
    Running a loop with the threads as lanes interleaves their rounds, where the Python path runs each
    thread's loop to its end in turn. Not so an atomic whose effect is the same in any order
    (:func:`_orderless`)."""
    seen = set() if seen is None else seen
    orderless = _orderless(tf, nodes)
    for s in nodes:
        for n in ir.walk(s):
            callee = tf.callees.get(n.nid) if isinstance(n, ir.Call) else None
            if callee is None:
                continue
            if (callee.kind == "gpu" and callee.name in ATOMICS and n.nid not in orderless) or callee.name == "print":
                return True
            target = callee.target
            if target is not None and target.symbol not in seen:
                seen.add(target.symbol)
                if ordered(target, target.fn.body, seen):
                    return True
    return False


#: integer atomics whose final value is the same in any order (wrapping add and subtract, the bitwise ones,
#: min and max)
_COMMUTING = {"atomic_add", "atomic_sub", "atomic_and", "atomic_or", "atomic_xor", "atomic_min", "atomic_max",
              "atomic_min_ordered", "atomic_max_ordered"}  # fmt: skip


def _orderless(tf: TypedFunction, nodes: list[ir.Stmt]) -> set[int]:
    """The atomics among ``nodes`` whose effect is the same in any order of the threads: a statement of its
    own (the old value unused), an integer add, subtract, and, or, xor, min or max, on the block's shared
    memory (a local that only holds it: no other array can be it), which nothing else in ``nodes`` reads or
    writes (so no thread can see another's partial sums)."""
    shared = shared_locals(tf)
    uses: dict[str, int] = {}
    for s in nodes:
        for n in ir.walk(s):
            if isinstance(n, ir.Name) and n.id in shared:
                uses[n.id] = uses.get(n.id, 0) + 1
    found: dict[str, list[int]] = {}
    for s in nodes:
        for n in ir.walk(s):
            if not isinstance(n, ir.ExprStmt) or not isinstance(n.value, ir.Call):
                continue
            call = n.value
            callee = tf.callees.get(call.nid)
            array = tf.types.get(call.args[0].nid) if call.args else None
            if (
                callee is not None
                and callee.kind == "gpu"
                and callee.name in _COMMUTING
                and isinstance(call.args[0], ir.Name)
                and call.args[0].id in shared
                and isinstance(array, ArrayT)
                and isinstance(array.dtype, Scalar)
                and array.dtype.kind in "iu"
            ):
                found.setdefault(call.args[0].id, []).append(call.nid)
    return {nid for name, calls in found.items() if uses.get(name) == len(calls) for nid in calls}
