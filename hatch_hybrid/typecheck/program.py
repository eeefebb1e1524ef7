"""The whole program being type-checked: every (function, argument types) specialisation reachable
from the kernels, the structs they use, and how annotations and kernel variants are read.

:meth:`Program.specialise` checks each specialisation once with a
:class:`~.function.FunctionChecker`; recursion is reported with the call chain.
"""

from __future__ import annotations

import re
from typing import TypeGuard

from .. import ir
from ..errors import CompileError, Loc
from ..frontend.discover import (
    EnumSym,
    ExternalSym,
    FunctionSym,
    KernelDecl,
    ModuleIndex,
    ModuleSym,
    StructSym,
    Symbol,
    TypeVarSym,
    UnknownSym,
)
from ..frontend.parse import parse_function
from ..types import NONE, ArrayT, EnumT, Scalar, StructT, TableT, Type, Weak
from .cuda_spelling import rewrite_cuda_spelling
from .function import FunctionChecker
from .typed import BUILTINS, MethodSym, StructInfo, SymbolT, TypedFunction, type_named
from .user_types import kernel_variants, read_struct, signature_param


def mangle(qualname: str, arg_types: tuple[Type, ...] = ()) -> str:
    """A readable, stable PTX-safe symbol: ``pkg.mod.f`` (f32, i64) -> ``pkg_mod_f__f32_i64``."""
    base = qualname.replace(".", "__")
    if not arg_types:
        return base
    parts = []
    for t in arg_types:
        text = str(t).replace("Array[", "A").replace("tuple[", "T").replace(", ", "_").replace("]", "")
        if isinstance(t, TableT):  # one specialisation per table (and row shape)
            text = f"Table{t.key}_{'x'.join(map(str, t.shape))}"
        elif isinstance(t, SymbolT):  # a function, type or module passed in: one specialisation per value
            text = "S" + re.sub(r"\W", "_", str(t))
        parts.append(text)
    return base + "___" + "_".join(parts)


def _static_sym(sym: object) -> TypeGuard[Symbol | str]:
    return not isinstance(sym, MethodSym)


class Program:
    """All typed functions reachable from the kernels checked so far."""

    def __init__(self, index: ModuleIndex) -> None:
        self.index = index
        self._parsed: dict[str, ir.Function] = {}
        self.functions: dict[tuple[str, tuple[Type, ...]], TypedFunction] = {}
        self._active: list[tuple[str, Loc]] = []
        # per function being checked: its parameters bound to a function, type or module (innermost last)
        self._bound: list[dict[str, Symbol | str]] = []
        self._structs: dict[str, StructInfo | None] = {}  # None: being read (a struct cannot contain itself)

    def parsed(self, sym: FunctionSym) -> ir.Function:
        fn = self._parsed.get(sym.qualname)
        if fn is None:
            info = self.index.module(sym.module)
            fn = parse_function(info.functions[sym.name], str(info.path), sym.module)
            self._bound.append({})  # (names resolve in the module alone, whoever asked for the function)
            try:
                rewrite_cuda_spelling(self, fn)
            finally:
                self._bound.pop()
            self._parsed[sym.qualname] = fn
        return fn

    def struct(self, sym: StructSym, loc: Loc | None = None) -> StructInfo:
        """A ``@struct`` class: its fields (in order) and methods, read once."""
        if sym.qualname in self._structs:
            found = self._structs[sym.qualname]
            if found is None:
                raise CompileError(loc, f"struct {sym.name} contains itself", "a struct holds values, not references")
            return found
        self._structs[sym.qualname] = None
        self._structs[sym.qualname] = result = read_struct(self, sym)
        return result

    # ----------------------------------------------------------------- kernels
    def variants(self, decl: KernelDecl) -> list[dict[str, Type]]:
        """The TypeVar bindings of a kernel's ``specialize=`` (``[{}]`` for a kernel that is not generic)."""
        return kernel_variants(self, decl)

    def check_kernel(self, decl: KernelDecl, typevars: dict[str, Type] | None = None) -> TypedFunction:
        fn = self.parsed(FunctionSym(decl.module, decl.name))
        typevars = typevars or {}
        arg_types = []
        for k, p in enumerate(fn.params):
            if signature_param(k) in typevars:  # numba's eager signature gives it (annotations are not read)
                arg_types.append(typevars[signature_param(k)])
                continue
            if p.annotation is None:
                raise CompileError(
                    p.loc,
                    f"kernel parameter `{p.name}` needs a type annotation",
                    "annotate it, e.g. `x: Array[f32]` or `n: i32`",
                )
            t = self.annotation(fn.module, p.annotation, typevars)
            if isinstance(t, Weak):
                t = t.storage  # int/float/bool annotations on kernel parameters mean i64/f64
            arg_types.append(t)
        symbol = mangle(decl.qualname)
        if typevars and len(decl.options.get("signatures", ())) != 1:  # (one signature: the kernel's own name)
            symbol += "__" + mangle("", tuple(typevars.values())).lstrip("_")
        tf = self.specialise(fn, tuple(arg_types), is_kernel=True, symbol=symbol, typevars=typevars)
        if tf.return_type != NONE:
            raise CompileError(
                fn.loc,
                f"kernel `{fn.name}` returns a value",
                "kernels write results into arrays; remove the return value",
            )
        return tf

    def annotation(self, module: str, node: ir.Expr, typevars: dict[str, Type] | None = None) -> Type:
        """The type an annotation expression denotes (TypeVars as bound in ``typevars``)."""
        if isinstance(node, ir.Subscript):
            base = self._static(module, node.value)
            if base == ExternalSym("hybrid_runtime.Array"):
                items = node.index.elts if isinstance(node.index, ir.TupleExpr) else [node.index]
                elem = self.annotation(module, items[0], typevars)
                ndim = 1
                if len(items) == 2 and isinstance(items[1], ir.Const) and isinstance(items[1].value, int):
                    ndim = items[1].value
                elif len(items) != 1:
                    raise CompileError(node.loc, "write Array[T] or Array[T, N] with a literal N")
                if not isinstance(elem, (Scalar, Weak, StructT)):
                    raise CompileError(node.loc, f"arrays hold scalars or structs, not {elem}")
                return ArrayT(elem.storage if isinstance(elem, Weak) else elem, ndim)
        sym = self._static(module, node)
        t = self.type_of_symbol(sym, node.loc, typevars)
        if t is None:
            raise CompileError(
                node.loc,
                "this annotation is not a kernel type",
                "use f32, i32, ... (or numpy types), int, float, bool, Array[T], Array[T, N], a @struct class, "
                "an IntEnum or a TypeVar listed in specialize=",
            )
        return t

    def type_of_symbol(
        self, sym: Symbol | str | None, loc: Loc, typevars: dict[str, Type] | None = None
    ) -> Type | None:
        """The type a name denotes: scalar types, structs, enums, bound TypeVars (None: not a type)."""
        if isinstance(sym, StructSym):
            return self.struct(sym, loc).type
        if isinstance(sym, EnumSym):
            return EnumT(sym.qualname)
        if isinstance(sym, TypeVarSym):
            bound = (typevars or {}).get(sym.qualname)
            if bound is None:
                raise CompileError(
                    loc,
                    f"TypeVar {sym.name} is not bound here",
                    f'list it in the kernel\'s @kernel(specialize={{"{sym.name}": [...]}}) or use it in a '
                    "helper's parameter annotations",
                )
            return bound
        return type_named(sym)

    def _static(self, module: str, node: ir.Expr) -> Symbol | str | None:
        if isinstance(node, ir.Name):
            if self._bound and node.id in self._bound[-1]:  # a parameter bound to a function, type or module
                return self._bound[-1][node.id]
            sym = self.index.resolve_global(module, node.id)
            if sym is None and node.id in BUILTINS:
                return node.id
            return sym
        if isinstance(node, ir.Attribute):
            base = self._static(module, node.value)
            if isinstance(base, (ModuleSym, ExternalSym, UnknownSym)):
                return self.index.resolve_member(base, node.attr)
        return None

    # ----------------------------------------------------------- specialising
    def specialise(
        self,
        fn: ir.Function,
        arg_types: tuple[Type, ...],
        *,
        is_kernel: bool = False,
        symbol: str | None = None,
        call_loc: Loc | None = None,
        typevars: dict[str, Type] | None = None,
        literals: tuple[tuple[str, object], ...] = (),
    ) -> TypedFunction:
        """``fn`` typed for ``arg_types`` (a parameter given a function, type or module (:class:`SymbolT`)
        names that; ``literals``: parameters whose build-time value the body needs, such as an array shape)."""
        key = (fn.qualname, arg_types) if not is_kernel else (f"{fn.qualname}#{symbol}", arg_types)
        if literals:
            key = (key[0] + "#" + repr(literals), arg_types)
            symbol = mangle(fn.qualname, arg_types) + "__" + "_".join(f"{n}{v}" for n, v in literals).replace("-", "m")
        done = self.functions.get(key)
        if done is not None:
            return done
        for name, _ in self._active:
            if name == fn.qualname:
                chain = " -> ".join([n for n, _ in self._active] + [fn.qualname])
                raise CompileError(
                    call_loc, f"recursion is not supported in kernel code: {chain}", "rewrite the recursion as a loop"
                )
        self._active.append((fn.qualname, call_loc or fn.loc))
        try:
            tf = TypedFunction(fn, arg_types, symbol or mangle(fn.qualname, arg_types), is_kernel)
            self._bound.append(
                {p.name: t.sym for p, t in zip(fn.params, arg_types) if isinstance(t, SymbolT) and _static_sym(t.sym)}
            )
            try:
                with self.index.track() as consulted:
                    FunctionChecker(self, tf, dict(typevars or {}), dict(literals)).run()
            finally:
                self._bound.pop()
            tf.consulted = consulted
        finally:
            self._active.pop()
        self.functions[key] = tf
        return tf
