"""Type checking of user-defined types: ``@struct`` classes (fields, methods, operators, the rules that
keep them values on both sides), ``IntEnum`` members, and the TypeVars of generic kernels and helpers.

:class:`UserTypeChecker` is mixed into :class:`~.function.FunctionChecker`.
"""

from __future__ import annotations

import ast
from typing import Any

import numpy as np
from hybrid_runtime.numba_signatures import c_layout, record_name, record_text
from hybrid_runtime.structs import dtype_from_json

from .. import ir
from ..errors import CompileError, Loc, Note
from ..frontend.discover import EnumSym, ExternalSym, KernelDecl, StructSym, TypeVarSym
from ..frontend.parse import Parser, parse_function
from ..types import ArrayT, EnumT, Scalar, StructT, TupleT, Type, Weak, is_complex, is_numeric, scalar_of_dtype
from . import rules
from .arguments import bound_nodes
from .cuda_spelling import rewrite_cuda_spelling
from .tables import refuse_write
from .typed import Callee, MethodSym, ProgramLike, StructInfo, SymbolT, TypedFunction
from .views import array_root

BINARY_METHODS = {
    "+": "__add__",
    "-": "__sub__",
    "*": "__mul__",
    "/": "__truediv__",
    "//": "__floordiv__",
    "%": "__mod__",
    "**": "__pow__",
    "<<": "__lshift__",
    ">>": "__rshift__",
    "&": "__and__",
    "|": "__or__",
    "^": "__xor__",
}
UNARY_METHODS = {"-": "__neg__", "+": "__pos__", "~": "__invert__"}


def read_struct(program: ProgramLike, sym: StructSym) -> StructInfo:
    """Read a ``@struct`` class from source: annotated fields in order, methods and staticmethods."""
    info = program.index.module(sym.module)
    node = info.classes[sym.name]
    parser = Parser(str(info.path), sym.module)
    fields: list[tuple[str, Type]] = []
    methods: dict[str, tuple[ir.Function, bool]] = {}
    for stmt in node.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            if stmt.value is not None:
                raise CompileError(
                    parser.loc(stmt.value),
                    "struct fields cannot have default values",
                    "pass every field to the constructor",
                )
            t = program.annotation(sym.module, parser.annotation(stmt.annotation))
            t = t.storage if isinstance(t, Weak) else t
            if not isinstance(t, (Scalar, StructT)):
                raise CompileError(parser.loc(stmt.annotation), f"struct fields hold scalars or structs, not {t}")
            fields.append((stmt.target.id, t))
        elif isinstance(stmt, ast.FunctionDef):
            static = False
            for dec in stmt.decorator_list:
                if isinstance(dec, ast.Name) and dec.id == "staticmethod":
                    static = True
                else:
                    raise CompileError(
                        parser.loc(dec),
                        "methods of structs used in kernels take no decorators but @staticmethod",
                    )
            fn = parse_function(stmt, str(info.path), sym.module)
            fn.name = f"{sym.name}.{stmt.name}"
            _resolve_self(program, fn, sym)
            rewrite_cuda_spelling(program, fn)
            if not static and not fn.params:
                raise CompileError(fn.loc, f"method {fn.name} needs a `self` parameter")
            methods[stmt.name] = (fn, static)
    if not fields:
        raise CompileError(Loc(str(info.path), node.lineno, node.col_offset), f"struct {sym.name} has no fields")
    return StructInfo(StructT(sym.qualname, tuple(fields)), methods)


def _resolve_self(program: ProgramLike, fn: ir.Function, sym: StructSym) -> None:
    """``typing.Self`` in a method's annotations means the struct itself."""

    def replace(node: ir.Expr) -> ir.Expr:
        if isinstance(node, (ir.Name, ir.Attribute)) and program._static(sym.module, node) == ExternalSym(
            "typing.Self"
        ):
            return ir.Name(sym.name, loc=node.loc)
        if isinstance(node, ir.Subscript):
            node.index = replace(node.index)
        elif isinstance(node, ir.TupleExpr):
            node.elts = [replace(e) for e in node.elts]
        return node

    for p in fn.params:
        p.annotation = replace(p.annotation) if p.annotation is not None else None
    fn.returns = replace(fn.returns) if fn.returns is not None else None
    for node in ir.walk(fn):
        if isinstance(node, ir.Assign) and node.annotation is not None:
            node.annotation = replace(node.annotation)


def kernel_variants(program: ProgramLike, decl: KernelDecl) -> list[dict[str, Type]]:
    """The TypeVar bindings of ``@kernel(specialize={"T": [f32, i32]})``: one per combination, in the
    order written (``[{}]`` for a kernel that is not generic). A kernel with numba's eager signatures
    (``@cuda.jit("void(float32[:], int32)")``): one per signature, binding each parameter by position
    (``"#0"``, ``"#1"``, ...: see :func:`signature_param`)."""
    signatures = decl.options.get("signatures")
    if signatures is not None:
        return [
            {signature_param(k): _signature_type(element, ndim, decl) for k, (element, ndim) in enumerate(sig)}
            for sig in signatures
        ]
    spec = decl.options.get("specialize")
    if spec is None:
        return [{}]
    file = str(decl.loc.file)
    if not isinstance(spec, ast.Dict):
        raise CompileError(decl.loc, 'specialize= takes a dict: specialize={"T": [f32, i32]}')
    combos: list[dict[str, Type]] = [{}]
    for key, value in zip(spec.keys, spec.values):
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
            raise CompileError(decl.loc, "the keys of specialize= are TypeVar names as strings")
        sym = program.index.resolve_global(decl.module, key.value)
        if not isinstance(sym, TypeVarSym):
            raise CompileError(
                Loc(file, key.lineno, key.col_offset),
                f"specialize= names `{key.value}`, which is not a TypeVar of this module",
                f'define it: {key.value} = typing.TypeVar("{key.value}")',
            )
        if not isinstance(value, (ast.List, ast.Tuple)) or not value.elts:
            raise CompileError(decl.loc, f"specialize={{'{key.value}': [...]}} needs a list of types")
        types = []
        for elt in value.elts:
            t = program.annotation(decl.module, Parser(file, decl.module).annotation(elt))
            t = t.storage if isinstance(t, Weak) else t
            if not isinstance(t, (Scalar, StructT)):
                raise CompileError(Loc(file, elt.lineno, elt.col_offset), f"cannot specialise over {t}")
            types.append(t)
        combos = [{**c, sym.qualname: t} for c in combos for t in types]
    return combos


def signature_param(k: int) -> str:
    """The key that binds parameter ``k`` of a kernel with an eager signature in its variant's bindings."""
    return f"#{k}"


def annotation_typevar(program: ProgramLike, module: str, node: ir.Expr) -> tuple[TypeVarSym, bool] | None:
    """The TypeVar an annotation names: directly (``T``: False) or as an array's element (``Array[T]``:
    True); None if it names none."""
    element = isinstance(node, ir.Subscript)
    if isinstance(node, ir.Subscript):
        node = node.index.elts[0] if isinstance(node.index, ir.TupleExpr) else node.index
    sym = program._static(module, node)
    return (sym, element) if isinstance(sym, TypeVarSym) else None


class UserTypeChecker:
    tf: TypedFunction
    program: ProgramLike
    module: str
    fn: ir.Function
    params: dict[str, int]
    local_names: set[str]
    typevars: dict[str, Type]
    mutated: dict[str, Loc]
    shared: dict[str, Loc]
    copies: list[tuple[str, Loc]]
    mutations: dict[str, list[Loc]]
    returned_objects: list[tuple[str, Loc, str]]
    aliases: dict[str, set[int]]
    assignment_counts: dict[str, int]
    final: bool

    def expr(self, e: ir.Expr) -> Type:  # provided by FunctionChecker
        raise NotImplementedError

    def _bind_typevars(self) -> None:
        """A generic helper (``def swap(a: T, b: T)``) binds its TypeVars to the argument types."""
        for p, t in zip(self.fn.params, self.tf.arg_types):
            found = annotation_typevar(self.program, self.module, p.annotation) if p.annotation else None
            if found is not None:
                sym, element = found
                if element:
                    if not isinstance(t, ArrayT):
                        continue
                    t = t.dtype
                bound = self.typevars.setdefault(sym.qualname, t)
                if bound != t:
                    raise CompileError(
                        p.loc,
                        f"TypeVar {sym.name} is {bound} for an earlier parameter of {self.fn.name}() "
                        f"but {t} for `{p.name}`",
                        "pass arguments of one type for parameters annotated with the same TypeVar",
                    )

    def _check_struct_sharing(self) -> None:
        """Structs are values on the device; on the CPU they are objects, so a variable bound to an
        existing struct shares it. Field writes are allowed only where nothing can be shared."""
        for name, loc in self.mutated.items():
            if name in self.shared:
                raise CompileError(
                    loc,
                    f"cannot assign a field of `{name}`: `{name}` is bound to an existing struct value, which on the "
                    "CPU is shared with where it came from",
                    f"make a new value first: `{name} = Cls(...)` (a constructor call is new; an array element is a "
                    "view of the array: assign `a[i].x = ...` to change the array)",
                    [Note(self.shared[name], f"`{name}` is bound to an existing value here")],
                )
        in_loops = {
            n.nid for loop in ir.walk(self.fn) if isinstance(loop, (ir.While, ir.ForRange)) for n in ir.walk(loop)
        }
        looped = {n.loc for n in ir.walk(self.fn) if n.nid in in_loops}
        for source, loc, name in self.returned_objects:
            later = [
                m
                for m in self.mutations.get(source, [])
                if m != loc and ((m.line, m.col) > (loc.line, loc.col) or loc in looped)
            ]
            if later:
                raise CompileError(
                    later[0],
                    f"`{source}` is changed here, after `{name}` was bound to the object it holds (the helper returns "
                    f"its parameter): on the CPU `{name}` sees the change, on the GPU `{name}` is a copy",
                    f"make `{name}` a new value (`{name} = Cls(...)` from its fields), or keep using `{source}`",
                    [Note(loc, f"`{name}` is bound to `{source}`'s object here")],
                )
        for source, loc in self.copies:
            if source in self.mutated:
                raise CompileError(
                    loc,
                    f"`{source}` has fields assigned elsewhere, so this assignment would share one struct object on "
                    "the CPU but copy it on the GPU",
                    "construct a new value: `b = Cls(a.x, a.y)`",
                    [Note(self.mutated[source], f"a field of `{source}` is assigned here")],
                )

    def _note_returned_struct(self, value: ir.Expr) -> None:
        """Which object a returned struct may be on the CPU path: a parameter's, or a new one."""
        tf = self.tf
        callee = tf.callees.get(value.nid)
        if isinstance(value, ir.Name) and value.id in self.params:
            if tf.returns_params is not None:
                tf.returns_params.add(self.params[value.id])
        elif not (callee is not None and callee.kind == "struct") and not (
            isinstance(value, ir.Name) and value.id not in self.shared and value.id not in tf.element_bound
        ):
            tf.returns_params = None

    def _returned_locals(self, value: ir.Expr) -> list[str]:
        """The struct locals whose object a helper's or method's result may be (its returned parameters)."""
        callee = self.tf.callees.get(value.nid)
        if not isinstance(value, ir.Call) or callee is None or callee.kind not in ("helper", "method"):
            return []
        spec = callee.target
        if spec is None or spec.returns_params is None or value.nid not in self.tf.call_args:
            return []
        nodes = bound_nodes(value, self.tf.call_args[value.nid])
        if callee.kind == "method" and isinstance(value.func, ir.Attribute):
            nodes.insert(0, value.func.value)
        returned = [nodes[k] for k in spec.returns_params]
        return [n.id for n in returned if isinstance(n, ir.Name) and isinstance(self.tf.types.get(n.nid), StructT)]

    def _rebinds_itself(self, name: str) -> bool:
        """Every assignment of ``name`` binds it to the object it holds already: ``accel = interact(a, b,
        accel)`` where the helper returns the very parameter it is given ``accel`` for (GPU Gems' n-body),
        so the caller's object stays the one the function changes, as on the Python path."""
        for stmt in ir.walk(self.fn):
            if isinstance(stmt, ir.AugAssign) and isinstance(stmt.target, ir.Name) and stmt.target.id == name:
                return False
            if not (isinstance(stmt, ir.Assign) and name in {t.id for t in ir.target_names(stmt.target)}):
                continue
            value = stmt.value
            callee = self.tf.callees.get(value.nid)
            if callee is None and isinstance(value, ir.Call) and not self.final:
                continue  # a later call not checked yet in this round: the final round decides
            if not (isinstance(stmt.target, ir.Name) and isinstance(value, ir.Call) and callee is not None):
                return False
            spec = callee.target
            if callee.kind not in ("helper", "method") or spec is None or value.nid not in self.tf.call_args:
                return False
            nodes = bound_nodes(value, self.tf.call_args[value.nid])
            if callee.kind == "method" and isinstance(value.func, ir.Attribute):
                nodes.insert(0, value.func.value)
            returned = [nodes[k] for k in spec.returns_params or ()]
            if spec.returns_params is None or not returned:
                return False
            if not all(isinstance(n, ir.Name) and n.id == name for n in returned):
                return False
        return True

    def _fixed_element(self, name: str, value: ir.Expr) -> bool:
        """``name = a[i]`` binds ``name`` to an element object on the CPU path, which writes the array when
        a field is assigned. The device does the same where the element cannot change: ``name`` bound
        only here, ``a`` and every variable of the index assigned at most once (not a loop counter), and
        the index computed from those, numbers and thread indices (no atomics or other calls)."""
        if not isinstance(value, ir.Subscript) or not isinstance(value.value, ir.Name):
            return False
        counts = self.assignment_counts
        if counts.get(name, 0) != 1 or counts.get(value.value.id, 0) > 1:
            return False
        for node in ir.walk(value.index):
            if isinstance(node, ir.Name) and counts.get(node.id, 0) > 1:
                return False
            if isinstance(node, ir.Call):
                callee = self.tf.callees.get(node.nid)
                if callee is None or callee.kind != "gpu" or callee.name not in rules.GPU_INDEX:
                    return False
            elif not isinstance(node, (ir.Name, ir.Const, ir.BinOp, ir.UnaryOp, ir.TupleExpr)):
                return False  # an array's element or anything else that can change
        self.tf.element_bound[name] = value
        return True

    def _fresh_struct(self, name: str, value: ir.Expr) -> bool:
        """``name = value`` binds ``name`` to a struct object nothing else holds on the CPU path: a
        constructor's, or a helper's that was given no struct but ``name``'s own (``acc = add(acc, x)``;
        an array element is a view of the array, as in NumPy and numba, so not fresh)."""
        callee = self.tf.callees.get(value.nid)
        if callee is None or callee.kind not in ("struct", "helper", "method") or not isinstance(value, ir.Call):
            return False
        if callee.kind == "struct":
            return True
        nodes = bound_nodes(value, self.tf.call_args[value.nid])
        if callee.kind == "method" and isinstance(value.func, ir.Attribute):
            nodes.insert(0, value.func.value)
        spec = callee.target
        if spec is not None and spec.returns_params is not None:  # only these can come back
            nodes = [nodes[k] for k in spec.returns_params]
        for node in nodes:
            t = self.tf.types.get(node.nid)
            if isinstance(t, ArrayT) and isinstance(t.dtype, StructT):
                return False
            if isinstance(t, StructT) and not (isinstance(node, ir.Name) and node.id == name):
                if not (isinstance(node, ir.Call) and self._fresh_struct(name, node)):  # bump(S(...), d): new
                    return False
        return True

    def assign_field(self, target: ir.Attribute, value: Type, value_node: ir.Expr) -> None:
        field_t = self.expr(target)
        if is_complex(self.tf.types[target.value.nid]):
            raise CompileError(
                target.loc,
                f"the parts of a complex number cannot be assigned (`.{target.attr}` is read-only in Python)",
                "make a new number: z = complex(1.0, z.imag)",
            )
        if isinstance(field_t, StructT) or isinstance(value, StructT):
            if value != field_t:
                raise CompileError(value_node.loc, f"cannot assign {value} to field `{target.attr}` of type {field_t}")
        elif not is_numeric(value) or (is_complex(value) and not is_complex(field_t)):
            raise CompileError(value_node.loc, f"cannot assign {value} to field `{target.attr}` of type {field_t}")
        self.struct_changed(target, target.loc, "a field assignment")

    def struct_changed(self, node: ir.Expr, loc: Loc, what: str) -> None:
        """The struct ``node`` denotes (a local, a parameter, an array element, or a field of one) is
        changed in place at ``loc``: by a field assignment, or by a helper that assigns fields of its
        parameter. A parameter's change is the caller's (Python passes objects by reference); an array
        element's is the array's (an element is a view, as in NumPy and numba)."""
        root = ir.field_path(node)[0]
        if isinstance(root, ir.Subscript):
            arr = self.tf.types.get(root.value.nid)
            if not isinstance(arr, ArrayT) or not isinstance(self.tf.types.get(root.nid), StructT):
                raise CompileError(loc, f"{what} changes a struct, and this is not a struct array element")
            refuse_write(root, arr, what)
            base = array_root(root.value)
            if base is not None:
                self.tf.writes.update(self.aliases.get(base, set()))
            return
        if isinstance(root, (ir.IfExp, ir.BoolOp)):
            raise CompileError(
                loc,
                f"{what} changes a struct chosen by a conditional expression, which the device cannot write back",
                "change the variable in each branch: `if c: bump(a)` / `else: bump(b)`",
            )
        if not isinstance(root, ir.Name):
            return  # a temporary (a constructor's or a helper's result): Python changes it and drops it
        if root.id in self.params:
            if self.tf.is_kernel:
                raise CompileError(
                    loc,
                    f"{what} changes kernel parameter `{root.id}`: on the CPU path that would change the "
                    "launching program's object, which a GPU launch cannot",
                    f"copy it into a new local first: `c = Cls({root.id}.x, ...)`, and change that",
                )
            if self.assignment_counts.get(root.id, 0) and not self._rebinds_itself(root.id):
                raise CompileError(
                    loc,
                    f"{what} changes parameter `{root.id}`, which this function also rebinds: the caller's object "
                    "and the new one would be confused",
                    f"use a new variable for the new value instead of rebinding `{root.id}`",
                )
            self.tf.mutates.add(self.params[root.id])
            return
        if root.id not in self.local_names or not isinstance(self.tf.locals.get(root.id), StructT):
            raise CompileError(loc, f"`{root.id}` is not a local struct variable")
        self.mutated.setdefault(root.id, loc)
        if loc not in self.mutations.setdefault(root.id, []):
            self.mutations[root.id].append(loc)
        element = self.tf.element_bound.get(root.id)  # `state = states[i]`: the change is the array's too
        if element is not None:
            base = array_root(element.value)
            if base is not None:
                self.tf.writes.update(self.aliases.get(base, set()))

    def _struct_operator(self, node: ir.Node, op: str, left: Type, right: Type | None) -> Type:
        """``a + b``, ``-a`` on a struct: its ``__add__``, ``__neg__``... method, as Python calls it."""
        name = (UNARY_METHODS if right is None else BINARY_METHODS).get(op, "")
        if not isinstance(left, StructT):
            raise CompileError(
                node.loc,
                f"unsupported operand types for {op}: {left} and {right}",
                "put the struct on the left (`c * 2.0`, not `2.0 * c`): kernels do not call reflected methods",
            )
        info = self.program.struct(StructSym(*left.qualname.rsplit(".", 1)), node.loc)
        if name not in info.methods:
            raise CompileError(
                node.loc,
                f"struct {left} does not support `{op}`",
                f"define {name}(self{'' if right is None else ', other'}) on {left}",
            )
        fn, _ = info.methods[name]
        args = (left,) if right is None else (left, right)
        spec = self.program.specialise(fn, args, call_loc=node.loc)
        if spec.mutates:  # `a + b` whose __add__ assigns fields of self or other: refused (write-back of operands)
            raise CompileError(
                node.loc,
                f"`{op}` calls {left}.{name}, which assigns fields of its operands: an operator that changes "
                "its operands in place is not supported in kernel code",
                f"call a method instead (a.{name}(b)), or return a new value from {name}",
            )
        self.tf.callees[node.nid] = Callee("method", fn.qualname, args, spec)
        self.tf.uses_barrier |= spec.uses_barrier
        self.tf.grid_sync |= spec.grid_sync
        return spec.return_type

    def user_type_attribute(self, e: ir.Attribute, base: Type) -> Type | None:
        """``Color.RED``, ``Complex.zero``, ``c.re``; None when ``base`` is not a user-defined type."""
        if isinstance(base, SymbolT) and isinstance(base.sym, EnumSym):
            members = dict(base.sym.members)
            if e.attr not in members:
                raise CompileError(
                    e.loc, f"{base.sym.name} has no member `{e.attr}`", "members: " + ", ".join(members) or "none"
                )
            self.tf.consts[e.nid] = members[e.attr]
            return EnumT(base.sym.qualname)
        if isinstance(base, SymbolT) and isinstance(base.sym, StructSym):
            info = self.program.struct(base.sym, e.loc)
            if e.attr not in info.methods:
                raise CompileError(
                    e.loc,
                    f"struct {base.sym.name} has no method `{e.attr}`",
                    "fields belong to values: make one with the constructor first",
                )
            return SymbolT(MethodSym(base.sym, e.attr))
        if isinstance(base, StructT):
            field_t = base.field(e.attr)
            if field_t is not None:
                return field_t
            if base.field(f"{e.attr}[0]") is not None:  # a record's array field (see record_type)
                raise CompileError(
                    e.loc,
                    f"the record field `{e.attr}` is an array, which kernels copy with the record but do not index yet",
                    "pass the array as an argument of its own, or split it into fields of numbers",
                )
            raise CompileError(
                e.loc,
                f"struct {base} has no field `{e.attr}`",
                "fields: " + ", ".join(n for n, _ in base.fields) + " (methods are called: c.method(...))",
            )
        return None


def _signature_type(element: Any, ndim: int, decl: KernelDecl) -> Type:
    """A parameter's type from a numba signature: a scalar or an array of one, or of numba's record (a
    structured dtype, as :mod:`hybrid_runtime.numba_signatures` reads it)."""
    if isinstance(element, dict) and "tuple" in element:  # numba's UniTuple/Tuple (items may be arrays)
        items = tuple(_signature_type(e, n, decl) for e, n in element["tuple"])
        return TupleT(items, tuple(element.get("names", ())))
    if isinstance(element, dict):
        dtype = dtype_from_json(element["record"])
        t: Scalar | StructT = record_type(dtype, decl.loc)
        if ndim == 0:
            raise CompileError(
                decl.loc,
                f"kernel `{decl.label}` takes a record by value (numba's {record_text(dtype)})",
                "pass an array of records (a[i:i+1]) or declare the record as a @struct class and annotate it",
            )
    else:
        t = Scalar(element)
    return t if ndim == 0 else ArrayT(t, ndim)


def record_type(dtype: np.dtype[Any], loc: Loc) -> StructT:
    """numba's record type of a structured dtype as a struct: its fields by name, at the dtype's offsets."""
    if not c_layout(dtype):
        raise CompileError(
            loc,
            f"the record {record_text(dtype)} is packed: its fields are not at C's offsets, so loading them "
            "would read misaligned memory on a GPU",
            "make the dtype with align=True (np.dtype([...], align=True)), as numba-cuda's examples do",
        )
    fields: list[tuple[str, Type]] = []
    offsets: list[int] = []
    for name in dtype.names or ():
        ft, offset = dtype.fields[name][:2]  # type: ignore[index]
        if ft.subdtype is not None:
            # an array field: its elements as fields of their own (`d[0]`, `d[1]`, ... at their offsets), which
            # whole-record copies carry; kernels do not index it (see StructT.array_field)
            elem, shape = ft.subdtype
            if elem.names is not None or elem.subdtype is not None:
                raise CompileError(
                    loc,
                    f"the record field `{name}` is an array of {elem}, which kernels do not take inside records",
                    "split it into fields of numbers, or pass it as an array of its own",
                )
            count = int(np.prod(shape))
            fields += [(f"{name}[{k}]", scalar_of_dtype(elem)) for k in range(count)]
            offsets += [offset + k * elem.itemsize for k in range(count)]
            continue
        fields.append((name, record_type(ft, loc) if ft.names is not None else scalar_of_dtype(ft)))
        offsets.append(offset)
    arrays = any(dtype.fields[n][0].subdtype is not None for n in dtype.names or ())  # type: ignore[index]
    source = dtype if arrays else None
    return StructT(record_name(dtype), tuple(fields), (tuple(offsets), dtype.itemsize), source)  # a name per layout
