"""Type rules of array views, as NumPy's basic indexing: ``a[i]`` of an N-d array is an (N-1)-d view,
slices ``a[i:j:k]`` mixed with integers (``a[:, j]``, ``m[r0:r1, c0:c1]``) keep their dimensions, and
a view shares its parent's memory, so a write through it writes the array it was taken from.

:class:`ViewChecker` is mixed into :class:`~.function.FunctionChecker`, which provides ``expr`` and
the function being checked; :func:`array_root` names the variable a view (of a view...) comes from,
for "which arrays does a kernel write".
"""

from __future__ import annotations

from .. import ir
from ..errors import CompileError
from ..types import NONE, ArrayT, SliceT, TupleT, Type, is_int
from .typed import SymbolT, TypedFunction


def array_root(node: ir.Expr) -> str | None:
    """The variable an array expression reads: ``x`` for ``x``, ``x[i]``, ``x[1:, j][::2]``, ``z.real``; None
    for arrays made by calls (``gpu.shared_array``)."""
    while isinstance(node, ir.Subscript) or (isinstance(node, ir.Attribute) and node.attr in ("real", "imag")):
        node = node.value  # (`z.real` of a complex array: a view of its parts)
    return node.id if isinstance(node, ir.Name) else None


def index_items(index_node: ir.Expr, index: Type) -> list[tuple[ir.Expr, Type]]:
    """The (node, type) of each item between the brackets: the items of a tuple written there, of a
    tuple-valued variable (all at its node), or the one index."""
    if isinstance(index_node, ir.TupleExpr) and isinstance(index, TupleT):
        return list(zip(index_node.elts, index.items))
    if isinstance(index, TupleT):
        return [(index_node, t) for t in index.items]
    return [(index_node, index)]


class ViewChecker:
    tf: TypedFunction

    def expr(self, e: ir.Expr) -> Type:  # provided by FunctionChecker
        raise NotImplementedError

    def index_type(self, index: ir.Expr) -> Type:
        """The type of what is between the brackets; a tuple written there may hold slices and
        ``np.newaxis`` (refused by :meth:`array_subscript` with its own message)."""
        if not isinstance(index, ir.TupleExpr):
            t0 = self.expr(index)
            return t0
        t = TupleT(tuple(self.expr(x) for x in index.elts))
        self.tf.types[index.nid] = t
        return t

    def slice_type(self, e: ir.Slice) -> Type:
        """``lower:upper:step``: integers (or None) as Python's ``slice.indices`` takes them; a step
        known to be 0 is an error (NumPy raises ValueError)."""
        for part in (e.lower, e.upper, e.step):
            if part is None:
                continue
            t = self.expr(part)
            if t != NONE and not is_int(t):
                raise CompileError(
                    part.loc, f"slice bounds and steps must be integers or None, not {t}", "convert with int(...)"
                )
        if e.step is not None and self.tf.consts.get(e.step.nid) == 0:
            raise CompileError(
                e.step.loc,
                "slice step cannot be zero",
                "NumPy raises ValueError here; use a step of 1, or -1 to reverse",
            )
        return SliceT()

    def array_subscript(self, e: ir.Subscript, base: ArrayT, index: Type) -> Type:
        """An element (an integer for every dimension) or a view (fewer integers, or slices)."""
        items = index_items(e.index, index)
        fixed = 0
        for node, t in items:
            if isinstance(t, SliceT):
                continue
            if t == NONE or (isinstance(t, SymbolT) and str(t).endswith("newaxis")):
                raise CompileError(
                    node.loc,
                    "`None` (np.newaxis) in an index is not supported in kernel code",
                    "a view keeps or drops dimensions but cannot add one: index with integers and slices",
                )
            if not is_int(t):
                hint = (
                    "index one element at a time in a loop (indexing with an array is NumPy's advanced "
                    "indexing, which copies; kernels take views)"
                    if isinstance(t, ArrayT)
                    else "convert with int(...)"
                )
                raise CompileError(node.loc, f"array indices must be integers or slices, not {t}", hint)
            fixed += 1
        if len(items) > base.ndim:
            raise CompileError(
                e.index.loc,
                f"too many indices for {base}: it is {base.ndim}-dimensional, but {len(items)} were indexed",
                "index each dimension once (`a[i, j]` of a 2-d array); fewer indices give a view (`a[i]` is row i)",
            )
        if fixed == base.ndim:
            return base.dtype
        return ArrayT(base.dtype, base.ndim - fixed)

    def check_element_target(self, target: ir.Subscript, t: Type) -> None:
        """``a[1:3] = x``, ``a[i] = x`` of a 2-d ``a``, ``a[i] += 1`` likewise: NumPy would broadcast
        into the view; kernel code stores elements."""
        if isinstance(t, ArrayT):
            raise CompileError(
                target.loc,
                f"assigning to a view ({t}) is not supported in kernel code (NumPy would broadcast into it)",
                "store its elements in a loop: `for k in range(len(v)): v[k] = x`, with `v = a[1:3]`",
            )

    def check_tuple_index(self, e: ir.Subscript, index: Type) -> None:
        """Tuples are indexed with literals only: slicing one is an error."""
        items = index.items if isinstance(index, TupleT) else (index,)
        if any(isinstance(t, SliceT) for t in items):
            raise CompileError(
                e.index.loc,
                "slicing a tuple is not supported in kernel code",
                "index its items with literals (`t[0]`, `a.shape[1]`), or slice the array (`a[1:].shape`)",
            )


_SHARED_ARRAYS = ("shared_array", "dynamic_shared_array")


def shared_locals(tf: TypedFunction) -> frozenset[str]:
    """The locals of ``tf`` that only ever hold the block's shared memory: every binding of them a
    ``gpu.shared_array``/``dynamic_shared_array`` call, or a view of such a local (not parameters: a
    helper may be given any array)."""
    found: frozenset[str] | None = getattr(tf, "_shared_locals", None)
    if found is not None:
        return found
    bindings: dict[str, list[ir.Expr | None]] = {}

    def bind(target: ir.Expr, value: ir.Expr | None) -> None:  # (`a[i] = v` and `s.f = v` bind no name)
        if isinstance(target, ir.Name):
            bindings.setdefault(target.id, []).append(value)
        elif isinstance(target, ir.TupleExpr):
            for item in target.elts:
                bind(item, None)

    for node in ir.walk(tf.fn):
        if isinstance(node, (ir.Assign, ir.ForRange)):
            bind(node.target, node.value if isinstance(node, ir.Assign) else None)

    def made_shared(value: ir.Expr | None, shared: set[str]) -> bool:
        if isinstance(value, ir.Call):
            callee = tf.callees.get(value.nid)
            return callee is not None and callee.kind == "gpu" and callee.name in _SHARED_ARRAYS
        return value is not None and array_root(value) in shared

    shared: set[str] = set()
    while True:  # views of views: until nothing more is found
        more = {name for name, values in bindings.items() if all(made_shared(v, shared) for v in values)}
        more -= {p.name for p in tf.fn.params}
        if more <= shared:
            break
        shared |= more
    result = frozenset(shared)
    setattr(tf, "_shared_locals", result)  # noqa: B010 (computed once per typed function)
    return result
