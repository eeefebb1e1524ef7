"""Typed IR -> WGSL: one compute shader per kernel, its helpers as WGSL functions.

The shader's interface (what :mod:`hybrid_runtime.wgpu_device` binds; the manifest records it):

* binding 0, ``hh_p`` (uniform): the launch's numbers, 8-byte fields first: per array parameter its
  offset, shape and strides in elements (i64), per scalar parameter its value (a boolean as u32), then
  the grid's size in blocks (``hh_gx``, ``hh_gy``, ``hh_gz``: u32) and ``hh_zero``, always 0 (see
  :data:`NOFMA`);
* binding 1, ``hh_err`` (storage, only in kernels with checks): the first failed check's site id and
  two values, as the CUDA error slot holds them;
* bindings 2.., one storage buffer per array parameter, in parameter order.

The block's shape is three pipeline-overridable constants (``hh_bx``, ``hh_by``, ``hh_bz``); WebGPU
caps a dispatch at 65535 workgroups per dimension, so blocks are numbered linearly over a dispatch
that may be larger than the grid, and the surplus workgroups return at once.

Python ints are i64 (WGSL's ``i64``, which needs the adapter's ``shader-int64``), fixed-width integers
wrap, integer ``//`` and ``%`` floor (a zero divisor gives 0) and shifts past the width give 0 or the
sign, as on the other targets (:mod:`hatch_hybrid.lower.ops`). What the target cannot express with the
same meaning raises :class:`WgslUnsupported`, and the kernel is not built for this target.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from hybrid_runtime.abi import WGSL_ERROR_WORDS, WGSL_GRID_FIELDS

from ... import ir
from ...errors import Loc
from ...lower.sites import SiteTable
from ...typecheck import bindings, signs
from ...typecheck.arguments import bound_nodes
from ...typecheck.typed import SymbolT, TypedFunction
from ...types import (
    NONE,
    ArrayT,
    EnumT,
    OptionalT,
    Scalar,
    StructT,
    TupleT,
    Type,
    Weak,
    component,
    storage,
)
from .arrays import ArrayRenderer
from .calls import CallRenderer
from .complex import ComplexRenderer
from .expressions import ExpressionRenderer
from .prelude import (
    constant_expression,
)
from .shader import (
    ATOMIC_ELEMENTS,
    ERROR_BINDING,
    FIRST_ARRAY_BINDING,
    PACKED,
    STORAGE_BARRIER,
    ArrayRef,
    Interface,
    RendererParts,
    WgslUnsupported,
    buffer_element,
    wgsl_type,
)
from .statements import StatementRenderer


class ModuleRenderer:
    """One kernel's shader: the entry point, the helpers it reaches (one WGSL function per helper and
    array binding), the prelude functions they use."""

    def __init__(self, kernel: TypedFunction, debug: bool = False) -> None:
        self.kernel = kernel
        self.debug = debug  # @kernel(debug=True): every array index checked against its dimension
        self.functions: dict[tuple[Any, ...], str] = {}  # (typed function id, array bases) -> WGSL name
        self.bodies: list[str] = []
        self.prelude: dict[str, str] = {}
        self.structs: dict[str, str] = {}
        self.sites = SiteTable()
        self.workgroup: list[str] = []  # module-scope shared arrays
        self.atomic_params: set[int] = set()
        self.atomic_shared: set[int] = set()  # the gpu.shared_array calls whose arrays atomics update
        self.interface = Interface()
        self.subgroups = False  # warp calls: the shader needs the adapter's subgroups
        self.f16 = False  # f16 values: the shader needs the adapter's shader-f16
        self.f64 = False  # f64 values (Python floats too): the shader needs the adapter's shader-f64
        self.dynamic: Scalar | None = None  # the element type of gpu.dynamic_shared_array (one per kernel)
        self.tables: dict[str, str] = {}  # a constant table's key -> its module-scope const
        self.storage_reads: set[str] = set()  # the storage buffers the shader reads elements of
        self.storage_writes: set[str] = set()  # ... and writes (atomics: both)

    def render(self) -> str:
        tf = self.kernel
        self.atomic_params, self.atomic_shared = _atomic_targets(tf)
        arrays: dict[str, ArrayRef] = {}
        eight: list[tuple[str, str]] = []
        four: list[tuple[str, str]] = []
        bindings: list[str] = []
        scalars: dict[str, str] = {}
        for k, (p, t) in enumerate(zip(tf.fn.params, tf.arg_types)):
            if isinstance(t, ArrayT):
                elem = t.dtype
                inner = buffer_element(elem, p.loc, self.structs)
                atomic = k in self.atomic_params
                if atomic and isinstance(elem, StructT):
                    raise WgslUnsupported(p.loc, "atomics on arrays of structs")
                base = f"hh_a{k}"
                eight.append((f"{base}_off", "i64"))
                eight += [(f"{base}_n{d}", "i64") for d in range(t.ndim)]
                eight += [(f"{base}_s{d}", "i64") for d in range(t.ndim)]
                arrays[p.name] = ArrayRef(
                    base,
                    elem,
                    f"hh_p.{base}_off",
                    [f"hh_p.{base}_n{d}" for d in range(t.ndim)],
                    [f"hh_p.{base}_s{d}" for d in range(t.ndim)],
                    atomic,
                )
                access = "read_write" if (k in tf.writes or atomic) else "read"
                binding = FIRST_ARRAY_BINDING + len(self.interface.arrays)
                if atomic and elem.name not in ATOMIC_ELEMENTS:
                    raise WgslUnsupported(p.loc, f"atomics on {elem} arrays")
                inner = f"atomic<{ATOMIC_ELEMENTS[elem.name]}>" if atomic else inner
                if isinstance(elem, Scalar) and elem.name in PACKED:
                    arrays[p.name].packed = "atomic" if access == "read_write" else "words"
                    inner = "atomic<u32>" if access == "read_write" else "u32"
                bindings.append(f"@group(0) @binding({binding}) var<storage, {access}> {base}: array<{inner}>;")
                self.interface.arrays.append({"param": k, "binding": binding, "writes": access == "read_write"})
            elif isinstance(t, (Scalar, Weak, EnumT)) and storage(t).kind != "c":
                scalars[p.name] = _uniform_scalar(f"hh_v{k}", wgsl_type(t, p.loc), eight, four)
            elif (isinstance(t, TupleT) and not isinstance(t, OptionalT)) or (
                isinstance(t, (Scalar, Weak)) and storage(t).kind == "c"
            ):
                scalars[p.name] = self.tuple_parameter(k, t, p.loc, eight, four)
            else:
                raise WgslUnsupported(p.loc, f"{t} parameters")
        four += list(WGSL_GRID_FIELDS)
        offset = 0
        for name, wt in eight + four:
            self.interface.fields.append((name, wt, offset))
            offset += 8 if wt in EIGHT_BYTES else 4
        self.interface.size = (offset + 15) // 16 * 16
        body = FunctionRenderer(self, tf, arrays, scalars, name="main").render_kernel()
        # a barrier orders storage accesses too (CUDA's __syncthreads() does) only where threads can talk through
        # a storage buffer: one the shader both writes and reads. WebGPU binds a written buffer to one binding
        # alone, so no other binding aliases it, and a second control barrier per syncthreads() is saved
        talk = bool(self.storage_reads & self.storage_writes)
        self.bodies = [STORAGE_BARRIER.sub(r"\1storageBarrier();\n" if talk else "", b) for b in self.bodies]
        body = STORAGE_BARRIER.sub(r"\1storageBarrier();\n" if talk else "", body)
        if self.sites.sites:
            bindings.insert(
                0,
                f"@group(0) @binding({ERROR_BINDING}) var<storage, read_write> hh_err: "
                f"array<atomic<u32>, {WGSL_ERROR_WORDS}>;",
            )
        struct = "\n".join(f"    {name}: {wt}," for name, wt in eight + four)
        head = [
            "// generated by hatch-hybrid from " + tf.fn.qualname,
            "override hh_bx: u32 = 1u;",
            "override hh_by: u32 = 1u;",
            "override hh_bz: u32 = 1u;",
            *self.structs.values(),
            f"struct HhParams {{\n{struct}\n}}",
            "@group(0) @binding(0) var<uniform> hh_p: HhParams;",
            *bindings,
            "var<private> hh_tid: vec3<u32>;",
            "var<private> hh_bid: vec3<u32>;",
            "var<private> hh_lid_index: u32;",
            *self.workgroup,
        ]
        text = "\n".join(head + list(self.prelude.values()) + self.bodies + [body]) + "\n"
        # (comments left out: the first line names the kernel, whose module may be called f16)
        code = re.sub(r"//[^\n]*", "", text)
        self.f16 = re.search(r"\bf16\b", code) is not None
        self.f64 = re.search(r"\bf64\b|\dlf\b", code) is not None
        return ("enable f16;\n" if self.f16 else "") + text

    def tuple_parameter(
        self, k: int, t: Type, loc: Loc, eight: list[tuple[str, str]], four: list[tuple[str, str]]
    ) -> str:
        """A tuple parameter's numbers as uniform fields ``hh_v{k}_{j}`` (its leaves, depth first, as the runtime
        flattens the argument), and the expression that makes the tuple value of them."""
        leaves = 0

        def build(item: Type) -> str:
            nonlocal leaves
            if isinstance(item, TupleT) and not isinstance(item, OptionalT):
                return f"{wgsl_type(item, loc, self.structs)}({', '.join(map(build, item.items))})"
            if isinstance(item, (Scalar, Weak)) and storage(item).kind == "c":  # its parts, as a tuple's
                return f"{wgsl_type(item, loc, self.structs)}({build(component(item))}, {build(component(item))})"
            if not isinstance(item, (Scalar, Weak)):
                raise WgslUnsupported(loc, f"{t} parameters (a tuple of scalars can be one)")
            leaves += 1
            return _uniform_scalar(f"hh_v{k}_{leaves - 1}", wgsl_type(item, loc), eight, four)

        return build(t)

    def helper(self, tf: TypedFunction, arrays: list[ArrayRef | None], loc: Loc) -> str:
        """The WGSL function for a helper called with arrays at these bases."""
        key = (id(tf), tuple(a.base if a is not None else None for a in arrays))
        name = self.functions.get(key)
        if name is None:
            name = self.functions[key] = f"hh_f{len(self.functions)}_" + re.sub(r"\W", "_", tf.fn.name)
            self.bodies.append(FunctionRenderer(self, tf, {}, {}, name=name).render_helper(arrays, loc))
        return name

    def need(self, name: str, text: str) -> str:
        self.prelude.setdefault(name, text)
        return name

    def touch(self, ref: ArrayRef, read: bool, write: bool) -> None:
        """Record an element access of ``ref`` (storage buffers only: what :data:`STORAGE_BARRIER` needs)."""
        if not ref.workgroup:
            if read:
                self.storage_reads.add(ref.base)
            if write:
                self.storage_writes.add(ref.base)


#: The uniform's 8-byte field types (laid out first)
EIGHT_BYTES = ("i64", "u64", "f64")


def _uniform_scalar(name: str, wt: str, eight: list[tuple[str, str]], four: list[tuple[str, str]]) -> str:
    """A scalar parameter (or a tuple's leaf) as the uniform field ``name``, added to the 8- or 4-byte fields
    (a boolean as u32); the expression that reads it."""
    (eight if wt in EIGHT_BYTES else four).append((name, "u32" if wt == "bool" else wt))
    return f"(hh_p.{name} != 0u)" if wt == "bool" else f"hh_p.{name}"


def _view_root(node: ir.Expr) -> str | None:
    """The variable an array or a view of it by indexing (``a``, ``a[i:]``, ``a[1:, j]``) reads: None for
    others (arrays made by calls, ``z.real``: another element type)."""
    while isinstance(node, ir.Subscript):
        node = node.value
    return node.id if isinstance(node, ir.Name) else None


def _atomic_targets(tf: TypedFunction) -> tuple[set[int], set[int]]:
    """The function's array parameters that atomics update, also in the helpers it passes them to (the
    kernel's: their buffers hold atomic elements), and the ``gpu.shared_array`` calls (node ids), here or in
    the helpers, whose arrays they update (workgroup arrays of atomic elements)."""
    found: set[int] = set()
    params = {p.name: k for k, p in enumerate(tf.fn.params)}
    shared: dict[str, set[int]] = {}  # a name -> the shared_array calls assigned to it
    views: dict[str, set[str]] = {}  # a local view (`v = a[i:]`) -> the arrays it may be a view of
    for node in ir.walk(tf.fn):
        if isinstance(node, ir.Assign) and isinstance(node.target, ir.Name) and isinstance(node.value, ir.Call):
            made = tf.callees.get(node.value.nid)
            if made is not None and made.kind == "gpu" and made.name == "shared_array":
                shared.setdefault(node.target.id, set()).add(node.value.nid)
        if isinstance(node, ir.Assign) and isinstance(node.target, ir.Name) and isinstance(node.value, ir.Subscript):
            root = _view_root(node.value)
            if root is not None and isinstance(tf.types.get(node.value.nid), ArrayT):
                views.setdefault(node.target.id, set()).add(root)
    atomic_shared: set[int] = set()

    def roots(name: str, seen: frozenset[str] = frozenset()) -> set[str]:
        """The parameters and shared arrays a name holds, or is a view of."""
        if name in params or name in shared or name in seen:
            return {name}
        return {r for v in views.get(name, ()) for r in roots(v, seen | {name})}

    def updated(array: ir.Expr | None, loc: Loc, what: str) -> None:
        """``array`` is updated by atomics: a parameter, or a shared array made here, or a view of one (of the
        same elements: ``a[i:]``) (else refused)."""
        root = _view_root(array) if array is not None else None
        held = roots(root) if root is not None else set()
        if not held or not all(r in params or r in shared for r in held):
            raise WgslUnsupported(loc, what)
        for r in held:
            if r in params:
                found.add(params[r])
            else:
                atomic_shared.update(shared[r])

    for node in ir.walk(tf.fn):
        callee = tf.callees.get(node.nid)
        if (
            isinstance(node, ir.Call)
            and callee is not None
            and callee.kind == "gpu"
            and callee.name.startswith("atomic")
        ):
            updated(
                node.args[0] if node.args else None, node.loc, "atomics on arrays other than the kernel's parameters"
            )
        if isinstance(node, ir.Call) and callee is not None and callee.kind in ("helper", "method"):
            assert callee.target is not None
            inner, inner_shared = _atomic_targets(callee.target)
            atomic_shared.update(inner_shared)  # the helper's own shared arrays (node ids are the program's)
            nodes = bound_nodes(node, tf.call_args[node.nid])
            if callee.kind == "method" and isinstance(node.func, ir.Attribute):
                nodes.insert(0, node.func.value)  # the receiver is `self`
            for k in inner:  # the argument the helper's atomics update
                updated(nodes[k], node.loc, "atomics, in a helper, on an array other than a parameter")
    return found, atomic_shared


class FunctionRenderer(
    StatementRenderer, ArrayRenderer, ExpressionRenderer, ComplexRenderer, CallRenderer, RendererParts
):
    """One function's body: statements as WGSL statements, expressions through ``let`` temporaries
    (so that ``and``/``or``, conditional expressions and checks keep Python's order of evaluation)."""

    def __init__(
        self,
        module: ModuleRenderer,
        tf: TypedFunction,
        arrays: dict[str, ArrayRef],
        scalars: dict[str, str],
        name: str,
    ) -> None:
        self.m, self.tf, self.name = module, tf, name
        self.arrays = dict(arrays)
        self.params = dict(scalars)  # parameters read in place (kernel scalars: uniform fields)
        self.view_slots: dict[str, list[str]] = {}  # arrays bound in blocks: their layout's variables
        self.locals: dict[str, str] = {}
        self.multiplied: set[int] = set()  # float products that are operands of a product (no FMA barrier)
        self.lines: list[str] = []
        self.depth = 1
        self.temps = 0
        self.local_arrays = 0  # gpu.local_array calls: each a var at the function's top
        self.kernel = name == "main"
        self.loc: Loc = tf.fn.loc  # the statement being rendered (what an error without a node points at)
        self.nonnegative = signs.nonnegative_locals(tf)  # indices of these need no wrap from the end

    def wt(self, t: Type, loc: Loc | None) -> str:
        return wgsl_type(t, loc or self.loc, self.m.structs)

    # ------------------------------------------------------------- emission
    def emit(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    @contextmanager
    def indented(self) -> Iterator[None]:
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1

    def temp(self, value: str, wt: str | None = None) -> str:
        self.temps += 1
        name = f"t{self.temps}"
        # naga evaluates a `let` of a constant expression at build time, and cannot convert 64-bit
        # constants there (`i32(3li)` fails): such a value is kept in a `var`, which it leaves to run time
        keyword = "var" if constant_expression(value) else "let"
        self.emit(f"{keyword} {name}{': ' + wt if wt else ''} = {value};")
        return name

    def var(self, wt: str, init: str | None = None) -> str:
        self.temps += 1
        name = f"t{self.temps}"
        self.emit(f"var {name}: {wt}" + (f" = {init};" if init is not None else ";"))
        return name

    # ------------------------------------------------------------ functions
    def render_kernel(self) -> str:
        # a scalar parameter the kernel assigns to is a variable, starting from its uniform field
        assigned = bindings.assignment_counts(self.tf.fn.body)
        starts = {name: self.params.pop(name) for name in list(self.params) if name in assigned}
        self.declare_locals()
        for p, t in zip(self.tf.fn.params, self.tf.arg_types):
            if p.name in starts:
                if self.wt(t, p.loc) != self.wt(self.tf.locals[p.name], p.loc):
                    raise WgslUnsupported(p.loc, f"parameter `{p.name}` assigned a value of another type")
                self.emit(f"{self.locals[p.name]} = {starts[p.name]};")
        self.block(self.tf.fn.body)
        self.view_declarations()
        head = (
            "@compute @workgroup_size(hh_bx, hh_by, hh_bz)\n"
            "fn main(@builtin(local_invocation_id) hh_lid: vec3<u32>, @builtin(workgroup_id) hh_wid: vec3<u32>,\n"
            "        @builtin(num_workgroups) hh_nwg: vec3<u32>, @builtin(local_invocation_index) hh_li: u32) {\n"
            "    let hh_l = hh_wid.x + hh_nwg.x * (hh_wid.y + hh_nwg.y * hh_wid.z);\n"
            "    if (hh_l >= hh_p.hh_gx * hh_p.hh_gy * hh_p.hh_gz) { return; }\n"
            "    let hh_gxy = hh_p.hh_gx * hh_p.hh_gy;\n"
            "    hh_bid = vec3<u32>(hh_l % hh_p.hh_gx, (hh_l / hh_p.hh_gx) % hh_p.hh_gy, hh_l / hh_gxy);\n"
            "    hh_tid = hh_lid;\n"
            "    hh_lid_index = hh_li;\n"
        )
        return head + "\n".join(self.lines) + "\n}\n"

    def render_helper(self, arrays: list[ArrayRef | None], loc: Loc) -> str:
        tf = self.tf
        params: list[str] = []
        for k, (p, t) in enumerate(zip(tf.fn.params, tf.arg_types)):
            ref = arrays[k]
            if isinstance(t, ArrayT):
                assert ref is not None
                names = [f"{p.name}_off"] + [f"{p.name}_n{d}" for d in range(t.ndim)]
                names += [f"{p.name}_s{d}" for d in range(t.ndim)]
                params += [f"hp_{n}: i64" for n in names]
                self.arrays[p.name] = ArrayRef(
                    ref.base,
                    ref.elem,
                    f"hp_{p.name}_off",
                    [f"hp_{p.name}_n{d}" for d in range(t.ndim)],
                    [f"hp_{p.name}_s{d}" for d in range(t.ndim)],
                    ref.atomic,
                    ref.workgroup,
                    ref.packed,
                )
            elif not isinstance(t, SymbolT):  # (a function, type or module: the helper is specialised on it)
                params.append(f"hp_{p.name}: {self.wt(t, p.loc)}")
        if tf.mutates:
            raise WgslUnsupported(loc, "helpers that assign to their struct parameters")
        ret = "" if tf.return_type == NONE else f" -> {self.wt(tf.return_type, tf.fn.loc)}"
        self.declare_locals()
        for p, t in zip(tf.fn.params, tf.arg_types):
            if not isinstance(t, (ArrayT, SymbolT)):
                self.emit(f"{self.locals[p.name]} = hp_{p.name};")
        self.block(tf.fn.body)
        self.view_declarations()
        if ret and not (tf.fn.body and isinstance(tf.fn.body[-1], ir.Return)):
            # WGSL wants a return at the end; the checker made sure that a value was returned before it
            self.emit(f"return {self.zero(tf.return_type)};")
        return f"fn {self.name}({', '.join(params)}){ret} {{\n" + "\n".join(self.lines) + "\n}\n"

    def view_declarations(self) -> None:
        """The variables of arrays bound inside blocks (:meth:`bound_view`), at the top of the function."""
        slots = [slot for names in self.view_slots.values() for slot in names]
        self.lines[:0] = ["    " + f"var {slot}: i64;" for slot in slots]

    def declare_locals(self) -> None:
        for name, t in sorted(self.tf.locals.items()):
            if isinstance(t, (ArrayT, SymbolT)):
                continue  # shared and local arrays are declared where they are made; views are ArrayRefs; types
                # and modules (`dtype = x.dtype`) are known at build time
            if name in self.params:
                continue
            wt = self.wt(t, self.tf.fn.loc)
            ident = f"v_{name}" if name.isidentifier() else f"v{len(self.locals)}_" + re.sub(r"\W", "_", name)
            self.locals[name] = ident  # the checker's own names (`match.39.4`) made identifiers
            self.emit(f"var {ident}: {wt};")

    def zero(self, t: Type) -> str:
        wt = self.wt(t, None)
        if isinstance(t, (StructT, TupleT)) or (isinstance(t, (Scalar, Weak)) and storage(t).kind == "c"):
            return f"{wt}()"  # (every member zero)
        return "false" if wt == "bool" else f"{wt}(0)"

    # ----------------------------------------------------------- statements
