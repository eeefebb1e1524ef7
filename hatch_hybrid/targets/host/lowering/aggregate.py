"""Atomics on one global address, combined per call of the entry: the all-threads sum natively.

A kernel where every thread adds to one element of a global array (``gpu.atomic_add(total, 0, x[i])``)
is the simplest way to write a sum on a GPU, whose compiler combines a warp's atomics on one address
before they reach memory. Run natively as loops over threads, each would be a locked read-modify-write
of one cache line that every worker fights over (2^24 f32: 531 ms, against 40 ms for a block reduction
with one atomic per block). Here such an atomic instead combines its operand into a value the entry
keeps (a register, once LLVM has inlined the thread function into the loops), and the entry applies
that value with one atomic when its blocks are done.

A site is combined (:func:`aggregated_atomics`) where that cannot be told apart from the atomics run one
by one, other than by the order of floating-point sums, which CUDA leaves unspecified as well:

* it is an ``atomic_add`` or ``atomic_sub`` (integers or floats), or an ``atomic_and``, ``_or``, ``_xor``,
  ``_min`` or ``_max`` of integers (float minima and maxima ignore NaN operands, which no starting value
  reproduces; exchanges, compare-and-swaps and CUDA's wrapping inc/dec depend on the order), written as
  a statement of the kernel itself: its old value is not used;
* its array is a parameter of the kernel that nothing else in the kernel touches but its shape (no other
  read, write, view or helper call: no thread can observe the element before the launch ends);
* its index is the same for every thread of the launch: constants, scalar parameters, shapes, the block
  and grid dimensions, and locals assigned once from such values;
* the kernel's threads never meet (no barrier or warp call: its threads run as the driver's loops) and
  it is not the sanitizer's build (which reports every access).

Integer results are exact (wrapping sums, and, or, xor, min and max are associative); a float sum is
added in a different order from the one the GPU or the Python path happens to use, as CUDA says it may.
"""

from __future__ import annotations

from dataclasses import dataclass

from llvmlite import ir as llir

from .... import ir
from ....typecheck.typed import TypedFunction
from ....types import ArrayT, Scalar, Type
from .fission_plan import all_stmts
from .sanitize_segments import assignment_counts

_ANY_TYPE = {"atomic_add", "atomic_sub"}
_INTEGERS_ONLY = {"atomic_and", "atomic_or", "atomic_xor", "atomic_min", "atomic_max"}
#: what a thread may read that is the same across the launch
_UNIFORM_CALLS = {f"{what}_{a}" for what in ("block_dim", "grid_dim") for a in "xyz"} | {"warpsize"}


@dataclass(frozen=True)
class Aggregated:
    """A combined atomic: its slot (``k``: the entry's words ``AGG_BASE + 2k``, the combined value, and
    ``+ 1``, the element's address, 0 until a thread reaches it), the atomic, its element type and where
    it is."""

    k: int
    name: str
    dtype: Scalar
    where: str  # line:col in the kernel's file


def aggregated_atomics(tf: TypedFunction, sanitize: bool) -> dict[int, Aggregated]:
    """The atomic calls of kernel ``tf`` (by node id) that the entry combines (see the module's text)."""
    if not tf.is_kernel or tf.uses_barrier or sanitize:
        return {}
    params = {p.name: t for p, t in zip(tf.fn.params, tf.arg_types)}
    assigned = assignment_counts(tf.fn.body)
    definitions = _single_definitions(tf.fn.body, assigned)
    candidates: dict[str, list[ir.Call]] = {}
    for s in ir.walk(tf.fn):
        if not (isinstance(s, ir.ExprStmt) and isinstance(s.value, ir.Call)):
            continue
        call = s.value
        callee = tf.callees.get(call.nid)
        if callee is None or callee.kind != "gpu" or not (callee.name in _ANY_TYPE or callee.name in _INTEGERS_ONLY):
            continue
        array = call.args[0] if call.args else None
        arr_t = params.get(array.id) if isinstance(array, ir.Name) else None
        if not isinstance(array, ir.Name) or not isinstance(arr_t, ArrayT) or array.id in assigned:
            continue
        dtype = arr_t.dtype
        if (
            not isinstance(dtype, Scalar)
            or dtype.kind not in "iuf"
            or (dtype.kind == "f" and (callee.name in _INTEGERS_ONLY or dtype.bits == 16))
        ):
            continue
        uniform = _Uniform(tf, params, assigned, definitions)
        if len(call.args) == 3 and uniform(call.args[1]):
            candidates.setdefault(array.id, []).append(call)
    uses: dict[str, int] = {}
    shapes = _shape_reads(tf)
    for node in ir.walk(tf.fn):
        if isinstance(node, ir.Name) and node.id in candidates and id(node) not in shapes:
            uses[node.id] = uses.get(node.id, 0) + 1
    out: dict[int, Aggregated] = {}
    for name, calls in candidates.items():
        if uses[name] != len(calls):  # the array is touched elsewhere too
            continue
        for call in calls:
            callee = tf.callees[call.nid]
            arr_t = params[name]
            assert isinstance(arr_t, ArrayT) and isinstance(arr_t.dtype, Scalar)
            out[call.nid] = Aggregated(len(out), callee.name, arr_t.dtype, f"{call.loc.line}:{call.loc.col + 1}")
    return out


def _shape_reads(tf: TypedFunction) -> set[int]:
    """The names (by ``id``) whose array's shape alone is read: ``a.shape``, ``a.size``, ``a.ndim``, ``len(a)``."""
    out = set()
    for node in ir.walk(tf.fn):
        if (
            isinstance(node, ir.Attribute)
            and node.attr in ("shape", "size", "ndim")
            and isinstance(node.value, ir.Name)
        ):
            out.add(id(node.value))
        elif isinstance(node, ir.Call) and len(node.args) == 1 and isinstance(node.args[0], ir.Name):
            callee = tf.callees.get(node.nid)
            if callee is not None and callee.kind == "builtin" and callee.name == "len":
                out.add(id(node.args[0]))
    return out


def _single_definitions(body: list[ir.Stmt], assigned: dict[str, int]) -> dict[str, ir.Expr]:
    """Each local assigned exactly once (a plain ``name = value``), with its value."""
    return {
        s.target.id: s.value
        for s in all_stmts(body)
        if isinstance(s, ir.Assign) and isinstance(s.target, ir.Name) and assigned.get(s.target.id) == 1
    }


class _Uniform:
    """Is an expression the same for every thread of a launch (see the module's text)?"""

    def __init__(
        self, tf: TypedFunction, params: dict[str, Type], assigned: dict[str, int], definitions: dict[str, ir.Expr]
    ) -> None:
        self.tf, self.params, self.assigned, self.definitions = tf, params, assigned, definitions
        self.seen: set[str] = set()

    def __call__(self, e: ir.Expr) -> bool:
        if e.nid in self.tf.consts:
            return True
        if isinstance(e, ir.Name):
            if e.id in self.params:
                return e.id not in self.assigned and isinstance(self.params[e.id], Scalar)
            value = self.definitions.get(e.id)
            if value is None or e.id in self.seen:
                return False
            self.seen.add(e.id)
            return self(value)
        if isinstance(e, ir.Attribute):  # an array parameter's shape, size or ndim
            return (
                e.attr in ("shape", "size", "ndim")
                and isinstance(e.value, ir.Name)
                and isinstance(self.params.get(e.value.id), ArrayT)
                and e.value.id not in self.assigned
            )
        if isinstance(e, ir.Subscript):  # a.shape[k]
            return isinstance(e.value, ir.Attribute) and e.value.attr == "shape" and self(e.value) and self(e.index)
        if isinstance(e, (ir.BinOp, ir.UnaryOp, ir.Compare, ir.BoolOp, ir.IfExp, ir.TupleExpr)):
            return all(self(c) for c in ir.children(e) if isinstance(c, ir.Expr))
        if isinstance(e, ir.Call):
            callee = self.tf.callees.get(e.nid)
            if callee is None:
                return False
            if callee.kind == "gpu" and callee.name in _UNIFORM_CALLS:
                return True
            if callee.kind == "builtin" and callee.name == "len" and len(e.args) == 1:  # len(an array parameter)
                a = e.args[0]
                return (
                    isinstance(a, ir.Name) and isinstance(self.params.get(a.id), ArrayT) and a.id not in self.assigned
                )
            if callee.kind == "cast" or (callee.kind == "builtin" and callee.name in ("int", "min", "max")):
                return all(self(a) for a in e.args)
        return False


def combine(b: llir.IRBuilder, site: Aggregated, combined: llir.Value, value: llir.Value) -> llir.Value:
    """``value`` combined into the value the entry keeps (sums of floats may be reassociated: LLVM then
    vectorises the sum, as the unspecified order of a GPU's atomics allows)."""
    if site.dtype.kind == "f":
        return b.fadd(combined, value, flags=("reassoc",))
    if site.name in ("atomic_add", "atomic_sub"):
        return b.add(combined, value)
    if site.name in ("atomic_min", "atomic_max"):
        compare = b.icmp_signed if site.dtype.kind == "i" else b.icmp_unsigned
        return b.select(compare("<" if site.name == "atomic_min" else ">", value, combined), value, combined)
    return {"atomic_and": b.and_, "atomic_or": b.or_, "atomic_xor": b.xor}[site.name](combined, value)


def start_value(site: Aggregated) -> llir.Constant:
    """What the entry's value starts as: the operation's identity."""
    ty = llir.FloatType() if site.dtype.name == "f32" else llir.DoubleType() if site.dtype.kind == "f" else None
    if ty is not None:
        return llir.Constant(ty, -0.0)  # x + -0.0 is x for every x (+0.0 would turn -0.0 into +0.0)
    bits = site.dtype.dtype.itemsize * 8
    ity = llir.IntType(bits)
    signed = site.dtype.kind == "i"
    if site.name == "atomic_and":
        return llir.Constant(ity, (1 << bits) - 1)
    if site.name == "atomic_min":
        return llir.Constant(ity, (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1)
    if site.name == "atomic_max":
        return llir.Constant(ity, -(1 << (bits - 1)) if signed else 0)
    return llir.Constant(ity, 0)
