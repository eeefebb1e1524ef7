"""Which values and conditions differ between the threads of a block, and the barriers and warp calls
that only some threads reach because of them (lints ``divergent-barrier``, ``divergent-warp-call``).

Every expression gets a level: the same for the whole block (:data:`UNIFORM`: constants, parameters,
block index and dimensions, loads at uniform indices), the same within a warp (:data:`WARP`:
``thread_idx_x() // 32``, ``thread_idx_x() < 64``, votes, loads at such indices), ``warp base + lane``
(:data:`LANE`: ``thread_idx_x()``, ``global_tid_x()``, ``cuda.grid(1)``, from which those two are
derived), or different per thread (:data:`THREAD`: other thread indices, ``lane_id()``, shuffles,
atomics' results, loads at thread-dependent indices, per-thread ``local_array`` contents). The warp
levels assume ``block_dim_x()`` is a multiple of 32. Levels flow through locals (every assignment of
a local counts, wherever it is), through what is assigned under a condition, through helpers'
parameters and results, and through loops: a ``break``/``continue`` under a condition makes the
loop's condition that level. An early ``return`` does not make what follows divergent: threads that
have returned count as arrived at later barriers, on the GPU (sm_70 on) and on both CPU paths.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import ir
from ..errors import LintWarning, Loc, Note
from ..typecheck.arguments import bound_nodes
from ..typecheck.rules import ATOMICS, MATCHES, SHUFFLES, VOTES
from ..typecheck.typed import TypedFunction
from ..types import ArrayT, Scalar, TupleT, Weak

UNIFORM, WARP, LANE, THREAD = 0, 1, 2, 3
_LANE_SOURCES = {"thread_idx_x", "global_tid_x"}
_THREAD_SOURCES = {"thread_idx_y", "thread_idx_z", "global_tid_y", "global_tid_z", "lane_id"}
_THREAD_SOURCES |= SHUFFLES | MATCHES | ATOMICS
_WARP_CALLS = SHUFFLES | VOTES | MATCHES


def combine(*levels: int) -> int:
    """The level of a value computed from values of these levels (``lane + 1`` is no longer ``warp + lane``)."""
    top = max(levels, default=UNIFORM)
    return THREAD if top >= LANE else top


@dataclass
class Summary:
    """A function analysed for its parameters' levels: its result's level, a barrier and a warp call it reaches."""

    returns: int
    barrier: Loc | None
    warp: Loc | None


class Divergence:
    """The analysis of a kernel and the helpers it calls (each helper once per tuple of parameter levels)."""

    def __init__(self) -> None:
        self.summaries: dict[tuple[int, tuple[int, ...]], Summary] = {}
        self.found: dict[tuple[str, str], LintWarning] = {}

    def kernel(self, tf: TypedFunction) -> list[LintWarning]:
        self.function(tf, (UNIFORM,) * len(tf.fn.params))
        return sorted(self.found.values(), key=lambda w: (w.loc.file, w.loc.line, w.loc.col))

    def function(self, tf: TypedFunction, params: tuple[int, ...]) -> Summary:
        key = (id(tf), params)
        found = self.summaries.get(key)
        if found is None:
            found = self.summaries[key] = FunctionLevels(self, tf, params).run()
        return found

    def warn(self, name: str, loc: Loc, message: str, hint: str, note: Note | None = None) -> None:
        self.found.setdefault((name, str(loc)), LintWarning(name, loc, message, hint, [note] if note else None))


class FunctionLevels:
    def __init__(self, analysis: Divergence, tf: TypedFunction, params: tuple[int, ...]) -> None:
        self.analysis, self.tf = analysis, tf
        self.levels = {p.name: level for p, level in zip(tf.fn.params, params)}
        # array locals -> the level of their shape alone (``m[i]`` of a uniform ``m`` has a uniform shape,
        # ``a[t:]`` does not): ``len``, ``.shape`` and ``.size`` read it
        self.shapes = {
            p.name: level for p, level in zip(tf.fn.params, params) if isinstance(tf.locals.get(p.name), ArrayT)
        }
        self.private: set[str] = set()  # locals holding a local_array: each thread's own contents
        self.loop_exits: dict[int, int] = {}  # loop node id -> level of the conditions its break/continue are under
        self.loops: list[int] = []
        self.returns = UNIFORM
        self.changed = False
        self.report = False
        self.barrier: Loc | None = None
        self.warp: Loc | None = None

    def run(self, body: list[ir.Stmt] | None = None) -> Summary:
        """Levels of every local to a fixpoint; ``body``: a rewritten body of the function (the host
        lowering's, with warp calls in statements of their own) instead of the parsed one."""
        stmts = self.tf.fn.body if body is None else body
        self.changed = True
        while self.changed:  # levels only rise: a fixpoint over every assignment
            self.changed = False
            self.block(stmts, UNIFORM)
        self.report = True
        self.block(stmts, UNIFORM)
        return Summary(self.returns, self.barrier, self.warp)

    def set(self, name: str, level: int, levels: dict[str, int] | None = None) -> None:
        levels = self.levels if levels is None else levels
        if level > levels.get(name, UNIFORM):
            levels[name] = level
            self.changed = True

    # ---------------------------------------------------------------- statements
    def block(self, stmts: list[ir.Stmt], control: int) -> None:
        for s in stmts:
            self.stmt(s, control)

    def stmt(self, s: ir.Stmt, control: int) -> None:
        if isinstance(s, ir.Assign):
            self.store(s.target, self.expr(s.value, control), control, s.value)
        elif isinstance(s, ir.AugAssign):
            level = combine(self.expr(s.target, control), self.expr(s.value, control))
            self.store(s.target, level, control, None)
        elif isinstance(s, ir.If):
            inner = max(control, self.condition(s.test, control))
            self.block(s.body, inner)
            self.block(s.orelse, inner)
        elif isinstance(s, ir.While):
            self.loop(s.nid, s.body, max(control, self.condition(s.test, control)))
        elif isinstance(s, ir.ForRange):
            bounds = combine(*(self.expr(a, control) for a in s.args))
            self.set(s.target.id, max(bounds, control))
            self.loop(s.nid, s.body, max(control, bounds))
        elif isinstance(s, (ir.Break, ir.Continue)) and self.loops:
            loop = self.loops[-1]
            if control > self.loop_exits.get(loop, UNIFORM):
                self.loop_exits[loop] = control
                self.changed = True
        elif isinstance(s, ir.Return) and s.value is not None:
            self.returns = max(self.returns, self.expr(s.value, control), control)
        elif isinstance(s, ir.ExprStmt):
            self.expr(s.value, control)
        elif isinstance(s, ir.Assert):
            self.expr(s.test, control)

    def loop(self, nid: int, body: list[ir.Stmt], control: int) -> None:
        self.loops.append(nid)
        self.block(body, max(control, self.loop_exits.get(nid, UNIFORM)))
        self.loops.pop()

    def store(self, target: ir.Expr, level: int, control: int, value: ir.Expr | None) -> None:
        level = max(level, control)
        if isinstance(target, ir.Name):
            callee = self.tf.callees.get(value.nid) if value is not None else None
            if callee is not None and callee.kind == "gpu" and callee.name == "local_array":
                self.private.add(target.id)
            self.set(target.id, level)
            if isinstance(self.tf.locals.get(target.id), ArrayT):
                shape = level if value is None else max(self.shape(value, control), control)
                self.set(target.id, shape, self.shapes)
        elif isinstance(target, ir.TupleExpr):
            for item in target.elts:
                self.store(item, level, control, None)
        elif isinstance(target, ir.Subscript):
            self.expr(target.index, control)
            if isinstance(target.value, ir.Name) and target.value.id in self.private:
                self.set(target.value.id, level)
        elif isinstance(target, ir.Attribute):
            root = ir.field_path(target)[0]
            if isinstance(root, ir.Name):
                self.set(root.id, level)

    # --------------------------------------------------------------- expressions
    def condition(self, e: ir.Expr, control: int) -> int:
        level = self.expr(e, control)
        return THREAD if level == LANE else level  # a truth test of `warp base + lane` differs per lane

    def expr(self, e: ir.Expr, control: int) -> int:
        tf = self.tf
        if e.nid in tf.consts and not isinstance(e, ir.Call) or isinstance(e, ir.Const):
            return UNIFORM
        if isinstance(e, ir.Name):
            return THREAD if e.id in self.private else self.levels.get(e.id, UNIFORM)
        if isinstance(e, ir.Attribute):  # an array's .shape/.size/.ndim, a struct's field, a complex number's
            # .real/.imag (a module's attribute: the module's name is no local, uniform)
            if isinstance(tf.types.get(e.value.nid), ArrayT):
                return self.shape(e.value, control)
            return self.expr(e.value, control)
        if isinstance(e, ir.Slice):  # the bounds of a view (``a[t * 2:]``)
            return combine(*(self.expr(x, control) for x in (e.lower, e.upper, e.step) if x is not None))
        if isinstance(e, (ir.BinOp, ir.UnaryOp)) and e.nid in tf.callees:
            operands = [e.left, e.right] if isinstance(e, ir.BinOp) else [e.operand]
            return self.call(e, operands, control)
        if isinstance(e, ir.BinOp):
            left, right = self.expr(e.left, control), self.expr(e.right, control)
            divisor = tf.consts.get(e.right.nid)
            if left == LANE and isinstance(divisor, int) and not isinstance(divisor, bool):
                if (e.op == "//" and divisor > 0 and divisor % 32 == 0) or (e.op == ">>" and divisor >= 5):
                    return WARP  # the warp's index
            return combine(left, right)
        if isinstance(e, ir.UnaryOp):
            return combine(self.expr(e.operand, control))
        if isinstance(e, ir.Compare):
            levels = [self.expr(x, control) for x in (e.left, *e.comparators)]
            bound = tf.consts.get(e.comparators[0].nid)
            if len(e.ops) == 1 and levels[0] == LANE and isinstance(bound, int) and not isinstance(bound, bool):
                if (e.ops[0] in ("<", ">=") and bound % 32 == 0) or (e.ops[0] in ("<=", ">") and (bound + 1) % 32 == 0):
                    return WARP  # whole warps on either side
            return combine(*levels)
        if isinstance(e, ir.BoolOp):
            level = UNIFORM
            for v in e.values:  # each operand is evaluated only where the ones before it allow
                level = combine(level, self.expr(v, max(control, level)))
            return level
        if isinstance(e, ir.IfExp):
            test = self.condition(e.test, control)
            inner = max(control, test)
            return combine(test, self.expr(e.body, inner), self.expr(e.orelse, inner))
        if isinstance(e, ir.Subscript):
            base, index = self.expr(e.value, control), self.expr(e.index, control)
            return max(base, index) if isinstance(tf.types.get(e.value.nid), TupleT) else combine(base, index)
        if isinstance(e, ir.TupleExpr):
            return combine(*(self.expr(x, control) for x in e.elts))
        if isinstance(e, ir.Call):
            return self.call(e, None, control)
        return UNIFORM

    def shape(self, e: ir.Expr, control: int) -> int:
        """The level of the shape of the array ``e``: a view's slice bounds and its base's shape, not the
        integer indices that pick its place (``m[i]``, ``m[i, 1:]``)."""
        if isinstance(e, ir.Name):  # (a local_array's shape is its size: uniform)
            return self.shapes.get(e.id, UNIFORM)
        if isinstance(e, ir.Subscript) and isinstance(self.tf.types.get(e.value.nid), ArrayT):
            self.expr(e.index, control)
            items = e.index.elts if isinstance(e.index, ir.TupleExpr) else [e.index]
            bounds = [x for x in items if not _integer(self.tf.types.get(x.nid))]
            return combine(self.shape(e.value, control), *(self.expr(x, control) for x in bounds))
        return self.expr(e, control)

    def call(self, e: ir.Expr, operands: list[ir.Expr] | None, control: int) -> int:
        callee = self.tf.callees.get(e.nid)
        if callee is None:
            return UNIFORM
        if operands is None:
            assert isinstance(e, ir.Call)
            if callee.kind in ("helper", "method"):
                operands = bound_nodes(e, self.tf.call_args[e.nid])
                if callee.kind == "method" and isinstance(e.func, ir.Attribute):
                    operands.insert(0, e.func.value)
            else:
                operands = [*e.args, *e.keywords.values()]
                if isinstance(e.func, ir.Attribute):  # a value's method (``z.conjugate()``); a module's
                    operands.insert(0, e.func.value)  # name is uniform
        args = [self.expr(a, control) for a in operands]
        if callee.kind == "gpu":
            return self.gpu(e, callee.name, args, control)
        if callee.target is not None:
            summary = self.analysis.function(callee.target, tuple(args))
            if summary.barrier is not None:
                self.reach_barrier(e.loc, control, summary.barrier)
            if summary.warp is not None:
                self.reach_warp_call(e.loc, control, summary.warp)
            return summary.returns
        if callee.kind == "cast":
            return max(args, default=UNIFORM)
        if callee.kind == "builtin" and callee.name == "len":
            arrays = [a for a in operands if isinstance(self.tf.types.get(a.nid), ArrayT)]
            return self.shape(arrays[0], control) if arrays else UNIFORM
        return combine(*args)

    def gpu(self, e: ir.Expr, name: str, args: list[int], control: int) -> int:
        if name == "syncthreads":
            self.reach_barrier(e.loc, control, None)
        elif name in _WARP_CALLS:
            self.reach_warp_call(e.loc, control, None)
        if name in _LANE_SOURCES or (name == "grid" and self.tf.consts.get(e.nid) == 1):
            return LANE
        if name in _THREAD_SOURCES or name == "grid":
            return THREAD
        if name in VOTES:
            return WARP
        return combine(*args) if name not in ("shared_array", "local_array", "dynamic_shared_array") else UNIFORM

    # -------------------------------------------------------------------- sites
    def reach_barrier(self, loc: Loc, control: int, inside: Loc | None) -> None:
        if self.barrier is None and self.report:
            self.barrier = inside or loc
        if self.report and control >= WARP:
            self.analysis.warn(
                "divergent-barrier",
                loc,
                "barrier under a condition that differs between the threads of a block"
                + (" (this helper meets the others at a barrier)" if inside else ""),
                "every thread of the block must reach each syncthreads(); move it out of the condition "
                "(threads that returned early count as arrived)",
                Note(inside, "the barrier") if inside else None,
            )

    def reach_warp_call(self, loc: Loc, control: int, inside: Loc | None) -> None:
        if self.warp is None and self.report:
            self.warp = inside or loc
        if self.report and control >= LANE:
            self.analysis.warn(
                "divergent-warp-call",
                loc,
                "warp shuffle or vote under a condition that differs between the lanes of a warp"
                + (" (this helper calls one)" if inside else ""),
                "all 32 lanes must take part (full mask): compute the value for every lane and select "
                "afterwards, or make the condition the same for a whole warp (e.g. on thread_idx_x() // 32)",
                Note(inside, "the warp call") if inside else None,
            )


def _integer(t: object) -> bool:
    """An integer index (it picks a view's place, not its shape)."""
    return (isinstance(t, Scalar) and t.kind in "iu") or (isinstance(t, Weak) and t.kind == "int")
