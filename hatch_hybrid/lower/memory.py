"""Lowering of memory accesses: array element addresses (64- or 32-bit offset arithmetic, optional
bounds checks), loads and stores of scalars and structs, and device-side checks that report through
the module's error slot.

:class:`MemoryLowerer` is mixed into :class:`~.function.FunctionLowerer`, which provides the builder,
``expr``/``coerce``/``convert_value``, the function being built and the :class:`~.function.ModuleLowerer`.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from llvmlite import ir as llir

from .. import ir
from ..errors import Loc
from ..frontend.constants import check_int
from ..types import WEAK_INT, ArrayT, Element, Scalar, StructT, TupleT, Type, Weak, is_float, is_int, storage
from .hooks import READ, WRITE
from .ops import F64, I8, I32, I64, I128, const, memory_type
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
    access: Callable[..., None]  # provided by ThreadHooks
    element_root: Callable[..., None]

    def check(
        self, ok: llir.Value, kind: str, loc: Loc, msg: str | None = None, values: tuple[llir.Value, ...] = ()
    ) -> None:
        """Unless ``ok``: record this site (and up to two i64 values) in the error slot if it is still
        empty, then end the thread (PTX ``exit``)."""
        parent = self.parent
        site = located(self.tf.fn.module, loc, kind=kind)
        if msg is not None:
            site["msg"] = msg
        parent.flavour.check_failed(self, ok, parent.checks.site(site), kind, values)

    # ------------------------------------------------- conversions NumPy refuses
    def convert_checked(self, v: llir.Value, src: Type, dst: Type, loc: Loc, context: str) -> llir.Value:
        """``ops.convert``, failing (as the Python path raises) where NumPy refuses to convert:

        * ``"arith"``: a Python int mixed with a fixed-width integer that cannot hold it (OverflowError,
          "Python integer 300 out of bounds for int8");
        * ``"cast"``: that, and ``i8(x)`` of a Python float, or ``int(x)`` of any float, that is NaN
          (ValueError) or infinite (OverflowError), or ``i8(x)`` of one out of range once truncated;
        * ``"store"``: an element of an integer array set from a Python number it cannot hold, or of a
          signed integer array from any value (NumPy's ``a[i] = v`` converts those through a Python
          int, so NaN, inf and out-of-range values raise; NumPy scalars into unsigned arrays wrap).
        """
        if is_int(dst) and isinstance(src, (Scalar, Weak)):
            d = None if isinstance(dst, Weak) else storage(dst)  # None: a Python int
            weak = isinstance(src, Weak)
            stored = context == "store" and d is not None and (weak or d.kind == "i")
            if is_int(src) and d is not None and (weak or stored):
                self._check_int_fits(v, storage(src), d, loc)
            elif is_int(src) and d is None and context == "cast" and storage(src).dtype == np.uint64:
                self._check_int_fits(v, storage(src), storage(WEAK_INT), loc, "int")  # int(x) of a u64: within 64 bits
            elif is_float(src) and (stored or (context == "cast" and (d is None or weak))):
                self._check_float_fits(v, storage(src), d, loc)
        return self.ops.convert(v, src, dst)

    def _check_int_fits(self, v: llir.Value, s: Scalar, d: Scalar, loc: Loc, name: str | None = None) -> None:
        """``name``: the target's name in the message (``"int"``: a Python int, held in ``d``)."""
        have, want = np.iinfo(s.dtype), np.iinfo(d.dtype)
        if want.min <= have.min and have.max <= want.max:
            return
        if isinstance(v, llir.Constant) and isinstance(v.constant, int):  # known here: check it here
            value = v.constant & ((1 << s.bits) - 1)
            if s.kind == "i" and value >= 1 << (s.bits - 1):
                value -= 1 << s.bits
            if want.min <= value <= want.max:
                return
        b = self.b
        wide = b.sext(v, I128) if s.kind == "i" else b.zext(v, I128)
        ok = b.and_(
            b.icmp_signed(">=", wide, llir.Constant(I128, int(want.min))),
            b.icmp_signed("<=", wide, llir.Constant(I128, int(want.max))),
        )
        as64 = v if s.bits == 64 else (b.sext(v, I64) if s.kind == "i" else b.zext(v, I64))
        self.check(ok, "convert", loc, name or d.dtype.name, (as64, llir.Constant(I64, 1 if s.kind == "u" else 0)))

    def _check_float_fits(self, v: llir.Value, s: Scalar, d: Scalar | None, loc: Loc) -> None:
        """``d`` None: to a Python int, held in i64 (NaN, infinities and values beyond 64 bits fail)."""
        if isinstance(v, llir.Constant) and isinstance(v.constant, float) and np.isfinite(v.constant):
            if d is None:  # a Python int known here, as any other constant: it must fit in 64 bits
                check_int(math.trunc(v.constant), loc)
                return
            if np.iinfo(d.dtype).min <= math.trunc(v.constant) <= np.iinfo(d.dtype).max:
                return
        b = self.b
        x = v if s.bits == 64 else b.fpext(v, F64)
        if d is None:  # |x| < 2**63 holds after truncation too; NaN fails the ordered compare
            fabs = self.ops.intrinsic("llvm.fabs", [F64])
            ok = b.fcmp_ordered("<", b.call(fabs, [x]), llir.Constant(F64, 2.0**63))
            ok = b.or_(ok, b.fcmp_ordered("==", x, llir.Constant(F64, -(2.0**63))))
        else:
            info = np.iinfo(d.dtype)  # the bounds are powers of two (or 0): exact in every float format
            t = b.call(self.ops.intrinsic("llvm.trunc", [F64]), [x])
            ok = b.and_(
                b.fcmp_ordered(">=", t, llir.Constant(F64, float(info.min))),
                b.fcmp_ordered("<", t, llir.Constant(F64, float(info.max) + 1.0)),
            )
        self.check(ok, "convert", loc, d.dtype.name if d else "int", (b.bitcast(x, I64), llir.Constant(I64, 2)))

    # ----------------------------------------------------------------- arrays
    def element_pointer(self, e: ir.Subscript) -> llir.Value:
        arr = self.expr(e.value)
        assert isinstance(arr, ArrayValue)
        indices = self.index_values(e.index)
        arr_t = self.tf.types[e.value.nid]
        assert isinstance(arr_t, ArrayT)
        return self.address(arr, indices, arr_t.dtype, e.loc)

    def index_values(self, index_node: ir.Expr) -> list[llir.Value]:
        """The indices between the brackets as i64s: one, a tuple written there, or a tuple-valued expression
        (``g = gpu.grid(2)`` then ``a[g]`` or ``gpu.atomic_add(a, g, 1)``)."""
        if isinstance(index_node, ir.TupleExpr):
            return [self.coerce(n, WEAK_INT) for n in index_node.elts]
        types = self.tf.types[index_node.nid]
        if not isinstance(types, TupleT):
            return [self.coerce(index_node, WEAK_INT)]
        tup = self.expr(index_node)
        assert isinstance(tup, TupleValue)
        return [self.ops.convert(v, t, WEAK_INT) for v, t in zip(tup.items, types.items)]

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
        ptr = b.gep(arr.ptr, [offset], source_etype=element_memory_type(dtype))
        self.element_root(ptr, arr)
        return ptr

    def wrap_index(self, idx: llir.Value, dim: llir.Value, axis: int, loc: Loc | None) -> llir.Value:
        """A negative index counted from the end, as in Python; with ``debug``, checked against the
        dimension (``loc`` reports a failure as NumPy's IndexError)."""
        b = self.b
        checked = self.parent.debug and loc is not None
        unsigned = id(idx) in self.ops.unsigned  # a u64 index: 2**63 and more are past the end (checked so)
        if id(idx) in self.ops.nonnegative or (unsigned and checked):
            wrapped = idx
        else:
            wrapped = b.select(b.icmp_signed("<", idx, const(WEAK_INT, 0)), b.add(idx, dim, flags=["nsw"]), idx)
        if checked and loc is not None:
            kind = f"uindex{axis}" if unsigned else f"index{axis}"
            self.check(b.icmp_unsigned("<", wrapped, dim), kind, loc, values=(idx, dim))
        return wrapped

    def load_element(self, ptr: llir.Value, dtype: Element, loc: Loc | None = None) -> Value:
        """An element's value; ``loc``: where the program reads it (sanitized code reports it there)."""
        if isinstance(dtype, StructT):
            leaves: list[llir.Value] = []
            for off, t in leaf_offsets(dtype):
                assert isinstance(t, Scalar)
                leaf = self.load_element(self._byte_offset(ptr, off), t, loc)
                assert isinstance(leaf, llir.Value)
                leaves.append(leaf)
            value, rest = unflatten(dtype, leaves)
            assert not rest
            return value
        if loc is not None:
            self.access(ptr, dtype.dtype.itemsize, READ, loc)
        v = self.b.load(ptr, typ=memory_type(dtype), align=alignment(dtype))
        return self.b.icmp_unsigned("!=", v, llir.Constant(I8, 0)) if dtype.kind == "b" else v

    def _byte_offset(self, ptr: llir.Value, offset: int) -> llir.Value:
        return self.b.gep(ptr, [llir.Constant(I64, offset)], source_etype=I8) if offset else ptr

    def _to_memory(self, v: llir.Value, dtype: Scalar) -> llir.Value:
        return self.b.zext(v, I8) if dtype.kind == "b" else v

    def store_element(self, ptr: llir.Value, value: Value, dtype: Element, loc: Loc | None = None) -> None:
        """``loc``: where the program writes the element (sanitized code reports it there)."""
        if isinstance(dtype, StructT):
            for (off, t), leaf in zip(leaf_offsets(dtype), flatten(value)):
                self.store_element(self._byte_offset(ptr, off), leaf, t, loc)  # type: ignore[arg-type]
            return
        assert isinstance(value, llir.Value)
        if loc is not None:
            self.access(ptr, dtype.dtype.itemsize, WRITE, loc)
        self.b.store(self._to_memory(value, dtype), ptr, align=alignment(dtype))
