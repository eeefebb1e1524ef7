"""The kernel IR: dataclasses built by :mod:`.frontend.parse`, every node with a source location.

Types are not stored on nodes: one parsed function is type-checked once per distinct argument
signature (monomorphisation), so :mod:`.typecheck` produces a :class:`~.typecheck.typed.TypedFunction`
mapping node ids to types. :func:`dump` prints a function with those types.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields
from typing import Any

from .errors import Loc

_ids = itertools.count(1)


@dataclass(eq=False)
class Node:
    loc: Loc = field(kw_only=True)
    nid: int = field(default_factory=lambda: next(_ids), kw_only=True, repr=False)


# ---------------------------------------------------------------- expressions
@dataclass(eq=False)
class Expr(Node):
    pass


@dataclass(eq=False)
class Const(Expr):
    value: int | float | complex | bool | None


@dataclass(eq=False)
class Name(Expr):
    id: str


@dataclass(eq=False)
class Attribute(Expr):
    value: Expr
    attr: str


@dataclass(eq=False)
class BinOp(Expr):
    op: str  # + - * / // % ** << >> & | ^
    left: Expr
    right: Expr


@dataclass(eq=False)
class UnaryOp(Expr):
    op: str  # - + ~ not
    operand: Expr


@dataclass(eq=False)
class Compare(Expr):
    left: Expr
    ops: list[str]  # < <= > >= == !=
    comparators: list[Expr]


@dataclass(eq=False)
class BoolOp(Expr):
    op: str  # and / or
    values: list[Expr]


@dataclass(eq=False)
class IfExp(Expr):
    test: Expr
    body: Expr
    orelse: Expr


@dataclass(eq=False)
class Call(Expr):
    func: Expr
    args: list[Expr]
    keywords: dict[str, Expr]
    # a warp function's mask where it is not known to be the whole warp's (`cuda.shfl_sync(m, v, 0)` with m a
    # run-time value): the lanes that take part (see typecheck.cuda_spelling)
    mask: Expr | None = None


@dataclass(eq=False)
class Subscript(Expr):
    value: Expr
    index: Expr


@dataclass(eq=False)
class TupleExpr(Expr):
    elts: list[Expr]


@dataclass(eq=False)
class Slice(Expr):
    """``lower:upper:step`` in an index (``a[1:-1]``, ``a[:, j]``); an absent part is None."""

    lower: Expr | None
    upper: Expr | None
    step: Expr | None


@dataclass(eq=False)
class Str(Expr):
    """A string literal: only as an argument of ``print()`` (see :mod:`.frontend.strings`)."""

    value: str


@dataclass(eq=False)
class FormattedValue(Expr):
    """``{value!conversion:spec}`` in an f-string; ``conversion`` is "", "s", "r" or "a"."""

    value: Expr
    conversion: str
    spec: str


@dataclass(eq=False)
class FString(Expr):
    """An f-string: literal text (:class:`Str`) and placeholders (:class:`FormattedValue`) in order."""

    parts: list[Expr]


# ----------------------------------------------------------------- statements
@dataclass(eq=False)
class Stmt(Node):
    pass


@dataclass(eq=False)
class Assign(Stmt):
    target: Expr  # Name, Subscript, Attribute (a struct local's field) or TupleExpr of these
    value: Expr
    annotation: Expr | None = None


@dataclass(eq=False)
class AugAssign(Stmt):
    target: Expr
    op: str
    value: Expr


@dataclass(eq=False)
class If(Stmt):
    test: Expr
    body: list[Stmt]
    orelse: list[Stmt]


@dataclass(eq=False)
class While(Stmt):
    test: Expr
    body: list[Stmt]


@dataclass(eq=False)
class ForRange(Stmt):
    target: Name
    args: list[Expr]  # range(stop) / range(start, stop) / range(start, stop, step)
    body: list[Stmt]


@dataclass(eq=False)
class Break(Stmt):
    pass


@dataclass(eq=False)
class Continue(Stmt):
    pass


@dataclass(eq=False)
class Return(Stmt):
    value: Expr | None


@dataclass(eq=False)
class ExprStmt(Stmt):
    value: Expr


@dataclass(eq=False)
class Pass(Stmt):
    pass


@dataclass(eq=False)
class Assert(Stmt):
    test: Expr
    msg: str | None


# ------------------------------------------------------------------ functions
@dataclass(eq=False)
class Param(Node):
    name: str
    annotation: Expr | None
    default: Expr | None = None  # the default value (a compile-time constant where a call uses it)


@dataclass(eq=False)
class Function(Node):
    name: str
    module: str  # dotted module name
    params: list[Param]
    returns: Expr | None
    body: list[Stmt]

    @property
    def qualname(self) -> str:
        return f"{self.module}.{self.name}"


def children(node: Node) -> Iterator[Node]:
    """Direct child nodes, in source order."""
    for f in fields(node):
        value = getattr(node, f.name)
        if isinstance(value, Node):
            yield value
        elif isinstance(value, list):
            yield from (v for v in value if isinstance(v, Node))
        elif isinstance(value, dict):
            yield from (v for v in value.values() if isinstance(v, Node))


def walk(node: Node) -> Iterator[Node]:
    yield node
    for child in children(node):
        yield from walk(child)


def target_names(target: Expr) -> list[Name]:
    """The variables an assignment target binds, nested tuples too (not the names in an index or in
    an attribute's base: ``a[j] = v`` and ``p.x = v`` bind none)."""
    if isinstance(target, Name):
        return [target]
    if isinstance(target, TupleExpr):
        return [name for t in target.elts for name in target_names(t)]
    return []


def field_path(node: Expr) -> tuple[Expr, list[str]]:
    """``p[i].pos.x`` as its base (``p[i]``) and the fields below it (``["pos", "x"]``); a node that is
    not an attribute is its own base."""
    path: list[str] = []
    while isinstance(node, Attribute):
        path.insert(0, node.attr)
        node = node.value
    return node, path


def dump(fn: Function, type_of: Callable[[Node], Any] | None = None) -> str:
    """Render a function as indented text; with ``type_of``, every expression shows its type."""
    lines: list[str] = []

    def expr(e: Expr) -> str:
        text = _expr_text(e, expr)
        if type_of is not None:
            t = type_of(e)
            if t is not None:
                return f"({text} : {t})"
        return text

    def block(stmts: list[Stmt], depth: int) -> None:
        pad = "    " * depth
        for s in stmts:
            if isinstance(s, Assign):
                ann = f": {expr(s.annotation)}" if s.annotation is not None else ""
                lines.append(f"{pad}{expr(s.target)}{ann} = {expr(s.value)}")
            elif isinstance(s, AugAssign):
                lines.append(f"{pad}{expr(s.target)} {s.op}= {expr(s.value)}")
            elif isinstance(s, If):
                lines.append(f"{pad}if {expr(s.test)}:")
                block(s.body, depth + 1)
                if s.orelse:
                    lines.append(f"{pad}else:")
                    block(s.orelse, depth + 1)
            elif isinstance(s, While):
                lines.append(f"{pad}while {expr(s.test)}:")
                block(s.body, depth + 1)
            elif isinstance(s, ForRange):
                args = ", ".join(expr(a) for a in s.args)
                lines.append(f"{pad}for {expr(s.target)} in range({args}):")
                block(s.body, depth + 1)
            elif isinstance(s, Return):
                lines.append(f"{pad}return" + (f" {expr(s.value)}" if s.value is not None else ""))
            elif isinstance(s, ExprStmt):
                lines.append(f"{pad}{expr(s.value)}")
            elif isinstance(s, Assert):
                lines.append(f"{pad}assert {expr(s.test)}" + (f", {s.msg!r}" if s.msg is not None else ""))
            else:
                lines.append(f"{pad}{type(s).__name__.lower()}")

    params = ", ".join(p.name for p in fn.params)
    lines.append(f"def {fn.qualname}({params}):")
    block(fn.body, 1)
    return "\n".join(lines)


def _expr_text(e: Expr, sub: Callable[[Expr], str]) -> str:
    if isinstance(e, Const):
        return repr(e.value)
    if isinstance(e, Name):
        return e.id
    if isinstance(e, Attribute):
        return f"{sub(e.value)}.{e.attr}"
    if isinstance(e, BinOp):
        return f"{sub(e.left)} {e.op} {sub(e.right)}"
    if isinstance(e, UnaryOp):
        return f"{e.op} {sub(e.operand)}" if e.op == "not" else f"{e.op}{sub(e.operand)}"
    if isinstance(e, Compare):
        rest = " ".join(f"{op} {sub(c)}" for op, c in zip(e.ops, e.comparators))
        return f"{sub(e.left)} {rest}"
    if isinstance(e, BoolOp):
        return f" {e.op} ".join(sub(v) for v in e.values)
    if isinstance(e, IfExp):
        return f"{sub(e.body)} if {sub(e.test)} else {sub(e.orelse)}"
    if isinstance(e, Call):
        args = [sub(a) for a in e.args] + [f"{k}={sub(v)}" for k, v in e.keywords.items()]
        return f"{sub(e.func)}({', '.join(args)})"
    if isinstance(e, Subscript):
        return f"{sub(e.value)}[{sub(e.index)}]"
    if isinstance(e, Slice):
        parts = [sub(p) if p is not None else "" for p in (e.lower, e.upper, e.step)]
        return ":".join(parts if e.step is not None else parts[:2])
    if isinstance(e, TupleExpr):
        return "(" + ", ".join(sub(x) for x in e.elts) + ("," if len(e.elts) == 1 else "") + ")"
    if isinstance(e, Str):
        return repr(e.value)
    if isinstance(e, FString):
        return "f" + repr("".join(p.value if isinstance(p, Str) else "{" + sub(p) + "}" for p in e.parts))
    if isinstance(e, FormattedValue):
        return sub(e.value) + (f"!{e.conversion}" if e.conversion else "") + (f":{e.spec}" if e.spec else "")
    return type(e).__name__
