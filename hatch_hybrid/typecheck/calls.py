"""Type rules of calls: helpers (monomorphised), casts, builtins, ``math`` and NumPy functions (the ``gpu``
intrinsics: :mod:`.gpu_calls`).

:class:`CallChecker` is mixed into :class:`~.function.FunctionChecker`, which supplies ``tf``,
``program``, ``module``, ``expr`` and the alias tracking used for "which arrays does a kernel write".
"""

from __future__ import annotations

import ast
from collections.abc import Callable

import numpy as np

from .. import ir
from ..errors import CompileError, Loc, Note
from ..frontend.constants import is_integer
from ..frontend.discover import EnumSym, ExternalSym, FunctionSym, StructSym, TypeVarSym, UnknownSym
from ..types import (
    WEAK_COMPLEX,
    Scalar,
    StructT,
    TableT,
    TupleT,
    Type,
    Weak,
    is_bool,
    is_complex,
    is_numeric,
)
from . import folding, numpy_funcs, rules
from .arguments import bind_arguments, bound_nodes, intrinsic_keywords
from .conversions import ConversionRecorder
from .cuda_spelling import CUDA_MATH, gpu_name
from .gpu_calls import GpuCallChecker
from .printing import check_print
from .typed import Callee, MethodSym, ProgramLike, SymbolT, TypedFunction, rule_errors, type_named
from .views import array_root


def _shape_names(fn: ir.Function) -> set[str]:
    """The names read in the shape arguments of ``fn``'s static arrays (``cuda.shared.array(n, dtype)``)."""
    found: set[str] = set()
    for node in ir.walk(fn):
        if isinstance(node, ir.Call) and _array_call(node.func):
            shapes = [a for a in node.args if not isinstance(a, ir.Attribute)] + list(node.keywords.values())
            found |= {n.id for a in shapes for n in ir.walk(a) if isinstance(n, ir.Name)}
    return found


def _array_call(func: ir.Expr) -> bool:
    name = func.attr if isinstance(func, ir.Attribute) else func.id if isinstance(func, ir.Name) else ""
    return name in ("shared_array", "local_array", "array")


def struct_root(node: ir.Expr) -> str | None:
    """The variable a struct argument is (``a``) or is part of (``a.pos``); None for anything else."""
    base = ir.field_path(node)[0]
    return base.id if isinstance(base, ir.Name) else None


class CallChecker(GpuCallChecker, ConversionRecorder):
    tf: TypedFunction
    program: ProgramLike
    module: str
    aliases: dict[str, set[int]]
    typevars: dict[str, Type]
    _defaults: dict[tuple[int, str], ir.Const]  # default values' nodes, per call and parameter
    struct_changed: Callable[[ir.Expr, Loc, str], None]  # UserTypeChecker

    def expr(self, e: ir.Expr) -> Type:  # provided by FunctionChecker
        raise NotImplementedError

    def as_table(self, node: ir.Expr, loc: Loc, required: bool = True) -> TableT | None:  # TableChecker
        raise NotImplementedError

    # ------------------------------------------------------------------- calls
    def call(self, e: ir.Call) -> Type:
        if isinstance(e.func, ir.Attribute):
            receiver = self.expr(e.func.value)
            if isinstance(receiver, StructT):
                return self.method(e, receiver, e.func.attr)
            if e.func.attr == "view" and isinstance(receiver, (Scalar, Weak)):
                return self.scalar_view(e, receiver)
            if is_complex(receiver) and e.func.attr == "conjugate":
                if e.args or e.keywords:
                    raise CompileError(e.loc, "conjugate() takes no arguments")
                self.tf.callees[e.nid] = Callee("complex", "conjugate", (receiver,))
                return receiver
        callee = self.expr(e.func)
        if not isinstance(callee, SymbolT):
            raise CompileError(e.func.loc, f"{callee} is not callable")
        sym = callee.sym
        if isinstance(sym, StructSym):
            return self.construct(e, sym)
        if isinstance(sym, MethodSym):
            info = self.program.struct(sym.struct, e.loc)
            return self._call_function(e, info.methods[sym.name][0], None)
        if isinstance(sym, TypeVarSym):
            if not self.tf.is_kernel:
                raise CompileError(
                    e.func.loc,
                    f"TypeVar {sym.name} can convert values only in the generic kernel itself",
                    "on the CPU a helper's TypeVar is not bound to a type; convert in the kernel and pass the value",
                )
            target = self.program.type_of_symbol(sym, e.loc, self.typevars)
            assert target is not None
            if isinstance(target, StructT):
                raise CompileError(e.func.loc, f"{sym.name} is the struct {target} here: construct it by its name")
            return self._cast(e, self._args(e), target, sym.name)
        if isinstance(sym, EnumSym):
            raise CompileError(
                e.func.loc,
                f"converting to the enum {sym.name} is not supported in kernel code",
                f"compare with its members instead: x == {sym.name}.{sym.members[0][0] if sym.members else 'MEMBER'}",
            )
        if sym == "print":
            printed = check_print(e, self.tf, self.program, self.expr)
            return printed
        if e.keywords and isinstance(sym, ExternalSym) and sym.qualname.startswith("hybrid_runtime.gpu."):
            intrinsic_keywords(e, sym.qualname)
        if e.keywords and not isinstance(sym, FunctionSym):
            raise CompileError(
                next(iter(e.keywords.values())).loc,
                f"`{callee}` takes no keyword arguments in kernel code",
                "pass arguments by position (helper functions, methods and struct constructors take keywords)",
            )
        if isinstance(sym, str):
            return self.builtin(e, sym)
        if isinstance(sym, FunctionSym):
            return self.helper(e, sym)
        if isinstance(sym, ExternalSym):
            return self.external(e, sym.qualname)
        if isinstance(sym, UnknownSym):
            raise CompileError(
                e.func.loc,
                f"cannot compile a call to `{sym.qualname}`: it is {sym.reason}",
                "kernels can call functions defined in this package, math functions and gpu intrinsics",
            )
        raise CompileError(e.func.loc, f"`{callee}` is not a function")

    def _args(self, e: ir.Call) -> list[Type]:
        return [self.expr(a) for a in e.args]

    def builtin(self, e: ir.Call, name: str) -> Type:
        args = self._args(e)
        if name == "complex" and len(args) == 2:  # complex(real, imag)
            for node, t in zip(e.args, args):
                if not is_numeric(t) or is_complex(t):
                    raise CompileError(
                        node.loc, f"complex(real, imag) takes two real numbers here, not {t}", "pass z.real, z.imag"
                    )
            self.tf.callees[e.nid] = Callee("complex", "complex", tuple(args))
            return WEAK_COMPLEX
        if name in rules.CAST_NAMES:
            return self._cast(e, args, rules.CAST_NAMES[name], name)
        if name == "range":
            raise CompileError(e.loc, "range() can only be used in `for ... in range(...)`")
        with rule_errors(e.loc):
            operand_types, result = rules.builtin_call(name, args)
        if name in ("min", "max"):
            for node, t in zip(e.args, args):
                self.convert_value(node, t, result)
        self.tf.callees[e.nid] = Callee("builtin", name, tuple(operand_types))
        if name == "len" and isinstance(args[0], (TableT, TupleT)):  # known at compile time
            self.tf.consts[e.nid] = args[0].shape[0] if isinstance(args[0], TableT) else len(args[0].items)
        return result

    def _cast(self, e: ir.Call, args: list[Type], target: Type, name: str) -> Type:
        if len(args) != 1 or not is_numeric(args[0]):
            raise CompileError(e.loc, f"{name}() converts one number")
        if is_complex(args[0]) and not is_complex(target) and not is_bool(target):
            raise CompileError(
                e.loc,
                f"{name}() of a complex number ({args[0]}) is not supported (Python raises TypeError; NumPy "
                "discards the imaginary part with a warning)",
                "take z.real, z.imag or abs(z)",
            )
        self._check_int_literal(e.args[0], target)
        self.tf.callees[e.nid] = Callee("cast", str(target), (args[0],))
        value = self.tf.consts.get(e.args[0].nid)
        if (  # u64(0xBEAC0467EBA5FACB), f32(0.1): the value NumPy gives, known at build time
            isinstance(target, Scalar)
            and (target.kind == "f" or (target.kind in "iu" and is_integer(value)))
            and isinstance(value, (int, float, np.integer, np.floating))
            and not isinstance(value, (bool, np.bool_))
        ):
            with np.errstate(all="ignore"):
                self.tf.consts[e.nid] = target.dtype.type(value)
        return target

    def _check_int_literal(self, node: ir.Expr, target: Type) -> None:
        """A Python int literal converted to a fixed-width integer must fit in it (NumPy raises otherwise)."""
        value = self.tf.consts.get(node.nid)
        if (
            isinstance(target, Scalar)
            and target.kind in "iu"
            and isinstance(value, int)
            and not isinstance(value, bool)
        ):
            info = np.iinfo(target.dtype)
            if not info.min <= value <= info.max:
                raise CompileError(
                    node.loc,
                    f"Python integer {value} is out of bounds for {target}",
                    f"NumPy raises OverflowError here too; use a value that fits in {target}",
                )

    def helper(self, e: ir.Call, sym: FunctionSym) -> Type:
        for d in self.program.index.module(sym.module).functions[sym.name].decorator_list:
            target = self.program.index.resolve_expr(sym.module, d.func if isinstance(d, ast.Call) else d)
            if isinstance(target, ExternalSym) and target.qualname == "hybrid_runtime.kernel":
                raise CompileError(
                    e.loc,
                    f"`{sym.name}` is a kernel and cannot be called from device code",
                    "move the shared logic into a plain helper function that both call",
                )
        return self._call_function(e, self.program.parsed(sym), None)

    def method(self, e: ir.Call, struct: StructT, name: str) -> Type:
        sym = StructSym(*struct.qualname.rsplit(".", 1))
        info = self.program.struct(sym, e.loc)
        if name not in info.methods:
            raise CompileError(
                e.func.loc,
                f"struct {struct} has no method `{name}`",
                "methods: " + (", ".join(info.methods) or "none"),
            )
        fn, static = info.methods[name]
        return self._call_function(e, fn, None if static else struct)

    def _call_function(self, e: ir.Call, fn: ir.Function, receiver: StructT | None) -> Type:
        """A call of a helper or method, specialised to the argument types (the receiver first)."""
        bound = bind_arguments(self.program, e, fn, receiver is not None, self._defaults)
        self.tf.call_args[e.nid] = bound
        nodes = bound_nodes(e, bound)
        args = [self.expr(n) for n in nodes]
        # a module constant tuple of one element type is passed as a table, which the helper can index at run time
        args = [self.as_table(n, n.loc, required=False) or t for n, t in zip(nodes, args)]
        literals = self._literal_arguments(fn, nodes, receiver is not None)
        if receiver is not None:
            args.insert(0, receiver)
        spec = self.program.specialise(fn, tuple(args), call_loc=e.loc, literals=literals)
        kind = "helper" if receiver is None else "method"
        self.tf.callees[e.nid] = Callee(kind, fn.qualname, tuple(args), spec)
        nodes = ([e.func.value] if receiver is not None and isinstance(e.func, ir.Attribute) else []) + nodes
        for i in spec.writes:
            root = array_root(nodes[i])
            if root is not None:
                self.tf.writes.update(self.aliases.get(root, set()))
        for i in spec.mutates:  # the helper assigns fields of this struct argument: so does this call
            self.struct_changed(nodes[i], e.loc, f"this call of {fn.name}()")
            root = struct_root(nodes[i])
            for j, (other, t) in enumerate(zip(nodes, args)):
                if j != i and root is not None and isinstance(t, StructT) and struct_root(other) == root:
                    raise CompileError(
                        other.loc,
                        f"{fn.name}() changes its argument `{root}` in place, and this argument is the same object "
                        "(or part of it) on the CPU path",
                        "pass a copy made with the constructor, or a different variable",
                    )
        self._check_argument_order(nodes, args, fn.name)
        self.tf.uses_barrier |= spec.uses_barrier
        self.tf.grid_sync |= spec.grid_sync
        return spec.return_type

    def _literal_arguments(self, fn: ir.Function, nodes: list[ir.Expr], method: bool) -> tuple[tuple[str, object], ...]:
        """The parameters ``fn`` uses as a static array's shape, and the build-time numbers passed for them
        here: the helper is specialised to those values (numba's literal dispatch does the same)."""
        shaped = _shape_names(fn)
        params = fn.params[1:] if method else fn.params
        return tuple(
            (p.name, self.tf.consts[n.nid])
            for p, n in zip(params, nodes)
            if p.name in shaped and is_integer(self.tf.consts.get(n.nid))
        )

    def _changed_roots(self, node: ir.Expr) -> dict[str, ir.Call]:
        """The struct variables that calls inside ``node`` change in place, and a call that does."""
        found: dict[str, ir.Call] = {}
        for sub in ir.walk(node):
            callee = self.tf.callees.get(sub.nid) if isinstance(sub, ir.Call) else None
            if callee is None or callee.target is None or not callee.target.mutates or sub.nid not in self.tf.call_args:
                continue
            assert isinstance(sub, ir.Call)
            inner = bound_nodes(sub, self.tf.call_args[sub.nid])
            if callee.kind == "method" and isinstance(sub.func, ir.Attribute):
                inner = [sub.func.value, *inner]
            for i in callee.target.mutates:
                root = struct_root(inner[i]) if i < len(inner) else None
                if root is not None:
                    found.setdefault(root, sub)
        return found

    def _check_argument_order(self, nodes: list[ir.Expr], args: list[Type], name: str) -> None:
        """``f(a, bump(a))``: Python evaluates the arguments in order but passes the object ``a``, so ``f``
        sees what ``bump`` changed; the device would pass ``a`` as it was. Refused where it happens."""
        for j, later in enumerate(nodes):
            changed = self._changed_roots(later) if any(isinstance(t, StructT) for t in args[:j]) else {}
            for i in range(j):
                root = struct_root(nodes[i]) if isinstance(args[i], StructT) else None
                if root is not None and root in changed:
                    raise CompileError(
                        nodes[i].loc,
                        f"`{root}` is passed to {name}() here and changed in place by a later argument: Python "
                        f"passes the object, so {name}() would see the change, which the device cannot show",
                        f"call the changing helper in a statement of its own before calling {name}()",
                        [Note(changed[root].loc, f"`{root}` is changed by this call")],
                    )

    def check_storable(self, node: ir.Expr, value: Type, dest: Type, message: str) -> None:
        """``value`` (of ``node``) can be stored where a ``dest`` goes (a struct field, an array
        element): the same struct, or any number (an int literal must fit); else ``message``, whose
        ``{dest}`` and ``{value}`` name the two types."""
        if isinstance(dest, StructT) or isinstance(value, StructT):
            if value == dest:
                return
        elif is_complex(value) and not is_complex(dest):
            message = f"a complex number ({value}) cannot be stored where a {dest} goes (NumPy would raise or "
            raise CompileError(node.loc, message + "drop the imaginary part)", "store z.real, z.imag or abs(z)")
        elif is_numeric(value):
            self._check_int_literal(node, dest)
            return
        raise CompileError(node.loc, message.format(dest=dest, value=value))

    def construct(self, e: ir.Call, sym: StructSym) -> Type:
        """``Complex(re, im)``: every field converted to its type, as the host class's __init__ does."""
        struct = self.program.struct(sym, e.loc).type
        names = [n for n, _ in struct.fields]
        if len(e.args) > len(names):
            raise CompileError(e.loc, f"{sym.name}() takes {len(names)} fields, got {len(e.args)}")
        given = dict(zip(names, e.args))
        for k, node in e.keywords.items():
            if k not in names:
                raise CompileError(node.loc, f"{sym.name} has no field `{k}`", "fields: " + ", ".join(names))
            if k in given:
                raise CompileError(node.loc, f"{sym.name}() got field `{k}` twice")
            given[k] = node
        missing = [n for n in names if n not in given]
        if missing:
            raise CompileError(e.loc, f"{sym.name}() is missing field{'s' * (len(missing) > 1)} {', '.join(missing)}")
        for name, field_t in struct.fields:
            node = given[name]
            self.check_storable(
                node, self.expr(node), field_t, f"field `{name}` of {sym.name} is a {{dest}}, not {{value}}"
            )
        self.tf.callees[e.nid] = Callee("struct", struct.qualname, tuple(t for _, t in struct.fields))
        return struct

    def external(self, e: ir.Call, qualname: str) -> Type:
        module, _, name = qualname.rpartition(".")
        cast = type_named(ExternalSym(qualname))
        if cast is not None:
            return self._cast(e, self._args(e), cast, name)
        if qualname in CUDA_MATH:  # cuda.fma, cuda.cbrt: math's
            module, name = "math", CUDA_MATH[qualname]
        if module == "math":
            args = self._args(e)
            with rule_errors(e.loc):
                operand_types, result = rules.math_call(name, args)
            self.tf.callees[e.nid] = Callee("math", name, tuple(operand_types))
            return result
        if module == "cmath":
            args = self._args(e)
            with rule_errors(e.loc):
                operand_types, result = rules.cmath_call(name, args)
            self.tf.callees[e.nid] = Callee("cmath", name, tuple(operand_types))
            return result
        if module == "numpy" and numpy_funcs.supported(name):
            return self.numpy(e, name)
        if module == "hybrid_runtime.gpu":
            return self.gpu(e, name)
        spelled = gpu_name(qualname)
        if spelled is not None:
            return self.gpu(e, spelled)
        if module in ("hybrid_runtime.cuda.libdevice", "hybrid_runtime.cuda.fp16"):
            args = self._args(e)
            with rule_errors(e.loc):
                ufunc, operand_types, result = numpy_funcs.libdevice_call(module.rpartition(".")[2], name, args)
            self.tf.callees[e.nid] = Callee("numpy", ufunc, tuple(operand_types))
            return result
        raise CompileError(
            e.func.loc,
            f"`{qualname}` is not supported in kernel code",
            (numpy_funcs.spelling_hint(name) if module == "numpy" else None)
            or "kernels can call helper functions of this package, math functions, gpu intrinsics and type conversions",
        )

    def numpy(self, e: ir.Call, name: str) -> Type:
        """``np.sqrt(x)`` & co: NumPy's scalar functions, typed as NumPy types them."""
        args = self._args(e)
        with rule_errors(e.loc):
            operand_types, result = numpy_funcs.numpy_call(name, args)
        self.tf.callees[e.nid] = Callee("numpy", numpy_funcs.name_of(name), tuple(operand_types))
        return result

    def numpy_info(self, e: ir.Attribute) -> Type | None:
        """``np.finfo(np.float32).max``, ``np.iinfo(i32).min``: a number known at build time, typed as
        NumPy gives it (finfo's values are NumPy scalars of the type, iinfo's Python ints)."""
        call = e.value
        if not isinstance(call, ir.Call):
            return None
        func = self.program._static(self.module, call.func)
        which = func.qualname if isinstance(func, ExternalSym) else ""
        if which not in ("numpy.finfo", "numpy.iinfo"):
            return None
        which = which[6:]
        arg = self.program._static(self.module, call.args[0]) if len(call.args) == 1 and not call.keywords else None
        dtype = self.program.type_of_symbol(arg, e.loc, self.typevars) if arg is not None else None
        if not isinstance(dtype, Scalar):
            example = "np.float32" if which == "finfo" else "np.int32"
            raise CompileError(
                call.loc,
                f"np.{which}() takes a scalar type in kernel code",
                f"write np.{which}({example}).max, np.{which}(T).min of a TypeVar, ...",
            )
        if isinstance(arg, TypeVarSym) and not self.tf.is_kernel:
            raise CompileError(
                call.loc,
                f"np.{which}({arg.name}) of a TypeVar works only in the generic kernel itself",
                "on the CPU a helper's TypeVar is not bound to a type; read the value in the kernel and pass it",
            )
        with rule_errors(e.loc):
            value = numpy_funcs.info_value(which, dtype.dtype, e.attr)
        self.tf.consts[e.nid] = value  # np.iinfo(np.uint64).max too: a Python int beyond i64 (folding.beyond_i64)
        return folding.type_of_value(value)
