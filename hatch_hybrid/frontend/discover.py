"""Stage 0: find ``@kernel`` functions and resolve names across a package, by reading source.

User code is never imported or run. A :class:`ModuleIndex` knows where each module's source is;
modules are read and parsed only when a kernel (or what it calls) needs them.
"""

from __future__ import annotations

import ast
import collections
import importlib.machinery
import importlib.util
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import CompileError, Loc, Note
from . import factories
from .constants import VERSION_FUNCTIONS, Evaluator, NotConstant, Value
from .kernels import KNOWN_EXTERNAL, KernelFinder
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
    TypeVarSym,
    UnknownSym,
    _Class,
    _ImportFrom,
    _PendingConst,
)

__all__ = [  # the symbols too: the compiler's stages import them from here
    "ConstSym", "EnumSym", "ExternalSym", "FactoryCall", "FunctionSym", "KernelDecl", "ModuleIndex", "ModuleInfo",
    "ModuleSym", "NonConstSym", "StructSym", "Symbol", "TypeVarSym", "UnknownSym",
]  # fmt: skip

#: Modules of the runtime that hold kernel code (device functions), read as any installed package's.
RUNTIME_SOURCE = ("hybrid_runtime.random", "hybrid_runtime.numba_config")
STRUCT_DECORATORS = {"hybrid_runtime.struct", "hybrid_runtime.structs.struct"}
ENUM_BASES = {"enum.IntEnum"}


def _canonical_external(qualname: str) -> str:
    # hybrid_runtime re-exports everything at top level; numpy is numpy however imported
    for alias, module in (("hybrid_runtime.cuda.random", "hybrid_runtime.random"),
                          ("hybrid_runtime.cuda.types", "hybrid_runtime.types"),
                          ("hybrid_runtime.cuda.core.config", "hybrid_runtime.numba_config")):  # fmt: skip
        if qualname == alias or qualname.startswith(alias + "."):  # numba.cuda's submodules
            qualname = module + qualname[len(alias) :]
    for prefix in ("hybrid_runtime.types.", "hybrid_runtime.kernel."):
        if qualname.startswith(prefix):
            return "hybrid_runtime." + qualname[len(prefix) :]
    return qualname


class ModuleIndex(KernelFinder):
    """Source files of the packages being compiled, and of installed packages their kernels call,
    parsed on demand.

    Packages added with :meth:`add_package` are *local*: their kernels are compiled. Any other
    top-level package a kernel reaches is located on ``search_path`` (the build environment's
    ``sys.path``) without importing it, and only the modules actually reached are read.
    """

    def __init__(self, search_path: list[str] | None = None) -> None:
        self._paths: dict[str, tuple[Path, bool]] = {}
        self._modules: dict[str, ModuleInfo] = {}
        self._local: set[str] = set()
        self._external: dict[str, Path | None] = {}  # top-level name -> package folder (None: not found)
        self.search_path = list(sys.path if search_path is None else search_path)
        self._trackers: list[set[str]] = []
        self._factory_calls: dict[str, list[FactoryCall]] = {}  # module -> its factory calls
        self._scopes: dict[str, FactoryCall] = {}  # scope module name -> the call (built when first read)

    # -------------------------------------------------------------- packages
    def add_package(self, directory: Path, name: str | None = None, local: bool = True) -> None:
        """Index every ``.py`` file of the package in ``directory`` (its name defaults to the folder's)."""
        directory = Path(directory)
        name = name or directory.name
        if local:
            self._local.add(name)
        for path in sorted(directory.rglob("*.py")):
            rel = path.relative_to(directory).with_suffix("")
            parts = [name, *rel.parts]
            if any(not p.isidentifier() for p in parts):
                continue
            is_package = parts[-1] == "__init__"
            if is_package:
                parts.pop()
            self._paths[".".join(parts)] = (path, is_package)

    @property
    def module_names(self) -> list[str]:
        """The modules of the local packages."""
        return sorted(m for m in self._paths if m.split(".")[0] in self._local)

    def is_local(self, module: str) -> bool:
        return module.split(".")[0] in self._local

    @contextmanager
    def track(self) -> Iterator[set[str]]:
        """Collect the names of the modules consulted inside the ``with`` block."""
        seen: set[str] = set()
        self._trackers.append(seen)
        try:
            yield seen
        finally:
            self._trackers.remove(seen)

    def _locate(self, top: str) -> bool:
        """Find an installed top-level package or module by name, without importing it."""
        if top not in self._external:
            spec = importlib.machinery.PathFinder.find_spec(top, self.search_path)
            found: Path | None = None
            if spec is not None and spec.submodule_search_locations:
                found = Path(next(iter(spec.submodule_search_locations)))
                self.add_package(found, top, local=False)
            elif spec is not None and spec.origin and spec.origin.endswith(".py"):
                found = Path(spec.origin)
                self._paths[top] = (found, False)
            self._external[top] = found
        return self._external[top] is not None

    def find_module(self, name: str) -> ModuleInfo | None:
        """The module ``name`` of a local or installed package, or None if there is none."""
        top = name.split(".")[0]
        if name not in self._paths and top not in self._local and top not in sys.stdlib_module_names:
            self._locate(top)
        return self.module(name) if name in self._paths else None

    def module(self, name: str) -> ModuleInfo:
        for seen in self._trackers:
            seen.add(name)
        info = self._modules.get(name)
        if info is None and name in self._scopes:
            info = self._modules[name] = factories.call_scope(self, self._scopes[name])
        if info is None:
            path, is_package = self._paths[name]
            source = importlib.util.decode_source(path.read_bytes())  # PEP 263 coding cookies, as Python
            try:
                tree = ast.parse(source, filename=str(path))
            except SyntaxError as exc:
                raise CompileError(
                    Loc(str(path), exc.lineno or 1, (exc.offset or 1) - 1), f"syntax error: {exc.msg}"
                ) from None
            info = ModuleInfo(name, path, is_package, source, tree)
            self._modules[name] = info  # (a module-level `if` reads the names bound above it)
            try:
                self._read_top_level(info)
            except BaseException:
                del self._modules[name]
                raise
        return info

    # ------------------------------------------------------------- top level
    def _static(self, info: ModuleInfo, node: ast.stmt) -> list[ast.stmt] | None:
        """The statements Python runs in a module-level ``if`` whose condition is a build-time constant
        (``if config.ENABLE_CUDASIM:``, ``if TILE > 8:``), or in a ``try`` of imports whose handlers catch
        only ImportError (the imports when they all resolve here, else the first handler's body); None
        for any other statement, whose names kernels cannot read."""
        if isinstance(node, ast.If):
            try:
                value = self.value_of(info.name, node.test)
            except (NotConstant, CompileError):
                return None
            return node.body if value else node.orelse
        if not isinstance(node, ast.Try) or node.orelse or node.finalbody or not node.handlers:
            return None
        catches = {"ImportError", "ModuleNotFoundError"}
        for handler in node.handlers:
            kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
            if not all(isinstance(k, ast.Name) and k.id in catches for k in kinds):
                return None
        if not all(isinstance(s, (ast.Import, ast.ImportFrom)) for s in node.body):
            return None
        return node.body if all(self._resolves(info, s) for s in node.body) else node.handlers[0].body

    def _resolves(self, info: ModuleInfo, node: ast.stmt) -> bool:
        """Whether an import statement finds what it imports in the build environment."""
        if isinstance(node, ast.Import):
            return all(not isinstance(self._module_symbol(a.name), UnknownSym) for a in node.names)
        assert isinstance(node, ast.ImportFrom)
        base = self._import_base(info, node)
        module = self._module_symbol(base)
        if isinstance(module, UnknownSym):
            return False
        return all(_exports(module, a.name, self) or a.name == "*" for a in node.names)

    def _read_top_level(self, info: ModuleInfo) -> None:
        pending = collections.deque(info.tree.body)
        while pending:
            node = pending.popleft()
            taken = self._static(info, node)
            if taken is not None:  # read in place of the `if`/`try`, in order (ModuleInfo.body's order)
                info.static[id(node)] = taken
                pending.extendleft(reversed(taken))
                continue
            if isinstance(node, ast.FunctionDef):
                info.names[node.name] = FunctionSym(info.name, node.name)
                info.functions[node.name] = node
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:  # `import a.b as c` binds c = a.b, looked up as an attribute
                        parent, _, last = alias.name.rpartition(".")
                        info.names[alias.asname] = (
                            _ImportFrom(parent, last) if parent else self._module_symbol(alias.name)
                        )
                    else:
                        top = alias.name.split(".")[0]
                        info.names[top] = self._module_symbol(top)
            elif isinstance(node, ast.ImportFrom):
                base = self._import_base(info, node)
                for alias in node.names:
                    if alias.name == "*":
                        info.star_imports.append(self._module_symbol(base))
                    else:
                        info.names[alias.asname or alias.name] = _ImportFrom(base, alias.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                value = node.value
                for t in targets:
                    self.bind_target(info, t, value)
            elif isinstance(node, ast.ClassDef):
                info.names[node.name] = _Class(node.name)
                info.classes[node.name] = node
        _module_bindings(info)

    def bind_target(self, info: ModuleInfo, target: ast.expr, value: ast.expr | None) -> None:
        """``X = v``, and ``mx, my = 64, 64`` item by item (nested tuples too); names unpacked from
        anything but a tuple display are not constants the compiler computes."""
        if isinstance(target, ast.Name):
            info.names[target.id] = self._constant(info, target.id, value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = value.elts if isinstance(value, (ast.Tuple, ast.List)) else None
            if (
                items is not None
                and len(items) == len(target.elts)
                and not any(isinstance(x, ast.Starred) for x in [*items, *target.elts])
            ):
                for t, v in zip(target.elts, items):
                    self.bind_target(info, t, v)
                return
            for n in ast.walk(target):
                if isinstance(n, ast.Name):
                    loc = Loc(str(info.path), n.lineno, n.col_offset)
                    reason = "unpacked from an expression that is not a tuple of values"
                    info.names[n.id] = NonConstSym(f"{info.name}.{n.id}", reason, loc)

    def _constant(self, info: ModuleInfo, name: str, value: ast.expr | None) -> Symbol | _PendingConst | None:
        if isinstance(value, ast.Call):
            func = value.func
            callee = func.id if isinstance(func, ast.Name) else (func.attr if isinstance(func, ast.Attribute) else "")
            if callee == "TypeVar":
                return TypeVarSym(info.name, name)
        if value is None:  # `X: int` declares, binds nothing
            return None
        return _PendingConst(name, value)

    def _evaluate(self, info: ModuleInfo, pending: _PendingConst) -> Symbol:
        """A module constant's value, computed as Python would; cached in the module's names."""
        node, name = pending.value, pending.name
        loc = Loc(str(info.path), node.lineno, node.col_offset)
        places = info.bindings.get(name, [])
        if len(places) > 1:
            raise CompileError(
                places[1],
                f"module constant `{name}` is assigned more than once, so its value depends on when it is read",
                "kernels read module constants at build time: assign it once (compute the final value in one "
                "expression), or pass the value to the kernel as a parameter",
                [Note(places[0], f"`{name}` is first assigned here")],
            )
        wrapped = self._jit_wrapped(info, node)
        if wrapped is not None:  # `f = cuda.jit(f, device=True)`: the function itself, as decorating it
            function = FunctionSym(info.name, wrapped)
            info.names[name] = function
            return function
        where = "kernel factory's" if info.parent is not None else "module-level"
        info.names[name] = NonConstSym(f"{info.name}.{name}", "defined in terms of itself", loc, where)  # cycles
        try:
            result: Symbol = ConstSym(self.value_of(info.name, node), loc)
        except NotConstant as exc:
            result = NonConstSym(f"{info.name}.{name}", str(exc), loc, where)
        except CompileError:
            info.names[name] = pending
            raise
        info.names[name] = result
        return result

    def _jit_wrapped(self, info: ModuleInfo, node: ast.expr) -> str | None:
        """The module function ``node`` applies numba's decorator to (``cuda.jit(f, device=True)``,
        ``cuda.jit(sig)(f)``, ``njit(f)``), or None."""
        if not isinstance(node, ast.Call) or not node.args or not isinstance(node.args[0], ast.Name):
            return None
        fn = info.functions.get(node.args[0].id)
        if fn is None:
            return None
        decorator = node.func.func if isinstance(node.func, ast.Call) and len(node.args) == 1 else node.func
        target = self.resolve_expr(info.name, decorator)
        jits = ("hybrid_runtime.cuda.jit", "hybrid_runtime.njit", "hybrid_runtime.jit")
        return fn.name if isinstance(target, ExternalSym) and target.qualname in jits else None

    def value_of(self, module: str, node: ast.expr) -> Value:
        """The value of an expression at the top level of ``module``, computed as Python would (raises
        :class:`NotConstant` when it is not a build-time constant)."""
        info = self.module(module)

        def lookup(n: ast.expr) -> Value | str:
            sym = self.resolve_expr(module, n)
            if isinstance(sym, ConstSym):
                return sym.value
            if isinstance(sym, ExternalSym) or getattr(sym, "qualname", None) in VERSION_FUNCTIONS:
                return sym.qualname  # type: ignore[union-attr]
            if isinstance(sym, NonConstSym):
                raise NotConstant(f"computed from `{ast.unparse(n)}`, which is {sym.reason}")
            raise NotConstant(f"computed from `{ast.unparse(n)}`, which is not a module constant")

        return Evaluator(str(info.path), lookup)(node)

    def _import_base(self, info: ModuleInfo, node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        parts = info.name.split(".")
        if not info.is_package:
            parts.pop()
        parts = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
        if node.module:
            parts.append(node.module)
        return ".".join(parts)

    def _module_symbol(self, name: str) -> Symbol:
        top = name.split(".")[0]
        if top == "hybrid_runtime":
            name = _canonical_external(name)
        if name in RUNTIME_SOURCE and self._locate(top) and name in self._paths:
            return ModuleSym(name)
        if top in KNOWN_EXTERNAL:
            return ExternalSym(_canonical_external(name))
        local = top in self._local
        if name in self._paths or (
            not local and top not in sys.stdlib_module_names and self._locate(top) and name in self._paths
        ):
            return ModuleSym(name)
        if top in sys.stdlib_module_names:
            return UnknownSym(
                name, f"in the standard library module `{top}`, of which kernels can only use math and cmath"
            )
        if top in self._local or self._external.get(top) is not None:
            return UnknownSym(name, f"a module that does not exist in package `{top}`")
        return UnknownSym(
            name,
            f"in package `{top}`, which is not installed in the build environment (add it to [project] dependencies)",
        )

    def _classify(self, info: ModuleInfo, name: str) -> Symbol:
        """A module-level class as the compiler sees it: a struct, an IntEnum, or something else."""
        node = info.classes[name]
        for dec in node.decorator_list:
            target = self.resolve_expr(info.name, dec)
            if isinstance(target, ExternalSym) and target.qualname in STRUCT_DECORATORS:
                return StructSym(info.name, name)
        for base in node.bases:
            target = self.resolve_expr(info.name, base)
            if isinstance(target, ExternalSym) and target.qualname in ENUM_BASES:
                return EnumSym(info.name, name, _enum_members(info, node))
        return UnknownSym(f"{info.name}.{name}", "a class that is neither a @struct nor an enum.IntEnum")

    # ------------------------------------------------------------ resolution
    def resolve_global(self, module: str, name: str) -> Symbol | None:
        """What ``name`` means at the top level of ``module`` (None: not defined there)."""
        info = self.module(module)
        entry = info.names.get(name)
        if isinstance(entry, _PendingConst):
            return self._evaluate(info, entry)
        if isinstance(entry, _Class):
            return self._classify(info, entry.name)
        if isinstance(entry, _ImportFrom):
            return self.resolve_member(self._module_symbol(entry.module), entry.name)
        if entry is None:
            for star in info.star_imports:  # `from m import *`: names m exports
                if _exports(star, name, self):
                    return self.resolve_member(star, name)
            if info.parent is not None:  # a factory's scope: the factory's module
                return self.resolve_global(info.parent, name)
        return entry

    def resolve_member(self, base: Symbol, attr: str, seen: set[tuple[str, str]] | None = None) -> Symbol | None:
        """What ``base.attr`` means, as Python's attribute lookup on a module finds it: a name the
        module binds (following re-exports), else its submodule."""
        seen = set() if seen is None else seen
        if isinstance(base, ExternalSym):
            qualname = _canonical_external(f"{base.qualname}.{attr}")
            return self._module_symbol(qualname) if qualname in RUNTIME_SOURCE else ExternalSym(qualname)
        if isinstance(base, UnknownSym):
            return UnknownSym(f"{base.qualname}.{attr}", base.reason)
        if not isinstance(base, ModuleSym):
            return None
        sub = f"{base.name}.{attr}"
        if (base.name, attr) not in seen:
            seen.add((base.name, attr))
            info = self.module(base.name)
            entry = info.names.get(attr)
            if isinstance(entry, _ImportFrom):
                found = self.resolve_member(self._module_symbol(entry.module), entry.name, seen)
                if found is not None:
                    return found
            elif isinstance(entry, _Class):
                return self._classify(info, entry.name)
            elif isinstance(entry, _PendingConst):
                return self._evaluate(info, entry)
            elif entry is not None:
                return entry
            elif sub not in self._paths:
                for star in info.star_imports:
                    if _exports(star, attr, self):
                        return self.resolve_member(star, attr, seen)
                if info.parent is not None:
                    return self.resolve_member(ModuleSym(info.parent), attr, seen)
        return ModuleSym(sub) if sub in self._paths else None

    def resolve_expr(self, module: str, node: ast.expr) -> Symbol | None:
        """Resolve a dotted name expression (``a``, ``a.b.c``) at module level."""
        if isinstance(node, ast.Name):
            return self.resolve_global(module, node.id)
        if isinstance(node, ast.Attribute):
            base = self.resolve_expr(module, node.value)
            return self.resolve_member(base, node.attr) if base is not None else None
        return None

    def factory_calls(self, module: str) -> list[FactoryCall]:
        """The module-level calls of kernel factories in ``module`` (their scopes registered)."""
        calls = self._factory_calls.get(module)
        if calls is None:
            calls = self._factory_calls[module] = factories.find_calls(self, self.module(module))
            for call in calls:
                self._scopes[call.scope] = call
        return calls

    def scope_call(self, module: str) -> FactoryCall | None:
        """The factory call whose scope ``module`` is (None: a real module)."""
        return self._scopes.get(module)


def _module_bindings(info: ModuleInfo) -> None:
    """Every assignment to a name in module scope, also under ``if``/``for``/``try``/... and through
    ``global`` in functions: a constant assigned more than once has no single build-time value."""
    path = str(info.path)

    def add(target: ast.expr, only: set[str] | None = None) -> None:
        for n in ast.walk(target):
            if isinstance(n, ast.Name) and (only is None or n.id in only):
                info.bindings.setdefault(n.id, []).append(Loc(path, n.lineno, n.col_offset))

    def visit(stmts: list[ast.stmt], only: set[str] | None) -> None:
        for s in stmts:
            if id(s) in info.static:  # the branch Python runs, read at build time
                visit(info.static[id(s)], only)
                continue
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                declared = {n for g in ast.walk(s) if isinstance(g, ast.Global) for n in g.names}
                if declared and only is None:
                    visit(s.body, declared)
                continue
            if isinstance(s, ast.ClassDef):
                continue
            if isinstance(s, ast.Assign):
                for t in s.targets:
                    add(t, only)
            elif isinstance(s, (ast.AugAssign, ast.AnnAssign)) and (
                s.value is not None or isinstance(s, ast.AugAssign)
            ):
                add(s.target, only)
            elif isinstance(s, (ast.For, ast.AsyncFor)):
                add(s.target, only)
            for block in ("body", "orelse", "finalbody"):
                visit(getattr(s, block, []), only)
            for handler in getattr(s, "handlers", []):
                visit(handler.body, only)

    visit(info.tree.body, None)


def _exports(module: Symbol, name: str, index: ModuleIndex) -> bool:
    if name.startswith("_"):
        return False
    if isinstance(module, ExternalSym):
        import importlib

        try:
            mod = importlib.import_module(module.qualname)  # only hybrid_runtime, numpy, math
        except ImportError:
            return False
        exported = getattr(mod, "__all__", None)
        return name in exported if exported is not None else hasattr(mod, name)
    if isinstance(module, ModuleSym):
        return index.resolve_member(module, name) is not None
    return False


def _enum_members(info: ModuleInfo, node: ast.ClassDef) -> tuple[tuple[str, int], ...]:
    """The members of an IntEnum: integer literals or ``auto()`` (the last value plus one)."""
    members: list[tuple[str, int]] = []
    last = 0
    for stmt in node.body:
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
            continue
        value = stmt.value
        if (
            isinstance(value, ast.UnaryOp)
            and isinstance(value.op, ast.USub)
            and isinstance(value.operand, ast.Constant)
        ):
            number: object = -value.operand.value  # type: ignore[operator]
        elif isinstance(value, ast.Constant):
            number = value.value
        elif isinstance(value, ast.Call) and getattr(value.func, "id", getattr(value.func, "attr", "")) == "auto":
            number = last + 1
        else:
            number = None
        if not isinstance(number, int) or isinstance(number, bool):
            raise CompileError(
                Loc(str(info.path), value.lineno, value.col_offset),
                f"the members of IntEnum {node.name} used in kernels must be integer literals or auto()",
            )
        name = stmt.targets[0].id
        if not name.startswith("_"):
            members.append((name, number))
            last = number
    return tuple(members)
