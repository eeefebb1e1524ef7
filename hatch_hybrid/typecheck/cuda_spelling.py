"""numba.cuda's spelling of the ``gpu`` intrinsics (``from hybrid_runtime import cuda``), a porting aid.

:func:`rewrite_cuda_spelling` rewrites a parsed function once, before it is type-checked, so that both
spellings compile to the same code: ``cuda.threadIdx.x`` becomes a call of what :data:`CUDA_CALLS`
maps it to, ``cuda.shared.array(shape, dtype)`` takes its arguments in ``gpu.shared_array(dtype,
shape)``'s order, the full mask of ``cuda.shfl_down_sync(mask, v, d)`` is checked and dropped, and
``cuda.const.array_like(TABLE)`` is the module constant it names.
"""

from __future__ import annotations

import ast
import math
from typing import Any

from hybrid_runtime.libdevice import DIRECTED, FP16_OPERATORS, MATH_CALLED, OPERATIONS, SINCOS
from hybrid_runtime.libdevice import resolve as resolve_libdevice

from .. import ir
from ..errors import CompileError, Loc
from ..frontend.constants import is_integer
from ..frontend.discover import (
    ConstSym,
    EnumSym,
    ExternalSym,
    FunctionSym,
    ModuleSym,
    StructSym,
    TypeVarSym,
)
from .block_votes import hoist_block_votes, hoist_calls
from .typed import ProgramLike

PREFIX = "hybrid_runtime.cuda."
FULL_MASKS = (0xFFFFFFFF, -1)
#: What each ``cuda`` name compiles to: a ``gpu`` intrinsic.
CUDA_CALLS: dict[str, str] = {
    **{
        f"{cuda}.{axis}": f"{gpu}_{axis}"
        for cuda, gpu in (
            ("threadIdx", "thread_idx"),
            ("blockIdx", "block_idx"),
            ("blockDim", "block_dim"),
            ("gridDim", "grid_dim"),
        )
        for axis in "xyz"
    },
    "laneid": "lane_id",
    "grid": "grid",
    "gridsize": "gridsize",
    "syncthreads": "syncthreads",
    "threadfence": "threadfence",
    "threadfence_block": "threadfence",  # (a fence of the whole device orders the block's memory too)
    "threadfence_system": "threadfence",  # (host memory mapped into kernels is not part of the language)
    "shared.array": "shared_array",
    "shared.dynamic_array": "dynamic_shared_array",  # what `cuda.shared.array(0, dtype)` is rewritten to
    "local.array": "local_array",
    "atomic.add": "atomic_add",
    "atomic.max": "atomic_max_ordered",  # numba's: a NaN already stored stays, a NaN value changes nothing
    "atomic.min": "atomic_min_ordered",
    "atomic.nanmax": "atomic_max",  # the language's atomic max and min of floats ignore NaN, as these do
    "atomic.nanmin": "atomic_min",
    "atomic.exch": "atomic_exch",
    "atomic.cas": "atomic_cas",
    "atomic.compare_and_swap": "atomic_cas",  # (ary, old, val): at ary[0]
    "atomic.sub": "atomic_sub",
    "atomic.and_": "atomic_and",
    "atomic.or_": "atomic_or",
    "atomic.xor": "atomic_xor",
    "atomic.inc": "atomic_inc",
    "atomic.dec": "atomic_dec",
    "shfl_down_sync": "shfl_down",
    "shfl_up_sync": "shfl_up",
    "shfl_xor_sync": "shfl_xor",
    "shfl_sync": "shfl_idx",
    "ballot_sync": "ballot",
    "all_sync": "all_",
    "any_sync": "any_",
    "match_any_sync": "match_any",
    "match_all_sync": "match_any",  # rewritten: (lanes if every lane matches else 0, whether they all do)
    "popc": "popc",
    "clz": "clz",
    # libdevice's bit operations, in the expressions of its OPERATIONS table (_libdevice_rewrite)
    **{f"libdevice.{op}": op for op in ("popc", "clz", "ffs", "brev")},
    "ffs": "ffs",
    "brev": "brev",
    "syncwarp": "syncwarp",
    "lanemask_lt": "lanemask_lt",
    "activemask": "ballot",  # ballot(True): the warp's lanes, all converged where warp functions run
    "cg.grid_sync": "grid_sync",  # what `cuda.cg.this_grid().sync()` (or `g.sync()`) is rewritten to
    # ... and what that is expanded into (_expand_grid_syncs): the block meets, its first thread waits for the
    # grid's other blocks (grid_wait), the block meets again
    "cg.syncthreads": "syncthreads",
    "cg.thread_idx_x": "thread_idx_x",
    "cg.thread_idx_y": "thread_idx_y",
    "cg.thread_idx_z": "thread_idx_z",
    "cg.grid_wait": "grid_wait",
}
#: numba.cuda's math functions: Python's ``math`` ones (a Python float, weak in promotion: an f32 result
#: stored into an f32 array is rounded twice where numba's single-precision ``fmaf`` rounds once)
CUDA_MATH = {PREFIX + "fma": "fma", PREFIX + "cbrt": "cbrt"} | {
    f"{PREFIX}libdevice.{name}": name for name in MATH_CALLED
}  # (and libdevice's that NumPy lacks, in the expressions of its OPERATIONS table)
#: ``cuda`` names read as values, not called: they become calls (``warpsize`` a constant).
_READ_AS_VALUES = {n for n in CUDA_CALLS if "Idx." in n or "Dim." in n} | {"laneid", "warpsize"}
_MASKED = {n for n in CUDA_CALLS if n.endswith("_sync")}
_ARRAYS = {"shared.array", "local.array"}


def gpu_name(qualname: str) -> str | None:
    """The ``gpu`` intrinsic a ``hybrid_runtime.cuda`` name compiles to (None: not one)."""
    return CUDA_CALLS.get(qualname[len(PREFIX) :]) if qualname.startswith(PREFIX) else None


def rewrite_cuda_spelling(program: ProgramLike, fn: ir.Function) -> None:
    """Rewrite the ``cuda.*`` spellings in ``fn`` (in place) into what the ``gpu`` spellings parse to."""
    hoist_block_votes(program, fn)
    _hoist_match_all_arguments(program, fn)
    local = {p.name for p in fn.params}
    bindings: dict[str, list[ir.Node]] = {}
    for node in ir.walk(fn):
        if isinstance(node, (ir.Assign, ir.AugAssign, ir.ForRange)):
            for bound in _bound_names(node.target):
                bindings.setdefault(bound, []).append(node)
            local |= _bound_names(node.target)
    # locals bound once, to a number or a call written there: `mask = 0xFFFFFFFF` (or `= cuda.activemask()`)
    # before `cuda.any_sync(mask, p)`; the mask check reads what they are bound to
    bound_once: dict[str, ir.Expr] = {}
    for name, found in bindings.items():
        only = found[0]
        if len(found) == 1 and isinstance(only, ir.Assign) and isinstance(only.value, (ir.Const, ir.Call)):
            bound_once[name] = only.value
    for p in fn.params:
        bound_once.pop(p.name, None)

    def cuda_name(node: ir.Expr) -> str | None:
        root = ir.field_path(node)[0]
        if not isinstance(root, ir.Name) or root.id in local:
            return None
        sym = program._static(fn.module, node)
        if isinstance(sym, ExternalSym) and sym.qualname.startswith(PREFIX):
            return sym.qualname[len(PREFIX) :]
        return None

    def grid_group(node: ir.Expr) -> ir.Call | None:
        """The ``cuda.cg.this_grid()`` call ``node`` is, or a local bound once to one holds."""
        if isinstance(node, ir.Name) and node.id in bound_once:
            node = bound_once[node.id]
        if isinstance(node, ir.Call) and cuda_name(node.func) == "cg.this_grid" and not node.args:
            return node
        return None

    def expr(node: ir.Expr) -> ir.Expr:
        if isinstance(node, ir.Call) and isinstance(node.func, ir.Attribute) and node.func.attr == "sync":
            group = grid_group(node.func.value)
            if group is not None and not node.args and isinstance(group.func, ir.Attribute):
                # `cuda.cg.this_grid().sync()`, `g.sync()`: the grid-wide barrier
                return ir.Call(ir.Attribute(group.func.value, "grid_sync", loc=node.loc), [], {}, loc=node.loc)
        if isinstance(node, ir.Call):
            name = cuda_name(node.func)
            if name == "cg.this_grid":  # the grid group: only its `.sync()` is read (above)
                return ir.Const(0, loc=node.loc)
            if name is not None:
                return call(node, name)
        elif isinstance(node, (ir.Attribute, ir.Name)):
            name = cuda_name(node)
            if name == "warpsize":
                return ir.Const(32, loc=node.loc)
            if name in _READ_AS_VALUES:
                return ir.Call(node, [], {}, loc=node.loc)
            if name is not None:
                return node
        visit(node)
        return node

    def call(node: ir.Call, name: str) -> ir.Expr:
        # (a rewrite's result is visited again, and copies of a rewritten call (_fresh) are rewritten already)
        if getattr(node, "_spelled", False):
            return node
        setattr(node, "_spelled", True)  # noqa: B010
        node.args = [expr(a) for a in node.args]
        node.keywords = {k: expr(v) for k, v in node.keywords.items()}
        if name in _ARRAYS:
            node.args, node.keywords = _array_args(node, name), {}
            shape = node.args[1]
            if name == "shared.array" and isinstance(shape, ir.Const) and shape.value == 0:
                # numba's dynamic shared memory: the launch's shared_bytes (kernel[grid, block, stream, bytes])
                assert isinstance(node.func, ir.Attribute)
                node.func = ir.Attribute(node.func.value, "dynamic_array", loc=node.func.loc)
                node.args = node.args[:1]
        elif name == "eq_sync" and isinstance(node.func, ir.Attribute):
            # numba's: the predicate is the same in every lane, `all_sync(p) or not any_sync(p)` (both votes
            # uniform, so every lane takes the same branch of the `or`), as the runtime's eq_sync computes it
            full = _full_mask(program, fn.module, node, name, bound_once)
            votes = [ir.Call(ir.Attribute(node.func.value, vote, loc=node.loc), [_fresh(node.args[1])], {},
                             None if full else _fresh(node.args[0]), loc=node.loc)
                     for vote in ("all_sync", "any_sync")]  # fmt: skip
            for vote_call in votes:
                setattr(vote_call, ACTIVE_MASK, getattr(node, ACTIVE_MASK, False))
            return ir.BoolOp("or", [votes[0], ir.UnaryOp("not", votes[1], loc=node.loc)], loc=node.loc)
        elif name.startswith(("libdevice.", "fp16.")) and isinstance(node.func, ir.Attribute):
            rewritten = _libdevice_rewrite(node, *name.split("."))
            if rewritten is not None:
                return expr(rewritten)
            # a leading argument: `exp10f(x)` is `powf(10, x)`
            found = resolve_libdevice(*name.split("."))
            if found is not None and found[2] is not None:
                node.args.insert(0, ir.Const(found[2], loc=node.loc.rewritten()))
        elif name == "match_all_sync" and isinstance(node.func, ir.Attribute):
            # numba's (mask, pred): `(a * (m == a), m == a)` with m = match_any_sync(mask, v) and a the lanes that
            # take part (the mask; the whole warp: activemask); every warp call is made by every lane of them
            full = _full_mask(program, fn.module, node, name, bound_once)
            at = node.loc.rewritten()  # (no conversion of the Python path at the call: it runs match_all_sync)
            base = node.func.value

            def call(attr: str, *args: ir.Expr) -> ir.Expr:
                return _member_call(base, attr, at, *args)

            def lanes_taking_part() -> ir.Expr:
                return (
                    call("activemask")
                    if full
                    else ir.BinOp("&", _fresh(node.args[0]), ir.Const(0xFFFFFFFF, loc=at), loc=at)
                )

            def all_match() -> ir.Expr:
                matched = call("match_any_sync", _fresh(node.args[0]), _fresh(node.args[1]))
                return ir.Compare(matched, ["=="], [lanes_taking_part()], loc=at)

            lanes = ir.BinOp("*", lanes_taking_part(), all_match(), loc=at)
            return expr(ir.TupleExpr([lanes, all_match()], loc=at))
        elif name == "atomic.compare_and_swap":  # numba's: the first element
            node.args = node.args[:1] + [ir.Const(0, loc=node.loc)] + node.args[1:]
        elif name in _MASKED:  # the mask: the lanes that take part (none kept where it is the whole warp)
            if not _full_mask(program, fn.module, node, name, bound_once):
                node.mask = node.args[0]
            node.args = node.args[1:]
        elif name == "syncwarp":  # cuda.syncwarp(mask=0xFFFFFFFF): the mask is optional
            if node.args and not _full_mask(program, fn.module, node, name, bound_once):
                node.mask = node.args[0]
            node.args = [ir.Const(True, loc=node.loc)]
        elif name == "activemask":
            node.args = [ir.Const(True, loc=node.loc)]
        elif name == "const.array_like":
            return _module_constant(program, fn.module, node, local)
        return node

    def visit(node: ir.Node) -> None:
        for field, value in vars(node).items():
            if isinstance(value, ir.Expr):
                setattr(node, field, expr(value))
            elif isinstance(value, ir.Node):
                visit(value)
            elif isinstance(value, list):
                setattr(node, field, [expr(v) if isinstance(v, ir.Expr) else _visited(v, visit) for v in value])
            elif isinstance(value, dict):
                setattr(node, field, {k: expr(v) if isinstance(v, ir.Expr) else v for k, v in value.items()})

    visit(fn)
    _expand_grid_syncs(program, fn)


_GRID_SYNCS = {PREFIX + "cg.grid_sync", "hybrid_runtime.gpu.grid_sync"}


def _expand_grid_syncs(program: ProgramLike, fn: ir.Function) -> None:
    """Each grid-wide barrier statement (``cuda.cg.this_grid().sync()``, ``gpu.grid_sync()``) as what every
    target runs: the block meets (``syncthreads``), its thread (0, 0, 0) waits until every block of the grid
    has come (``grid_wait``: one thread per block, no barrier of its own), the block meets again. (The Python
    path runs the statement itself.) A grid barrier inside an expression is refused."""
    for node in ir.walk(fn):
        for field, value in vars(node).items():
            if not isinstance(value, list) or not any(isinstance(s, ir.Stmt) for s in value):
                continue
            out: list[ir.Stmt] = []
            for s in value:
                call = s.value if isinstance(s, ir.ExprStmt) and isinstance(s.value, ir.Call) else None
                sym = program._static(fn.module, call.func) if call is not None else None
                if call is None or not (isinstance(sym, ExternalSym) and sym.qualname in _GRID_SYNCS):
                    out.append(s)
                    continue
                if not isinstance(call.func, ir.Attribute):  # `from hybrid_runtime.gpu import grid_sync`
                    raise CompileError(
                        call.loc,
                        "a grid-wide barrier is spelled through its module here",
                        "write gpu.grid_sync() (from hybrid_runtime import gpu) or cuda.cg.this_grid().sync()",
                    )
                if call.args or call.keywords:
                    raise CompileError(call.loc, "a grid-wide barrier takes no arguments")
                base, at = call.func.value, call.loc.rewritten()

                def gpu(name: str, base: ir.Expr = base, at: Loc = at) -> ir.Call:
                    return _member_call(base, name, at)

                first = [ir.Compare(gpu(f"thread_idx_{a}"), ["=="], [ir.Const(0, loc=at)], loc=at) for a in "xyz"]
                wait = ir.If(ir.BoolOp("and", list(first), loc=at), [ir.ExprStmt(gpu("grid_wait"), loc=at)], [], loc=at)
                out += [ir.ExprStmt(gpu("syncthreads"), loc=call.loc), wait, ir.ExprStmt(gpu("syncthreads"), loc=at)]
            setattr(node, field, out)
    for node in ir.walk(fn):
        if isinstance(node, ir.Call):
            sym = program._static(fn.module, node.func)
            if isinstance(sym, ExternalSym) and sym.qualname in _GRID_SYNCS:
                raise CompileError(
                    node.loc,
                    "a grid-wide barrier inside an expression",
                    "write it as a statement of its own: cuda.cg.this_grid().sync()",
                )


#: a warp call whose mask is `cuda.activemask()` (an attribute the spelling pass sets on the call)
ACTIVE_MASK = "_active_mask"
_BINARY = {"+", "-", "*", "/"}


def _libdevice_rewrite(node: ir.Call, module: str, name: str) -> ir.Expr | None:
    """``cuda.fp16``'s arithmetic and libdevice's ``sincos`` as the expressions they are (the runtime's
    :mod:`hybrid_runtime.libdevice` computes the same on the Python path): ``fp16.hadd(a, b)`` is
    ``float16(a) + float16(b)``, ``libdevice.sincosf(x)`` is ``(sinf(x), cosf(x))``. None: not one of these."""
    assert isinstance(node.func, ir.Attribute)
    base, at = node.func.value, node.loc.rewritten()

    def call(attr: str, *args: ir.Expr) -> ir.Expr:
        return _member_call(base, attr, at, *args)

    if module == "libdevice" and name in OPERATIONS:
        dtypes, expression = OPERATIONS[name]
        if len(node.args) != len(dtypes) or node.keywords:
            raise CompileError(
                node.loc, f"cuda.libdevice.{name}() takes {len(dtypes)} argument{'s' * (len(dtypes) > 1)}"
            )
        operands = {p: call(d, a) for p, d, a in zip("ab", dtypes, node.args)}
        return _from_expression(ast.parse(expression, mode="eval").body, operands, base, at)
    if module == "libdevice" and DIRECTED.match(name):
        raise CompileError(
            node.loc,
            f"cuda.libdevice.{name}() rounds in a directed mode, which the CPU paths do not compute in",
            f"use cuda.libdevice.{name[:-3]}_rn() (rounding to nearest, as every other operation)",
        )
    if module == "libdevice" and name in SINCOS and len(node.args) == 1:
        suffix = SINCOS[name]
        return ir.TupleExpr([call("sin" + suffix, node.args[0]), call("cos" + suffix, _fresh(node.args[0]))], loc=at)
    op = FP16_OPERATORS.get(name) if module == "fp16" else None
    if op is None:
        return None
    arity = {"neg": 1, "rcp": 1, "rsqrt": 1, "fma": 3}.get(op, 2)
    if len(node.args) != arity or node.keywords:
        raise CompileError(node.loc, f"cuda.fp16.{name}() takes {arity} argument{'s' * (arity > 1)}")
    half = [call("float16", a) for a in node.args]
    if op in _BINARY:
        return ir.BinOp(op, half[0], half[1], loc=at)
    if op == "neg":
        return ir.UnaryOp("-", half[0], loc=at)
    if op == "fma":  # computed in f64, rounded once to f16
        wide = [call("float64", h) for h in half]
        return call("float16", ir.BinOp("+", ir.BinOp("*", wide[0], wide[1], loc=at), wide[2], loc=at))
    if op == "rcp":
        return ir.BinOp("/", call("float16", ir.Const(1, loc=at)), half[0], loc=at)
    if op == "rsqrt":
        return ir.BinOp("/", call("float16", ir.Const(1, loc=at)), call("hsqrt", half[0]), loc=at)
    return ir.Compare(half[0], [op], [half[1]], loc=at)


_AST_OPERATORS: dict[type, str] = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.RShift: ">>", ast.LShift: "<<", ast.BitAnd: "&",
    ast.BitOr: "|", ast.Lt: "<", ast.LtE: "<=",
    ast.Eq: "==", ast.Not: "not",
}  # fmt: skip


def _from_expression(node: ast.expr, operands: dict[str, ir.Expr], base: ir.Expr, at: Loc) -> ir.Expr:
    """An expression of libdevice's OPERATIONS table as IR at ``at``: ``a``/``b`` the operands, ``inf`` the
    float, ``min``/``max``/``abs`` the builtins, other names functions of ``base`` (the ``libdevice`` module:
    its math functions, casts and bit operations)."""

    def build(n: ast.expr) -> ir.Expr:
        if isinstance(n, ast.Name):  # an operand, inf, or a type of the libdevice module (x.view(int32))
            if n.id in operands:
                return operands[n.id]
            return ir.Const(math.inf, loc=at) if n.id == "inf" else ir.Attribute(base, n.id, loc=at)
        if isinstance(n, ast.Constant):
            assert isinstance(n.value, (int, float)), n.value
            return ir.Const(n.value, loc=at)
        if isinstance(n, ast.BinOp):
            return ir.BinOp(_AST_OPERATORS[type(n.op)], build(n.left), build(n.right), loc=at)
        if isinstance(n, ast.UnaryOp):
            return ir.UnaryOp(_AST_OPERATORS[type(n.op)], build(n.operand), loc=at)
        if isinstance(n, ast.Compare):
            ops = [_AST_OPERATORS[type(op)] for op in n.ops]
            return ir.Compare(build(n.left), ops, [build(c) for c in n.comparators], loc=at)
        assert isinstance(n, ast.Call), ast.dump(n)
        args = [build(a) for a in n.args]
        if isinstance(n.func, ast.Attribute):  # a method of a value: x.view(int32)
            return ir.Call(ir.Attribute(build(n.func.value), n.func.attr, loc=at), args, {}, loc=at)
        assert isinstance(n.func, ast.Name), ast.dump(n)
        if n.func.id in ("min", "max", "abs"):
            return ir.Call(ir.Name(n.func.id, loc=at), args, {}, loc=at)
        made = _member_call(base, n.func.id, at, *args)
        setattr(made, "_spelled", True)  # noqa: B010 (a bit operation: what CUDA_CALLS maps it to, as it is)
        return made

    return build(node)


def _member_call(base: ir.Expr, name: str, at: Loc, *args: ir.Expr) -> ir.Call:
    """``base.name(*args)`` at ``at``: a call of another function of the module ``base`` names (what the
    rewrites of this module build their replacements from)."""
    return ir.Call(ir.Attribute(base, name, loc=at), list(args), {}, loc=at)


def _fresh(node: ir.Expr) -> ir.Expr:
    """A copy of ``node`` with node ids of its own (the same expression evaluated at a second place)."""
    import copy

    made = copy.deepcopy(node)
    for n in ir.walk(made):
        n.nid = next(ir._ids)
    return made


def _bound_names(target: ir.Expr) -> set[str]:
    """The variables an assignment binds (not the names read in ``a[i] = ...``)."""
    if isinstance(target, ir.Name):
        return {target.id}
    if isinstance(target, ir.TupleExpr):
        return {n for e in target.elts for n in _bound_names(e)}
    return set()


def _visited(node: Any, visit: Any) -> Any:
    if isinstance(node, ir.Node):
        visit(node)
    return node


def _array_args(node: ir.Call, name: str) -> list[ir.Expr]:
    """``cuda.shared.array(shape, dtype)`` (also by keyword) as ``[dtype, shape]``."""
    given = dict(zip(("shape", "dtype"), node.args)) | node.keywords
    extra = [k for k in node.keywords if k not in ("shape", "dtype")]
    if len(node.args) > 2 or extra or "shape" not in given or "dtype" not in given:
        raise CompileError(
            node.loc,
            f"cuda.{name}(shape, dtype) takes a shape and a dtype",
            f"write cuda.{name}(shape=(16, 16), dtype=np.float32)",
        )
    return [given["dtype"], given["shape"]]


def _hoist_match_all_arguments(program: ProgramLike, fn: ir.Function) -> None:
    """``cuda.match_all_sync(mask, v)`` is rewritten into an expression that reads ``mask`` and ``v`` more
    than once: an argument that calls a function (which may have effects, or be costly) is evaluated into a
    variable just before the statement, once; one under a condition or in a while condition is refused."""
    made = iter(range(1 << 30))

    def expand(node: ir.Call, where: str) -> tuple[list[ir.Stmt], ir.Expr] | None:
        sym = program._static(fn.module, node.func) if isinstance(node.func, (ir.Name, ir.Attribute)) else None
        if not isinstance(sym, ExternalSym) or sym.qualname != PREFIX + "match_all_sync":
            return None
        stmts: list[ir.Stmt] = []
        for k, arg in enumerate(node.args):
            call = next((n for n in ir.walk(arg) if isinstance(n, ir.Call)), None)
            if call is None:
                continue
            if where != "statement":
                raise CompileError(
                    call.loc,
                    "cuda.match_all_sync() reads its arguments more than once, and this one calls a function "
                    + ("in a while condition" if where == "loop" else "where only some evaluations reach it"),
                    "assign the argument to a variable first and pass the variable",
                )
            name = f"__hh_match_{next(made)}"
            stmts.append(ir.Assign(ir.Name(name, loc=arg.loc), arg, loc=arg.loc))
            node.args[k] = ir.Name(name, loc=arg.loc)
        return stmts, node

    fn.body = hoist_calls(fn.body, expand)


def _full_mask(program: ProgramLike, module: str, node: ir.Call, name: str, bound_once: dict[str, ir.Expr]) -> bool:
    """Whether the mask of a ``*_sync`` call is known to be the full warp's: a literal, a module constant,
    ``cuda.activemask()``, or a local bound once to one of the first and third. (Other masks are the lanes
    that take part: CUDA's partial masks.)"""
    mask = node.args[0] if node.args else None
    if mask is None:
        raise CompileError(node.loc, f"cuda.{name} takes the mask of the lanes that take part first", "0xFFFFFFFF")
    given = bound_once.get(mask.id, mask) if isinstance(mask, ir.Name) else mask
    value: object = given.value if isinstance(given, ir.Const) else None
    if isinstance(given, ir.Call) and isinstance(given.func, (ir.Name, ir.Attribute)):  # cuda.activemask()
        sym = program._static(module, given.func)
        if isinstance(sym, ExternalSym) and sym.qualname == PREFIX + "activemask":
            # the lanes executing here (not the whole warp in a branch that divides it): a mask of run-time
            # lanes, which WebGPU's subgroup operations, over the invocations executing, take as no mask
            setattr(node, ACTIVE_MASK, True)
            return False
        value = None
    elif isinstance(given, (ir.Name, ir.Attribute)):
        sym = program._static(module, given)
        value = sym.value if isinstance(sym, ConstSym) and is_integer(sym.value) else None
    if isinstance(value, bool):
        raise CompileError(mask.loc, f"the mask of cuda.{name} is a bool", "write 0xFFFFFFFF for the whole warp")
    return value in FULL_MASKS


def _module_constant(program: ProgramLike, module: str, node: ir.Call, local: set[str]) -> ir.Expr:
    """``cuda.const.array_like(TABLE)``: the module constant itself (a plain read of the name)."""
    arg = node.args[0] if len(node.args) == 1 and not node.keywords else None
    root = ir.field_path(arg)[0] if arg is not None else None
    sym = program._static(module, arg) if arg is not None and isinstance(root, ir.Name) else None
    not_constants = (FunctionSym, ModuleSym, StructSym, EnumSym, TypeVarSym, ExternalSym)
    if arg is None or sym is None or isinstance(sym, not_constants) or (isinstance(root, ir.Name) and root.id in local):
        raise CompileError(
            (arg or node).loc,
            "cuda.const.array_like() takes the name of a module-level constant",
            "define the table at module level (TABLE = ...) and write cuda.const.array_like(TABLE), or read TABLE "
            "directly",
        )
    return arg
