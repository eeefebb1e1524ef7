"""Lint ``f64-in-f32-kernel``: double-precision arithmetic in a kernel whose float arrays are all f32.

Consumer GPUs run f64 at 1/32 (or 1/64) of the f32 rate, so one stray f64 operation in an f32 kernel
can make it several times slower, silently: NumPy's rules compute ``f32 / i64`` in f64, a Python
float computed at run time is an f64, and ``math`` functions compute in f64. Not reported: what
is folded at compile time, and what the compiler already computes in f32 (``f32(math.sqrt(x))``
for f32 ``x``, and with ``@kernel(fastmath=True)`` every such ``math`` call).
"""

from __future__ import annotations

from collections.abc import Iterator

from .. import ir
from ..errors import LintWarning
from ..lower.intrinsics import EXACT_IN_F32
from ..typecheck.rules import MATH_FLOAT_TO_FLOAT
from ..typecheck.typed import TypedFunction
from ..types import F32, F64, NONE, ArrayT, Scalar, Type, storage

NAME = "f64-in-f32-kernel"


def f32_kernel(kernel: TypedFunction) -> bool:
    """Has float arrays, all of them f32 (integer arrays beside them are fine)."""
    dtypes = [t.dtype for t in kernel.arg_types if isinstance(t, ArrayT)]
    floats = [d for d in dtypes if not (isinstance(d, Scalar) and d.kind in "iub")]
    return bool(floats) and all(d == F32 for d in floats)


def _f64(t: Type | None) -> bool:
    return t is not None and t != NONE and storage(t) == F64


def _converted_to(tf: TypedFunction) -> dict[int, Type]:
    """Expression node id -> the type its value is converted to where it is used (as lowering coerces)."""
    found: dict[int, Type] = {}
    for node in ir.walk(tf.fn):
        if isinstance(node, ir.BinOp) and node.nid in tf.optypes and node.nid not in tf.callees:
            ops = tf.optypes[node.nid]
            found[node.left.nid], found[node.right.nid] = ops.left, ops.right
        elif isinstance(node, ir.AugAssign) and node.nid in tf.optypes and node.nid not in tf.callees:
            found[node.value.nid] = tf.optypes[node.nid].right
        elif isinstance(node, ir.Assign) and isinstance(node.target, ir.Name):
            found[node.value.nid] = tf.locals[node.target.id]
        elif isinstance(node, ir.Assign) and isinstance(node.target, ir.Subscript):
            arr = tf.types.get(node.target.value.nid)
            if isinstance(arr, ArrayT):
                found[node.value.nid] = arr.dtype
        elif isinstance(node, ir.Return) and node.value is not None:
            found[node.value.nid] = tf.return_type
        elif isinstance(node, ir.Call) and node.args:
            callee = tf.callees.get(node.nid)
            if callee is not None and callee.kind == "cast":
                found[node.args[0].nid] = tf.types[node.nid]
    return found


def _innermost_first(node: ir.Node) -> Iterator[ir.Node]:
    """Nodes in evaluation order (operands before what uses them): the first f64 operation on a line is
    the one that made the rest f64."""
    for child in ir.children(node):
        yield from _innermost_first(child)
    yield node


def f64_sites(tf: TypedFunction, fastmath: bool) -> list[LintWarning]:
    """Each line of ``tf`` that computes in f64 (at its first f64 operation)."""
    converted = _converted_to(tf)
    found: dict[int, LintWarning] = {}
    for node in _innermost_first(tf.fn):
        if not isinstance(node, (ir.Expr, ir.AugAssign)) or node.nid in tf.consts or node.loc.line in found:
            continue
        what = hint = None
        callee = tf.callees.get(node.nid)
        if isinstance(node, (ir.BinOp, ir.AugAssign)) and callee is None and node.nid in tf.optypes:
            ops = tf.optypes[node.nid]
            if _f64(ops.result) or _f64(ops.left):
                left = node.left if isinstance(node, ir.BinOp) else node.target
                right = node.right if isinstance(node, ir.BinOp) else node.value
                what = f"`{node.op}` of {tf.types[left.nid]} and {tf.types[right.nid]} computes in f64"
                hint = "convert the f64 operand with f32(...), or use np.float32 values and f32 parameters"
        elif isinstance(node, ir.Call) and callee is not None and callee.kind == "math":
            in_f32 = (
                converted.get(node.nid) == F32
                and (callee.name in EXACT_IN_F32 or fastmath)
                and callee.name in MATH_FLOAT_TO_FLOAT
                and all(tf.types[a.nid] == F32 for a in node.args)
            )
            folded = all(a.nid in tf.consts for a in node.args)  # LLVM computes math.sqrt(2.0) at compile time
            if not in_f32 and not folded:
                what = f"math.{callee.name} computes in f64"
                hint = (
                    "math functions compute in f64 like Python's; f32(math.sqrt(x)) and f32(math.fabs(x)) of "
                    "f32 x compute in f32, and so does every f32(math.f(x)) with @kernel(fastmath=True)"
                )
        elif isinstance(node, ir.Compare):
            if any(_f64(ops.left) for (nid, _), ops in tf.cmptypes.items() if nid == node.nid):
                what = "this comparison computes in f64"
                hint = "compare f32 with f32 (np.float32 constants, f32(...) conversions)"
        if what is not None and hint is not None:
            message = f"{what} in a kernel whose float arrays are all f32 (f64 runs up to 32x slower on most GPUs)"
            found[node.loc.line] = LintWarning(NAME, node.loc, message, hint)
    return list(found.values())
