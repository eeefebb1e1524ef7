"""Lowering of ``print()``: device code appends a *record* to a print buffer; the runtime formats it.

A record is the print site's id (from 1) and each value's bits, 8 bytes apiece. The buffer is
``{u64 cursor; u64 dropped; u8 records[capacity]}``: a thread reserves its record's bytes with one
atomic add on the cursor and writes the record if it fits; otherwise it counts the record as
dropped, and the thread whose reservation straddles the end writes a 0 site id where its record
would have begun, which ends the records the runtime reads. On the GPU the buffer is the module's
``hybrid_print`` global (zero-initialised, so it costs no bytes of the cubin); on the host the
launch passes one (the thread context's ``print`` word). Why the runtime formats: see
:mod:`hatch_hybrid.typecheck.printing`.

:class:`PrintLowerer` is mixed into :class:`~.function.FunctionLowerer`.
"""

from __future__ import annotations

from llvmlite import ir as llir

from .. import ir
from ..typecheck.printing import print_values
from .abi import PRINT_BUFFER, PRINT_HEADER
from .ops import I8, I64, as_bits
from .parts import LowererParts
from .sites import SiteTable, located
from .values import Value

DEFAULT_PRINT_BUFFER = 1 << 20  # bytes of records, CUDA's printf FIFO default


class PrintSites(SiteTable):
    """A module's print sites and its print buffer's capacity."""

    def __init__(self, capacity: int = DEFAULT_PRINT_BUFFER) -> None:
        super().__init__()
        self.capacity = (capacity + 7) // 8 * 8
        self._global: llir.GlobalVariable | None = None

    def buffer(self, module: llir.Module) -> llir.GlobalVariable:
        """GPU: the ``hybrid_print`` global, which the runtime finds by name."""
        if self._global is None:
            gv = llir.GlobalVariable(module, llir.ArrayType(I8, PRINT_HEADER + self.capacity), PRINT_BUFFER, 1)
            gv.initializer = llir.Constant(gv.value_type, None)
            gv.align = 8
            self._global = gv
        return self._global


class PrintLowerer(LowererParts):
    ctx: llir.Value  # host: the thread context

    def print_call(self, e: ir.Call) -> Value:
        parent = self.parent
        prints: PrintSites = parent.prints
        site = located(self.tf.fn.module, e.loc)
        site["pieces"] = self.tf.prints[e.nid]
        site_id = prints.site(site)
        b = self.b
        values = []
        for node in print_values(e):
            value = self.expr(node)
            assert isinstance(value, llir.Value)
            if isinstance(value.type, llir.LiteralStructType):  # a complex number: its two parts
                values += [as_bits(b, b.extract_value(value, k)) for k in (0, 1)]
            else:
                values.append(as_bits(b, value))
        header = parent.flavour.print_header(self)
        size = 8 * (1 + len(values))
        capacity = llir.Constant(I64, prints.capacity)
        start = b.atomic_rmw("add", header, llir.Constant(I64, size), "monotonic")
        fits = b.icmp_unsigned("<=", b.add(start, llir.Constant(I64, size)), capacity)
        write, full, done = (self.fn.append_basic_block(f"print.{k}") for k in ("write", "full", "done"))
        b.cbranch(fits, write, full)
        b.position_at_end(write)
        record = record_at(b, header, start)
        for k, v in enumerate([llir.Constant(I64, site_id), *values]):
            b.store(v, b.gep(record, [llir.Constant(I64, k)], source_etype=I64), align=8)
        b.branch(done)
        b.position_at_end(full)
        dropped = b.gep(header, [llir.Constant(I64, 1)], source_etype=I64)
        b.atomic_rmw("add", dropped, llir.Constant(I64, 1), "monotonic")
        straddles = b.icmp_unsigned("<", start, capacity)
        with b.if_then(straddles):  # the records end here
            b.store(llir.Constant(I64, 0), record_at(b, header, start), align=8)
        b.branch(done)
        b.position_at_end(done)
        return None


def record_at(b: llir.IRBuilder, header: llir.Value, offset: llir.Value) -> llir.Value:
    """The address of the record that starts ``offset`` bytes into the buffer's records."""
    return b.gep(header, [b.add(offset, llir.Constant(I64, PRINT_HEADER))], source_etype=I8)
