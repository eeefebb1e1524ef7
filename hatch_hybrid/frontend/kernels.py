"""Stage 0, the kernels: which functions of the indexed packages are kernels (``@kernel``, numba's
``@cuda.jit`` and ``cuda.jit(...)(f)`` calls, kernel factories' calls) and the options each declares,
read from the decorators' source; what installed packages the modules holding them import.

:class:`KernelFinder` is mixed into :class:`~.discover.ModuleIndex`, whose name resolution it uses.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable
from typing import Any, cast

from ..errors import CompileError, Loc
from . import factories
from .signatures import read_signatures
from .symbols import ExternalSym, FactoryCall, FunctionSym, KernelDecl, ModuleInfo, Symbol

#: External modules whose names the compiler understands.
KNOWN_EXTERNAL = ("hybrid_runtime", "numpy", "math", "cmath", "enum", "typing")
KERNEL_DECORATORS = {"hybrid_runtime.kernel", "hybrid_runtime.kernel.kernel", "hybrid_runtime.cuda.jit"}
#: numba's ``cuda.jit`` options that change nothing here (line info is always on; no JIT cache, no
#: register cap, inlining and linking decided by LLVM)
NUMBA_NO_OPS = ("lineinfo", "opt", "cache", "max_registers", "inline", "link", "boundscheck", "device")


class KernelFinder:
    """The kernels of a :class:`~.discover.ModuleIndex` (its name resolution, provided)."""

    _local: set[str]
    _paths: dict[str, Any]
    module: Callable[[str], ModuleInfo]
    resolve_expr: Callable[[str, ast.expr], Symbol | None]
    resolve_global: Callable[[str, str], Symbol | None]
    _import_base: Callable[[ModuleInfo, ast.ImportFrom], str]
    factory_calls: Callable[[str], list[FactoryCall]]

    @property
    def module_names(self) -> list[str]:  # (ModuleIndex's)
        raise NotImplementedError

    def kernel_import_roots(self) -> set[str]:
        """Top-level names of the installed packages that modules holding kernels import, directly or
        through other modules of the local packages (what a build environment must provide)."""
        todo = sorted({m for k in self.kernels() for m in _kernel_modules(k)})
        done: set[str] = set()
        roots: set[str] = set()
        while todo:
            name = todo.pop()
            if name in done:
                continue
            done.add(name)
            for node in self.module(name).body:
                targets: list[str] = []
                if isinstance(node, ast.Import):
                    targets = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom):
                    base = self._import_base(self.module(name), node)
                    targets = [base] + [f"{base}.{a.name}" for a in node.names]
                for target in targets:
                    top = target.split(".")[0]
                    if top in self._local:
                        todo += [t for t in (target, target.rpartition(".")[0]) if t in self._paths]
                    elif top and top not in KNOWN_EXTERNAL and top not in sys.stdlib_module_names:
                        roots.add(top)
        return roots

    # --------------------------------------------------------------- kernels
    def kernels(self) -> list[KernelDecl]:
        """Every ``@kernel`` / ``@kernel(...)`` function of the indexed packages, and every kernel that a
        module-level call of a kernel factory makes, in a stable order."""
        found = []
        for name in self.module_names:
            info = self.module(name)
            declared = []
            for fn in info.functions.values():
                decl = self.kernel_decl(name, fn)
                if decl is not None:
                    declared.append(decl)
            found += declared
            found += self.jit_calls(name, {d.name for d in declared})
            for call in self.factory_calls(name):
                found.append(factories.kernel_of(cast(Any, self), call))  # (self is the ModuleIndex)
        return found

    def kernel_decl(self, module: str, fn: ast.FunctionDef, factory: FactoryCall | None = None) -> KernelDecl | None:
        """The kernel ``fn`` declares, with names resolved in ``module`` (None: not a kernel)."""
        info = self.module(module)
        for dec in fn.decorator_list:
            call = dec if isinstance(dec, ast.Call) else None
            target = self.resolve_expr(module, call.func if call else dec)
            if isinstance(target, ExternalSym) and target.qualname in KERNEL_DECORATORS:
                loc = Loc(str(info.path), fn.lineno, fn.col_offset)
                if target.qualname.endswith("cuda.jit"):
                    return _numba_kernel(module, fn, call, info, loc, factory)
                return KernelDecl(module, fn.name, _kernel_options(call, info), loc, factory)
        return None

    def jit_calls(self, module: str, declared: set[str]) -> list[KernelDecl]:
        """The module's functions made kernels by calling numba's decorator anywhere in the module, as
        numba-cuda's tests and host code do: ``cuda.jit("void(float32[:])")(f)``, ``cuda.jit(f)``,
        ``cuda.jit(sig, fastmath=True)(f)`` (the signatures of every such call, one kernel per function;
        ``device=True``: a helper)."""
        info = self.module(module)
        calls: dict[str, list[ast.Call | None]] = {}
        for node in ast.walk(info.tree):
            if not (isinstance(node, ast.Call) and len(node.args) == 1 and isinstance(node.args[0], ast.Name)):
                continue
            fn = info.functions.get(node.args[0].id)
            if (
                fn is None
                or fn.name in declared
                or self.resolve_global(module, fn.name) != FunctionSym(module, fn.name)
            ):
                continue
            decorator = node.func.func if isinstance(node.func, ast.Call) else node.func
            target = self.resolve_expr(module, decorator)
            if isinstance(target, ExternalSym) and target.qualname == "hybrid_runtime.cuda.jit":
                given = node.func if isinstance(node.func, ast.Call) else None
                if given is not None and given.args:  # `cuda.jit(sig)(f)`, `cuda.jit((f4, f4))(f)`
                    held = _substituted(info.tree, given.args[0], node.lineno)  # names assigned above it
                    given = ast.Call(given.func, [held, *given.args[1:]], given.keywords)
                    ast.copy_location(given, node.func)
                calls.setdefault(fn.name, []).append(given)
        found = []
        for name, made in calls.items():
            fn = info.functions[name]
            loc = Loc(str(info.path), fn.lineno, fn.col_offset)
            decls = [_numba_kernel(module, fn, call, info, loc, None) for call in made]
            kernels = [d for d in decls if d is not None]
            if not kernels:
                continue
            options = dict(kernels[0].options)
            signatures = [s for d in kernels for s in d.options.get("signatures", [])]
            if signatures:  # every call's, once each, in order
                options["signatures"] = [s for k, s in enumerate(signatures) if s not in signatures[:k]]
                options.pop("lazy", None)
            found.append(KernelDecl(module, name, options, loc))
        return found


def _kernel_modules(decl: KernelDecl) -> list[str]:
    """The real modules a kernel's source is in: its own, or its factory's and the call's."""
    if decl.factory is None:
        return [decl.module]
    return [decl.factory.module, decl.factory.factory.module]


def _numba_kernel(
    module: str, fn: ast.FunctionDef, call: ast.Call | None, info: ModuleInfo, loc: Loc, factory: FactoryCall | None
) -> KernelDecl | None:
    """``@cuda.jit`` / ``@cuda.jit(...)``: a kernel with numba's options (``device=True``: a helper, not a
    kernel; the options that change nothing here are dropped)."""
    if call is not None and any(k.arg == "device" and _true(k.value) for k in call.keywords):
        return None
    if (call is None or not call.args) and _returns_value(fn):  # numba calls it from kernels: a helper
        return None
    plain = ast.Call(ast.Name("kernel"), [], [k for k in (call.keywords if call else []) if k.arg not in NUMBA_NO_OPS])
    options = _kernel_options(plain, info)
    if call is not None and call.args:  # numba's eager signature(s): the parameters' types, per variant
        options["signatures"] = read_signatures(call.args[0], str(info.path), len(fn.args.args))
    elif any(a.annotation is None for a in fn.args.args):  # typed at launch: by the signatures declared
        options["lazy"] = True
    return KernelDecl(module, fn.name, options, loc, factory)


def _assigned_before(tree: ast.Module, name: str, line: int) -> ast.expr | None:
    """The value of the last assignment to ``name`` above ``line`` in the module (test code's straight
    line: ``sig = (int32[:],)`` or ``f4, f8 = float32[::1], float64[::1]`` then ``cuda.jit(sig)(f)``), or
    None."""
    found: list[tuple[int, ast.expr]] = []
    for n in ast.walk(tree):
        if not (isinstance(n, ast.Assign) and len(n.targets) == 1 and n.lineno < line):
            continue
        target, value = n.targets[0], n.value
        if isinstance(target, ast.Name) and target.id == name:
            found.append((n.lineno, value))
        elif isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts):
            found += [
                (n.lineno, v) for t, v in zip(target.elts, value.elts) if isinstance(t, ast.Name) and t.id == name
            ]
    return max(found, key=lambda f: f[0])[1] if found else None


def _substituted(tree: ast.Module, node: ast.expr, line: int, depth: int = 3) -> ast.expr:
    """``node`` with each name assigned above ``line`` replaced by its value (a signature built in
    variables: ``f4 = float32[::1]`` then ``cuda.jit((f4, f4))(f)``)."""
    if depth == 0:
        return node

    class Replace(ast.NodeTransformer):
        def visit_Name(self, name: ast.Name) -> ast.expr:  # noqa: N802 - ast's visitor name
            held = _assigned_before(tree, name.id, line)
            if held is None or not isinstance(name.ctx, ast.Load):
                return name
            return ast.copy_location(_substituted(tree, held, held.lineno, depth - 1), name)

    import copy

    return Replace().visit(copy.deepcopy(node))  # type: ignore[no-any-return]


def _returns_value(fn: ast.FunctionDef) -> bool:
    """Does ``fn`` (not the functions nested in it) return a value? A kernel cannot, so numba-cuda compiles
    a ``@cuda.jit`` function that does as a device function where kernels call it."""
    stack: list[ast.AST] = list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return) and node.value is not None:
            return not (isinstance(node.value, ast.Constant) and node.value.value is None)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(node))
    return False


def _true(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


def _kernel_options(call: ast.Call | None, info: ModuleInfo) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if call is None:
        return options
    if call.args:
        raise CompileError(
            Loc(str(info.path), call.lineno, call.col_offset),
            "@kernel(...) takes keyword options only",
            "write @kernel or @kernel(option=value)",
        )
    for kw in call.keywords:
        try:
            options[kw.arg or ""] = ast.literal_eval(kw.value)
        except ValueError:
            # Non-literal options (types in specialize=...) are read by the stage that uses them.
            options[kw.arg or ""] = kw.value
    return options
