"""Lowering of calls: helper functions, builtins, ``math`` and ``gpu`` intrinsics.

:class:`CallLowerer` is mixed into :class:`~.function.FunctionLowerer`, which provides the builder,
``expr``/``coerce``/``address`` and the enclosing :class:`~.function.ModuleLowerer` (``parent``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from llvmlite import ir as llir

from .. import ir
from ..errors import Loc
from ..typecheck.arguments import bound_nodes
from ..typecheck.rules import BIT_OPS
from ..typecheck.typed import Callee, SymbolT
from ..typecheck.views import array_root, shared_locals
from ..types import (
    NONE,
    WEAK_COMPLEX,
    WEAK_FLOAT,
    WEAK_INT,
    ArrayT,
    EnumT,
    Scalar,
    StructT,
    TupleT,
    Weak,
    is_complex,
    is_float,
)
from . import intrinsics
from .cmath import CMath
from .hooks import ATOMIC, SHARED
from .ops import I1, I8, I64, PTR, VOID, const, declare, llvm_type
from .parts import LowererParts
from .values import ArrayValue, TupleValue, Value, fixed_shape_array, flatten, unflatten

COMPLEX_ABS_OVERFLOW = "absolute value too large"  # CPython's message

if TYPE_CHECKING:
    from ..typecheck.typed import TypedFunction


def shuffle_width(tf: TypedFunction, e: ir.Call) -> int:
    """A shuffle's width (CUDA's segments of lanes): its third argument, known at build time, or 32."""
    return int(tf.consts[e.args[2].nid]) if len(e.args) == 3 else 32


def lane_in_mask(b: llir.IRBuilder, mask: llir.Value, lane: llir.Value) -> llir.Value:
    """Whether bit ``lane`` (an i64 below 64) of the i64 ``mask`` is set: the lane is one that takes part."""
    bit = b.lshr(mask, b.and_(lane, llir.Constant(I64, 63)))
    return b.trunc(b.and_(bit, llir.Constant(I64, 1)), llir.IntType(1))


def shuffle_source_lane(b: llir.IRBuilder, name: str, lane: llir.Value, d: llir.Value, width: int = 32) -> llir.Value:
    """The lane a shuffle reads (32 or more, or negative as unsigned: none, the lane keeps its own);
    with a width below 32, PTX's segments (gpu._segment_lane: a source outside the segment is none)."""
    if width != 32:
        d = b.and_(d, llir.Constant(I64, 0xFFFFFFFF))
        low = b.and_(lane, llir.Constant(I64, ~(width - 1) & 31))
        high = b.or_(low, llir.Constant(I64, width - 1))
        none = llir.Constant(I64, 64)
        if name == "shfl_up":
            j = b.sub(lane, d)
            return b.select(b.icmp_signed(">=", j, low), j, none)
        if name == "shfl_down":
            j = b.add(lane, d)
        elif name == "shfl_xor":
            j = b.xor(lane, d)
        else:
            j = b.or_(low, b.and_(d, llir.Constant(I64, width - 1)))
        return b.select(b.icmp_unsigned("<=", j, high), j, none)
    if name == "shfl_down":
        return b.add(lane, d)
    if name == "shfl_up":
        return b.sub(lane, d)
    if name == "shfl_xor":
        return b.and_(b.xor(lane, d), llir.Constant(I64, 31))
    return b.and_(d, llir.Constant(I64, 31))


class CallLowerer(LowererParts):
    address: Callable[..., llir.Value]  # provided by MemoryLowerer
    index_values: Callable[[ir.Expr], list[llir.Value]]  # provided by MemoryLowerer
    call_prefix: Callable[[], list[llir.Value]]  # provided by ThreadHooks
    after_call: Callable[[], None]
    access: Callable[..., None]
    print_call: Callable[[ir.Call], Value]  # provided by PrintLowerer

    # ------------------------------------------------------------------ calls
    def call(self, e: ir.Call) -> Value:
        if e.nid in self.tf.prints:
            return self.print_call(e)
        callee = self.tf.callees[e.nid]
        if callee.kind in ("helper", "method"):
            return self.call_helper(e, callee)
        if callee.kind == "struct":
            return self.construct(e, callee)
        if callee.kind == "cast":
            return self.coerce(e.args[0], self.tf.types[e.nid], "cast")
        if callee.kind == "builtin":
            return self.call_builtin(e, callee)
        if callee.kind == "math":
            return self.call_math(e, callee)
        if callee.kind == "numpy":
            return self.call_numpy(e, callee)
        if callee.kind in ("complex", "cmath"):
            return self.call_complex(e, callee)
        if callee.kind == "view":  # x.view(np.int32): the same bits, another type of the same size
            assert isinstance(e.func, ir.Attribute)
            return self.b.bitcast(self.coerce(e.func.value, callee.arg_types[0]), llvm_type(Scalar(callee.name)))
        return self.call_gpu(e, callee)

    def call_helper(self, e: ir.Call, callee: Callee) -> Value:
        nodes = bound_nodes(e, self.tf.call_args[e.nid])
        if callee.kind == "method" and isinstance(e.func, ir.Attribute):
            nodes.insert(0, e.func.value)  # the receiver is `self`
        return self.call_function(callee, nodes)

    def call_function(self, callee: Callee, nodes: list[ir.Expr]) -> Value:
        """Call a helper or method specialisation with these argument expressions (operators on
        structs come here too: ``a + b`` is ``a.__add__(b)``)."""
        target = callee.target
        assert target is not None
        fn = self.parent.function(target)
        args = self.call_prefix()
        for node, t in zip(nodes, target.arg_types):
            if not isinstance(t, SymbolT):  # (a function, type or module: the specialisation is of it)
                args += flatten(self.expr(node))
        result = self.b.call(fn, args)
        self.after_call()
        rt = target.return_type
        if target.mutates:  # the result's parts, then the changed struct parameters' final values
            parts = [self.b.extract_value(result, k) for k in range(len(result.type.elements))]
            value, rest = unflatten(rt, parts) if rt != NONE else (None, parts)
            changed = {}
            for k in sorted(target.mutates):
                changed[k], rest = unflatten(target.arg_types[k], rest)
            self.write_back(target, nodes, changed)
            return value
        if rt == NONE:
            return None
        if isinstance(rt, (TupleT, StructT)):  # returned as one literal struct of the parts
            parts = [self.b.extract_value(result, k) for k in range(len(result.type.elements))]
            return unflatten(rt, parts)[0]
        return result

    def write_back(self, target: TypedFunction, nodes: list[ir.Expr], changed: dict[int, Value]) -> None:
        """A helper changed these struct arguments in place (Python passes the object): store their final
        values where they came from (a variable, a field of one, an array element); a temporary's is dropped."""
        for k, value in changed.items():
            node = nodes[k]
            if isinstance(ir.field_path(node)[0], (ir.Name, ir.Subscript)):
                self.store_to(node, value, target.arg_types[k])
            element = self.tf.element_bound.get(node.id) if isinstance(node, ir.Name) else None
            if element is not None:  # a variable bound to an array element: the element changed too
                ptr, t = self.element_field(element, [])
                self.store_element(ptr, value, t, node.loc)

    def construct(self, e: ir.Call, callee: Callee) -> Value:
        struct = self.tf.types[e.nid]
        assert isinstance(struct, StructT)
        given = dict(zip([n for n, _ in struct.fields], e.args)) | e.keywords
        items = []
        for name, field_t in struct.fields:
            node = given[name]
            items.append(self.value_as(node, field_t))
        return TupleValue(items)

    def call_builtin(self, e: ir.Call, callee: Callee) -> Value:
        if callee.name == "len":
            v = self.expr(e.args[0])
            if isinstance(v, TupleValue):
                return const(WEAK_INT, len(v.items))
            assert isinstance(v, ArrayValue)
            return v.shape[0]
        t = self.tf.types[e.nid]
        if callee.name == "abs":
            operand = callee.arg_types[0] if is_complex(callee.arg_types[0]) else t
            value = self.coerce(e.args[0], operand)
            result = self.ops.abs(value, operand)
            if operand == WEAK_COMPLEX:  # CPython raises where finite parts give an infinite magnitude
                self._check_complex_abs(value, result, e.loc)
            return result
        values = [self.coerce(a, t) for a in e.args]
        return self.ops.minmax(callee.name, values, t)

    def _check_complex_abs(self, z: llir.Value, magnitude: llir.Value, loc: Loc) -> None:
        b, inf = self.b, llir.Constant(magnitude.type, float("inf"))
        finite = [self.ops.is_finite(part) for part in self.ops.complex.parts(z)]
        overflow = b.and_(b.fcmp_ordered("==", magnitude, inf), b.and_(*finite))
        self.check(b.not_(overflow), "overflow", loc, COMPLEX_ABS_OVERFLOW)

    def call_math(self, e: ir.Call, callee: Callee) -> Value:
        given = self.tf.types[e.args[0].nid] if e.args else None
        if callee.name in ("floor", "ceil", "trunc") and isinstance(given, (Weak, EnumT)) and not is_float(given):
            # Python's floor of a Python int (or bool) is that int, exactly; NumPy integers have no __floor__,
            # so Python rounds them through a float, as the float path below does
            return self.convert_checked(self.expr(e.args[0]), given, WEAK_INT, e.loc, "cast")
        args = [self.coerce(a, t) for a, t in zip(e.args, callee.arg_types)]
        if callee.name in ("frexp", "modf"):  # C returns one part and stores the other through a pointer
            part = self._alloca(llir.IntType(32) if callee.name == "frexp" else args[0].type, f"{callee.name}.part")
            first = self.ops.libcall(callee.name, [args[0], part], args[0].type)
            second = self.b.load(part, typ=part.allocated_type)
            return TupleValue([first, self.b.sext(second, I64) if callee.name == "frexp" else second])
        if callee.name == "copysign":
            return intrinsics.copysign(self.ops, args[0], args[1])
        result = intrinsics.math_call(self.ops, callee.name, args)
        if callee.name in ("floor", "ceil", "trunc"):  # Python returns an int
            return self.convert_checked(result, WEAK_FLOAT, WEAK_INT, e.loc, "cast")
        return result

    def call_complex(self, e: ir.Call, callee: Callee) -> Value:
        """``complex(re, im)``, ``z.conjugate()`` and ``cmath`` functions."""
        nodes = [e.func.value] if callee.name == "conjugate" and isinstance(e.func, ir.Attribute) else e.args
        args = [self.coerce(a, t) for a, t in zip(nodes, callee.arg_types)]
        if callee.kind == "cmath":
            return CMath(self.ops, self.parent.tables).call(callee.name, args)
        if callee.name == "conjugate":
            return self.ops.complex.conjugate(args[0])
        re, im = (self.ops.convert(a, t, WEAK_FLOAT) for a, t in zip(args, callee.arg_types))
        return self.ops.complex.pack(re, im)

    def call_gpu(self, e: ir.Call, callee: Callee) -> Value:
        name = callee.name
        if name in BIT_OPS:
            return intrinsics.bit_op(self.ops, name, self.coerce(e.args[0], callee.arg_types[0]))
        if name in ("grid", "gridsize"):
            what = "global_tid_" if name == "grid" else "global_size_"
            regs = [self.special_register(what + axis) for axis in "xyz"[: self.tf.consts[e.nid]]]
            return regs[0] if len(regs) == 1 else TupleValue(regs)
        if name == "local_array":
            return self.local_array(e, callee)
        if name in ("shared_array", "dynamic_shared_array"):
            return self.shared_array(e, callee)
        if name.startswith("atomic_"):
            dtype, ptr, values = self.atomic_operands(e)
            if self.parent.flavour.shared_is_sequential and array_root(e.args[0]) in shared_locals(self.tf):
                return intrinsics.plain_rmw(self.ops, name, ptr, dtype, values)
            return intrinsics.atomic(self.ops, name, ptr, dtype, values)
        return self.parent.flavour.gpu_call(self, e, callee)  # barriers, warp calls, thread indices

    def atomic_operands(self, e: ir.Call) -> tuple[Scalar, llir.Value, list[llir.Value]]:
        """An atomic call's element type, the element's address and the operands (in the element's type)."""
        arr_t = self.tf.types[e.args[0].nid]
        assert isinstance(arr_t, ArrayT)
        arr = self.expr(e.args[0])
        assert isinstance(arr, ArrayValue)
        assert isinstance(arr_t.dtype, Scalar)
        ptr = self.address(arr, self.index_values(e.args[1]), arr_t.dtype, e.loc)
        values = [self.coerce(a, arr_t.dtype) for a in e.args[2:]]
        self.access(ptr, arr_t.dtype.dtype.itemsize, ATOMIC, e.loc)
        return arr_t.dtype, ptr, values

    def special_register(self, name: str) -> llir.Value:
        return self.parent.flavour.thread_register(self, name)

    def local_array(self, e: ir.Call, callee: Callee) -> ArrayValue:
        """``gpu.local_array``: the thread's own array, zero-filled at each call as the CPU path's np.zeros.
        It lives in the function's frame (an alloca in the entry block); on the host, in a kernel whose
        threads stop at barriers, in the thread's frame, which stays put across barriers."""
        dtype = callee.arg_types[0]
        assert isinstance(dtype, (Scalar, StructT))
        shape = self.tf.consts[e.nid]
        size = max(1, math.prod(shape) * dtype.dtype.itemsize)
        # an alloca, or in a host kernel whose threads meet, a slot of the thread's frame (see
        # targets/host/lowering/threads.py)
        ptr: Any = self._alloca(llir.ArrayType(I8, size), "local.array")
        ptr.align = 16
        ptr.type = PTR  # an untyped pointer, as array data is (llvmlite types an alloca's pointer)
        module = self.parent.module
        memset = declare(module, "llvm.memset.p0.i64", VOID, [PTR, I8, I64, I1])
        self.b.call(memset, [ptr, llir.Constant(I8, 0), llir.Constant(I64, size), llir.Constant(I1, 0)])
        return fixed_shape_array(ptr, shape)

    def shared_array(self, e: ir.Call, callee: Callee) -> ArrayValue:
        """``gpu.shared_array`` (its own memory, per call site) or ``gpu.dynamic_shared_array`` (the
        launch's ``shared_bytes``): the block's shared memory on the GPU, the block's buffer on the host."""
        dtype = callee.arg_types[0]
        assert isinstance(dtype, (Scalar, StructT))
        item = dtype.dtype.itemsize
        b = self.b
        if callee.name == "dynamic_shared_array":
            ptr, size = self.parent.flavour.dynamic_shared(self, item)
            return ArrayValue(ptr, [b.udiv(size, llir.Constant(I64, item))], [const(WEAK_INT, 1)], SHARED)
        shape = self.tf.consts[e.nid]
        size = math.prod(shape) * item
        ptr = self.parent.flavour.static_shared(self, (self.tf.symbol, e.nid), size, item, shape, e.loc)
        array = fixed_shape_array(ptr, shape)
        array.root = SHARED
        return array
