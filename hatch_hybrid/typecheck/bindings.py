"""Where a function binds its variables: how often each is bound (which makes a variable's value fixed
or not), and the calls a local named like a builtin would intercept."""

from __future__ import annotations

from .. import ir
from ..errors import CompileError, Loc, Note
from .typed import BUILTINS


def assignment_counts(
    body: list[ir.Stmt], in_loop: bool = False, counts: dict[str, int] | None = None
) -> dict[str, int]:
    """How many times each variable is bound: a statement once, but a loop counter or a statement
    inside a loop as many (2)."""
    counts = {} if counts is None else counts
    for stmt in body:
        if isinstance(stmt, (ir.Assign, ir.AugAssign)):
            for n in ir.target_names(stmt.target):
                counts[n.id] = counts.get(n.id, 0) + (2 if in_loop else 1)
        elif isinstance(stmt, ir.ForRange):
            counts[stmt.target.id] = counts.get(stmt.target.id, 0) + 2
            assignment_counts(stmt.body, True, counts)
        elif isinstance(stmt, ir.While):
            assignment_counts(stmt.body, True, counts)
        elif isinstance(stmt, ir.If):
            assignment_counts(stmt.body, in_loop, counts)
            assignment_counts(stmt.orelse, in_loop, counts)
    return counts


def check_shadowing(fn: ir.Function, local_names: set[str]) -> None:
    """A parameter or local may be named like a builtin (`min = j`, `sum = 0`, a parameter `input`):
    Python makes the name local to the whole function. Only a function that also calls the builtin
    has a problem (Python calls the variable, or raises UnboundLocalError): that call is refused."""
    shadowed = local_names & BUILTINS
    if not shadowed:
        return
    locs = {p.name: p.loc for p in fn.params}
    calls: list[tuple[str, Loc]] = []
    for stmt in fn.body:
        for node in ir.walk(stmt):
            if isinstance(node, (ir.Assign, ir.AugAssign)):
                for target in ir.target_names(node.target):
                    locs.setdefault(target.id, target.loc)
            elif isinstance(node, ir.ForRange):
                locs.setdefault(node.target.id, node.target.loc)
                if "range" in shadowed:
                    calls.append(("range", node.loc))
            if isinstance(node, ir.Call) and isinstance(node.func, ir.Name) and node.func.id in shadowed:
                calls.append((node.func.id, node.func.loc))
    if not calls:
        return
    name, loc = min(calls, key=lambda c: (c[1].line, c[1].col))
    where = f" (assigned at line {locs[name].line})" if name in locs else ""
    raise CompileError(
        loc,
        f"`{name}` is a variable of this function{where}, so this call does not reach the builtin: Python "
        f"calls the variable or raises UnboundLocalError",
        f"rename the variable (e.g. `{name}_`)",
        notes=[Note(locs[name], f"`{name}` is assigned here")] if name in locs else [],
    )
