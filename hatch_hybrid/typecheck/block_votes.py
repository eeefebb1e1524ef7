"""CUDA's reducing barriers, ``syncthreads_count(p)``, ``syncthreads_and(p)`` and ``syncthreads_or(p)``
(numba-cuda's ``cuda.syncthreads_count`` & co., also spelled ``gpu.``), written in terms of what every
target has: a block-shared counter, barriers and an atomic add.

:func:`hoist_block_votes` rewrites a parsed function, before its ``cuda`` spellings are read, so that each
such call becomes, just before its statement::

    __hh_vote_L_C = cuda.shared.array(1, int)       # the block's counter
    cuda.syncthreads()                               # every thread has read the last vote's result
    if thread (0, 0, 0): __hh_vote_L_C[0] = 0
    cuda.syncthreads()
    if p (count, or) / if not p (and): cuda.atomic.add(__hh_vote_L_C, 0, 1)
    cuda.syncthreads()
    __hh_vote_L_C_n = int(__hh_vote_L_C[0])

and the call itself that count (``int(n == 0)`` for ``and``, ``int(n != 0)`` for ``or``): a Python int,
as the Python path's ``cuda.syncthreads_count`` returns it.
"""

from __future__ import annotations

from collections.abc import Callable

from .. import ir
from ..errors import CompileError, Loc
from ..frontend.discover import ExternalSym
from .typed import ProgramLike

VOTES = ("syncthreads_count", "syncthreads_and", "syncthreads_or")
_MODULES = ("hybrid_runtime.cuda", "hybrid_runtime.gpu")
#: what replaces a call of a statement's expressions: (the statements that go before the statement, the
#: expression that stands for the call), or None to keep it; given the call and where it is evaluated:
#: "statement" (whenever the statement runs), "conditional" (only under a condition: the branches of ``a if c
#: else b``, the operands after the first of ``and``/``or``; statements placed before would run always) or
#: "loop" (a while condition, evaluated again each iteration: nothing can go before it)
Expand = Callable[[ir.Call, str], "tuple[list[ir.Stmt], ir.Expr] | None"]


def hoist_block_votes(program: ProgramLike, fn: ir.Function) -> None:
    """Rewrite every reducing barrier of ``fn`` (in place)."""

    def expand(node: ir.Call, where: str) -> tuple[list[ir.Stmt], ir.Expr] | None:
        if not isinstance(node.func, (ir.Name, ir.Attribute)):
            return None
        sym = program._static(fn.module, node.func)
        if not isinstance(sym, ExternalSym) or sym.qualname.rpartition(".")[0] not in _MODULES:
            return None
        name = sym.qualname.rpartition(".")[2]
        if name not in VOTES:
            return None
        if where == "loop":
            raise CompileError(
                node.loc,
                f"{name}() in a while condition is not supported in kernel code",
                "compute it into a variable before the loop and again at the end of its body",
            )
        return _expand(node, name)  # (a barrier: every thread of the block reaches it, CUDA's rule)

    fn.body = hoist_calls(fn.body, expand)


def hoist_calls(stmts: list[ir.Stmt], expand: Expand) -> list[ir.Stmt]:
    """``stmts`` with the calls ``expand`` replaces replaced, inner calls first, and the statements it
    gives placed before the statement that evaluates the call."""
    out: list[ir.Stmt] = []
    for stmt in stmts:
        for field in ("body", "orelse"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list):
                setattr(stmt, field, hoist_calls(inner, expand))
        if isinstance(stmt, ir.While):
            stmt.test = _substitute(stmt.test, expand, out, "loop")  # type: ignore[assignment]
        for field in _OWN_EXPRESSIONS.get(type(stmt), ()):
            setattr(stmt, field, _substitute(getattr(stmt, field), expand, out, "statement"))
        out.append(stmt)
    return out


def _substitute(value: object, expand: Expand, before: list[ir.Stmt], where: str) -> object:
    """``value`` (an expression, or a list or dict of them) with the calls ``expand`` replaces replaced; the
    statements computing them are appended to ``before``."""
    if isinstance(value, list):
        return [_substitute(v, expand, before, where) for v in value]
    if isinstance(value, dict):
        return {k: _substitute(v, expand, before, where) for k, v in value.items()}
    if not isinstance(value, ir.Expr):
        return value
    inner = "conditional" if where == "statement" else where
    if isinstance(value, ir.BoolOp):  # the first operand is evaluated always
        operands = [_substitute(value.values[0], expand, before, where)]
        operands += [_substitute(v, expand, before, inner) for v in value.values[1:]]
        value.values = [v for v in operands if isinstance(v, ir.Expr)]
    else:
        for field, child in vars(value).items():
            if isinstance(child, (ir.Expr, list, dict)):
                branch = isinstance(value, ir.IfExp) and field != "test"
                setattr(value, field, _substitute(child, expand, before, inner if branch else where))
    found = expand(value, where) if isinstance(value, ir.Call) else None
    if found is None:
        return value
    stmts, result = found
    assert not stmts or where != "loop", "statements before a while condition"
    before += stmts
    return result


#: the fields holding the expressions a statement evaluates itself (not those of the statements it holds)
_OWN_EXPRESSIONS: dict[type, tuple[str, ...]] = {
    ir.Assign: ("value", "target"),
    ir.AugAssign: ("value", "target"),
    ir.ExprStmt: ("value",),
    ir.Return: ("value",),
    ir.If: ("test",),
    ir.Assert: ("test",),
    ir.ForRange: ("args",),
}


def _expand(call: ir.Call, name: str) -> tuple[list[ir.Stmt], ir.Expr]:
    """The statements that compute ``call``'s vote, and the expression that stands for it."""
    loc = call.loc
    if not isinstance(call.func, ir.Attribute) or len(call.args) != 1 or call.keywords:
        raise CompileError(
            loc,
            f"{name}(predicate) takes one argument and is called through its module here",
            f"write cuda.{name}(p) (from hybrid_runtime import cuda)",
        )
    spell = _Spelling(call.func.value, loc)
    counter = f"__hh_vote_{loc.line}_{loc.col}"
    count = f"{counter}_n"

    def name_(n: str) -> ir.Name:
        return ir.Name(n, loc=loc)

    def const(v: int) -> ir.Const:
        return ir.Const(v, loc=loc)

    first = ir.BoolOp(
        "and",
        [ir.Compare(spell.thread(axis), ["=="], [const(0)], loc=loc) for axis in "xyz"],
        loc=loc,
    )
    test = call.args[0] if name != "syncthreads_and" else ir.UnaryOp("not", call.args[0], loc=loc)
    stmts: list[ir.Stmt] = [
        ir.Assign(name_(counter), spell.shared_counter(), loc=loc),
        spell.sync(),
        ir.If(first, [ir.Assign(ir.Subscript(name_(counter), const(0), loc=loc), const(0), loc=loc)], [], loc=loc),
        spell.sync(),
        ir.If(test, [ir.ExprStmt(spell.add(name_(counter)), loc=loc)], [], loc=loc),
        spell.sync(),
        ir.Assign(
            name_(count),
            ir.Call(name_("int"), [ir.Subscript(name_(counter), const(0), loc=loc)], {}, loc=loc),
            loc=loc,
        ),
    ]
    if name == "syncthreads_count":
        return stmts, name_(count)
    op = "==" if name == "syncthreads_and" else "!="
    result = ir.Call(name_("int"), [ir.Compare(name_(count), [op], [const(0)], loc=loc)], {}, loc=loc)
    return stmts, result


class _Spelling:
    """Calls through the module the vote was called through (``cuda`` or ``gpu``), as its user wrote them."""

    def __init__(self, module: ir.Expr, loc: Loc) -> None:
        self.module, self.loc = module, loc
        self.cuda = not (isinstance(module, ir.Name) and module.id == "gpu")

    def _attr(self, *path: str) -> ir.Expr:
        node: ir.Expr = _copy(self.module)
        for part in path:
            node = ir.Attribute(node, part, loc=self.loc)
        return node

    def _call(self, func: ir.Expr, *args: ir.Expr) -> ir.Call:
        return ir.Call(func, list(args), {}, loc=self.loc)

    def sync(self) -> ir.Stmt:
        return ir.ExprStmt(self._call(self._attr("syncthreads")), loc=self.loc)

    def thread(self, axis: str) -> ir.Expr:
        if self.cuda:
            return self._attr("threadIdx", axis)
        return self._call(self._attr(f"thread_idx_{axis}"))

    def shared_counter(self) -> ir.Call:
        one, i64 = ir.Const(1, loc=self.loc), ir.Name("int", loc=self.loc)
        if self.cuda:
            return self._call(self._attr("shared", "array"), one, i64)
        return self._call(self._attr("shared_array"), i64, one)

    def add(self, counter: ir.Name) -> ir.Call:
        func = self._attr("atomic", "add") if self.cuda else self._attr("atomic_add")
        zero, one = ir.Const(0, loc=self.loc), ir.Const(1, loc=self.loc)
        return self._call(func, ir.Name(counter.id, loc=self.loc), zero, one)


def _copy(node: ir.Expr) -> ir.Expr:
    if isinstance(node, ir.Name):
        return ir.Name(node.id, loc=node.loc)
    if isinstance(node, ir.Attribute):
        return ir.Attribute(_copy(node.value), node.attr, loc=node.loc)
    raise CompileError(
        node.loc, "call the block vote through the cuda or gpu module", "write cuda.syncthreads_count(p)"
    )
