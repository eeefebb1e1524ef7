"""Stage 3: typed IR -> LLVM IR, built with ``llvmlite.ir``.

One LLVM module per kernel holds the kernel and every helper specialisation it reaches. Arrays
travel as (data pointer, shape..., strides...) with strides in elements; locals live in allocas
that LLVM's mem2reg turns into registers.
"""

from __future__ import annotations

import re

from llvmlite import ir as llir

from .. import ir
from ..errors import CompileError
from ..typecheck import folding
from ..typecheck.rules import MATH_FLOAT_TO_FLOAT
from ..typecheck.typed import SymbolT, TypedFunction
from ..types import (
    BOOL,
    F16,
    F32,
    NONE,
    WEAK_INT,
    ArrayT,
    OptionalT,
    Scalar,
    StructT,
    TableT,
    TupleT,
    Type,
    component,
    is_complex,
    storage,
)
from . import intrinsics
from .abi import INDEX32_SUFFIX
from .assign import AssignLowerer
from .calls import CallLowerer
from .expressions import OperatorLowerer
from .flavour import Flavour
from .hooks import ThreadHooks
from .lineinfo import LineInfo, LineInfoLowerer
from .loops import Loop, LoopLowerer
from .memory import MemoryLowerer
from .numpy_calls import NumpyLowerer
from .ops import I8, I64, VOID, Ops, const, llvm_type, memory_type
from .printing import DEFAULT_PRINT_BUFFER, PrintLowerer, PrintSites
from .sites import SiteTable
from .tables import TableGlobals, TableLowerer
from .values import ArrayValue, TupleValue, Value, abi_types, constant_value, flatten, unflatten
from .views import ViewLowerer


class ModuleLowerer:
    """Builds one LLVM module from a kernel and the helpers it reaches."""

    def __init__(
        self,
        name: str,
        data_layout: str,
        fastmath: bool = False,
        debug: bool = False,
        print_buffer: int = DEFAULT_PRINT_BUFFER,
        *,
        flavour: Flavour,
    ) -> None:
        """``flavour``: what the target lowers its own way (:mod:`.flavour`; a host CPU's runs a block's threads
        as loops, see :mod:`hatch_hybrid.targets.host.lowering`), its function lowerer included;
        ``print_buffer``: the bytes of print() records a launch keeps (see :mod:`.printing`)."""
        self.flavour = flavour
        self.lowerer: type[FunctionLowerer] = flavour.function_lowerer or FunctionLowerer
        self.lines: LineInfo | None = None  # set before lowering: the GPU code's line information
        self.fastmath = fastmath
        self.debug = debug  # bounds checks on every array access
        self.checks = SiteTable()  # a failed check records its site's id in the error slot
        self.prints = PrintSites(print_buffer)
        # the variant being lowered: "" (64-bit index math) or INDEX32_SUFFIX (32-bit: every array
        # argument spans fewer than 2**31 elements, which the runtime checks before choosing it)
        self.suffix = ""
        self.module = llir.Module(name)
        self.module.triple = flavour.triple
        self.module.data_layout = data_layout
        self.functions: dict[str, llir.Function] = {}
        self.tables = TableGlobals(self.module, flavour)
        self.libdevice: set[str] = set()
        self._pending: list[TypedFunction] = []
        self._loops: list[llir.MDValue] = []
        # unroll.count (not unroll.runtime.enable): only a count lets LLVM pay for the division that
        # computes a grid-stride loop's trip count, as NVCC does
        i32 = llir.IntType(32)
        self._unroll_hint = self.module.add_metadata(
            [llir.MetaDataString(self.module, "llvm.loop.unroll.count"), llir.Constant(i32, 4)]
        )

    @property
    def index32(self) -> bool:
        return self.suffix == INDEX32_SUFFIX

    def function(self, tf: TypedFunction) -> llir.Function:
        name = tf.symbol + self.suffix
        fn = self.functions.get(name)
        if fn is None:
            params = [x for t in tf.arg_types for x in abi_types(t, tf.is_kernel)]
            ret = VOID if tf.return_type == NONE or tf.is_kernel else return_type(tf.return_type)
            if tf.mutates and not tf.is_kernel:  # the changed struct parameters' final values come back too
                ret = llir.LiteralStructType(helper_results(tf))
            params, ret, suffix = self.flavour.signature(tf, params, ret)
            fn = llir.Function(self.module, llir.FunctionType(ret, params), name + suffix)
            if not tf.is_kernel:
                fn.linkage = "internal"
            self.flavour.declared(fn, tf)
            if tf.uses_barrier:
                fn.attributes.add("convergent")
            self.functions[name] = fn
            self._pending.append(tf)
        return fn

    def lower_functions(self, tfs: list[TypedFunction]) -> llir.Module:
        """Lower plain functions with external linkage (for tests that run the IR on the host)."""
        for tf in tfs:
            self.function(tf).linkage = ""
        self.lower_pending()
        return self.module

    def lower_pending(self) -> None:
        """Lower the functions declared so far, and those they call."""
        while self._pending:
            self.lowerer(self, self._pending.pop()).lower()

    def loop_id(self) -> llir.MDValue:
        """Metadata for a loop's back edge that lets LLVM unroll it when its trip count is only known at
        run time (what NVCC does for grid-stride loops: several loads in flight instead of one).

        A loop ID must refer to itself, which llvmlite cannot build; :meth:`text` patches it in."""
        placeholder = self.module.add_metadata([llir.MetaDataString(self.module, f"hybrid.loop.{len(self._loops)}")])
        self._loops.append(placeholder)
        return placeholder

    def text(self) -> str:
        """The module as LLVM IR text, loop IDs made self-referential."""
        text = str(self.module)
        if self._loops:
            hint = f"!{self._unroll_hint.name}"
            for md in self._loops:
                name = md.name
                text = re.sub(
                    rf"^!{name} = !{{ !\"hybrid\.loop\.\d+\" }}$",
                    f"!{name} = distinct !{{ !{name}, {hint} }}",
                    text,
                    count=1,
                    flags=re.M,
                )
        return text


def helper_results(tf: TypedFunction) -> list[llir.Type]:
    """What a helper that changes struct parameters returns: its result's parts, then those parameters'."""
    parts = abi_types(tf.return_type) if tf.return_type != NONE else []
    return parts + [x for k in sorted(tf.mutates) for x in abi_types(tf.arg_types[k])]


def return_type(t: Type) -> llir.Type:
    """Scalars return in a register; tuples and structs as one literal struct of their parts."""
    if isinstance(t, (TupleT, StructT)):
        return llir.LiteralStructType(abi_types(t))
    return llvm_type(storage(t))


class FunctionLowerer(
    AssignLowerer,
    CallLowerer,
    MemoryLowerer,
    ViewLowerer,
    LoopLowerer,
    OperatorLowerer,
    NumpyLowerer,
    LineInfoLowerer,
    PrintLowerer,
    TableLowerer,
    ThreadHooks,
):
    """One function lowered as a GPU runs it: each thread of a block is a hardware thread. A target whose
    threads are not (the host CPU) gives :class:`ModuleLowerer` its own subclass through its flavour,
    which overrides the hooks of :class:`~.hooks.ThreadHooks` and the methods below that say so."""

    entry: llir.Block  # the function's first block (its allocas)
    #: a block's threads run as loops over threads on one CPU thread (the thread context, barrier regions,
    #: the state machine: :mod:`hatch_hybrid.targets.host.lowering`), not as the hardware's threads
    threads_as_loops = False

    def __init__(self, parent: ModuleLowerer, tf: TypedFunction, inline_into: FunctionLowerer | None = None) -> None:
        """``inline_into``: lower ``tf``'s body into that function (host: helpers that yield)."""
        self.parent = parent
        self.tf = tf
        self.slots: dict[str, list[llir.AllocaInstr]] = {}
        self.loops: list[Loop] = []
        if inline_into is not None:
            self.fn, self.entry, self.b, self.ops = inline_into.fn, inline_into.entry, inline_into.b, inline_into.ops
        else:
            self.fn = parent.functions[tf.symbol + parent.suffix]
            self.entry = self.fn.append_basic_block("entry")
            self.b = llir.IRBuilder(self.entry)
            self.ops = Ops(self.b, parent.module, parent.libdevice, parent.flavour, parent.fastmath)
            self.start_lines(parent.lines)
        self.body = tf.fn.body

    # ------------------------------------------------------------------ setup
    def lower(self) -> None:
        tf = self.tf
        args = self.parameter_values()
        params = []
        for k, (p, t) in enumerate(zip(tf.fn.params, tf.arg_types)):
            value, args = unflatten(t, args, tf.is_kernel)
            if tf.is_kernel:
                value = self.kernel_parameter(k, self._from_kernel_abi(value, t))
            params.append((p.name, value))
        self.lower_body(params)
        if not self.b.block.is_terminated:
            self.fall_off_end()

    def parameter_values(self) -> list[llir.Value]:
        """The function's arguments that carry its parameters (host: after the thread context)."""
        return list(self.fn.args)

    def kernel_parameter(self, k: int, value: Value) -> Value:
        """Kernel parameter ``k``'s value, as the body sees it."""
        return value

    def lower_body(self, params: list[tuple[str, Value]]) -> None:
        for name, value in params:
            if value is not None:  # (None: a function, type or module, which the specialisation is of)
                self.store_local(name, value)
        self.block(self.body)

    def fall_off_end(self) -> None:
        """The end of the body, reached without a ``return``."""
        tf = self.tf
        if tf.mutates and tf.return_type == NONE:
            self.ret_with_parameters([])
        elif isinstance(tf.return_type, OptionalT):  # falling off the end returns None
            self.ret_none(tf.return_type)
        elif tf.return_type == NONE or tf.is_kernel:
            self.b.ret_void()
        else:
            self.b.unreachable()

    def ret_none(self, t: OptionalT) -> None:
        """Return None, (a zero, False), from a helper that may return None (then its changed struct
        parameters, when it changes some)."""
        if self.tf.mutates:
            self.ret_with_parameters([llir.Constant(part, None) for part in abi_types(t)])
        else:
            self.b.ret(llir.Constant(return_type(t), None))

    def _from_kernel_abi(self, value: Value, t: Type) -> Value:
        """Kernel parameters pass booleans as bytes and complex numbers as two parts (also inside structs and
        tuples)."""
        if t == BOOL:
            return self.b.icmp_unsigned("!=", value, llir.Constant(I8, 0))
        if isinstance(t, Scalar) and t.kind == "c":
            assert isinstance(value, TupleValue)
            re, im = value.items
            assert isinstance(re, llir.Value) and isinstance(im, llir.Value)
            return self.ops.complex.pack(re, im)
        if isinstance(t, StructT):
            assert isinstance(value, TupleValue)
            return TupleValue([self._from_kernel_abi(v, ft) for v, (_, ft) in zip(value.items, t.fields)])
        if isinstance(t, TupleT):
            assert isinstance(value, TupleValue)
            return TupleValue([self._from_kernel_abi(v, item) for v, item in zip(value.items, t.items)])
        return value

    def tuple_item(self, tup: TupleValue, index: llir.Value, item_t: Type) -> Value:
        """Item ``index`` (an i64, from the end when negative) of a tuple whose items have one type
        ``item_t`` (scalars, or tuples of them: ``Q[m][0]``): part by part, the last item's unless an
        earlier one is selected (past the end is out of bounds, as an array index is)."""
        b, n = self.b, len(tup.items)
        index = b.select(b.icmp_signed("<", index, llir.Constant(I64, 0)), b.add(index, llir.Constant(I64, n)), index)
        items = [flatten(item) for item in tup.items]
        parts = []
        for j, last in enumerate(items[n - 1]):
            value = last
            for k in range(n - 2, -1, -1):
                value = b.select(b.icmp_signed("==", index, llir.Constant(I64, k)), items[k][j], value)
            parts.append(value)
        return unflatten(item_t, parts)[0]

    def _alloca(self, ty: llir.Type, name: str) -> llir.AllocaInstr:
        with self.b.goto_block(self.entry):
            if self.entry.instructions:
                self.b.position_before(self.entry.instructions[0])
            return self.b.alloca(ty, name=name)

    def store_local(self, name: str, value: Value) -> None:
        self.root_of_local(name, value)
        parts = flatten(value)
        slots = self.planned_slots(name, [p.type for p in parts])
        if slots is None:
            found = self.slots.get(name)
            if found is None:
                found = self.slots[name] = [self._alloca(p.type, name) for p in parts]
            slots = found
        for slot, part in zip(slots, parts):
            self.b.store(part, slot)

    def load_local(self, name: str) -> Value:
        t = self.tf.locals[name]
        if isinstance(t, SymbolT):  # a name for a type (see store_to)
            return None
        slots = self.planned_slots(name)
        parts = [self.b.load(s, typ=s.allocated_type) for s in (self.slots[name] if slots is None else slots)]
        return self.local_root(name, unflatten(t, parts)[0])

    def _fresh_block(self, name: str) -> None:
        """After a terminator (return/break/continue), keep emitting into an unreachable block."""
        self.b.position_at_end(self.fn.append_basic_block(name))

    # ------------------------------------------------------------- statements
    def block(self, stmts: list[ir.Stmt]) -> None:
        for s in stmts:
            if self.b.block.is_terminated:
                self._fresh_block("dead")
            with self.at(s.loc):
                self.stmt(s)

    def stmt(self, s: ir.Stmt) -> None:
        if isinstance(s, ir.Assign):
            self.assign(s.target, s.value)
        elif isinstance(s, ir.AugAssign):
            self.aug_assign(s)
        elif isinstance(s, ir.If):
            self.if_(s)
        elif isinstance(s, ir.While):
            self.while_(s)
        elif isinstance(s, ir.ForRange):
            self.for_range(s)
        elif isinstance(s, ir.Break):
            self.b.branch(self.loops[-1].break_to)
        elif isinstance(s, ir.Continue):
            self.b.branch(self.loops[-1].continue_to)
        elif isinstance(s, ir.Return):
            self.return_(s)
        elif isinstance(s, ir.ExprStmt):
            self.expr(s.value)
        elif isinstance(s, ir.Assert):
            self.check(self.condition(s.test), "assert", s.loc, s.msg)

    def return_(self, s: ir.Return) -> None:
        rt = self.tf.return_type
        if isinstance(rt, OptionalT) and (s.value is None or self.tf.types[s.value.nid] == NONE):
            if s.value is not None:  # `return None`, or a call that returns None
                self.expr(s.value)
            self.ret_none(rt)
        elif self.tf.mutates:
            if s.value is not None and rt != NONE:
                self.ret_with_parameters(flatten(self.value_as(s.value, rt)))
            else:
                if s.value is not None:
                    self.expr(s.value)
                self.ret_with_parameters([])
        elif s.value is None or rt == NONE:
            if s.value is not None:
                self.expr(s.value)
            self.b.ret_void()
        elif isinstance(rt, (TupleT, StructT)):
            parts = flatten(self.value_as(s.value, rt))
            agg: llir.Value = llir.Constant(return_type(rt), None)
            for k, part in enumerate(parts):
                agg = self.b.insert_value(agg, part, k)
            self.b.ret(agg)
        else:
            self.b.ret(self.coerce(s.value, rt))

    def ret_with_parameters(self, parts: list[llir.Value]) -> None:
        """Return from a helper that changes struct parameters: ``parts`` of the result, then theirs."""
        for k in sorted(self.tf.mutates):
            parts = parts + flatten(self.load_local(self.tf.fn.params[k].name))
        agg: llir.Value = llir.Constant(llir.LiteralStructType([p.type for p in parts]), None)
        for k, part in enumerate(parts):
            agg = self.b.insert_value(agg, part, k)
        self.b.ret(agg)

    def if_(self, s: ir.If) -> None:
        cond = self.condition(s.test)
        then = self.fn.append_basic_block("if.then")
        after = self.fn.append_basic_block("if.end")
        other = self.fn.append_basic_block("if.else") if s.orelse else after
        self.b.cbranch(cond, then, other)
        self.b.position_at_end(then)
        self.block(s.body)
        if not self.b.block.is_terminated:
            self.b.branch(after)
        if s.orelse:
            self.b.position_at_end(other)
            self.block(s.orelse)
            if not self.b.block.is_terminated:
                self.b.branch(after)
        self.b.position_at_end(after)

    # ------------------------------------------------------------ expressions
    def condition(self, e: ir.Expr) -> llir.Value:
        wide = self.wide_literal(e, BOOL)
        if wide is not None:
            return wide
        return self.ops.truth(self.expr(e), self.tf.types[e.nid])

    def wide_literal(self, e: ir.Expr, to: Type) -> llir.Value | None:
        """``e`` a Python int known at build time from 2**63 to 2**64 - 1 (``folding.beyond_i64``), used
        as a ``to``: the constant NumPy converts it to (its value in a u64 or a float), or a compile error
        where NumPy raises or where it would stay a Python int, which the device holds in i64. None for
        any other ``e``, which :meth:`expr` lowers."""
        value = self.known(e)
        if not folding.beyond_i64(value):
            return None
        return const(to, folding.wide_int_as(value, to, e.loc))

    def value_as(self, e: ir.Expr, to: Type) -> Value:
        """``e`` lowered and converted to ``to`` as NumPy converts it (``convert_value``; a value known at
        build time: :meth:`known_as`)."""
        if isinstance(to, OptionalT) and self.tf.types[e.nid] != NONE:
            return self.optional_as(e, to)
        known = self.known_as(e, to) if isinstance(to, Scalar) else None
        if known is not None:
            return known
        if e.nid in self.tf.conversions:  # a Python number meeting a NumPy type: NumPy's checked conversion
            return self.convert_checked(self.expr(e), self.tf.types[e.nid], to, e.loc, "arith")
        return self.convert_value(self.expr(e), self.tf.types[e.nid], to)

    def known_as(self, e: ir.Expr, to: Type) -> llir.Value | None:
        """``e``, known at build time, as a ``to``, where its value is decided now: a Python int beyond i64
        (:meth:`wide_literal`), a zero converted to a float type (``Ops.opaque_zero``: the constant of that
        type, not a conversion LLVM folds into the constant it must not see). None for anything else."""
        wide = self.wide_literal(e, to)
        if wide is not None:
            return wide
        zero = folding.zero_as(self.known(e), to)
        return None if zero is None else self.ops.opaque_zero(const(to, zero))

    def known(self, e: ir.Expr) -> object:
        """The value of ``e`` where the checker knows it (as :meth:`expr` lowers it), else None."""
        if isinstance(e, ir.Call) and self.tf.callees[e.nid].kind != "cast":
            return None
        return self.tf.consts.get(e.nid)

    def coerce(self, e: ir.Expr, to: Type, context: str | None = None) -> llir.Value:
        """Lower ``e`` and convert it to ``to`` as NumPy would; with a ``context`` (see
        ``convert_checked``), failing where NumPy raises instead."""
        src = self.tf.types[e.nid]
        if to in (F32, F16) and isinstance(e, ir.Call):
            callee = self.tf.callees.get(e.nid)
            if (
                callee is not None
                and callee.kind == "math"
                and (callee.name in intrinsics.EXACT_IN_F32 or self.parent.fastmath)
                and all(self.tf.types[a.nid] == to for a in e.args)
                and callee.name in MATH_FLOAT_TO_FLOAT  # not floor, isnan, frexp, ...: no float result
            ):
                # f32(sqrt(f64(x))) == sqrt(x) computed in f32: same bits, less work (f16(sqrt(x)) too: f32
                # has more than twice f16's precision, so rounding twice is rounding once); with fastmath,
                # every f32(math.f(x)) of f32 arguments is computed in f32 (approximately where libdevice can)
                args = [self.ops.convert(self.expr(a), to, F32) for a in e.args]
                return self.ops.convert(intrinsics.math_call(self.ops, callee.name, args), F32, to)
        known = self.known_as(e, to)
        if known is not None:  # its value as ``to``, known here (what NumPy's check would refuse is refused now)
            return known
        value = self.expr(e)
        if context is None and e.nid in self.tf.conversions:  # a Python number meeting a NumPy type: checked
            context = "arith"
        if context is not None:
            return self.convert_checked(value, src, to, e.loc, context)
        result = self.ops.convert(value, src, to)
        if to == WEAK_INT and src == Scalar("u64"):
            self.ops.unsigned[id(result)] = result
        return result

    def expr(self, e: ir.Expr) -> Value:
        with self.at(e.loc):
            value = self._expr(e)
            return self.optional_number(value, e.loc) if e.nid in self.tf.unwraps else value

    def _expr(self, e: ir.Expr) -> Value:
        tf = self.tf
        table = tf.tables.get(e.nid)
        if table is not None:
            return self.table_value(table)
        if e.nid in tf.consts and (not isinstance(e, ir.Call) or tf.callees[e.nid].kind == "cast"):
            if folding.beyond_i64(tf.consts[e.nid]):  # not converted (coerce, value_as): a Python int at run time
                folding.wide_int_as(tf.consts[e.nid], tf.types[e.nid], e.loc)  # raises
            value = constant_value(tf.types[e.nid], tf.consts[e.nid])
            return self.ops.opaque_zero(value) if isinstance(value, llir.Constant) else value
        if isinstance(e, ir.Const):
            if e.value is None:
                return None
            return const(tf.types[e.nid], e.value)
        if isinstance(e, ir.Name):
            return self.load_local(e.id)
        if isinstance(e, ir.Attribute):
            base_t = tf.types[e.value.nid]
            field = self.field_of_element(e) if isinstance(base_t, StructT) else None
            if field is not None:  # a field of an array element: only its bytes are read
                return self.load_element(field[0], field[1], e.loc)
            if isinstance(base_t, StructT):
                struct = self.expr(e.value)
                assert isinstance(struct, TupleValue)
                return struct.items[[n for n, _ in base_t.fields].index(e.attr)]
            if isinstance(base_t, TupleT) and e.attr in base_t.names:  # a namedtuple's field
                tup = self.expr(e.value)
                assert isinstance(tup, TupleValue)
                return tup.items[base_t.names.index(e.attr)]
            if isinstance(base_t, ArrayT) and e.attr in ("real", "imag"):  # a view of a complex array's parts
                arr = self.expr(e.value)
                assert isinstance(arr, ArrayValue)
                part = memory_type(component(base_t.dtype))  # type: ignore[arg-type]
                ptr = arr.ptr if e.attr == "real" else self.b.gep(arr.ptr, [const(WEAK_INT, 1)], source_etype=part)
                two = const(WEAK_INT, 2)
                return ArrayValue(ptr, list(arr.shape), [self.b.mul(s, two) for s in arr.strides], arr.root)
            if not isinstance(base_t, ArrayT) and not is_complex(base_t):  # x.real of a real number: x
                return self.expr(e.value)  # (x.imag is 0, known at build time: a constant)
            if is_complex(base_t):  # .real, .imag
                value = self.expr(e.value)
                assert isinstance(value, llir.Value)
                return self.ops.complex.part(value, e.attr)
            arr = self.expr(e.value)
            assert isinstance(arr, ArrayValue)
            if e.attr == "shape":
                return TupleValue(list(arr.shape))
            size = arr.shape[0]
            for dim in arr.shape[1:]:
                size = self.b.mul(size, dim)
            return size
        if isinstance(e, (ir.BinOp, ir.UnaryOp)) and e.nid in tf.callees:  # an operator method of a struct
            operands = [e.left, e.right] if isinstance(e, ir.BinOp) else [e.operand]
            return self.call_function(tf.callees[e.nid], operands)
        if isinstance(e, ir.BinOp):
            ops = tf.optypes[e.nid]
            left = self.coerce(e.left, ops.left, "arith")
            return self._binop_values(e.op, left, ops.left, e.right, ops, e.loc)
        if isinstance(e, ir.UnaryOp):
            if e.op == "not":
                return self.ops.unary(e.op, self.expr(e.operand), tf.types[e.operand.nid])
            t = tf.types[e.nid]  # -True is -1: a Python bool becomes an int first
            return self.ops.unary(e.op, self.coerce(e.operand, t), t)
        if isinstance(e, ir.Compare):
            return self.compare(e)
        if isinstance(e, ir.BoolOp):
            return self.bool_op(e)
        if isinstance(e, ir.IfExp):
            return self.if_exp(e)
        if isinstance(e, ir.Subscript):
            base_t = tf.types[e.value.nid]
            if isinstance(base_t, TupleT):
                tup = self.expr(e.value)
                assert isinstance(tup, TupleValue)
                if e.index.nid in tf.consts:
                    return tup.items[tf.consts[e.index.nid]]
                return self.tuple_item(tup, self.coerce(e.index, WEAK_INT), self.tf.types[e.nid])
            if isinstance(base_t, TableT):
                return self.table_element(e)
            assert isinstance(base_t, ArrayT)
            if isinstance(tf.types[e.nid], ArrayT):  # fewer indices than dimensions, or slices
                return self.view(e)
            return self.load_element(self.element_pointer(e), base_t.dtype, e.loc)
        if isinstance(e, ir.TupleExpr):
            return TupleValue([self.expr(x) for x in e.elts])
        if isinstance(e, ir.Call):
            return self.call(e)
        raise CompileError(e.loc, f"cannot lower {type(e).__name__}")  # pragma: no cover
