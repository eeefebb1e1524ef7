"""Type rules of ``print()`` in kernel code, and the template of each print site.

``print(*values, sep=" ", end="\\n", flush=False)`` takes numbers, string literals and f-strings
whose placeholders are numbers with literal format specs. Device code does not format text: it
records the site and the values' bits, and the runtime formats them with Python from the site's
*template* (made here, kept in the manifest), so every path prints what Python's ``print`` prints
on the Python path. A template is a list of pieces: literal text, or a value
``{"type": ..., "conv": "s"|"r"|"a"|"", "spec": ...}`` formatted as ``format(conv(value), spec)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hybrid_runtime.prints import format_piece, slots

from .. import ir
from ..errors import CompileError
from ..frontend.discover import EnumSym, ModuleSym
from ..types import BOOL, NONE, EnumT, Scalar, Type, Weak, is_numeric
from .typed import ProgramLike, TypedFunction

_NO_FILE_HINT = "kernel output goes to sys.stdout; remove file="


def check_print(e: ir.Call, tf: TypedFunction, program: ProgramLike, expr: Callable[[ir.Expr], Type]) -> Type:
    """Check a ``print(...)`` call (``expr`` types a sub-expression) and record its template in
    ``tf.prints``."""
    sep, end = " ", "\n"
    for name, node in e.keywords.items():
        if name in ("sep", "end"):
            text = _literal(node, f"print({name}=...)")
            if text is not None:
                sep, end = (text, end) if name == "sep" else (sep, text)
        elif name == "flush":
            if not (isinstance(node, ir.Const) and isinstance(node.value, bool)):
                raise CompileError(node.loc, "print(flush=...) takes True or False in kernel code")
        elif name == "file":
            raise CompileError(node.loc, "print(file=...) is not supported in kernel code", _NO_FILE_HINT)
        else:
            raise CompileError(node.loc, f"print() has no keyword argument `{name}`", "print takes sep=, end=, flush=")
    pieces: list[Any] = []
    for k, arg in enumerate(e.args):
        if k:
            pieces.append(sep)
        if isinstance(arg, ir.Str):
            pieces.append(arg.value)
        elif isinstance(arg, ir.FString):
            for part in arg.parts:
                if isinstance(part, ir.Str):
                    pieces.append(part.value)
                else:
                    assert isinstance(part, ir.FormattedValue)
                    pieces.append(_value(part.value, part.conversion, part.spec, program, expr))
        else:
            pieces.append(_value(arg, "s", "", program, expr))
    pieces.append(end)
    merged: list[Any] = []
    for piece in pieces:  # adjacent text as one piece; empty text dropped
        if isinstance(piece, str) and merged and isinstance(merged[-1], str):
            merged[-1] += piece
        elif piece != "":
            merged.append(piece)
    tf.prints[e.nid] = merged
    return NONE


def print_values(e: ir.Call) -> list[ir.Expr]:
    """The nodes whose values a print site records, in the order of its template's value pieces."""
    out: list[ir.Expr] = []
    for arg in e.args:
        if isinstance(arg, ir.FString):
            out += [p.value for p in arg.parts if isinstance(p, ir.FormattedValue)]
        elif not isinstance(arg, ir.Str):
            out.append(arg)
    return out


def _literal(node: ir.Expr, what: str) -> str | None:
    if isinstance(node, ir.Str):
        return node.value
    if isinstance(node, ir.Const) and node.value is None:
        return None
    raise CompileError(node.loc, f"{what} takes a string literal in kernel code", "write it literally, e.g. sep=', '")


def _value(
    node: ir.Expr, conv: str, spec: str, program: ProgramLike, expr: Callable[[ir.Expr], Type]
) -> dict[str, Any]:
    t = expr(node)
    if not is_numeric(t):
        what = "None" if t == NONE else f"{t} values"
        raise CompileError(
            node.loc,
            f"print() in kernel code shows numbers and strings, not {what}",
            "print its numbers one by one, e.g. print(p.x, p.y) or print(a[i])",
        )
    piece: dict[str, Any] = {"type": _type_name(t), "conv": conv, "spec": spec}
    if isinstance(t, EnumT):
        module, _, name = t.qualname.rpartition(".")
        sym = program.index.resolve_member(ModuleSym(module), name)
        assert isinstance(sym, EnumSym)
        piece.update(enum=sym.name, members=[[n, int(v)] for n, v in sym.members])
    if t == BOOL and conv in ("r", "a"):
        # a NumPy bool's repr is np.True_ on the Python path (a Python bool's, True, is fine); str() and
        # format() agree
        raise CompileError(
            node.loc,
            f"!{conv} of a boolean is not supported in kernel code",
            "write {flag} (str: True/False) or {int(flag)}",
        )
    some = piece["members"][0][1] if isinstance(t, EnumT) else 0
    try:  # as the runtime will format it
        format_piece(piece, some.to_bytes(8, "little", signed=True) * slots(piece))
    except (ValueError, TypeError) as exc:
        raise CompileError(node.loc, f"format spec {spec!r} does not apply to {t}: {exc}") from None
    return piece


def _type_name(t: Type) -> str:
    if isinstance(t, Weak):
        return t.kind  # "bool", "int", "float", "complex": a Python number on the Python path
    if isinstance(t, EnumT):
        return "enum"
    assert isinstance(t, Scalar)
    return t.name
