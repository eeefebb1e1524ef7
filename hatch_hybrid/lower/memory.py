"""Lowering of memory accesses: array element addresses (64- or 32-bit offset arithmetic, optional
bounds checks), loads and stores of scalars and structs, and device-side checks that report through
the module's error slot.

:class:`MemoryLowerer` is mixed into :class:`~.function.FunctionLowerer`, which provides the builder,
``expr``/``coerce``/``convert_value``, the function being built and the :class:`~.function.ModuleLowerer`.
"""

from __future__ import annotations

from llvmlite import ir as llir

from .. import ir
from ..errors import Loc
from ..types import WEAK_INT, ArrayT, Element, Scalar, StructT, TupleT
from .ops import I8, I32, I64, PTR, VOID, const, memory_type
from .parts import LowererParts
from .sites import located
from .values import ArrayValue, TupleValue, Value, flatten, leaf_offsets, unflatten


def element_memory_type(dtype: Element) -> llir.Type:
    """How one array element is laid out: a scalar, or a struct's bytes (offsets from its dtype)."""
    if isinstance(dtype, StructT):
        return llir.ArrayType(I8, dtype.dtype.itemsize)
    return memory_type(dtype)


def alignment(dtype: Scalar) -> int:
    """A scalar's alignment in memory: its size (a complex number's: its parts' size, as NumPy's)."""
    return dtype.dtype.alignment if dtype.kind == "c" else dtype.dtype.itemsize


class MemoryLowerer(LowererParts):
    def check(
        self, ok: llir.Value, kind: str, loc: Loc, msg: str | None = None, values: tuple[llir.Value, ...] = ()
    ) -> None:
        """Unless ``ok``: record this site (and up to two i64 values) in the error slot if it is still
        empty, then end the thread (PTX ``exit``)."""
        parent = self.parent
        site = located(self.tf.fn.module, loc, kind=kind)
        if msg is not None:
            site["msg"] = msg
        site_id = parent.checks.site(site)
        if parent.host:
            self.host_check(ok, site_id, values)  # type: ignore[attr-defined]
            return
        b = self.b
        fail = self.fn.append_basic_block(f"{kind}.fail")
        cont = self.fn.append_basic_block(f"{kind}.ok")
        b.cbranch(ok, cont, fail)
        b.position_at_end(fail)
        slot = b.addrspacecast(parent.error_slot(), PTR)
        first = b.extract_value(
            b.cmpxchg(slot, llir.Constant(I64, 0), llir.Constant(I64, site_id), "monotonic", "monotonic"),
            1,
        )
        record, done = self.fn.append_basic_block(f"{kind}.record"), self.fn.append_basic_block(f"{kind}.exit")
        b.cbranch(first, record, done)
        b.position_at_end(record)
        for k, v in enumerate(values[:2]):
            b.store(v, b.gep(slot, [llir.Constant(I64, k + 1)], source_etype=I64), align=8)
        b.branch(done)
        b.position_at_end(done)
        b.call(llir.InlineAsm(llir.FunctionType(VOID, []), "exit;", "", side_effect=True), [])
        b.unreachable()
        b.position_at_end(cont)

    # ----------------------------------------------------------------- arrays
    def element_pointer(self, e: ir.Subscript) -> llir.Value:
        arr = self.expr(e.value)
        assert isinstance(arr, ArrayValue)
        index_node = e.index
        nodes = index_node.elts if isinstance(index_node, ir.TupleExpr) else [index_node]
        if isinstance(index_node, ir.TupleExpr) or len(arr.shape) == 1:
            indices = [self.coerce(n, WEAK_INT) for n in nodes]
        else:  # a tuple-valued variable
            tup = self.expr(index_node)
            assert isinstance(tup, TupleValue)
            types = self.tf.types[index_node.nid]
            assert isinstance(types, TupleT)
            indices = [self.ops.convert(v, t, WEAK_INT) for v, t in zip(tup.items, types.items)]
        arr_t = self.tf.types[e.value.nid]
        assert isinstance(arr_t, ArrayT)
        return self.address(arr, indices, arr_t.dtype, e.loc)

    def address(self, arr: ArrayValue, indices: list[llir.Value], dtype: Element, loc: Loc | None = None) -> llir.Value:
        """The address of ``arr[indices]``; with ``debug``, checked against the shape (``loc`` reports it)."""
        b = self.b
        offset: llir.Value | None = None
        narrow = self.parent.index32
        for axis, (idx, dim, stride) in enumerate(zip(indices, arr.shape, arr.strides)):
            idx = self.wrap_index(idx, dim, axis, loc)
            if narrow:  # the array spans < 2**31 elements, so every partial offset of a valid access fits
                idx, stride = b.trunc(idx, I32), b.trunc(stride, I32)
            term = b.mul(idx, stride, flags=["nsw"])  # an element offset of a valid access fits
            offset = term if offset is None else b.add(offset, term, flags=["nsw"])
        if narrow and offset is not None:
            offset = b.sext(offset, I64)
        return b.gep(arr.ptr, [offset], source_etype=element_memory_type(dtype))

    def wrap_index(self, idx: llir.Value, dim: llir.Value, axis: int, loc: Loc | None) -> llir.Value:
        """A negative index counted from the end, as in Python; with ``debug``, checked against the
        dimension (``loc`` reports a failure as NumPy's IndexError)."""
        b = self.b
        wrapped = b.select(b.icmp_signed("<", idx, const(WEAK_INT, 0)), b.add(idx, dim, flags=["nsw"]), idx)
        if self.parent.debug and loc is not None:
            self.check(b.icmp_unsigned("<", wrapped, dim), f"index{axis}", loc, values=(idx, dim))
        return wrapped

    def load_element(self, ptr: llir.Value, dtype: Element) -> Value:
        if isinstance(dtype, StructT):
            leaves: list[llir.Value] = []
            for off, t in leaf_offsets(dtype):
                assert isinstance(t, Scalar)
                leaf = self.load_element(self._byte_offset(ptr, off), t)
                assert isinstance(leaf, llir.Value)
                leaves.append(leaf)
            value, rest = unflatten(dtype, leaves)
            assert not rest
            return value
        v = self.b.load(ptr, typ=memory_type(dtype), align=alignment(dtype))
        return self.b.icmp_unsigned("!=", v, llir.Constant(I8, 0)) if dtype.kind == "b" else v

    def _byte_offset(self, ptr: llir.Value, offset: int) -> llir.Value:
        return self.b.gep(ptr, [llir.Constant(I64, offset)], source_etype=I8) if offset else ptr

    def _to_memory(self, v: llir.Value, dtype: Scalar) -> llir.Value:
        return self.b.zext(v, I8) if dtype.kind == "b" else v

    def store_element(self, ptr: llir.Value, value: Value, dtype: Element) -> None:
        if isinstance(dtype, StructT):
            for (off, t), leaf in zip(leaf_offsets(dtype), flatten(value)):
                self.store_element(self._byte_offset(ptr, off), leaf, t)  # type: ignore[arg-type]
            return
        assert isinstance(value, llir.Value)
        self.b.store(self._to_memory(value, dtype), ptr, align=alignment(dtype))
