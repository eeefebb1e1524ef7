"""Does a manifest entry describe the kernel the package's Python code declares?

Checked once per kernel (and specialisation), on its first launch on a GPU: the parameters the
manifest lists must be the ones the function's annotations give (names, kinds, dtypes, dimensions,
enum values), and an array the function's own body visibly writes (``x[i] = ...``, ``x[i] += ...``,
``x[i].field = ...``, ``gpu.atomic_add(x, ...)``) must be one the manifest says the kernel writes,
else host arrays would silently not be copied back. Helpers may write arrays too; those the build
saw and the runtime cannot, so this direction only catches a manifest that says less than the
source shows.
"""

from __future__ import annotations

import ast
import linecache
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from types import CodeType
from typing import Any

from .manifest import ManifestError
from .signature import Param


def stored_params(func: Callable[..., Any]) -> frozenset[str]:
    """The parameters whose elements the function's own body assigns (empty when its source is not available)."""
    fn = _function_node(func)
    if fn is None:
        return frozenset()
    params = {a.arg for a in fn.args.posonlyargs + fn.args.args}
    written: set[str] = set()
    for node in ast.walk(fn):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Call) and node.args and _callee(node.func).startswith("atomic_"):
            root = _indexed_root(node.args[0], indexed=True)  # gpu.atomic_add(x, i, v) writes x
            if root in params:
                written.add(root)
        while targets:
            target = targets.pop()
            if isinstance(target, (ast.Tuple, ast.List)):
                targets += target.elts
            elif isinstance(target, ast.Starred):
                targets.append(target.value)
            else:
                root = _indexed_root(target)
                if root in params:
                    written.add(root)
    return frozenset(written)


def _function_node(func: Callable[..., Any]) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The function's definition, parsed from its own lines only (the lines its code objects span: a
    tenth of the time of ``inspect.getsource``, which tokenizes the file); None without source."""
    code = getattr(func, "__code__", None)
    if code is None:
        return None
    lines = linecache.getlines(code.co_filename, getattr(func, "__globals__", None))
    last = max(_last_lines(code), default=0)
    for source in ("".join(lines[code.co_firstlineno - 1 : last]), None):
        try:
            if source is None:  # the span was not the whole definition: let inspect find it
                import inspect

                source = inspect.getsource(func)
            tree = ast.parse(textwrap.dedent(source))
        except (OSError, TypeError, SyntaxError):
            continue
        fn = tree.body[0] if tree.body else None
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.name == code.co_name:
            return fn
    return None


def _last_lines(code: CodeType) -> Iterator[int]:
    """The last line of each instruction of the code object and of those nested in it."""
    positions = getattr(code, "co_positions", None)  # Python 3.11+: end lines of multi-line statements
    if positions is not None:
        yield from (end for _, end, _, _ in positions() if end is not None)
    else:
        yield from (line for _, _, line in code.co_lines() if line is not None)
    for const in code.co_consts:
        if isinstance(const, CodeType):
            yield from _last_lines(const)


def _callee(func: ast.expr) -> str:
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _indexed_root(target: ast.expr, indexed: bool = False) -> str | None:
    """``x`` for ``x[i]``, ``x[i, j]``, ``x[i].re``; None when no subscript is on the way to a name."""
    while isinstance(target, (ast.Subscript, ast.Attribute)):
        indexed = indexed or isinstance(target, ast.Subscript)
        target = target.value
    return target.id if indexed and isinstance(target, ast.Name) else None


def check_params(
    manifest: Path, kernel: str, field: str, declared: list[Param], annotated: list[Param], stored: frozenset[str]
) -> None:
    """``declared``: the manifest's parameters (``field`` says where they are); ``annotated``: the function's."""

    def mismatch(where: str, problem: str) -> ManifestError:
        return ManifestError(
            f"{manifest}: kernel {kernel}, field `{where}` {problem}: the manifest does not describe the installed "
            "code. Reinstall (or rebuild) the package"
        )

    names, wanted = [p.name for p in declared], [p.name for p in annotated]
    if names != wanted:
        raise mismatch(field, f"lists parameters ({', '.join(names)}), the function takes ({', '.join(wanted)})")
    for i, (d, a) in enumerate(zip(declared, annotated)):
        where = f"{field}[{i}]"
        for key, got, want in (("kind", d.kind, a.kind), ("dtype", d.dtype, a.dtype), ("ndim", d.ndim, a.ndim)):
            if got != want:
                raise mismatch(f"{where}.{key}", f"(parameter `{d.name}`) is {got}, the annotation says {want}")
        if d.kind == "enum" and a.values and d.values != a.values:
            raise mismatch(
                f"{where}.values", f"(parameter `{d.name}`) is {list(d.values)}, {a.type_name} has {list(a.values)}"
            )
        if d.kind == "array" and not d.writes and d.name in stored:
            raise mismatch(
                f"{where}.writes", f"(parameter `{d.name}`) is false, but the kernel's body writes `{d.name}`"
            )
