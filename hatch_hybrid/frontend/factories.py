"""Kernel factories, resolved at build time by reading the source (never running it).

A kernel factory is a module-level function that defines a ``@kernel`` (and helpers) closing over its
parameters, and returns the kernel::

    def make_transpose(tile, dt):
        shape = (tile, tile + 1)

        @kernel
        def transpose(a: Array[dt, 2], b: Array[dt, 2]): ...

        return transpose

    transpose32 = make_transpose(32, f32)

Each module-level call ``NAME = factory(...)`` makes one kernel, ``module.NAME``. Its arguments must be
build-time values: numbers, tuples and NumPy scalars and arrays computed from literals and module
constants, scalar types, ``@struct`` and ``IntEnum`` classes, module-level functions. To the rest of the
compiler the call is a *scope*, a module of its own named ``module.NAME`` (:func:`call_scope`): it binds
the factory's parameters to the call's arguments, the factory's assignments as constants and its nested
functions as functions, and finds every other name in the factory's module, as Python's closures do.

The manifest records the call site and the values the kernel closes over (:func:`manifest_entry`,
encoded by :func:`hybrid_runtime.factories.encode`), which the runtime matches against the closure the
call makes.
"""

from __future__ import annotations

import ast
import importlib
import symtable
from contextlib import AbstractContextManager
from typing import Any, Protocol

from hybrid_runtime.factories import encode

from ..errors import CompileError, Loc, Note
from .constants import NotConstant, Value
from .symbols import (
    ConstSym,
    EnumSym,
    ExternalSym,
    FactoryCall,
    FunctionSym,
    KernelDecl,
    ModuleInfo,
    ModuleSym,
    NonConstSym,
    StructSym,
    Symbol,
    UnknownSym,
)


class ModuleIndex(Protocol):
    """What this stage asks of the module index (discover.py)."""

    @property
    def module_names(self) -> list[str]: ...
    def module(self, name: str) -> ModuleInfo: ...
    def resolve_expr(self, module: str, node: ast.expr) -> Symbol | None: ...
    def resolve_global(self, module: str, name: str) -> Symbol | None: ...
    def value_of(self, module: str, node: ast.expr) -> Value: ...
    def bind_target(self, info: ModuleInfo, target: ast.expr, value: ast.expr | None) -> None: ...
    def kernel_decl(
        self, module: str, fn: ast.FunctionDef, factory: FactoryCall | None = None
    ) -> KernelDecl | None: ...
    def track(self) -> AbstractContextManager[set[str]]: ...


_HINT = (
    "a factory's kernel is compiled when the package is built: pass numbers, tuples, NumPy scalars and "
    "arrays computed from literals and module constants, scalar types, @struct and IntEnum classes or "
    "module-level functions; pass anything else to the kernel as a parameter"
)
_BODY_HINT = (
    "a kernel factory's body assigns build-time values, defines the kernel and its helpers and returns the "
    "kernel (`return kernel`); compute choices with conditional expressions (`a if big else b`)"
)


# ------------------------------------------------------------------ finding the calls
def find_calls(index: ModuleIndex, info: ModuleInfo) -> list[FactoryCall]:
    """The module-level calls of kernel factories in a module, their factories' shape checked."""
    found = []
    for node in info.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        if not isinstance(value, ast.Call) or not isinstance(value.func, (ast.Name, ast.Attribute)):
            continue
        try:  # any call at module level: what it calls may be anything, in any installed package
            sym = index.resolve_expr(info.name, value.func)
            fdef = index.module(sym.module).functions[sym.name] if isinstance(sym, FunctionSym) else None
        except CompileError:  # a module that does not parse: not a factory the build could read
            continue
        if fdef is None or not isinstance(sym, FunctionSym):
            continue
        kernel = _returned_kernel(index, sym, fdef)
        if kernel is None:
            continue
        loc = Loc(str(info.path), value.lineno, value.col_offset)
        if not isinstance(target, ast.Name):
            raise CompileError(
                loc,
                f"`{sym.name}` is a kernel factory: bind the kernel it makes to one name",
                f"write `my_kernel = {ast.unparse(value)}`",
            )
        places = info.bindings.get(target.id, [])
        if len(places) > 1 or target.id in info.functions or target.id in info.classes:
            raise CompileError(
                Loc(str(info.path), target.lineno, target.col_offset),
                f"`{target.id}` names the kernel this call of factory `{sym.name}` makes, and is bound again in "
                "this module: the kernel is named after the one name its call binds",
                "give each kernel a name of its own",
                [Note(p, f"`{target.id}` is also bound here") for p in places if p.line != target.lineno][:1],
            )
        call = FactoryCall(info.name, target.id, sym, kernel, value, loc)
        if call.scope in index.module_names:
            raise CompileError(
                Loc(str(info.path), target.lineno, target.col_offset),
                f"the kernel `{call.scope}` has the name of a module",
                "name the kernel differently",
            )
        found.append(call)
    return found


def _returned_kernel(index: ModuleIndex, sym: FunctionSym, fdef: ast.FunctionDef) -> str | None:
    """The name of the kernel a factory returns (None: the function defines no kernel)."""
    home = index.module(sym.module)
    kernels = {s.name for s in fdef.body if isinstance(s, ast.FunctionDef) and index.kernel_decl(sym.module, s)}
    if not kernels:
        return None

    def located(node: ast.AST) -> Loc:
        return Loc(str(home.path), getattr(node, "lineno", fdef.lineno), getattr(node, "col_offset", 0))

    args = fdef.args
    if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs:
        raise CompileError(
            located(fdef),
            f"kernel factory `{fdef.name}` takes plain parameters only",
            "remove *args, **kwargs and keyword-only or positional-only markers",
        )
    body = fdef.body[1:] if ast.get_docstring(fdef) is not None else fdef.body
    local = (
        {a.arg for a in args.args}
        | {
            n.id
            for s in body
            if isinstance(s, (ast.Assign, ast.AnnAssign))
            for n in ast.walk(s)
            if isinstance(n, ast.Name)
        }
        | {s.name for s in body if isinstance(s, ast.FunctionDef)}
    )
    for s in body:
        for dec in s.decorator_list if isinstance(s, ast.FunctionDef) else []:
            root = dec.func if isinstance(dec, ast.Call) else dec
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and root.id in local:
                raise CompileError(
                    located(root),
                    f"the decorator `{root.id}` names the factory's own `{root.id}`, not the module's: Python "
                    "raises UnboundLocalError here",
                    "rename the function, or import the decorator under another name "
                    "(`@hybrid_runtime.kernel`, `from hybrid_runtime import kernel as hybrid_kernel`)",
                )
    for i, stmt in enumerate(body):
        if isinstance(stmt, ast.Return):
            if i != len(body) - 1:
                raise CompileError(located(body[i + 1]), "code after the kernel factory's `return`", _BODY_HINT)
            if isinstance(stmt.value, ast.Name) and stmt.value.id in kernels:
                return stmt.value.id
            raise CompileError(
                located(stmt.value or stmt),
                f"kernel factory `{fdef.name}` must return the kernel it defines",
                f"write `return {sorted(kernels)[0]}`",
            )
        if not isinstance(stmt, (ast.FunctionDef, ast.Assign, ast.AnnAssign)):
            what = type(stmt).__name__.lower()
            raise CompileError(located(stmt), f"a kernel factory cannot run `{what}` statements", _BODY_HINT)
    raise CompileError(
        located(fdef),
        f"kernel factory `{fdef.name}` defines a kernel but does not return it",
        f"end it with `return {sorted(kernels)[0]}`",
    )


def kernel_of(index: ModuleIndex, call: FactoryCall) -> KernelDecl:
    """The kernel a factory call makes, as a declaration in the call's scope."""
    fdef = index.module(call.factory.module).functions[call.factory.name]
    kdef = next(s for s in fdef.body if isinstance(s, ast.FunctionDef) and s.name == call.kernel)
    decl = index.kernel_decl(call.factory.module, kdef, call)
    assert decl is not None
    decl.module = call.scope
    return decl


# ------------------------------------------------------------------- the call's scope
def call_scope(index: ModuleIndex, call: FactoryCall) -> ModuleInfo:
    """The names a factory call's kernel sees: parameters bound to the arguments, the factory's own
    assignments and functions, the factory's module for the rest."""
    home = index.module(call.factory.module)
    site = index.module(call.module)
    fdef = home.functions[call.factory.name]
    scope = ModuleInfo(call.scope, home.path, False, home.source, home.tree, parent=home.name, origin=home.name)
    path = str(home.path)
    with index.track() as consulted:  # the arguments' modules: the kernel depends on their constants
        arguments = _arguments(index, call, fdef, site, home)
    scope.consulted = set(consulted)
    for name, value in arguments.items():
        scope.names[name] = value
        param = next(a for a in fdef.args.args if a.arg == name)
        scope.bindings[name] = [Loc(path, param.lineno, param.col_offset)]
    for stmt in fdef.body:
        if isinstance(stmt, ast.FunctionDef):
            scope.names[stmt.name] = FunctionSym(scope.name, stmt.name)
            scope.functions[stmt.name] = stmt
            scope.bindings.setdefault(stmt.name, []).append(Loc(path, stmt.lineno, stmt.col_offset))
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                index.bind_target(scope, target, stmt.value)
                for n in ast.walk(target):
                    if isinstance(n, ast.Name):
                        scope.bindings.setdefault(n.id, []).append(Loc(path, n.lineno, n.col_offset))
    return scope


def _arguments(
    index: ModuleIndex, call: FactoryCall, fdef: ast.FunctionDef, site: ModuleInfo, home: ModuleInfo
) -> dict[str, Symbol]:
    """The factory's parameters bound as Python binds them: positional, keyword, then defaults."""
    names = [a.arg for a in fdef.args.args]
    node = call.call
    if len(node.args) > len(names) or any(isinstance(a, ast.Starred) for a in node.args):
        raise CompileError(
            call.loc, f"kernel factory `{fdef.name}` takes {len(names)} argument(s)", "pass them one by one"
        )
    given: dict[str, ast.expr] = dict(zip(names, node.args))
    for kw in node.keywords:
        if kw.arg is None or kw.arg not in names or kw.arg in given:
            why = "**kwargs" if kw.arg is None else f"`{kw.arg}`" + (" twice" if kw.arg in given else "")
            raise CompileError(
                Loc(str(site.path), kw.value.lineno, kw.value.col_offset),
                f"kernel factory `{fdef.name}` cannot take {why}",
                "parameters: " + ", ".join(names),
            )
        given[kw.arg] = kw.value
    defaults = dict(zip(names[len(names) - len(fdef.args.defaults) :], fdef.args.defaults))
    bound: dict[str, Symbol] = {}
    for name in names:
        if name in given:
            bound[name] = _argument(index, site, given[name], name, fdef.name)
        elif name in defaults:  # Python evaluates defaults once, in the factory's module
            bound[name] = _argument(index, home, defaults[name], name, fdef.name)
        else:
            raise CompileError(call.loc, f"kernel factory `{fdef.name}` is called without `{name}`")
    return bound


def _argument(index: ModuleIndex, info: ModuleInfo, node: ast.expr, param: str, factory: str) -> Symbol:
    loc = Loc(str(info.path), node.lineno, node.col_offset)
    what = f"argument `{param}` of kernel factory `{factory}`"
    if isinstance(node, (ast.Name, ast.Attribute)):
        sym = index.resolve_expr(info.name, node)
        if isinstance(sym, NonConstSym):
            raise CompileError(
                loc,
                f"{what} must be known at build time: `{ast.unparse(node)}` is {sym.reason}",
                _HINT,
                [Note(sym.loc, f"`{ast.unparse(node)}` is assigned here")],
            )
        if sym is not None and not isinstance(sym, (ModuleSym, UnknownSym)):
            return sym
    try:
        return ConstSym(index.value_of(info.name, node), loc)
    except NotConstant as exc:
        raise CompileError(loc, f"{what} must be known at build time: `{ast.unparse(node)}` is {exc}", _HINT) from None


# --------------------------------------------------------------- what the runtime checks
def manifest_entry(index: ModuleIndex, call: FactoryCall) -> dict[str, Any]:
    """The call site and the kernel's closure key, which the runtime matches (hybrid_runtime.factories)."""
    scope = index.module(call.scope)
    home = index.module(call.factory.module)
    fdef = home.functions[call.factory.name]
    _check_annotations(index, call, scope, fdef)
    factory_table = _function_table(symtable.symtable(home.source, str(home.path), "exec"), fdef)
    key: dict[str, str] = {}

    def add(table: symtable.SymbolTable, prefix: str) -> None:
        for free in sorted(table.get_frees()):  # type: ignore[attr-defined]
            sym = index.resolve_global(scope.name, free)
            if isinstance(sym, FunctionSym) and sym.module == scope.name:  # a helper beside the kernel
                add(_function_table(factory_table, scope.functions[free]), f"{prefix}{free}.")
                continue
            text = _encode(sym)
            if text is None:
                where = scope.bindings.get(free, [call.loc])[-1]
                reason = sym.reason if isinstance(sym, NonConstSym) else "not a build-time value"
                raise CompileError(
                    where, f"the kernel made by `{call.target} = {call.factory.name}(...)` closes over `{free}`, "
                    f"which is {reason}", _HINT,
                )  # fmt: skip
            key[prefix + free] = text

    add(_function_table(factory_table, scope.functions[call.kernel]), "")
    node = call.call
    return {
        "function": call.function,
        "module": call.module,
        "first_line": node.lineno,
        "last_line": node.end_lineno or node.lineno,
        "closure": key,
    }


def _encode(sym: Symbol | None) -> str | None:
    if isinstance(sym, ConstSym):
        return encode(sym.value)
    if isinstance(sym, ExternalSym):  # a type or function of NumPy, math or the runtime
        module, _, name = sym.qualname.rpartition(".")
        try:
            return encode(getattr(importlib.import_module(module), name))
        except (ImportError, AttributeError):
            return None
    if isinstance(sym, FunctionSym):
        return f"function:{sym.qualname}"
    if isinstance(sym, (StructSym, EnumSym)):
        return f"class:{sym.qualname}"
    return None


def _function_table(table: symtable.SymbolTable, fdef: ast.FunctionDef) -> symtable.SymbolTable:
    return next(t for t in table.get_children() if t.get_name() == fdef.name and t.get_lineno() in _def_lines(fdef))


def _def_lines(fdef: ast.FunctionDef) -> set[int]:
    """The lines Python may give a function's table: its ``def`` line or its first decorator's."""
    return {fdef.lineno, *(d.lineno for d in fdef.decorator_list)}


def _check_annotations(index: ModuleIndex, call: FactoryCall, scope: ModuleInfo, fdef: ast.FunctionDef) -> None:
    """Annotations that name the factory's values must be evaluated when the kernel is defined: a
    string annotation (or ``from __future__ import annotations``) is evaluated later, in the module,
    where the runtime cannot see them."""
    home = index.module(call.factory.module)
    deferred = any(
        isinstance(s, ast.ImportFrom) and s.module == "__future__" and any(a.name == "annotations" for a in s.names)
        for s in home.tree.body
    )
    kdef = scope.functions[call.kernel]
    local = set(scope.bindings)  # the parameters, assignments and functions of the factory
    for arg in kdef.args.args:
        ann = arg.annotation
        if ann is None:
            continue
        names = {n.id for n in ast.walk(ann) if isinstance(n, ast.Name)}
        for text in (n.value for n in ast.walk(ann) if isinstance(n, ast.Constant) and isinstance(n.value, str)):
            try:
                names |= {n.id for n in ast.walk(ast.parse(text, mode="eval")) if isinstance(n, ast.Name)}
            except SyntaxError:
                pass
        quoted = deferred or any(isinstance(n, ast.Constant) and isinstance(n.value, str) for n in ast.walk(ann))
        for name in sorted(names & local):
            if quoted:
                cause = "`from __future__ import annotations` is on" if deferred else "the annotation is a string"
                raise CompileError(
                    Loc(str(home.path), ann.lineno, ann.col_offset),
                    f"the annotation of `{arg.arg}` names the factory's `{name}`, which Python cannot see when it "
                    f"reads the annotation later ({cause}: it is evaluated in the module, not in the factory)",
                    "remove `from __future__ import annotations` from this module and write the annotation "
                    "unquoted, so that Python evaluates it when the factory defines the kernel",
                )
