"""What the WGSL renderer's parts share: the target's types and limits, the array reference every part
indexes through, the shader's interface, and the methods one part calls in another (:class:`RendererParts`)."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from ... import ir
from ...errors import Loc
from ...typecheck.typed import Callee, TypedFunction
from ...types import (
    ArrayT,
    EnumT,
    Scalar,
    StructT,
    TupleT,
    Type,
    Weak,
    storage,
)

#: The scalar types this target holds, by their WGSL names
WGSL_SCALARS = {
    "boolean": "bool", "i32": "i32", "u32": "u32", "i64": "i64", "u64": "u64", "f32": "f32", "f16": "f16", "f64": "f64",
    "i8": "i32", "i16": "i32", "u8": "u32", "u16": "u32",  # held in 32 bits, wrapped to their width (.expressions)
}  # fmt: skip
#: Element types WGSL cannot address in a buffer (NumPy gives them one or two bytes): their arrays are words
#: (u32) of packed elements, read by shifts and written by two atomics on the word (``and`` to clear the
#: element's bits, ``or`` to set them), so that threads writing neighbouring elements do not race
PACKED = {"boolean": 8, "i8": 8, "u8": 8, "i16": 16, "u16": 16}
#: Element types of arrays in storage buffers (a boolean takes a byte in NumPy, which WGSL cannot address)
ELEMENTS = {"i32", "u32", "i64", "u64", "f32", "f16", "f64"}
#: Element types atomics update, and the atomic type that holds each: floats as their bits, updated by
#: compare-and-exchange loops (:meth:`~.calls.CallRenderer.atomic`); 64-bit ones need the adapter's
#: shader-int64-atomic-all-ops (Vulkan and Direct3D 12 GPUs, lavapipe)
ATOMIC_ELEMENTS = {"i32": "i32", "u32": "u32", "f32": "u32", "i64": "i64", "u64": "u64", "f64": "u64"}


def atomic_type(ref: ArrayRef) -> str:
    """The type an atomic array's elements are held in."""
    assert isinstance(ref.elem, Scalar)
    return ATOMIC_ELEMENTS[ref.elem.name]


def atomic_load(ref: ArrayRef, index: str) -> str:
    """An element of an array that atomics update, read (atomically) as its own type."""
    held = atomic_type(ref)
    value = f"atomicLoad(&{ref.base}[{index}])"
    return value if held == ref.elem.name else f"bitcast<{ref.elem.name}>({value})"


def atomic_store(ref: ArrayRef, index: str, value: str) -> str:
    """The statement that stores ``value`` into an element of an array that atomics update."""
    held = atomic_type(ref)
    bits = value if held == ref.elem.name else f"bitcast<{held}>({value})"
    return f"atomicStore(&{ref.base}[{index}], {bits});"


ATOMIC_FUNCS = {
    "atomic_add": "atomicAdd",
    "atomic_sub": "atomicSub",
    "atomic_min": "atomicMin",
    "atomic_max": "atomicMax",
    "atomic_min_ordered": "atomicMin",  # (integers: the same as atomic_min)
    "atomic_max_ordered": "atomicMax",
    "atomic_exch": "atomicExchange",
    "atomic_and": "atomicAnd",
    "atomic_or": "atomicOr",
    "atomic_xor": "atomicXor",
}
ERROR_BINDING, FIRST_ARRAY_BINDING = 1, 2


#: Where ``syncthreads()`` orders storage buffers too, decided when the whole shader is rendered.
STORAGE_BARRIER_MARK = "/* hh: storage barrier */"
STORAGE_BARRIER = re.compile(r"^( *)" + re.escape(STORAGE_BARRIER_MARK) + r"\n", re.M)


#: Loops over constant ranges rendered unrolled: at most this many iterations, and this many IR nodes in all.
UNROLL_TRIPS = 32
UNROLL_NODES = 2000


class WgslUnsupported(Exception):
    """The kernel uses something this target cannot run with the same meaning."""

    def __init__(self, loc: Loc | None, what: str) -> None:
        super().__init__(what)
        self.loc, self.what = loc, what

    def reason(self) -> str:
        return f"{self.what} ({self.loc.file}:{self.loc.line})" if self.loc is not None else self.what


def wgsl_type(t: Type, loc: Loc | None, structs: dict[str, str] | None = None) -> str:
    """The WGSL type of values of ``t``; a struct's declaration goes into ``structs`` (by name)."""
    if isinstance(t, StructT) and structs is not None:
        name = "S_" + t.qualname.replace(".", "_")
        if name not in structs:
            members = [f"    f_{n}: {wgsl_type(ft, loc, structs)}," for n, ft in t.fields]
            structs[name] = f"struct {name} {{\n" + "\n".join(members) + "\n}"
        return name
    if isinstance(t, TupleT) and structs is not None:  # (an OptionalT too: the number, whether there is one)
        return tuple_struct(t, loc, structs)
    if isinstance(t, (Scalar, Weak)) and storage(t).kind == "c" and structs is not None:
        return complex_struct(t, structs)
    if isinstance(t, (Scalar, Weak, EnumT)):
        scalar = WGSL_SCALARS.get(storage(t).name)
        if scalar is None:
            raise WgslUnsupported(loc, f"{t} values (this target: f64, f32, f16, i32, u32, i64, u64, bool)")
        return scalar
    raise WgslUnsupported(loc, f"{t} values")


def magnitude_vs_inf(v: str, wt: str, op: str) -> str:
    """``|v| op inf`` of an f32 or f64 ``v`` by its bits (``>``: NaN, ``==``: infinite, ``<``: finite), as
    ``lower.ops``'s ``_magnitude_vs_inf`` compares: WGSL lets drivers assume no NaN or infinity, so no float
    comparison can tell."""
    bits, mask, inf, suffix = (
        ("u64", (1 << 63) - 1, 0x7FF << 52, "lu") if wt == "f64" else ("u32", (1 << 31) - 1, 0xFF << 23, "u")
    )
    return f"((bitcast<{bits}>({v}) & {mask}{suffix}) {op} {inf}{suffix})"


#: The struct of a complex type's parts (``.complex``), by its storage name
COMPLEX_STRUCTS = {"c64": ("HhC64", "f32"), "c128": ("HhC128", "f64")}


def complex_struct(t: Type, structs: dict[str, str]) -> str:
    """The WGSL struct of the complex type ``t`` (declared into ``structs`` once): NumPy's layout."""
    name, part = COMPLEX_STRUCTS[storage(t).name]
    structs.setdefault(name, f"struct {name} {{\n    re: {part},\n    im: {part},\n}}")
    return name


def tuple_struct(t: TupleT, loc: Loc | None, structs: dict[str, str]) -> str:
    """A tuple value as a WGSL struct of its items (``i0``, ``i1``, ...), one per tuple type."""
    if not t.items:
        raise WgslUnsupported(loc, "empty tuples")
    if any(isinstance(item, ArrayT) for item in t.items):
        raise WgslUnsupported(loc, f"{t} values (arrays in a tuple)")
    name = "HhT_" + re.sub(r"\W+", "_", str(t)).strip("_") + "_" + hashlib.sha1(str(t).encode()).hexdigest()[:6]
    if name not in structs:
        members = [f"    i{k}: {wgsl_type(item, loc, structs)}," for k, item in enumerate(t.items)]
        structs[name] = f"struct {name} {{\n" + "\n".join(members) + "\n}"
    return name


def buffer_element(t: Type, loc: Loc | None, structs: dict[str, str]) -> str:
    """The WGSL type of an element of an array in a storage buffer: a scalar of :data:`ELEMENTS`, or a struct
    of them (nested structs too), whose WGSL layout is the C layout of ``Cls.dtype``: each member at the next
    multiple of its alignment, the struct's size a multiple of its largest member's."""
    if isinstance(t, Scalar) and t.name in ELEMENTS:
        return t.name
    if isinstance(t, Scalar) and t.name in PACKED:
        return "u32"
    if isinstance(t, Scalar) and t.kind == "c":  # a struct of its parts: NumPy's layout
        return wgsl_type(t, loc, structs)
    if not isinstance(t, StructT):
        raise WgslUnsupported(
            loc, f"arrays of {t} (this target: f64, f32, f16, i32, u32, i64, u64 and structs of them)"
        )
    for name, ft in t.fields:
        if isinstance(ft, StructT):
            buffer_element(ft, loc, structs)
        elif not (isinstance(ft, Scalar) and (ft.name in ELEMENTS or ft.kind == "c")):
            raise WgslUnsupported(
                loc,
                f"arrays of {t} in buffers: its field `{name}` is a {ft}, which has no layout in WebGPU "
                "buffers (fields here: f64, f32, f16, i32, u32, i64, u64 and structs of them)",
            )
    size, _ = _layout(t)
    if size != t.dtype.itemsize:  # (never, for these fields: NumPy's aligned dtype is the C layout)
        raise WgslUnsupported(loc, f"arrays of {t}: WGSL lays it out in {size} bytes, NumPy in {t.dtype.itemsize}")
    return wgsl_type(t, loc, structs)


def _layout(t: Type) -> tuple[int, int]:
    """(size, alignment) of a host-shareable WGSL type made of scalars and structs."""
    if isinstance(t, StructT):
        end, most = 0, 1
        for _, ft in t.fields:
            size, align = _layout(ft)
            end = -(-end // align) * align + size
            most = max(most, align)
        return -(-end // most) * most, most
    assert isinstance(t, Scalar)
    if t.kind == "c":  # a struct of two parts: aligned as a part
        return t.dtype.itemsize, t.dtype.itemsize // 2
    return t.dtype.itemsize, t.dtype.itemsize


@dataclass
class ArrayRef:
    """An array as the shader reaches it: a module-scope variable and its layout in elements."""

    base: str  # the storage buffer or workgroup variable
    elem: Scalar | StructT
    offset: str
    shape: list[str]
    strides: list[str]
    atomic: bool = False
    workgroup: bool = False  # a shared or local array: indexed in 32 bits (lavapipe crashes on 64-bit indices
    # into workgroup memory), never a storage buffer
    packed: str = ""  # elements packed in u32 words (:data:`PACKED`): "words" (read only) or "atomic" (written)


@dataclass
class Interface:
    """What the runtime needs to bind the shader: the uniform's fields and the array bindings."""

    fields: list[tuple[str, str, int]] = field(default_factory=list)  # (name, WGSL type, byte offset)
    arrays: list[dict[str, Any]] = field(default_factory=list)  # per array parameter: binding, access
    size: int = 0  # the uniform's bytes (a multiple of 16)


class RendererParts:
    """What :class:`~.render.FunctionRenderer` provides to the renderers it is made of (statements, arrays,
    expressions, calls): the function being rendered, its lines, and the methods each part calls in another.
    The parts derive from this class to be typed against it."""

    m: Any  # the ModuleRenderer
    tf: TypedFunction
    arrays: dict[str, ArrayRef]
    params: dict[str, str]
    locals: dict[str, str]
    lines: list[str]
    kernel: bool
    loc: Loc
    nonnegative: Any
    local_arrays: int
    depth: int
    view_slots: dict[str, list[str]]
    multiplied: set[int]

    def wt(self, t: Type, loc: Loc | None) -> str:
        raise NotImplementedError

    def emit(self, line: str) -> None:
        raise NotImplementedError

    def indented(self) -> Any:
        raise NotImplementedError

    def temp(self, value: str, wt: str | None = None) -> str:
        raise NotImplementedError

    def var(self, wt: str, init: str | None = None) -> str:
        raise NotImplementedError

    def zero(self, t: Type) -> str:
        raise NotImplementedError

    def block(self, stmts: list[ir.Stmt]) -> None:
        raise NotImplementedError

    def unpack(self, targets: list[ir.Expr], values: list[str], types: list[Type]) -> None:
        raise NotImplementedError

    def check(self, ok: str, kind: str, loc: Loc, msg: str | None = None, values: tuple[str, ...] = ()) -> None:
        raise NotImplementedError

    def condition(self, e: ir.Expr) -> str:
        raise NotImplementedError

    def truth(self, v: str, t: Type, loc: Loc) -> str:
        raise NotImplementedError

    def coerce(self, e: ir.Expr, to: Type, context: str | None = None) -> str:
        raise NotImplementedError

    def convert_check(self, v: str, src: Type, dst: Type, loc: Loc, context: str) -> None:
        raise NotImplementedError

    def nofma(self, wide: bool) -> str:
        raise NotImplementedError

    def libm_of(self, name: str, values: list[str], arg_types: list[Type], t: Type, loc: Loc) -> str:
        raise NotImplementedError

    def load_element(self, ref: ArrayRef, index: str) -> str:
        raise NotImplementedError

    def store_element(self, ref: ArrayRef, index: str, value: str) -> None:
        raise NotImplementedError

    # complex numbers (.complex.ComplexRenderer)
    def complex_literal(self, value: complex, t: Type) -> str:
        raise NotImplementedError

    def complex_truth(self, v: str, t: Type) -> str:
        raise NotImplementedError

    def complex_convert(self, v: str, src: Type, dst: Type) -> str:
        raise NotImplementedError

    def complex_binop(self, op: str, a: str, b: str, t: Type, right_const: object) -> str:
        raise NotImplementedError

    def complex_compare(self, op: str, a: str, b: str) -> str:
        raise NotImplementedError

    def complex_negate(self, v: str, t: Type) -> str:
        raise NotImplementedError

    def complex_conjugate(self, v: str, t: Type) -> str:
        raise NotImplementedError

    def complex_value(self, t: Type, re: str, im: str) -> str:
        raise NotImplementedError

    def complex_power(self, a: str, n: int, t: Type) -> str:
        raise NotImplementedError

    def complex_divide(self, a: str, b: str, t: Type, python: bool) -> str:
        raise NotImplementedError

    def exact_op(self, op: str, wt: str) -> str:
        raise NotImplementedError

    def fmod(self, wt: str, name: str = "fmod") -> str:
        raise NotImplementedError

    def literal(self, value: int | float | bool, t: Type, loc: Loc, plain: bool = False, internal: bool = False) -> str:
        raise NotImplementedError

    def convert(self, v: str, src: Type, dst: Type) -> str:
        raise NotImplementedError

    def h2f(self, v: str) -> str:
        raise NotImplementedError

    def f2h(self, v: str) -> str:
        raise NotImplementedError

    def expr(self, e: ir.Expr) -> str:
        raise NotImplementedError

    def exact(self, name: str, text: str) -> str:
        raise NotImplementedError

    def binop_values(
        self, op: str, left: str, left_t: Type, right_node: ir.Expr, ops: Any, loc: Loc, fusable: bool = True
    ) -> str:
        raise NotImplementedError

    def const_of(self, e: ir.Expr) -> int | float | bool | None:
        raise NotImplementedError

    def subscript(self, e: ir.Subscript) -> str:
        raise NotImplementedError

    def array(self, e: ir.Expr) -> ArrayRef:
        raise NotImplementedError

    def element_index(self, ref: ArrayRef, index: ir.Expr) -> str:
        raise NotImplementedError

    def element_lvalue(self, e: ir.Subscript, read: bool) -> str:
        raise NotImplementedError

    def call(self, e: ir.Call) -> str:
        raise NotImplementedError

    def call_function(self, callee: Callee, nodes: list[ir.Expr], loc: Loc) -> str:
        raise NotImplementedError

    def grid_call(self, e: ir.Expr) -> tuple[str, int] | None:
        raise NotImplementedError

    def index_value(self, what: str, axis: str) -> str:
        raise NotImplementedError

    def aug_assign(self, s: ir.AugAssign) -> None:
        raise NotImplementedError
