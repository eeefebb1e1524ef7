"""Strings in kernel code: literals and f-strings, which exist only as arguments of ``print()``.

A kernel cannot hold a string value; ``print("x =", x)`` and ``print(f"x={x:.3f}")`` are parsed
into :class:`~hatch_hybrid.ir.Str` and :class:`~hatch_hybrid.ir.FString` nodes that the type checker
accepts only there, and that the lowering turns into a print site's template (the runtime formats
the text; see :mod:`hatch_hybrid.lower.printing`).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from .. import ir
from ..errors import CompileError, Loc

_CONVERSIONS = {-1: "", ord("s"): "s", ord("r"): "r", ord("a"): "a"}


def is_print_call(node: ast.Call) -> bool:
    return isinstance(node.func, ast.Name) and node.func.id == "print"


def print_call(node: ast.Call, expr: Callable[[ast.expr], ir.Expr], loc: Callable[[ast.AST], Loc]) -> ir.Call:
    """``print(...)``: its positional arguments and ``sep=``/``end=`` may be strings."""

    def argument(a: ast.expr) -> ir.Expr:
        if isinstance(a, ast.Starred):
            raise CompileError(loc(a), "print(*values) is not supported in kernel code", "pass the values one by one")
        return string(a, expr, loc) if _is_string(a) else expr(a)

    keywords: dict[str, ir.Expr] = {}
    for k in node.keywords:
        if k.arg is None:
            raise CompileError(loc(k.value), "print(**options) is not supported in kernel code", "write sep=, end=")
        keywords[k.arg] = argument(k.value)
    return ir.Call(ir.Name("print", loc=loc(node.func)), [argument(a) for a in node.args], keywords, loc=loc(node))


def _is_string(node: ast.expr) -> bool:
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str))


def string(node: ast.expr, expr: Callable[[ast.expr], ir.Expr], loc: Callable[[ast.AST], Loc]) -> ir.Expr:
    """A string literal or an f-string whose placeholders have literal format specs."""
    if isinstance(node, ast.Constant):
        assert isinstance(node.value, str)
        return ir.Str(node.value, loc=loc(node))
    assert isinstance(node, ast.JoinedStr)
    parts: list[ir.Expr] = []
    for part in node.values:
        if isinstance(part, ast.Constant) and isinstance(part.value, str):
            parts.append(ir.Str(part.value, loc=loc(node)))
            continue
        assert isinstance(part, ast.FormattedValue)
        spec = ""
        if part.format_spec is not None:
            assert isinstance(part.format_spec, ast.JoinedStr)
            for piece in part.format_spec.values:
                if not (isinstance(piece, ast.Constant) and isinstance(piece.value, str)):
                    raise CompileError(
                        loc(piece),
                        "a format spec computed in kernel code (`{x:{width}}`) is not supported",
                        "write the spec literally, e.g. f'{x:8.3f}'",
                    )
                spec += piece.value
        parts.append(ir.FormattedValue(expr(part.value), _CONVERSIONS[part.conversion], spec, loc=loc(part.value)))
    return ir.FString(parts, loc=loc(node))
