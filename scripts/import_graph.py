"""The import graph of hatch_hybrid, checked: no cycles, and no import going up the stages.

    python scripts/import_graph.py          # print the graph; exit 1 on a cycle or an upward import

Every import counts: at module level, under ``if TYPE_CHECKING:`` and inside functions. Layers, top
to bottom (an import may go to the same layer or a lower one):

    cli, __main__, hook  ->  pipeline  ->  targets  ->  lower, lint  ->  typecheck  ->  frontend, cache
    ->  ir, types, errors, work (and the package's own ``__init__``, which holds the version)
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PACKAGE = "hatch_hybrid"
ROOT = Path(__file__).resolve().parent.parent / PACKAGE

#: (module or package, rank): higher ranks may import lower ones, never the other way round.
LAYERS: list[tuple[str, int]] = [
    ("cli", 6),
    ("__main__", 6),
    ("hook", 6),
    ("record", 6),  # hatch-hybrid record: the signatures a project's runs launch (the CLI and the hook read them)
    ("pipeline", 5),
    ("targets", 4),
    ("lower", 3),
    ("lint", 3),
    ("typecheck", 2),
    ("frontend", 1),
    ("cache", 1),  # keyed by the source's ASTs (frontend's); the targets' package steps keep their links in it
    ("ir", 0),
    ("types", 0),
    ("errors", 0),
    ("work", 0),  # the build's worker processes: the targets hand them their LLVM work
]

Graph = dict[str, set[str]]


def module_name(path: Path, root: Path, package: str = PACKAGE) -> str:
    parts = [package, *path.relative_to(root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(tree: ast.AST, module: str, is_package: bool, modules: set[str], package: str) -> set[str]:
    """The modules of ``modules`` that this syntax tree imports, wherever the import statement is."""
    found: set[str] = set()

    def add(name: str) -> None:
        while name and name not in modules:  # `import a.b.c` where only a.b is a module of ours
            name = name.rpartition(".")[0]
        if name:
            found.add(name)

    current = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == package or alias.name.startswith(package + "."):
                    add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = current
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                base = f"{base}.{node.module}" if node.module else base
            else:
                base = node.module or ""
            if not (base == package or base.startswith(package + ".")):
                continue
            for alias in node.names:  # `from . import ir`: the submodule; `from .x import name`: x
                sub = f"{base}.{alias.name}"
                add(sub if sub in modules else base)
    found.discard(module)
    return found


def build_graph(root: Path = ROOT, package: str = PACKAGE) -> Graph:
    """module -> the modules of the package it imports."""
    files = {module_name(p, root, package): p for p in sorted(root.rglob("*.py"))}
    modules = set(files)
    return {
        name: _imports(ast.parse(path.read_text(), str(path)), name, path.name == "__init__.py", modules, package)
        for name, path in files.items()
    }


def layer(module: str, package: str = PACKAGE) -> int | None:
    """The rank of a module (None: not placed in any layer)."""
    if module == package:
        return 0  # the package's __init__: only the version
    rest = module.removeprefix(package + ".")
    for prefix, rank in LAYERS:
        if rest == prefix or rest.startswith(prefix + "."):
            return rank
    return None


def cycles(graph: Graph) -> list[list[str]]:
    """The import cycles: strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in graph.get(v, ()):
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def upward(graph: Graph, package: str = PACKAGE) -> list[tuple[str, str]]:
    """Imports that go to a higher layer, or from or to a module no layer names."""
    bad = []
    for source, targets in sorted(graph.items()):
        for target in sorted(targets):
            s, t = layer(source, package), layer(target, package)
            if s is None or t is None or t > s:
                bad.append((source, target))
    return bad


def check(graph: Graph | None = None, package: str = PACKAGE) -> tuple[list[list[str]], list[tuple[str, str]]]:
    """(cycles, upward imports) of the graph (default: hatch_hybrid's)."""
    graph = build_graph() if graph is None else graph
    return cycles(graph), upward(graph, package)


def main() -> int:
    graph = build_graph()
    for module in sorted(graph, key=lambda m: (-(layer(m) or 0), m)):
        short = sorted(t.removeprefix(PACKAGE + ".") for t in graph[module])
        print(f"[{layer(module)}] {module.removeprefix(PACKAGE + '.')} -> {', '.join(short) or '-'}")
    found_cycles, found_upward = check(graph)
    for cycle in found_cycles:
        print("CYCLE:", " <-> ".join(cycle))
    for source, target in found_upward:
        print(f"UPWARD: {source} [{layer(source)}] -> {target} [{layer(target)}]")
    arrows = sum(len(t) for t in graph.values())
    print(f"{len(graph)} modules, {arrows} imports, {len(found_cycles)} cycles, {len(found_upward)} upward imports")
    return 1 if found_cycles or found_upward else 0


if __name__ == "__main__":
    sys.exit(main())
