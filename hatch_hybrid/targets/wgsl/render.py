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
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from hybrid_runtime.abi import WGSL_ERROR_WORDS, WGSL_GRID_FIELDS

from ... import ir
from ...errors import Loc
from ...lower.loops import RANGE_STEP_ZERO
from ...lower.sites import SiteTable, located
from ...typecheck import signs
from ...typecheck.arguments import bound_nodes
from ...typecheck.rules import GPU_INDEX, SHUFFLES, VOTES
from ...typecheck.typed import Callee, TypedFunction
from ...types import (
    F32,
    I32,
    NONE,
    WEAK_INT,
    ArrayT,
    EnumT,
    Scalar,
    StructT,
    TableT,
    TupleT,
    Type,
    Weak,
    is_float,
    is_int,
    storage,
)
from .prelude import (
    DIV_F32,
    F64_BITS,
    FUSED_FMA,
    NOFMA,
    SQRT_F32,
    as_i32,
    constant_expression,
    divmod_fn,
    ipow_fn,
    number,
    shift_fn,
    widen,
)

#: The scalar types this target holds, by their WGSL names
WGSL_SCALARS = {"boolean": "bool", "i32": "i32", "u32": "u32", "i64": "i64", "u64": "u64", "f32": "f32"}
#: Element types of arrays in storage buffers (a boolean takes a byte in NumPy, which WGSL cannot address)
ELEMENTS = {"i32", "u32", "i64", "u64", "f32"}
ATOMIC_ELEMENTS = {"i32", "u32"}
ATOMIC_FUNCS = {
    "atomic_add": "atomicAdd",
    "atomic_sub": "atomicSub",
    "atomic_min": "atomicMin",
    "atomic_max": "atomicMax",
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
    if isinstance(t, Weak) and t.kind == "float":
        raise WgslUnsupported(loc, "a Python float is an f64, which WebGPU shaders do not have")
    if isinstance(t, (Scalar, Weak, EnumT)):
        scalar = WGSL_SCALARS.get(storage(t).name)
        if scalar is None:
            raise WgslUnsupported(loc, f"{t} values (this target: f32, i32, u32, i64, u64, bool)")
        return scalar
    raise WgslUnsupported(loc, f"{t} values")


@dataclass
class ArrayRef:
    """An array as the shader reaches it: a module-scope variable and its layout in elements."""

    base: str  # the storage buffer or workgroup variable
    elem: Scalar
    offset: str
    shape: list[str]
    strides: list[str]
    atomic: bool = False
    workgroup: bool = False  # a shared or local array: indexed in 32 bits (lavapipe crashes on 64-bit indices
    # into workgroup memory), never a storage buffer


@dataclass
class Interface:
    """What the runtime needs to bind the shader: the uniform's fields and the array bindings."""

    fields: list[tuple[str, str, int]] = field(default_factory=list)  # (name, WGSL type, byte offset)
    arrays: list[dict[str, Any]] = field(default_factory=list)  # per array parameter: binding, access
    size: int = 0  # the uniform's bytes (a multiple of 16)


class ModuleRenderer:
    """One kernel's shader: the entry point, the helpers it reaches (one WGSL function per helper and
    array binding), the prelude functions they use."""

    def __init__(self, kernel: TypedFunction) -> None:
        self.kernel = kernel
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
                if not isinstance(elem, Scalar) or elem.name not in ELEMENTS:
                    raise WgslUnsupported(p.loc, f"arrays of {elem} (this target: f32, i32, u32, i64, u64)")
                atomic = k in self.atomic_params
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
                inner = f"atomic<{elem.name}>" if atomic else elem.name
                bindings.append(f"@group(0) @binding({binding}) var<storage, {access}> {base}: array<{inner}>;")
                self.interface.arrays.append({"param": k, "binding": binding, "writes": access == "read_write"})
            elif isinstance(t, (Scalar, Weak, EnumT)):
                wt = wgsl_type(t, p.loc)
                name = f"hh_v{k}"
                (eight if wt in ("i64", "u64") else four).append((name, "u32" if wt == "bool" else wt))
                scalars[p.name] = f"(hh_p.{name} != 0u)" if wt == "bool" else f"hh_p.{name}"
            else:
                raise WgslUnsupported(p.loc, f"{t} parameters")
        four += list(WGSL_GRID_FIELDS)
        offset = 0
        for name, wt in eight + four:
            self.interface.fields.append((name, wt, offset))
            offset += 8 if wt in ("i64", "u64") else 4
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
        return "\n".join(head + list(self.prelude.values()) + self.bodies + [body]) + "\n"

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


def _leaves(body: list[ir.Stmt]) -> bool:
    """Whether ``body`` breaks out of or continues its loop (not a loop nested in it)."""
    for stmt in body:
        if isinstance(stmt, (ir.Break, ir.Continue)):
            return True
        if isinstance(stmt, ir.If) and (_leaves(stmt.body) or _leaves(stmt.orelse)):
            return True
    return False


def _atomic_targets(tf: TypedFunction) -> tuple[set[int], set[int]]:
    """The kernel's array parameters that atomics update (their buffers hold atomic elements), and the
    ``gpu.shared_array`` calls (node ids) whose arrays they update (workgroup arrays of atomic elements)."""
    found: set[int] = set()
    params = {p.name: k for k, p in enumerate(tf.fn.params)}
    shared: dict[str, set[int]] = {}  # a name -> the shared_array calls assigned to it
    for node in ir.walk(tf.fn):
        if isinstance(node, ir.Assign) and isinstance(node.target, ir.Name) and isinstance(node.value, ir.Call):
            made = tf.callees.get(node.value.nid)
            if made is not None and made.kind == "gpu" and made.name == "shared_array":
                shared.setdefault(node.target.id, set()).add(node.value.nid)
    atomic_shared: set[int] = set()
    for node in ir.walk(tf.fn):
        callee = tf.callees.get(node.nid)
        if (
            isinstance(node, ir.Call)
            and callee is not None
            and callee.kind == "gpu"
            and callee.name.startswith("atomic")
        ):
            target = node.args[0] if node.args else None
            if isinstance(target, ir.Name) and target.id in params:
                found.add(params[target.id])
            elif isinstance(target, ir.Name) and target.id in shared:
                atomic_shared |= shared[target.id]
            else:
                raise WgslUnsupported(node.loc, "atomics on arrays other than the kernel's parameters")
        if isinstance(node, ir.Call) and callee is not None and callee.kind in ("helper", "method"):
            assert callee.target is not None
            if any(_atomic_targets(callee.target)):
                raise WgslUnsupported(node.loc, "atomics inside helpers")
    return found, atomic_shared


class FunctionRenderer:
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
        self.locals: dict[str, str] = {}
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
        self.declare_locals()
        self.block(self.tf.fn.body)
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
                )
            else:
                params.append(f"hp_{p.name}: {self.wt(t, p.loc)}")
        if tf.mutates:
            raise WgslUnsupported(loc, "helpers that assign to their struct parameters")
        ret = "" if tf.return_type == NONE else f" -> {self.wt(tf.return_type, tf.fn.loc)}"
        self.declare_locals()
        for p, t in zip(tf.fn.params, tf.arg_types):
            if not isinstance(t, ArrayT):
                self.emit(f"{self.locals[p.name]} = hp_{p.name};")
        self.block(tf.fn.body)
        if ret and not (tf.fn.body and isinstance(tf.fn.body[-1], ir.Return)):
            # WGSL wants a return at the end; the checker made sure that a value was returned before it
            self.emit(f"return {self.zero(tf.return_type)};")
        return f"fn {self.name}({', '.join(params)}){ret} {{\n" + "\n".join(self.lines) + "\n}\n"

    def declare_locals(self) -> None:
        for name, t in sorted(self.tf.locals.items()):
            if isinstance(t, ArrayT):
                continue  # shared and local arrays are declared where they are made; views are ArrayRefs
            if name in self.params:
                continue
            wt = self.wt(t, self.tf.fn.loc)
            ident = f"v_{name}" if name.isidentifier() else f"v{len(self.locals)}_" + re.sub(r"\W", "_", name)
            self.locals[name] = ident  # the checker's own names (`match.39.4`) made identifiers
            self.emit(f"var {ident}: {wt};")

    def zero(self, t: Type) -> str:
        wt = self.wt(t, None)
        if isinstance(t, StructT):
            return f"{wt}()"
        return "false" if wt == "bool" else f"{wt}(0)"

    # ----------------------------------------------------------- statements
    def block(self, stmts: list[ir.Stmt]) -> None:
        for s in stmts:
            self.stmt(s)

    def stmt(self, s: ir.Stmt) -> None:
        self.loc = s.loc
        if isinstance(s, ir.Assign):
            self.assign(s.target, s.value)
        elif isinstance(s, ir.AugAssign):
            self.aug_assign(s)
        elif isinstance(s, ir.If):
            self.emit(f"if ({self.condition(s.test)}) {{")
            with self.indented():
                self.block(s.body)
            if s.orelse:
                self.emit("} else {")
                with self.indented():
                    self.block(s.orelse)
            self.emit("}")
        elif isinstance(s, ir.While):
            self.emit("loop {")
            with self.indented():
                self.emit(f"if (!({self.condition(s.test)})) {{ break; }}")
                self.block(s.body)
            self.emit("}")
        elif isinstance(s, ir.ForRange):
            self.for_range(s)
        elif isinstance(s, ir.Break):
            self.emit("break;")
        elif isinstance(s, ir.Continue):
            self.emit("continue;")
        elif isinstance(s, ir.Return):
            if s.value is None or self.tf.return_type == NONE:
                if s.value is not None:
                    self.expr(s.value)
                self.emit("return;")
            else:
                self.emit(f"return {self.coerce(s.value, self.tf.return_type)};")
        elif isinstance(s, ir.ExprStmt):
            self.expr(s.value)  # what has an effect (a call, a check) is emitted as it is rendered
        elif isinstance(s, ir.Assert):
            ok = self.condition(s.test)
            self.check(ok, "assert", s.loc, s.msg)
        elif isinstance(s, ir.Pass):
            pass
        else:  # pragma: no cover
            raise WgslUnsupported(s.loc, type(s).__name__)

    def for_range(self, s: ir.ForRange) -> None:
        trips = self.unrolled(s)
        if trips is not None:
            # as LLVM fully unrolls such loops for the other targets: the driver then folds each iteration's
            # indices (NVIDIA's Vulkan compiler leaves the loop as it is: the tiled matmul ran 2.3x slower)
            t = self.tf.locals[s.target.id]
            for k in trips:
                self.emit("{")
                with self.indented():
                    self.emit(f"{self.locals[s.target.id]} = {self.literal(k, t, s.loc)};")
                    self.block(s.body)
                self.emit("}")
            return
        args = [self.coerce(a, WEAK_INT) for a in s.args]
        start, stop, step = (
            ("0li", args[0], "1li") if len(args) == 1 else (*args[:2], args[2] if len(args) == 3 else "1li")
        )
        known = self.const_of(s.args[2]) if len(args) == 3 else 1
        step_value = known if isinstance(known, int) and known != 0 else None  # None: its sign known at run time
        target = self.locals[s.target.id]
        bounds = [self.const_of(a) for a in s.args]
        if step_value is not None and all(
            isinstance(b, int) and -(2**31) < b < 2**31 - abs(step_value) for b in bounds
        ):
            # known bounds within i32: a 32-bit counter (the loop variable is still the Python int it counts)
            start, stop, step = (as_i32(v) for v in (start, stop, step))
            stop_t, counter = self.temp(stop, "i32"), self.var("i32", start)
            value = widen(counter, storage(I32), storage(WEAK_INT))
        else:
            stop_t, counter = self.temp(stop, "i64"), self.var("i64", start)
            value = counter
        if step_value is not None:
            cond = f"{counter} {'<' if step_value > 0 else '>'} {stop_t}"
        else:  # count up or down; a step of 0 fails as Python's range does
            step = self.temp(step, "i64")
            if not isinstance(known, int):
                self.check(f"{step} != 0li", "value", s.loc, RANGE_STEP_ZERO)
            cond = f"({step} > 0li && {counter} < {stop_t}) || ({step} < 0li && {counter} > {stop_t})"
        # Python's range: the loop variable takes each value; the counter moves on at the loop's end
        self.emit("loop {")
        with self.indented():
            self.emit(f"if (!({cond})) {{ break; }}")
            self.emit(f"{target} = {self.convert(value, WEAK_INT, self.tf.locals[s.target.id])};")
            self.block(s.body)
            self.emit(f"continuing {{ {counter} = {counter} + {step}; }}")
        self.emit("}")

    def unrolled(self, s: ir.ForRange) -> range | None:
        """The values of a loop to render unrolled: bounds known at build time, at most
        :data:`UNROLL_TRIPS` iterations of a small body that neither leaves the loop early nor returns."""
        bounds = [self.const_of(a) for a in s.args]
        if not all(isinstance(b, int) and not isinstance(b, bool) for b in bounds) or bounds[2:3] == [0]:
            return None
        trips = range(*[int(b) for b in bounds])  # type: ignore[arg-type]
        nodes = [n for stmt in s.body for n in ir.walk(stmt)]
        if not 0 < len(trips) <= UNROLL_TRIPS or len(trips) * len(nodes) > UNROLL_NODES:
            return None
        if any(isinstance(n, ir.Return) for n in nodes) or _leaves(s.body):
            return None
        return trips

    def assign(self, target: ir.Expr, value: ir.Expr) -> None:
        tf = self.tf
        if isinstance(target, ir.Name):
            t = tf.locals.get(target.id)
            if isinstance(t, ArrayT):
                ref = self.array(value)
                self.arrays[target.id] = ref
                return
            assert t is not None
            self.emit(f"{self.locals[target.id]} = {self.coerce(value, t, 'store')};")
            return
        if isinstance(target, ir.Subscript):
            base_t = tf.types[target.value.nid]
            if not isinstance(base_t, ArrayT) or isinstance(tf.types[target.nid], ArrayT):
                raise WgslUnsupported(target.loc, "assignment to this kind of element")
            ref = self.array(target.value)
            index = self.element_index(ref, target.index)
            v = self.coerce(value, base_t.dtype, "store")
            self.m.touch(ref, read=ref.atomic, write=True)
            if ref.atomic:
                self.emit(f"atomicStore(&{ref.base}[{index}], {v});")
            else:
                self.emit(f"{ref.base}[{index}] = {v};")
            return
        grid = self.grid_call(value) if isinstance(target, ir.TupleExpr) else None
        if isinstance(target, ir.TupleExpr) and grid is not None:
            # `i, j = cuda.grid(2)`: each index, in order
            what, n = grid
            items = [self.temp(self.index_value(what, axis), "i64") for axis in "xyz"[:n]]
            self.unpack(target.elts, items, [WEAK_INT] * n)
            return
        if isinstance(target, ir.TupleExpr):
            vt = tf.types[value.nid]
            if not isinstance(value, ir.TupleExpr) or not isinstance(vt, TupleT):
                raise WgslUnsupported(target.loc, "unpacking a tuple value")
            # Python evaluates every value first, then assigns left to right
            temps, types = [], []
            for elt, item in zip(value.elts, target.elts):
                tt = tf.types.get(item.nid) or tf.types[elt.nid]
                if isinstance(item, ir.Name):
                    tt = tf.locals[item.id]
                temps.append(self.temp(self.coerce(elt, tt, "store")))
                types.append(tt)
            self.unpack(target.elts, temps, types)
            return
        if isinstance(target, ir.Attribute):
            base, path = ir.field_path(target)
            if not isinstance(base, ir.Name) or base.id not in self.locals:
                raise WgslUnsupported(target.loc, "assignment to a field of this value")
            field_t = tf.types[target.nid]
            value_s = self.coerce(value, field_t, "store")
            self.emit(f"{self.locals[base.id]}{''.join('.f_' + f for f in path)} = {value_s};")
            return
        raise WgslUnsupported(target.loc, "assignment to this target")

    def unpack(self, targets: list[ir.Expr], values: list[str], types: list[Type]) -> None:
        """Values already evaluated (of ``types``) assigned to the names of a tuple target, left to right."""
        for item, v, t in zip(targets, values, types):
            if isinstance(item, ir.Subscript) and isinstance(self.tf.types[item.value.nid], ArrayT):
                # an element (`a[i], a[j] = a[j], a[i]`): its index computed now, as Python does
                base_t = self.tf.types[item.value.nid]
                assert isinstance(base_t, ArrayT)
                ref = self.array(item.value)
                index = self.element_index(ref, item.index)
                self.m.touch(ref, read=ref.atomic, write=True)
                value = self.convert(v, t, base_t.dtype)
                store = (
                    f"atomicStore(&{ref.base}[{index}], {value});" if ref.atomic else f"{ref.base}[{index}] = {value};"
                )
                self.emit(store)
                continue
            if not isinstance(item, ir.Name):
                raise WgslUnsupported(item.loc, "unpacking into this kind of target")
            self.emit(f"{self.locals[item.id]} = {self.convert(v, t, self.tf.locals[item.id])};")

    # ----------------------------------------------------------- checks
    def check(self, ok: str, kind: str, loc: Loc, msg: str | None = None, values: tuple[str, ...] = ()) -> None:
        """Unless ``ok``: record the site (and up to two i64 values) in the error buffer if it is empty,
        then leave the function."""
        site = located(self.tf.fn.module, loc, kind=kind)
        if msg is not None:
            site["msg"] = msg
        site_id = self.m.sites.site(site)
        values = tuple(self.temp(v) if constant_expression(v) else v for v in values)  # see temp()
        self.emit(f"if (!({ok})) {{")
        with self.indented():
            # the first failure takes the count from 0 and fills the record (the runtime reads it after)
            self.emit(f"if (atomicAdd(&hh_err[{WGSL_ERROR_WORDS - 1}], 1u) == 0u) {{")
            with self.indented():
                self.emit(f"atomicStore(&hh_err[0], {site_id}u);")
                for k, v in enumerate(values[:2]):
                    self.emit(f"atomicStore(&hh_err[{1 + 2 * k}], u32({v} & 4294967295li));")
                    self.emit(f"atomicStore(&hh_err[{2 + 2 * k}], u32({v} >> 32u));")
            self.emit("}")
            if self.kernel or self.tf.return_type == NONE:
                self.emit("return;")
            else:
                self.emit(f"return {self.zero(self.tf.return_type)};")
        self.emit("}")

    # ---------------------------------------------------------- expressions
    def condition(self, e: ir.Expr) -> str:
        return self.truth(self.expr(e), self.tf.types[e.nid], e.loc)

    def truth(self, v: str, t: Type, loc: Loc) -> str:
        s = storage(t) if not isinstance(t, TupleT) else None
        if s is None:
            raise WgslUnsupported(loc, "the truth of a tuple")
        if s.kind == "b":
            return v
        if s.kind == "f":
            return f"({v} != 0.0f)"
        return f"({v} != {self.wt(t, loc)}(0))"

    def coerce(self, e: ir.Expr, to: Type, context: str | None = None) -> str:
        src = self.tf.types[e.nid]
        if isinstance(to, StructT) or isinstance(src, StructT):
            return self.expr(e)
        if to == F32 and isinstance(e, ir.Call):
            callee = self.tf.callees.get(e.nid)
            if callee is not None and callee.kind == "math" and callee.name in ("sqrt", "fabs"):
                if all(self.tf.types[a.nid] == F32 for a in e.args):
                    fn = self.exact("hh_sqrt_f32", SQRT_F32) if callee.name == "sqrt" else "abs"
                    return self.temp(f"{fn}({self.expr(e.args[0])})", "f32")
        const = self.const_of(e)
        if const is not None and not isinstance(to, TupleT):
            return self.literal(const, to, e.loc)
        value = self.expr(e)
        if context is not None:
            self.convert_check(value, src, to, e.loc, context)
        return self.convert(value, src, to)

    def convert_check(self, v: str, src: Type, dst: Type, loc: Loc, context: str) -> None:
        """``MemoryLowerer.convert_checked``'s checks: where NumPy refuses a conversion, fail as it raises."""
        if not (is_int(dst) and isinstance(src, (Scalar, Weak, EnumT))):
            return
        d = None if isinstance(dst, Weak) else storage(dst)  # None: a Python int
        weak = isinstance(src, (Weak, EnumT))
        stored = context == "store" and d is not None and (weak or d.kind == "i")
        if is_int(src) and d is not None and (weak or stored):
            self.int_fits(v, storage(src), d, loc)
        elif is_int(src) and d is None and context == "cast" and storage(src).name == "u64":
            self.int_fits(v, storage(src), storage(WEAK_INT), loc, "int")
        elif is_float(src) and (stored or (context == "cast" and (d is None or weak))):
            self.float_fits(v, d, loc)

    def int_fits(self, v: str, s: Scalar, d: Scalar, loc: Loc, name: str | None = None) -> None:
        have, want = np.iinfo(s.dtype), np.iinfo(d.dtype)
        if want.min <= have.min and have.max <= want.max:
            return
        tests = []
        if have.min < want.min:
            tests.append(f"{v} >= {self.literal(int(want.min), s, loc)}")
        if have.max > want.max:
            tests.append(f"{v} <= {self.literal(int(want.max), s, loc)}")
        as64 = v if s.bits == 64 else widen(v, s, storage(WEAK_INT))
        if s.name == "u64":
            as64 = f"bitcast<i64>({v})"
        self.check(" && ".join(tests), "convert", loc, name or d.dtype.name, (as64, "1li" if s.kind == "u" else "0li"))

    def float_fits(self, v: str, d: Scalar | None, loc: Loc) -> None:
        """An f32 to a Python int (``d`` None: held in i64) or stored in an integer array: NaN, infinities
        and values out of range fail (the record holds the value as f64 bits, as on the other targets)."""
        if d is None:
            ok = f"(abs({v}) < 9223372036854775808.0f || {v} == -9223372036854775808.0f)"
        else:
            info = np.iinfo(d.dtype)  # the bounds are powers of two (or 0): exact in f32
            t = self.temp(f"trunc({v})", "f32")
            ok = f"({t} >= {float(info.min)!r}f && {t} < {float(info.max) + 1.0!r}f)"
        bits = self.m.need("hh_f64_bits", F64_BITS)
        self.check(ok, "convert", loc, d.dtype.name if d else "int", (f"{bits}({v})", "2li"))

    def literal(self, value: int | float | bool, t: Type, loc: Loc) -> str:
        wt = self.wt(t, loc)
        if wt == "bool":
            return "true" if value else "false"
        if wt == "f32":
            x = np.float32(value)
            if not np.isfinite(x):
                bits = int(x.view(np.uint32))
                return f"bitcast<f32>({bits}u)"
            return f"{float(x)!r}f"  # repr: the shortest digits that read back as this f32
        if isinstance(value, float):
            raise WgslUnsupported(loc, "a float constant where an integer is needed")
        bits = {"i32": 32, "u32": 32, "i64": 64, "u64": 64}[wt]
        v = int(value) & ((1 << bits) - 1)
        if wt in ("i32", "i64") and v >= 1 << (bits - 1):
            v -= 1 << bits
        suffix = {"i32": "i", "u32": "u", "i64": "li", "u64": "lu"}[wt]
        if v == -(1 << (bits - 1)):  # the most negative value has no literal
            return f"({wt}({v + 1}{suffix}) - {wt}(1{suffix}))"
        return f"{wt}({v}{suffix})" if v < 0 else f"{v}{suffix}"

    def convert(self, v: str, src: Type, dst: Type) -> str:
        if isinstance(src, (TupleT, StructT)) or isinstance(dst, (TupleT, StructT)):
            return v
        s, d = storage(src), storage(dst)
        if s == d:
            return v
        dw = self.wt(dst, None)
        if d.kind == "b":
            return self.truth(v, src, self.tf.fn.loc)
        if s.kind == "b":
            return f"select({dw}(0), {dw}(1), {v})"
        if s.kind in "iu" and d.kind in "iu":
            if s.bits == d.bits:
                return f"bitcast<{dw}>({v})"
            if s.bits > d.bits:
                return f"{dw}({v})"  # narrowing keeps the low bits
            return widen(v, s, d)
        if d.kind == "f":
            if s.bits == 64:  # naga cannot evaluate this conversion at build time: keep it to run time
                return f"f32({v} | {s.name}(hh_p.hh_zero))"
            return f"f32({v})"
        # float -> int: saturating, NaN -> 0 (LLVM's fptosi.sat). WGSL clamps to the largest float below
        # the type's maximum (2147483520 for i32), so the values from 2**bits on are set apart
        top = 1 << (d.bits - 1 if d.kind == "i" else d.bits)
        largest = self.literal(top - 1, dst, self.tf.fn.loc)
        return f"select(select({dw}({v}), {largest}, {v} >= {float(top)!r}f), {dw}(0), {v} != {v})"

    def expr(self, e: ir.Expr) -> str:
        tf = self.tf
        if tf.tables.get(e.nid) is not None:
            raise WgslUnsupported(e.loc, "constant tables")
        if e.nid in tf.consts and (not isinstance(e, ir.Call) or tf.callees[e.nid].kind == "cast"):
            const = number(tf.consts[e.nid])
            if const is not None:
                return self.literal(const, tf.types[e.nid], e.loc)
            raise WgslUnsupported(e.loc, f"a constant of type {type(tf.consts[e.nid]).__name__}")
        if isinstance(e, ir.Const):
            if e.value is None:
                return ""
            if isinstance(e.value, complex):
                raise WgslUnsupported(e.loc, "complex numbers")
            return self.literal(e.value, tf.types[e.nid], e.loc)
        if isinstance(e, ir.Name):
            if e.id in self.params:
                return self.params[e.id]
            if e.id in self.locals:
                return self.locals[e.id]
            raise WgslUnsupported(e.loc, f"the value of `{e.id}` here")
        if isinstance(e, ir.Attribute):
            base_t = tf.types[e.value.nid]
            if isinstance(base_t, StructT):
                return f"{self.expr(e.value)}.f_{e.attr}"
            if isinstance(base_t, ArrayT) and e.attr == "size":
                ref = self.array(e.value)
                return self.temp(" * ".join(ref.shape), "i64")
            raise WgslUnsupported(e.loc, f"`.{e.attr}` of {base_t}")
        if isinstance(e, (ir.BinOp, ir.UnaryOp)) and e.nid in tf.callees:  # an operator method of a struct
            operands = [e.left, e.right] if isinstance(e, ir.BinOp) else [e.operand]
            return self.call_function(tf.callees[e.nid], operands, e.loc)
        if isinstance(e, ir.BinOp):
            return self.binop(e)
        if isinstance(e, ir.UnaryOp):
            return self.unary(e)
        if isinstance(e, ir.Compare):
            return self.compare(e)
        if isinstance(e, ir.BoolOp):
            return self.bool_op(e)
        if isinstance(e, ir.IfExp):
            t = tf.types[e.nid]
            result = self.var(self.wt(t, e.loc))
            self.emit(f"if ({self.condition(e.test)}) {{")
            with self.indented():
                self.emit(f"{result} = {self.coerce(e.body, t)};")
            self.emit("} else {")
            with self.indented():
                self.emit(f"{result} = {self.coerce(e.orelse, t)};")
            self.emit("}")
            return result
        if isinstance(e, ir.Subscript):
            return self.subscript(e)
        if isinstance(e, ir.Call):
            return self.call(e)
        raise WgslUnsupported(e.loc, f"{type(e).__name__} expressions")

    def subscript(self, e: ir.Subscript) -> str:
        base_t = self.tf.tables.get(e.value.nid) or self.tf.types[e.value.nid]
        if isinstance(base_t, TupleT):
            if isinstance(e.value, ir.Attribute) and e.value.attr == "shape":
                ref = self.array(e.value.value)
                k = int(self.tf.consts[e.index.nid])
                return ref.shape[k]
            raise WgslUnsupported(e.loc, "tuples")
        if not isinstance(base_t, ArrayT):
            raise WgslUnsupported(e.loc, f"indexing {base_t}")
        if isinstance(self.tf.types[e.nid], ArrayT):
            raise WgslUnsupported(e.loc, "array views")
        ref = self.array(e.value)
        index = self.element_index(ref, e.index)
        self.m.touch(ref, read=True, write=ref.atomic)
        if ref.atomic:
            return self.temp(f"atomicLoad(&{ref.base}[{index}])")
        return self.temp(f"{ref.base}[{index}]")

    def array(self, e: ir.Expr) -> ArrayRef:
        t = self.tf.tables.get(e.nid) or self.tf.types.get(e.nid)  # (a table of a tuple is typed as one)
        if isinstance(t, TableT):
            return self.table(e, t)
        if isinstance(e, ir.Subscript) and isinstance(t, ArrayT):
            return self.view(e)
        if isinstance(e, ir.Name) and e.id in self.arrays:
            return self.arrays[e.id]
        if isinstance(e, ir.Call):
            callee = self.tf.callees.get(e.nid)
            if callee is not None and callee.kind == "gpu" and callee.name in ("shared_array", "local_array"):
                return self.static_array(e, callee)
            if callee is not None and callee.kind == "gpu" and callee.name == "dynamic_shared_array":
                return self.dynamic_shared(e, callee)
        raise WgslUnsupported(e.loc, "this kind of array expression")

    def view(self, e: ir.Subscript) -> ArrayRef:
        """``a[i]`` of an N-d array, ``a[i:j:k]``, ``a[:, j]``: the same memory, another offset, shape and strides
        (in elements, i64), as :mod:`hatch_hybrid.lower.views` makes them: an integer index moves the offset and
        drops the dimension (negative ones count from the end), a slice keeps it with the slice's length and
        the stride times the step, bounds clamped as ``slice.indices`` does."""
        base = self.array(e.value)
        index = e.index
        if not isinstance(index, ir.TupleExpr) and isinstance(self.tf.types[index.nid], TupleT):
            raise WgslUnsupported(index.loc, "indexing with a tuple variable")
        nodes = index.elts if isinstance(index, ir.TupleExpr) else [index]
        n = len(nodes)  # the dimensions after the last index are kept whole
        offset, shape, strides = base.offset, base.shape[n:], base.strides[n:]
        kept: list[tuple[str, str]] = []  # (length, stride) of each sliced dimension, in order
        for item, dim, stride in zip(nodes, base.shape, base.strides):
            if isinstance(item, ir.Slice):
                first, length, step = self.slice_indices(item, dim)
                kept.append((length, self.temp(f"{stride} * {step}", "i64")))
            else:  # an integer index: the dimension is dropped
                first = self.temp(self.coerce(item, WEAK_INT), "i64")
                if not signs.nonnegative_given(item, self.tf, self.nonnegative):
                    first = self.temp(f"select({first}, {first} + {dim}, {first} < 0li)", "i64")
            offset = self.temp(f"{offset} + {first} * {stride}", "i64")
        shape = [length for length, _ in kept] + shape
        strides = [step for _, step in kept] + strides
        return ArrayRef(base.base, base.elem, offset, shape, strides, base.atomic, base.workgroup)

    def slice_indices(self, s: ir.Slice, n: str) -> tuple[str, str, str]:
        """(start, length, step) of ``s`` over a dimension of ``n`` elements, as ``slice(...).indices(n)`` and
        ``len(range(...))`` compute them (a step of zero found at run time fails as NumPy's ValueError)."""

        def given(node: ir.Expr | None) -> str | None:
            if node is None or self.tf.types[node.nid] == NONE:
                return None
            v = self.temp(self.coerce(node, WEAK_INT), "i64")
            if self.tf.types[node.nid] == Scalar("u64"):  # 2**63 and more: past any end, not negative
                v = self.temp(f"select({v}, 9223372036854775807li, {v} < 0li)", "i64")
            return v

        step = given(s.step)
        if step is None:
            step = "1li"
        elif s.step is not None and s.step.nid not in self.tf.consts:  # known steps are checked when typed
            self.check(f"{step} != 0li", "slicestep", s.step.loc)
        back = self.temp(f"{step} < 0li", "bool")
        lower = self.temp(f"select(0li, -1li, {back})", "i64")
        upper = self.temp(f"select({n}, {n} - 1li, {back})", "i64")

        def bound(node: ir.Expr | None, default: str) -> str:
            v = given(node)
            if v is None:
                return default
            # negative bounds count from the end, then clamp to [lower, upper]
            return self.temp(f"select(min({v}, {upper}), max({v} + {n}, {lower}), {v} < 0li)", "i64")

        start = bound(s.lower, self.temp(f"select({lower}, {upper}, {back})", "i64"))
        stop = bound(s.upper, self.temp(f"select({upper}, {lower}, {back})", "i64"))
        nonempty = f"select({start} < {stop}, {stop} < {start}, {back})"
        span = f"select({stop} - {start} - 1li, {start} - {stop} - 1li, {back})"
        magnitude = f"select({step}, -{step}, {back})"
        length = self.temp(f"select(0li, {span} / {magnitude} + 1li, {nonempty})", "i64")
        return start, length, step

    def table(self, e: ir.Expr, t: TableT) -> ArrayRef:
        """A module constant read as a table: a module-scope ``const`` array of its values (one per distinct
        table), indexed as the other arrays are."""
        if isinstance(e, ir.Subscript):
            raise WgslUnsupported(e.loc, "rows of constant tables (index every dimension at once: T[i, j])")
        elem = t.dtype
        if not isinstance(elem, Scalar) or elem.name not in ELEMENTS:
            raise WgslUnsupported(e.loc, f"constant tables of {elem} (this target: f32, i32, u32, i64, u64)")
        name = self.m.tables.get(t.key)
        if name is None:
            name = self.m.tables[t.key] = f"hh_tab{len(self.m.tables)}"
            values = ", ".join(self.literal(v.item(), elem, e.loc) for v in np.asarray(t.data).ravel())
            self.m.workgroup.append(f"const {name} = array<{elem.name}, {max(1, t.data.size)}>({values});")
        strides: list[int] = []
        acc = 1
        for d in reversed(t.shape):
            strides.insert(0, acc)
            acc *= int(d)
        return ArrayRef(name, elem, "0li", [f"{d}li" for d in t.shape], [f"{s}li" for s in strides], workgroup=True)

    def dynamic_shared(self, e: ir.Call, callee: Callee) -> ArrayRef:
        """``gpu.dynamic_shared_array(dtype)``: one workgroup array whose length is a pipeline constant, the
        launch's ``shared_bytes`` in elements (every call of a kernel views the same memory, as in CUDA; WGSL
        cannot view one memory as two element types, so they must agree)."""
        elem = callee.arg_types[0]
        if not isinstance(elem, Scalar) or elem.name not in WGSL_SCALARS or elem.name == "boolean":
            raise WgslUnsupported(e.loc, f"dynamic shared arrays of {elem}")
        m = self.m
        if m.dynamic is not None and m.dynamic != elem:
            raise WgslUnsupported(e.loc, f"dynamic shared memory viewed as {m.dynamic} and as {elem}")
        if m.dynamic is None:
            m.dynamic = elem
            m.workgroup.append(
                f"override hh_dyn_n: u32 = 0u;\nvar<workgroup> hh_dyn: array<{elem.name}, max(hh_dyn_n, 1u)>;"
            )
        # (its length through the uniform zero word: naga's constant evaluator cannot narrow a 64-bit constant,
        # which the pipeline constant would make of it)
        return ArrayRef("hh_dyn", elem, "0li", ["bitcast<i64>(u64(hh_dyn_n | hh_p.hh_zero))"], ["1li"], workgroup=True)

    def static_array(self, e: ir.Call, callee: Callee) -> ArrayRef:
        t = self.tf.types[e.nid]
        assert isinstance(t, ArrayT)
        elem = t.dtype
        if not isinstance(elem, Scalar) or elem.name not in WGSL_SCALARS or elem.name == "boolean":
            raise WgslUnsupported(e.loc, f"shared arrays of {elem}")
        shape = self.tf.consts.get(e.nid)
        dims = list(shape) if isinstance(shape, tuple) else None
        if dims is None:
            raise WgslUnsupported(e.loc, "this array's shape")
        size = 1
        for d in dims:
            size *= int(d)
        strides: list[int] = []
        acc = 1
        for d in reversed(dims):
            strides.insert(0, acc)
            acc *= int(d)
        atomic = e.nid in self.m.atomic_shared
        if atomic and elem.name not in ATOMIC_ELEMENTS:
            raise WgslUnsupported(e.loc, f"atomics on {elem} arrays (this target: i32, u32)")
        if callee.name == "shared_array":
            name = f"hh_sh{len(self.m.workgroup)}"
            inner = f"atomic<{elem.name}>" if atomic else elem.name
            self.m.workgroup.append(f"var<workgroup> {name}: array<{inner}, {size}>;")
        else:  # the thread's own, zero-filled each time the call runs (the Python path's np.zeros)
            name = f"hh_la{self.local_arrays}"
            self.local_arrays += 1
            self.lines.insert(0, f"    var {name}: array<{elem.name}, {size}>;")
            self.emit(f"{name} = array<{elem.name}, {size}>();")
        refs = [f"{d}li" for d in dims], [f"{s}li" for s in strides]
        return ArrayRef(name, elem, "0li", *refs, atomic=atomic, workgroup=True)

    def element_index(self, ref: ArrayRef, index: ir.Expr) -> str:
        nodes = index.elts if isinstance(index, ir.TupleExpr) else [index]
        if len(nodes) != len(ref.shape):
            raise WgslUnsupported(index.loc, "indexing with a tuple variable")
        # in 32 bits, as the PTX's __i32 entry computes offsets: every array has fewer than 2**31 elements (the
        # runtime checks), so every partial offset of a valid access fits, and an index that does not fit is
        # out of bounds either way (WebGPU clamps it into the buffer)
        offset = as_i32(ref.offset)
        for node, dim, stride in zip(nodes, ref.shape, ref.strides):
            i = self.temp(as_i32(self.coerce(node, WEAK_INT)), "i32")
            if not signs.nonnegative_given(node, self.tf, self.nonnegative):
                i = self.temp(f"select({i}, {i} + {as_i32(dim)}, {i} < 0i)", "i32")  # Python's negative indices
            offset = f"{offset} + {i} * {as_i32(stride)}"
        return offset

    def exact(self, name: str, text: str) -> str:
        """A correctly rounded f32 operation of the prelude (see :data:`.prelude.DIV_F32`)."""
        self.m.need("hh_fused_fma", FUSED_FMA)
        return self.m.need(name, text)

    def binop(self, e: ir.BinOp) -> str:
        ops = self.tf.optypes[e.nid]
        left = self.coerce(e.left, ops.left, "arith")
        return self.binop_values(e.op, left, ops.left, e.right, ops, e.loc)

    def aug_assign(self, s: ir.AugAssign) -> None:
        """``x op= v``: the target read once (an element's index computed once, as Python indexes once)."""
        tf = self.tf
        ops = tf.optypes[s.nid]
        callee = tf.callees.get(s.nid)
        if callee is not None:
            raise WgslUnsupported(s.loc, "augmented assignment of structs")
        if isinstance(s.target, ir.Subscript):
            arr_t = tf.types[s.target.value.nid]
            assert isinstance(arr_t, ArrayT) and isinstance(arr_t.dtype, Scalar)
            ref = self.array(s.target.value)
            index = self.temp(self.element_index(ref, s.target.index))
            self.m.touch(ref, read=True, write=True)
            if ref.atomic:
                raise WgslUnsupported(s.loc, "augmented assignment of an array that atomics update")
            current = self.temp(f"{ref.base}[{index}]")
            result = self.binop_values(
                s.op, self.convert(current, arr_t.dtype, ops.left), ops.left, s.value, ops, s.loc
            )
            self.convert_check(result, ops.result, arr_t.dtype, s.loc, "store")
            self.emit(f"{ref.base}[{index}] = {self.convert(result, ops.result, arr_t.dtype)};")
            return
        if isinstance(s.target, ir.Name):
            t = tf.locals[s.target.id]
            current = self.convert(self.locals[s.target.id], t, ops.left)
            result = self.binop_values(s.op, current, ops.left, s.value, ops, s.loc)
            self.convert_check(result, ops.result, t, s.loc, "store")
            self.emit(f"{self.locals[s.target.id]} = {self.convert(result, ops.result, t)};")
            return
        raise WgslUnsupported(s.loc, "augmented assignment of a field")

    def binop_values(self, op: str, left: str, left_t: Type, right_node: ir.Expr, ops: Any, loc: Loc) -> str:
        """``left op right`` with ``left`` already of ``ops.left``: Python's and NumPy's meaning."""
        e_loc = loc
        right = self.coerce(right_node, ops.right, "arith")
        python_numbers = isinstance(ops.left, Weak) and isinstance(ops.right, Weak)
        right_const = number(self.tf.consts.get(right_node.nid))
        s = storage(ops.left)
        wt = self.wt(ops.left, e_loc)
        if op in ("/", "//", "%") and python_numbers and right_const is None:
            self.check(self.truth(right, ops.right, e_loc), "zerodiv", e_loc)
        if op in ("<<", ">>") and python_numbers and not (isinstance(right_const, int) and right_const >= 0):
            self.check(f"{right} >= 0li", "value", e_loc, "negative shift count")
        if s.kind == "b" and op in ("+", "*"):
            result = f"({left} {'|' if op == '+' else '&'} {right})"
        elif op in ("+", "-"):
            result = f"({left} {op} {right})"
        elif op == "*":
            result = f"({left} * {right})"
            if s.kind == "f":  # a product that no driver may fuse into an FMA (see wgsl_fma_barrier)
                result = f"hh_nofma({result})"
                self.m.need("hh_nofma", NOFMA)
        elif op == "/":
            if s.kind != "f":
                raise WgslUnsupported(e_loc, "true division of integers (an f64 result)")
            result = f"{self.exact('hh_div_f32', DIV_F32)}({left}, {right})"
        elif op in ("//", "%"):
            if s.kind == "f":
                raise WgslUnsupported(e_loc, f"`{op}` of floats")
            fn = self.m.need(f"hh_divmod_{wt}", divmod_fn(wt))
            result = f"{fn}({left}, {right}).{'q' if op == '//' else 'r'}"
        elif op == "**":
            if s.kind == "f" and right_const == 2:
                result = f"hh_nofma({left} * {left})"
                self.m.need("hh_nofma", NOFMA)
            elif s.kind in "iu":
                if s.kind == "i" and not python_numbers and not (isinstance(right_const, int) and right_const >= 0):
                    self.check(
                        f"{right} >= {wt}(0)", "value", e_loc, "Integers to negative integer powers are not allowed."
                    )
                if python_numbers and not (isinstance(right_const, int) and right_const >= 0):
                    raise WgslUnsupported(e_loc, "a Python int to a negative power (a float result)")
                fn = self.m.need(f"hh_ipow_{wt}", ipow_fn(wt))
                result = f"{fn}({left}, {right})"
            else:
                raise WgslUnsupported(e_loc, "float powers (pow is not correctly rounded on GPUs)")
        elif op in ("&", "|", "^"):
            result = f"({left} {op} {right})"
        elif op in ("<<", ">>"):
            rw = self.wt(ops.right, e_loc)
            fn = self.m.need(f"hh_shift_{op == '<<'}_{wt}_{rw}", shift_fn(op, wt, rw, s.bits))
            result = f"{fn}({left}, {right})"
        else:  # pragma: no cover
            raise WgslUnsupported(e_loc, f"operator {op}")
        out = self.temp(result, wt)
        return self.convert(out, ops.left, ops.result)

    def unary(self, e: ir.UnaryOp) -> str:
        if e.op == "not":
            return self.temp(f"!({self.condition(e.operand)})")
        t = self.tf.types[e.nid]
        v = self.coerce(e.operand, t)
        if e.op == "+":
            return v
        if e.op == "-":
            s = storage(t)
            if s.kind == "u":
                return self.temp(f"(0u - {v})" if s.bits == 32 else f"(0lu - {v})")
            return self.temp(f"(-{v})")
        if e.op == "~":
            return self.temp(f"(~{v})")
        raise WgslUnsupported(e.loc, f"unary {e.op}")

    def compare(self, e: ir.Compare) -> str:
        result = self.var("bool", "false")
        left_node, left = e.left, self.operand(e.left)
        closes = 0
        for k, (op, comp) in enumerate(zip(e.ops, e.comparators)):
            ops = self.tf.cmptypes[(e.nid, k)]
            right = self.operand(comp)
            sa, sb = storage(ops.left), storage(ops.right)
            a, b = self.value_as(left_node, left, ops.left), self.value_as(comp, right, ops.right)
            if sa != sb:  # NumPy compares mixed integers exactly: in a type that holds both
                if sa.kind not in "iu" or sb.kind not in "iu" or "u64" in (sa.name, sb.name):
                    raise WgslUnsupported(e.loc, f"comparing {ops.left} with {ops.right}")
                wide = storage(WEAK_INT)
                a = a if sa.name == "i64" else widen(a, sa, wide)
                b = b if sb.name == "i64" else widen(b, sb, wide)
            ok = self.temp(f"({a} {op} {b})" if sa.kind != "f" or op != "!=" else f"!({a} == {b})", "bool")
            if k == len(e.ops) - 1:
                self.emit(f"{result} = {ok};")
            else:
                self.emit(f"if ({ok}) {{")
                self.depth += 1
                closes += 1
            left, left_node = right, comp
        for _ in range(closes):
            self.depth -= 1
            self.emit("}")
        return result

    def const_of(self, e: ir.Expr) -> int | float | bool | None:
        """The value of a number known at build time (a literal, or what the checker folded)."""
        if isinstance(e, ir.Const) and not isinstance(e.value, complex):
            return e.value
        callee = self.tf.callees.get(e.nid) if isinstance(e, ir.Call) else None
        if isinstance(e, ir.Call) and (callee is None or callee.kind != "cast"):
            return None
        return number(self.tf.consts.get(e.nid))

    def operand(self, e: ir.Expr) -> str:
        """An operand's value ("" for a constant, which :meth:`value_as` writes in the type it is used as)."""
        if self.const_of(e) is not None:
            return ""
        return self.expr(e)

    def value_as(self, e: ir.Expr, value: str, to: Type) -> str:
        if value == "":
            const = self.const_of(e)
            assert const is not None
            return self.literal(const, to, e.loc)
        return self.convert(value, self.tf.types[e.nid], to)

    def bool_op(self, e: ir.BoolOp) -> str:
        t = self.tf.types[e.nid]
        result = self.var(self.wt(t, e.loc))
        closes = 0
        for k, v in enumerate(e.values):
            value = self.coerce(v, t)
            self.emit(f"{result} = {value};")
            if k < len(e.values) - 1:
                truth = self.truth(result, t, v.loc)
                self.emit(f"if ({truth if e.op == 'or' else '!' + truth}) {{ }} else {{")
                self.depth += 1
                closes += 1
        for _ in range(closes):
            self.depth -= 1
            self.emit("}")
        return result

    # ---------------------------------------------------------------- calls
    def call(self, e: ir.Call) -> str:
        tf = self.tf
        if e.nid in tf.prints:
            raise WgslUnsupported(e.loc, "print()")
        callee = tf.callees[e.nid]
        if callee.kind == "cast":
            return self.coerce(e.args[0], tf.types[e.nid], "cast")
        if callee.kind == "builtin":
            return self.builtin(e, callee)
        if callee.kind == "gpu":
            return self.gpu(e, callee)
        if callee.kind in ("helper", "method"):
            nodes = bound_nodes(e, tf.call_args[e.nid])
            if callee.kind == "method" and isinstance(e.func, ir.Attribute):
                nodes.insert(0, e.func.value)  # the receiver is `self`
            return self.call_function(callee, nodes, e.loc)
        if callee.kind == "struct":
            struct = tf.types[e.nid]
            assert isinstance(struct, StructT)
            given = dict(zip([n for n, _ in struct.fields], e.args)) | e.keywords
            items = [self.coerce(given[n], ft) for n, ft in struct.fields]
            return self.temp(f"{self.wt(struct, e.loc)}({', '.join(items)})")
        if callee.kind == "math":
            raise WgslUnsupported(e.loc, f"math.{callee.name} (f64, or not correctly rounded on GPUs)")
        raise WgslUnsupported(e.loc, f"{callee.kind} calls ({callee.name})")

    def call_function(self, callee: Callee, nodes: list[ir.Expr], loc: Loc) -> str:
        target = callee.target
        assert target is not None
        refs: list[ArrayRef | None] = []
        args: list[str] = []
        for node, t in zip(nodes, target.arg_types):
            if isinstance(t, ArrayT):
                ref = self.array(node)
                refs.append(ref)
                args += [ref.offset, *ref.shape, *ref.strides]
            else:
                refs.append(None)
                args.append(self.coerce(node, t))
        name = self.m.helper(target, refs, loc)
        call = f"{name}({', '.join(args)})"
        if target.return_type == NONE:
            self.emit(f"{call};")
            return ""
        return self.temp(call)

    def builtin(self, e: ir.Call, callee: Callee) -> str:
        t = self.tf.types[e.nid]
        if callee.name == "len":
            arg_t = self.tf.tables.get(e.args[0].nid) or self.tf.types[e.args[0].nid]
            if isinstance(arg_t, ArrayT):
                return self.array(e.args[0]).shape[0]
            if isinstance(arg_t, TupleT):  # its length is its type's
                return f"{len(arg_t.items)}li"
            raise WgslUnsupported(e.loc, f"len() of {arg_t}")
        if callee.name == "abs":
            s = storage(t)
            v = self.coerce(e.args[0], t)
            if s.kind == "f":
                return self.temp(f"abs({v})")
            if s.kind == "u":
                return v
            return self.temp(f"select({v}, -{v}, {v} < {self.wt(t, e.loc)}(0))")
        if callee.name in ("min", "max"):
            if storage(t).kind == "f" or not all(isinstance(self.tf.types[a.nid], (Scalar, Weak)) for a in e.args):
                if storage(t).kind != "f":
                    raise WgslUnsupported(e.loc, f"{callee.name}() of these arguments")
            values = [self.coerce(a, t) for a in e.args]
            result = self.temp(values[0], self.wt(t, e.loc))
            op = "<" if callee.name == "min" else ">"
            for v in values[1:]:  # Python: keep the current value unless the next is strictly better
                result = self.temp(f"select({result}, {v}, {v} {op} {result})")
            return result
        raise WgslUnsupported(e.loc, f"{callee.name}()")

    def gpu(self, e: ir.Call, callee: Callee) -> str:
        name = callee.name
        if name in GPU_INDEX:
            what, axis = name.rsplit("_", 1)
            return self.temp(self.index_value(what, axis), "i64")
        if name in ("grid", "gridsize"):
            n = self.tf.consts[e.nid]
            if n != 1:
                raise WgslUnsupported(e.loc, f"cuda.{name}({n}) (a tuple)")
            return self.temp(self.index_value("global_tid" if name == "grid" else "global_size", "x"), "i64")
        if name == "syncthreads":
            self.emit(STORAGE_BARRIER_MARK)
            self.emit("workgroupBarrier();")
            return ""
        if name == "threadfence":
            self.emit("storageBarrier();")
            return ""
        if name in ATOMIC_FUNCS or name in ("atomic_cas", "atomic_inc", "atomic_dec"):
            return self.atomic(e, name)
        if name in ("shared_array", "local_array"):
            raise WgslUnsupported(e.loc, "a shared array outside an assignment")
        if name in SHUFFLES or name in VOTES or name == "lane_id":
            return self.warp(e, callee)
        raise WgslUnsupported(e.loc, f"gpu.{name}")

    def warp(self, e: ir.Call, callee: Callee) -> str:
        """Warp calls as subgroup operations: CUDA's 32 lanes are the adapter's subgroups, which the runtime
        checks at launch (32 lanes, numbered as the block's threads modulo 32); the source lane of a shuffle
        follows the native code's rules (lower/host.py's _source_lane): outside the warp or the segment,
        a lane keeps its own value."""
        self.m.subgroups = True
        name = callee.name
        lane = "bitcast<i64>(u64(hh_lid_index % 32u))"
        if name == "lane_id":
            return self.temp(lane, "i64")
        if name in VOTES:
            pred = self.condition(e.args[0])
            if name == "ballot":
                return self.temp(f"bitcast<i64>(u64(subgroupBallot({pred}).x))", "i64")
            return self.temp(f"{'subgroupAll' if name == 'all_' else 'subgroupAny'}({pred})", "bool")
        t = self.tf.types[e.nid]
        v = self.coerce(e.args[0], t)
        d = self.temp(self.coerce(e.args[1], WEAK_INT), "i64")
        width = int(self.tf.consts[e.args[2].nid]) if len(e.args) == 3 else 32
        ln = self.temp(lane, "i64")
        if width != 32:
            d = self.temp(f"({d} & 4294967295li)", "i64")
            low = self.temp(f"({ln} & {~(width - 1) & 31}li)", "i64")
            high = f"({low} | {width - 1}li)"
            j = {"shfl_up": f"{ln} - {d}", "shfl_down": f"{ln} + {d}", "shfl_xor": f"{ln} ^ {d}"}.get(
                name, f"{low} | ({d} & {width - 1}li)"
            )
            j = self.temp(j, "i64")
            ok = f"{j} >= {low}" if name == "shfl_up" else f"u64({j}) <= u64({high})"
        else:
            j = {"shfl_up": f"{ln} - {d}", "shfl_down": f"{ln} + {d}", "shfl_xor": f"({ln} ^ {d}) & 31li"}.get(
                name, f"{d} & 31li"
            )
            j = self.temp(j, "i64")
            ok = f"u64({j}) < 32lu"
        src = self.temp(f"u32(select({ln}, {j}, {ok}))", "u32")
        wt = self.wt(t, e.loc)
        if wt in ("f32", "i32", "u32"):
            return self.temp(f"subgroupShuffle({v}, {src})", wt)
        if wt == "bool":
            return self.temp(f"subgroupShuffle(select(0u, 1u, {v}), {src}) != 0u", "bool")
        bits = self.temp(f"bitcast<u64>({v})" if wt == "i64" else v, "u64")
        lo = f"subgroupShuffle(u32({bits} & 4294967295lu), {src})"
        hi = f"subgroupShuffle(u32({bits} >> 32u), {src})"
        joined = f"((u64({hi}) << 32u) | u64({lo}))"
        return self.temp(f"bitcast<i64>{joined}" if wt == "i64" else joined, wt)

    def grid_call(self, e: ir.Expr) -> tuple[str, int] | None:
        """``cuda.grid(n)`` / ``cuda.gridsize(n)``: what it reads and n (None: another expression)."""
        callee = self.tf.callees.get(e.nid) if isinstance(e, ir.Call) else None
        if callee is None or callee.kind != "gpu" or callee.name not in ("grid", "gridsize"):
            return None
        return ("global_tid" if callee.name == "grid" else "global_size"), int(self.tf.consts[e.nid])

    def index_value(self, what: str, axis: str) -> str:
        size = {"x": "hh_bx", "y": "hh_by", "z": "hh_bz"}[axis]
        grid = {"x": "hh_p.hh_gx", "y": "hh_p.hh_gy", "z": "hh_p.hh_gz"}[axis]

        def i64(x: str) -> str:
            return f"bitcast<i64>(u64({x}))"

        if what == "thread_idx":
            return i64(f"hh_tid.{axis}")
        if what == "block_idx":
            return i64(f"hh_bid.{axis}")
        if what == "block_dim":
            return i64(size)
        if what == "grid_dim":
            return i64(grid)
        if what == "global_tid":
            return f"{i64(f'hh_bid.{axis}')} * {i64(size)} + {i64(f'hh_tid.{axis}')}"
        return f"{i64(grid)} * {i64(size)}"

    def atomic(self, e: ir.Call, name: str) -> str:
        ref = self.array(e.args[0])
        if ref.elem.name not in ATOMIC_ELEMENTS:
            raise WgslUnsupported(e.loc, f"atomics on {ref.elem} arrays (this target: i32, u32)")
        index = self.element_index(ref, e.args[1])
        self.m.touch(ref, read=True, write=True)
        elem = ref.elem
        where = f"&{ref.base}[{self.temp(index, 'i32')}]"
        if name == "atomic_cas":
            # CUDA's atomicCAS is strong; WGSL's exchange may fail spuriously: try again while the value seen is
            # the one expected and nothing was exchanged
            expected, value = (self.temp(self.coerce(a, elem), elem.name) for a in e.args[2:4])
            old = self.var(elem.name)
            self.emit("loop {")
            with self.indented():
                self.emit(f"let r = atomicCompareExchangeWeak({where}, {expected}, {value});")
                self.emit(f"if (r.exchanged || r.old_value != {expected}) {{ {old} = r.old_value; break; }}")
            self.emit("}")
            return old
        value = self.temp(self.coerce(e.args[2], elem), elem.name)
        if name in ("atomic_inc", "atomic_dec"):
            # CUDA's atomicInc (old >= v ? 0 : old + 1) and atomicDec (old == 0 || old > v ? v : old - 1), as a
            # compare-and-exchange loop; unsigned comparisons, as PTX's atom.inc/dec.u32 makes them
            u = "bitcast<u32>({})" if elem.name == "i32" else "{}"
            old = self.var(elem.name, f"atomicLoad({where})")
            one, zero = f"{elem.name}(1)", f"{elem.name}(0)"
            if name == "atomic_inc":
                new = f"select({old} + {one}, {zero}, {u.format(old)} >= {u.format(value)})"
            else:
                wrap = f"{old} == {zero} || {u.format(old)} > {u.format(value)}"
                new = f"select({old} - {one}, {value}, {wrap})"
            self.emit("loop {")
            with self.indented():
                self.emit(f"let r = atomicCompareExchangeWeak({where}, {old}, {new});")
                self.emit("if (r.exchanged) { break; }")
                self.emit(f"{old} = r.old_value;")
            self.emit("}")
            return old
        return self.temp(f"{ATOMIC_FUNCS[name]}({where}, {value})")
