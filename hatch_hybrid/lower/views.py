"""Lowering of array views: ``a[i]`` of an N-d array, ``a[i:j:k]``, ``a[:, j]``. A view is a new
(pointer, shape, strides) over its parent's memory, never a copy: an integer index moves the pointer
and drops the dimension, a slice moves it to the slice's first element and keeps the dimension with
the slice's length and the stride times the step. Bounds are clamped as Python's ``slice.indices``
does; a step of zero found at run time fails as NumPy's ``ValueError``.

:class:`ViewLowerer` is mixed into :class:`~.function.FunctionLowerer`, which provides the builder,
``expr``/``coerce``/``check`` and ``wrap_index`` (:class:`~.memory.MemoryLowerer`).
"""

from __future__ import annotations

from collections.abc import Callable

from llvmlite import ir as llir

from .. import ir
from ..errors import Loc
from ..types import NONE, WEAK_INT, ArrayT, Scalar, TupleT
from .memory import element_memory_type
from .ops import const
from .parts import LowererParts
from .values import ArrayValue, TupleValue

U64 = Scalar("u64")


class ViewLowerer(LowererParts):
    wrap_index: Callable[[llir.Value, llir.Value, int, Loc | None], llir.Value]  # MemoryLowerer

    def view(self, e: ir.Subscript) -> ArrayValue:
        """``e``, a subscript whose type is an array: the view of ``e.value`` it selects."""
        arr = self.expr(e.value)
        arr_t = self.tf.types[e.value.nid]
        assert isinstance(arr, ArrayValue) and isinstance(arr_t, ArrayT)
        b = self.b
        items = self._index_items(e.index)
        offset: llir.Value | None = None
        shape: list[llir.Value] = []
        strides: list[llir.Value] = []
        for axis, (dim, stride) in enumerate(zip(arr.shape, arr.strides)):
            item = items[axis] if axis < len(items) else None
            if item is None:  # dimensions after the last index are kept whole
                shape.append(dim)
                strides.append(stride)
                continue
            if isinstance(item, ir.Slice):
                first, length, step = self.slice_indices(item, dim)
                shape.append(length)
                strides.append(b.mul(stride, step))
            else:
                first = self.wrap_index(item, dim, axis, e.loc)
            term = b.mul(first, stride)
            offset = term if offset is None else b.add(offset, term)
        # the first element of an empty view may lie outside the array: never read, so a plain gep
        ptr = arr.ptr if offset is None else b.gep(arr.ptr, [offset], source_etype=element_memory_type(arr_t.dtype))
        return ArrayValue(ptr, shape, strides, arr.root)

    def _index_items(self, index: ir.Expr) -> list[ir.Slice | llir.Value]:
        """Each item between the brackets: a slice node, or an integer index (i64)."""
        t = self.tf.types[index.nid]
        if isinstance(index, ir.TupleExpr):
            nodes = index.elts
        elif isinstance(t, TupleT):  # a tuple-valued variable of integers
            tup = self.expr(index)
            assert isinstance(tup, TupleValue)
            return [self.ops.convert(v, item, WEAK_INT) for v, item in zip(tup.items, t.items)]
        else:
            nodes = [index]
        return [n if isinstance(n, ir.Slice) else self.coerce(n, WEAK_INT) for n in nodes]

    def slice_indices(self, s: ir.Slice, n: llir.Value) -> tuple[llir.Value, llir.Value, llir.Value]:
        """(start, length, step) of ``s`` over a dimension of ``n``, as ``slice(...).indices(n)`` and
        ``len(range(...))`` compute them. A compile-time step makes the selects below fold away."""
        b = self.b
        zero, one = const(WEAK_INT, 0), const(WEAK_INT, 1)

        def given(node: ir.Expr | None) -> llir.Value | None:
            if node is None or self.tf.types[node.nid] == NONE:
                return None
            v = self.coerce(node, WEAK_INT)
            if self.tf.types[node.nid] == U64:  # 2**63 and more: past any end, not negative
                v = b.select(b.icmp_signed("<", v, zero), const(WEAK_INT, 2**63 - 1), v)
            return v

        step = given(s.step)
        if step is None:
            step = one
        elif s.step is not None and s.step.nid not in self.tf.consts:  # known steps are checked when typed
            self.check(b.icmp_signed("!=", step, zero), "slicestep", s.step.loc)
        backwards = b.icmp_signed("<", step, zero)
        lower = b.select(backwards, const(WEAK_INT, -1), zero)
        upper = b.select(backwards, b.sub(n, one), n)

        def bound(node: ir.Expr | None, default: llir.Value) -> llir.Value:
            v = given(node)
            if v is None:
                return default
            from_end = b.add(v, n)  # negative bounds count from the end, then clamp to [lower, upper]
            return b.select(
                b.icmp_signed("<", v, zero),
                _select_max(b, from_end, lower),
                _select_min(b, v, upper),
            )

        start = bound(s.lower, b.select(backwards, upper, lower))
        stop = bound(s.upper, b.select(backwards, lower, upper))
        nonempty = b.select(backwards, b.icmp_signed("<", stop, start), b.icmp_signed("<", start, stop))
        span = b.select(backwards, b.sub(b.sub(start, stop), one), b.sub(b.sub(stop, start), one))
        magnitude = b.select(backwards, b.sub(zero, step), step)
        length = b.select(nonempty, b.add(b.udiv(span, magnitude), one), zero)
        return start, length, step


def _select_max(b: llir.IRBuilder, x: llir.Value, y: llir.Value) -> llir.Value:
    return b.select(b.icmp_signed("<", x, y), y, x)


def _select_min(b: llir.IRBuilder, x: llir.Value, y: llir.Value) -> llir.Value:
    return b.select(b.icmp_signed(">", x, y), y, x)
