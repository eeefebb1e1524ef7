"""Is compiled code still the compilation of the source next to it?

The build records, per kernel, a digest of each piece of source its compilation read: every
function it reached (``(module, name, digest)``) and the top-level statements of every module it
consulted (``(module, "", digest)``). Digests are of the AST, so comments and formatting do not
count. The compiler's cache uses the same functions, so "changed" means the same thing in both.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
from collections.abc import Iterable
from pathlib import Path

TOP_LEVEL = ""


def _digest(nodes: Iterable[ast.AST]) -> str:
    h = hashlib.sha256()
    for node in nodes:
        h.update(ast.dump(node, include_attributes=False).encode())
    return h.hexdigest()


def function_digest(tree: ast.Module, name: str) -> str | None:
    """The digest of a module-level function, or of a method given as ``Class.method``. A function defined
    in the branches of a module-level ``if`` or ``try`` (``if Version(numba.__version__) >= ...: def f``)
    is every definition of that name there, whichever branch the build took."""
    body: list[ast.stmt] = tree.body
    cls, _, name = name.rpartition(".")
    if cls:
        body = next((n.body for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls), [])
    for node in body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return _digest([node])
    found = [node for node in _branches(body) if isinstance(node, ast.FunctionDef) and node.name == name]
    return _digest(found) if found else None


def _branches(body: list[ast.stmt]) -> Iterable[ast.stmt]:
    """The statements in the branches of a body's ``if`` and ``try`` statements, nested ones too."""
    for node in body:
        if isinstance(node, ast.If):
            yield from node.body
            yield from node.orelse
            yield from _branches(node.body + node.orelse)
        elif isinstance(node, ast.Try):
            nested = node.body + [s for h in node.handlers for s in h.body] + node.orelse + node.finalbody
            yield from nested
            yield from _branches(nested)


def top_level_digest(tree: ast.Module) -> str:
    return _digest(n for n in tree.body if not isinstance(n, ast.FunctionDef))


def changed_sources(deps: Iterable[Iterable[str]]) -> list[str]:
    """The dependencies (as ``module.function`` or ``module``) whose source no longer matches."""
    trees: dict[str, ast.Module | None] = {}
    changed = []
    for module, name, digest in (tuple(d) for d in deps):
        if module not in trees:
            trees[module] = _parse_module(module)
        tree = trees[module]
        if tree is None:
            current = None
        else:
            current = top_level_digest(tree) if name == TOP_LEVEL else function_digest(tree, name)
        if current != digest:
            changed.append(f"{module}.{name}" if name else module)
    return changed


def _parse_module(module: str) -> ast.Module | None:
    path = module_source(module)
    return ast.parse(path.read_text(encoding="utf-8")) if path is not None else None


def module_source(module: str) -> Path | None:
    """The ``.py`` file of a module, found without importing anything: only the top-level package is
    looked up (``find_spec`` of a dotted name would import its parents, i.e. run user code); the rest
    of the name is a path inside the package's folders."""
    top, *rest = module.split(".")
    if not all(part.isidentifier() for part in [top, *rest]):
        return None
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if not rest:
        origin = spec.origin
        return Path(origin) if origin and origin.endswith(".py") else None
    folders = [Path(p) for p in spec.submodule_search_locations or ()]
    for part in rest[:-1]:
        folders = [f / part for f in folders if (f / part).is_dir()]
    for folder in folders:
        for candidate in (folder / f"{rest[-1]}.py", folder / rest[-1] / "__init__.py"):
            if candidate.is_file():
                return candidate
    return None
