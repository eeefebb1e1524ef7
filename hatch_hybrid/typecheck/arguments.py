"""Binding a call's arguments to a helper's or method's parameters, as Python does: positional
arguments first, then keywords by name, then the parameters' default values (compile-time constants)."""

from __future__ import annotations

from .. import ir
from ..errors import CompileError
from ..frontend.discover import ConstSym
from .typed import ArgSource, ProgramLike


def bind_arguments(
    program: ProgramLike, e: ir.Call, fn: ir.Function, method: bool, defaults: dict[tuple[int, str], ir.Const]
) -> tuple[ArgSource, ...]:
    """Where each parameter of ``fn`` (after ``self`` for a method) gets its value in the call ``e``;
    ``defaults`` keeps the nodes made for default values, one per call and parameter."""
    params = fn.params[1:] if method else fn.params
    shown = f"{fn.name}()"
    if len(e.args) > len(params):
        raise CompileError(e.loc, f"{shown} takes {len(params)} arguments, got {len(e.args)}")
    sources: dict[str, ArgSource] = {p.name: k for k, p in enumerate(params[: len(e.args)])}
    names = [p.name for p in params]
    for name, node in e.keywords.items():
        if name not in names:
            raise CompileError(
                node.loc, f"{shown} has no parameter `{name}`", "parameters: " + (", ".join(names) or "none")
            )
        if name in sources:
            raise CompileError(node.loc, f"{shown} got parameter `{name}` twice (by position and by name)")
        sources[name] = name
    missing = []
    for p in params:
        if p.name in sources:
            continue
        if p.default is None:
            missing.append(p.name)
            continue
        key = (e.nid, p.name)
        if key not in defaults:
            defaults[key] = ir.Const(default_value(program, fn.module, p), loc=p.default.loc)
        sources[p.name] = defaults[key]
    if missing:
        raise CompileError(
            e.loc, f"{shown} is missing argument{'s' * (len(missing) > 1)} {', '.join(f'`{m}`' for m in missing)}"
        )
    return tuple(sources[p.name] for p in params)


def bound_nodes(e: ir.Call, sources: tuple[ArgSource, ...]) -> list[ir.Expr]:
    """The argument expressions of a bound call, in parameter order."""
    return [e.args[s] if isinstance(s, int) else (e.keywords[s] if isinstance(s, str) else s) for s in sources]


def default_value(program: ProgramLike, module: str, p: ir.Param) -> int | float | bool:
    """A parameter's default: a number or boolean literal (negated too) or a module-level number constant."""
    assert p.default is not None
    node = p.default
    sign = 1
    if isinstance(node, ir.UnaryOp) and node.op == "-":
        sign, node = -1, node.operand
    value: object = None
    if isinstance(node, ir.Const):
        value = node.value
    elif isinstance(node, (ir.Name, ir.Attribute)):
        sym = program._static(module, node)
        value = sym.value if isinstance(sym, ConstSym) else None
    if isinstance(value, (int, float)) and not (isinstance(value, bool) and sign < 0):
        return value if sign > 0 else -value
    raise CompileError(
        p.default.loc,
        f"the default value of parameter `{p.name}` must be a compile-time number",
        "use a number or boolean literal or a module-level number constant; pass other values explicitly",
    )


def intrinsic_keywords(e: ir.Call, qualname: str) -> None:
    """``gpu.shared_array(shape=(16, 16), dtype=f32)``: an intrinsic's keywords put in their places, by
    the parameter names of the runtime's function (what the Python path calls)."""
    import inspect

    from hybrid_runtime import gpu

    func = getattr(gpu, qualname.rpartition(".")[2], None)
    if func is None:
        return
    names = [p for p in inspect.signature(func).parameters if not p.startswith("_")]
    given: dict[str, ir.Expr] = dict(zip(names, e.args))
    for name, value in e.keywords.items():
        if name not in names or name in given:
            raise CompileError(
                value.loc,
                f"`gpu.{func.__name__}` has no parameter `{name}`" if name not in names else f"`{name}` is given twice",
                f"gpu.{func.__name__}({', '.join(names)})",
            )
        given[name] = value
    missing = [n for n in names[: len(given)] if n not in given]
    if missing:
        raise CompileError(
            e.loc, f"`gpu.{func.__name__}` is called without `{missing[0]}`", f"gpu.{func.__name__}({', '.join(names)})"
        )
    e.args, e.keywords = [given[n] for n in names if n in given], {}
