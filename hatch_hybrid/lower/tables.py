"""Lowering of constant tables (:mod:`..typecheck.tables`): each distinct table is one read-only
global of the kernel's module, read through an array value whose shape and strides are constants.

Where a table lives: on the GPU in constant memory (``addrspace(4)``, PTX ``.const``, read with
``ld.const``: cached and broadcast when a warp reads one address) while the module's tables fit
in the 64 KiB a module may hold; tables beyond that go to read-only global memory (``addrspace(1)``,
read with ``ld.global.nc`` through the read-only data cache, which suits the scattered reads of
different threads better than constant memory would anyway). Natively on the CPU, a private
constant global of the object.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from llvmlite import ir as llir

from .. import ir
from ..types import WEAK_INT, Scalar, TableT, TupleT
from .flavour import Flavour
from .ops import I8, const, memory_type
from .parts import LowererParts
from .values import ArrayValue, TupleValue, Value, fixed_shape_array

#: Constant memory a CUDA module may hold (``.const`` bank of 64 KiB).
CONSTANT_BANK_BYTES = 64 * 1024
CONSTANT, GLOBAL = 4, 1  # NVPTX address spaces


class TableGlobals:
    """The tables of one LLVM module, each a global made on first use."""

    def __init__(self, module: llir.Module, flavour: Flavour) -> None:
        self.module = module
        self.flavour = flavour
        self.globals: dict[str, llir.GlobalVariable] = {}
        self.used: dict[int, int] = {}  # address space -> the bytes of the tables in it so far

    def get(self, t: TableT) -> llir.GlobalVariable:
        return self.constant(t.key, t.data, max(t.dtype.dtype.itemsize, 4))

    def constant(self, key: str, data: np.ndarray, align: int) -> llir.GlobalVariable:
        """The global holding ``data`` (its bytes, little-endian as GPUs and the CPU targets), made once
        per ``key``."""
        gv = self.globals.get(key)
        if gv is None:
            data = data.astype(data.dtype.newbyteorder("<"))
            size = data.nbytes
            space = self.flavour.table_space(self.used, size)
            self.used[space] = self.used.get(space, 0) + size
            kind = llir.ArrayType(I8, size)
            gv = llir.GlobalVariable(self.module, kind, f"hybrid_table_{key}", addrspace=space)
            gv.initializer = llir.Constant(kind, bytearray(data.tobytes()))
            gv.global_constant = True
            gv.linkage = "internal"
            gv.align = align
            self.globals[key] = gv
        return gv


class TableLowerer(LowererParts):
    element_pointer: Callable[[ir.Subscript], llir.Value]  # provided by MemoryLowerer
    address: Callable[..., llir.Value]

    def table_value(self, t: TableT) -> ArrayValue:
        """A module constant read as a table: its global, as an array."""
        gv = self.parent.tables.get(t)
        return fixed_shape_array(self.parent.flavour.table_pointer(self.b, gv), t.shape)

    def table_element(self, e: ir.Subscript) -> Value:
        """``T[i]`` (an element) or ``W[r]`` (a row, itself a table)."""
        if isinstance(self.tf.types[e.index.nid], TupleT):
            ptr = self.element_pointer(e)
        else:  # one index: an element of a 1-D table, or a row
            table, table_t = self.expr(e.value), self.tf.types[e.value.nid]
            assert isinstance(table, ArrayValue) and isinstance(table_t, TableT)
            ptr = self.address(table, [self.coerce(e.index, WEAK_INT)], table_t.dtype, e.loc)
        row = self.tf.types[e.nid]
        if isinstance(row, TableT):
            return fixed_shape_array(ptr, row.shape)
        base = self.tf.types[e.value.nid]
        assert isinstance(base, TableT)
        return self._load(ptr, base)

    def table_items(self, value: Value, t: TableT) -> tuple[TupleValue, TupleT]:
        """A 1-D table unpacked (``a, b = PAIR``): its elements."""
        assert isinstance(value, ArrayValue) and t.ndim == 1
        items = [self._load(self.address(value, [const(WEAK_INT, k)], t.dtype), t) for k in range(t.shape[0])]
        return TupleValue(items), TupleT((t.elem,) * t.shape[0])

    def _load(self, ptr: llir.Value, t: TableT) -> llir.Value:
        dtype = t.dtype
        assert isinstance(dtype, Scalar)
        value = self.b.load(ptr, typ=memory_type(dtype), align=dtype.dtype.itemsize)
        # the table never changes: the load may move and, on the GPU, use the read-only path
        value.set_metadata("invariant.load", self.parent.module.add_metadata([]))
        return self.b.icmp_unsigned("!=", value, llir.Constant(I8, 0)) if dtype.kind == "b" else value
