"""Where a host kernel's threads meet, planned as loops over threads (MCUDA's loop fission).

A kernel whose ``syncthreads()`` and warp calls stand in structured code (at the top level, in loops
and branches whose conditions are the same for the whole block, or in branches on a thread's own
condition) runs each stretch between two meeting points as one loop over the block's threads, the
thread loop innermost, so that LLVM vectorises it. This module plans that from the typed IR: the
kernel body as a tree of pieces (:mod:`.fission_pieces`: statements every thread runs in turn,
barriers, warp calls, branches and loops), and where each local lives: one value for the block
(:attr:`Plan.block`: parameters never assigned, loop variables of block-uniform loops, values the
block computes once), a slot per thread (:attr:`Plan.per_thread`: what crosses from one region to
another), or a register inside one region.
Kernels that do not fit get the state machine of :mod:`.threads` and a reason (:class:`NotFissionable`).
"""

from __future__ import annotations

from .... import ir
from ....lint.divergence import UNIFORM, Divergence, FunctionLevels
from ....typecheck.arguments import bound_nodes
from ....typecheck.rules import GPU_INDEX, WARP_CALLS
from ....typecheck.typed import TypedFunction
from ....types import ArrayT, Scalar, Weak
from .fission_pieces import (
    Barrier,
    Exchange,
    Inline,
    LaneLoop,
    MaskedIf,
    MaskedLoop,
    NotFissionable,
    Piece,
    Plan,
    Region,
    UniformIf,
    UniformLoop,
)
from .order import ordered
from .threads import hoist_warp_calls


def plan_fission(tf: TypedFunction, body: list[ir.Stmt], param_levels: tuple[int, ...] | None = None) -> Plan:
    """The plan for ``tf`` (its host body ``body``, warp calls hoisted into statements of their own);
    raises :class:`NotFissionable`."""
    params = param_levels if param_levels is not None else (UNIFORM,) * len(tf.fn.params)
    levels = FunctionLevels(Divergence(), tf, params)
    levels.run(body)
    return _Planner(tf, levels).plan(body, params)


class _Planner:
    def __init__(self, tf: TypedFunction, levels: FunctionLevels) -> None:
        self.tf, self.levels = tf, levels
        self.exits = False
        self.thread_names: dict[str, int] = {}  # locals that are a thread index: name -> axis
        self.assigned: dict[str, int] = {}  # local -> assignments (a read-modify-write counts twice)
        self.fixed: set[str] = set()
        self.top_uniform: set[str] = set()
        self.remat: dict[str, ir.Expr] = {}
        self.drift: dict[str, ir.Expr] = {}
        self.nonnegative: set[str] = set()
        self.uniform_values: dict[str, ir.Expr] = {}  # top_uniform local -> its value

    def pure(self, e: ir.Expr, remat: dict[str, ir.Expr], block: set[str], params: set[str]) -> bool:
        return _pure(self, e, remat, block, params)

    # ------------------------------------------------------------------ meeting points
    def yields(self, node: ir.Node) -> bool:
        for n in ir.walk(node):
            if isinstance(n, ir.Call):
                callee = self.tf.callees.get(n.nid)
                if callee is None:
                    continue
                if callee.kind == "gpu" and (callee.name == "syncthreads" or callee.name in WARP_CALLS):
                    return True
                if callee.target is not None and callee.target.uses_barrier:
                    return True
        return False

    def gpu_call(self, e: ir.Expr) -> str | None:
        callee = self.tf.callees.get(e.nid) if isinstance(e, ir.Call) else None
        return callee.name if callee is not None and callee.kind == "gpu" else None

    # -------------------------------------------------------------------------- pieces
    def plan(self, body: list[ir.Stmt], params: tuple[int, ...]) -> Plan:
        counts: dict[str, int] = {}
        for s in all_stmts(body):
            for t in _targets(s):
                for name, _ in _assigned_names(t):
                    counts[name] = counts.get(name, 0) + 1
        for s in all_stmts(body):
            if isinstance(s, ir.Assign) and isinstance(s.target, ir.Name) and counts.get(s.target.id) == 1:
                axis = self._thread_axis(s.value)
                if axis is not None and not isinstance(s.value, ir.Name):
                    self.thread_names[s.target.id] = axis
        plan = Plan(self.tf, [])
        self.values(plan, body)
        plan.pieces = self.pieces(body, in_loop=False, top=True)
        if not self.tf.is_kernel and any(isinstance(s, ir.Return) for s in all_stmts(body)):
            self.check_helper_returns(body)
        plan.exits, plan.drift, plan.nonnegative = self.exits, self.drift, self.nonnegative
        self.places(plan, body)
        return plan

    def values(self, plan: Plan, body: list[ir.Stmt]) -> None:
        """How often each local is assigned, the block's values (computed once, unconditionally, the
        same for every thread) and the integers recomputed where read (:attr:`Plan.remat`)."""
        tf = self.tf
        for s in all_stmts(body):
            for t in _targets(s):
                for name, whole in _assigned_names(t):
                    if name in tf.locals:
                        count = self.assigned.get(name, 0) + (2 if isinstance(s, ir.ForRange) else 1)
                        if isinstance(s, ir.AugAssign) or not whole:
                            count += 1  # a read-modify-write, or a field of it
                        self.assigned[name] = count
        self.fixed = {p.name for p in tf.fn.params} - set(self.assigned)  # parameters never assigned
        for s in body:
            if isinstance(s, ir.Assign) and isinstance(s.target, ir.Name) and not self.yields(s):
                name = s.target.id
                uniform = self.levels.levels.get(name, UNIFORM) == UNIFORM and name not in self.levels.private
                if self.assigned.get(name) == 1 and uniform:  # (a local_array is each thread's own)
                    self.top_uniform.add(name)
                    self.uniform_values[name] = s.value
        for s in body:  # integers computed from thread indices alone: recomputed in each region, so
            # that LLVM sees them as the thread loop's induction variables (contiguous accesses)
            if isinstance(s, ir.Assign) and isinstance(s.target, ir.Name) and not self.yields(s):
                name = s.target.id
                if (
                    name not in self.top_uniform
                    and self.assigned.get(name) == 1
                    and self._integer(name)
                    and self.pure(s.value, plan.remat, self.top_uniform, self.fixed)
                ):
                    plan.remat[name] = s.value
        self.remat = plan.remat

    def _integer(self, name: str) -> bool:
        local = self.tf.locals.get(name)
        return (isinstance(local, Scalar) and local.kind in "iub") or (isinstance(local, Weak) and local.kind == "int")

    def check_helper_returns(self, body: list[ir.Stmt]) -> None:
        """A helper's ``return`` must be its last statement (a return elsewhere would have to mask the
        rest of the helper for that thread)."""
        for s in all_stmts(body):
            if isinstance(s, ir.Return) and not (body and s is body[-1]):
                raise NotFissionable(s.loc, "a `return` before the end of a helper that meets other threads")
            if isinstance(s, ir.Return) and s.value is not None:
                raise NotFissionable(s.loc, "a helper that meets other threads and returns a value")

    def pieces(self, stmts: list[ir.Stmt], in_loop: bool, top: bool = False) -> list[Piece]:
        out: list[Piece] = []
        region: list[ir.Stmt] = []

        def flush() -> None:
            if region:
                self.region_exits(region, in_loop)
                out.append(Region(list(region), in_loop))
                region.clear()

        for k, s in enumerate(stmts):
            if not self.yields(s):
                lane = self.lane_loop(s, stmts[:k], stmts[k + 1 :]) if top and self.tf.is_kernel else None
                pieces = [lane] if lane is not None else self.split(s, in_loop)
                if pieces is None:
                    region.append(s)
                else:
                    flush()
                    out += pieces
                continue
            flush()
            if isinstance(s, ir.ExprStmt) and self.gpu_call(s.value) == "syncthreads":
                out.append(Barrier(s))
            elif isinstance(s, ir.Assign) and isinstance(s.target, ir.Name) and self.gpu_call(s.value) in WARP_CALLS:
                assert isinstance(s.value, ir.Call)
                out.append(Exchange(s, s.value, str(self.gpu_call(s.value))))
            elif isinstance(s, ir.If):
                if self.yields(s.test):
                    raise NotFissionable(s.test.loc, "a meeting point in an `if` condition")
                level = self.levels.condition(s.test, UNIFORM)
                body, orelse = self.pieces(s.body, in_loop), self.pieces(s.orelse, in_loop)
                if level == UNIFORM:
                    out.append(UniformIf(s, body, orelse))
                else:
                    out.append(MaskedIf(s, body, orelse))
            elif isinstance(s, (ir.While, ir.ForRange)):
                heads = [s.test] if isinstance(s, ir.While) else s.args
                if any(self.yields(h) for h in heads):
                    raise NotFissionable(s.loc, "a meeting point in a loop's condition")
                level = max((self.levels.condition(h, UNIFORM) for h in heads), default=UNIFORM)
                level = max(level, self.levels.loop_exits.get(s.nid, UNIFORM))
                if level == UNIFORM:
                    out.append(UniformLoop(s, self.pieces(s.body, in_loop=True)))
                elif isinstance(s, ir.While):
                    out.append(MaskedLoop(s, self.pieces(s.body, in_loop=True)))
                else:
                    raise NotFissionable(
                        s.loc, "a `for` loop that meets other threads has bounds that differ between threads"
                    )
            elif isinstance(s, ir.ExprStmt) and isinstance(s.value, ir.Call):
                out.append(self.inline(s, s.value))
            else:
                raise NotFissionable(s.loc, "a call that meets other threads inside an expression")
        flush()
        return out

    # ------------------------------------------------------------------ grid-stride loops
    def lane_loop(self, s: ir.Stmt, before: list[ir.Stmt], after: list[ir.Stmt]) -> LaneLoop | None:
        """A top-level ``while`` of the kernel as a :class:`LaneLoop`, when its condition differs between
        threads, nothing leaves it early, and it ends by stepping at least one integer local by the same
        amount in every thread (``i += stride``) that is otherwise assigned once, before it, from thread
        indices and the block's values (``i = gpu.global_tid_x()``), and not read after it (a thread
        that left the loop earlier would read a later value there)."""
        if not isinstance(s, ir.While) or self.levels.condition(s.test, UNIFORM) == UNIFORM:
            return None
        if any(isinstance(n, (ir.Return, ir.Break, ir.Continue)) for n in all_stmts(s.body)):
            return None
        if ordered(self.tf, s.body):
            return None
        steps: list[ir.AugAssign] = []
        for step in reversed(s.body):
            if not (
                isinstance(step, ir.AugAssign)
                and isinstance(step.target, ir.Name)
                and step.op in "+-"
                and self._integer(step.target.id)
                and self._stride(step.value)
            ):
                break
            steps.insert(0, step)
        body = s.body[: len(s.body) - len(steps)]
        later = {n.id for st in after for n in ir.walk(st) if isinstance(n, ir.Name)}
        drift: dict[str, ir.Expr] = {}
        for k in range(len(steps) - 1, -1, -1):  # the longest run of steps at the body's end that qualify
            step = steps[k]
            assert isinstance(step.target, ir.Name)
            name = step.target.id
            ops = self.tf.optypes[step.nid]
            t = self.tf.locals.get(name)
            first = [d for d in before if isinstance(d, ir.Assign) and _assigned_names(d.target) == [(name, True)]]
            if (
                name in drift
                or not (ops.left == ops.right == ops.result == t)
                or self.assigned.get(name) != 3
                or len(first) != 1
                or name in later
                or not self.pure(first[0].value, self.remat, self.top_uniform, self.fixed)
            ):  # (its stride reads only the block's values, which nothing in the loop assigns: _stride)
                body, steps = [*body, *steps[: k + 1]], steps[k + 1 :]
                break
            drift[name] = first[0].value
        if not drift:
            return None
        self.drift.update(drift)
        moves = [(_assigned_names(st.target)[0][0], st) for st in steps]
        self.nonnegative |= {
            name
            for name, first in drift.items()
            if self._nonnegative(first)
            and all(st.op == "+" and self._nonnegative(st.value) for target, st in moves if target == name)
        }
        return LaneLoop(s, body, steps, self._plain_test(s.test))

    def _plain_test(self, e: ir.Expr) -> bool:
        """Comparisons of integer sums and products of locals, constants, array shapes and the launch's
        indices and sizes: no memory read, no check, no branch (``and``/``or`` would be one)."""
        shapes = {id(x) for n in ir.walk(e) if self._shape(n) for x in ir.walk(n)}  # (and their parts)
        for n in ir.walk(e):
            if id(n) in shapes:
                continue
            if isinstance(n, ir.Call) and self.gpu_call(n) in GPU_INDEX and not n.args:
                continue
            if isinstance(n, ir.Call) or (isinstance(n, ir.BinOp) and n.op not in ("+", "-", "*")):
                return False
            if not isinstance(n, (ir.Compare, ir.BinOp, ir.Name, ir.Const)) and n.nid not in self.tf.consts:
                return False
            if isinstance(n, ir.Name) and not self._integer(n.id) and n.nid not in self.tf.consts:
                return False
        return True

    def _shape(self, e: ir.Node) -> bool:
        """``len(a)``, ``a.shape[k]`` (``k`` a constant) or ``a.size`` of an array ``a`` named directly."""
        tf = self.tf
        if isinstance(e, ir.Call):
            callee = tf.callees.get(e.nid)
            named = len(e.args) == 1 and isinstance(e.args[0], ir.Name)
            return (
                callee is not None
                and callee.kind == "builtin"
                and callee.name == "len"
                and named
                and (isinstance(tf.types.get(e.args[0].nid), ArrayT))
            )
        if isinstance(e, ir.Subscript) and isinstance(e.value, ir.Attribute) and e.value.attr == "shape":
            return self._shape(e.value) and isinstance(tf.consts.get(e.index.nid), int)
        if isinstance(e, ir.Attribute) and e.attr in ("shape", "size"):
            return isinstance(e.value, ir.Name) and isinstance(tf.types.get(e.value.nid), ArrayT)
        return False

    def _nonnegative(self, e: ir.Expr, depth: int = 0) -> bool:
        """Is ``e`` never negative: sums and products of non-negative constants, thread and block
        indices and sizes, and locals computed from them once?"""
        value = self.tf.consts.get(e.nid)
        if isinstance(value, int) and not isinstance(value, bool):
            return value >= 0
        if isinstance(e, ir.Name):
            found = self.remat.get(e.id, self.uniform_values.get(e.id))
            return found is not None and depth < 8 and self._nonnegative(found, depth + 1)
        if isinstance(e, ir.BinOp):
            return e.op in ("+", "*") and self._nonnegative(e.left, depth) and self._nonnegative(e.right, depth)
        return self.gpu_call(e) in GPU_INDEX or self.gpu_call(e) == "lane_id"

    def _stride(self, e: ir.Expr) -> bool:
        """The same for every thread, and computed without a check: ``+``, ``-``, ``*`` of constants and
        the block's values."""
        if not self.pure(e, {}, self.top_uniform, self.fixed) or self.levels.expr(e, UNIFORM) != UNIFORM:
            return False
        return all(n.op in "+-*" for n in ir.walk(e) if isinstance(n, ir.BinOp))

    # ------------------------------------------------------------------ edge threads
    def split(self, s: ir.Stmt, in_loop: bool) -> list[Piece] | None:
        """``if tx == 0: tile[ty + 1, 0] = src[i, j - 1]`` (a tile's halo, loaded by the block's edge
        threads), also inside an ``if`` whose condition its body leaves alone: a region of its own
        whose thread loop runs only that index, instead of a test in every thread's iteration that
        keeps LLVM from vectorising the rest. The statements around it become regions too, under the
        same enclosing condition, evaluated again. Threads are independent between barriers, and
        each thread still runs its statements in order."""
        if not isinstance(s, ir.If) or s.orelse or not self._plain(s):
            return None
        edge = self._edge(s.test)
        if edge is not None:
            return [Region([s], in_loop, only=edge)]
        if not self._reevaluable(s.test, s.body) or not any(self._edge_if(b) for b in s.body):
            return None
        out: list[Piece] = []
        group: list[ir.Stmt] = []
        for inner in s.body:
            edge = self._edge_if(inner)
            if edge is None:
                group.append(inner)
                continue
            if group:
                out.append(Region(group, in_loop, guards=[s.test]))
                group = []
            out.append(Region([inner], in_loop, guards=[s.test], only=edge))
        if group:
            out.append(Region(group, in_loop, guards=[s.test]))
        return out

    def _edge_if(self, s: ir.Stmt) -> dict[int, int] | None:
        return self._edge(s.test) if isinstance(s, ir.If) and not s.orelse else None

    def _edge(self, test: ir.Expr) -> dict[int, int] | None:
        """The thread axes a condition pins to one index (``tx == 0 and j > 0``: {0: 0})."""
        terms = test.values if isinstance(test, ir.BoolOp) and test.op == "and" else [test]
        found: dict[int, int] = {}
        for term in terms:
            if not (isinstance(term, ir.Compare) and term.ops == ["=="]):
                continue
            for side, other in ((term.left, term.comparators[0]), (term.comparators[0], term.left)):
                axis = self._thread_axis(side)
                value = self.tf.consts.get(other.nid)
                if axis is not None and isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                    found.setdefault(axis, value)
        return found or None

    def _thread_axis(self, e: ir.Expr) -> int | None:
        if isinstance(e, ir.Name):
            return self.thread_names.get(e.id)
        name = self.gpu_call(e)
        return "xyz".index(name[-1]) if name in ("thread_idx_x", "thread_idx_y", "thread_idx_z") else None

    def _plain(self, s: ir.Stmt) -> bool:
        """No ``return``/``break``/``continue`` and no nested loops: a statement that can be split."""
        return not any(isinstance(n, (ir.Return, ir.Break, ir.Continue, ir.While, ir.ForRange)) for n in all_stmts([s]))

    def _reevaluable(self, test: ir.Expr, body: list[ir.Stmt]) -> bool:
        """Does ``test`` give the same value after ``body`` runs: locals the body does not assign,
        thread indices, shapes, constants; no array element, no call but the thread-index intrinsics?"""
        assigned = {n for s in all_stmts(body) for t in _targets(s) for n, _ in _assigned_names(t)}
        for n in ir.walk(test):
            if isinstance(n, ir.Name) and n.id in assigned:
                return False
            if isinstance(n, ir.Call) and self._thread_axis(n) is None and self.gpu_call(n) not in GPU_INDEX:
                return False
            if isinstance(n, ir.Subscript) and not isinstance(n.value, ir.Attribute):
                return False
        return True

    def inline(self, s: ir.ExprStmt, call: ir.Call) -> Inline:
        callee = self.tf.callees.get(call.nid)
        if callee is None or callee.target is None or callee.kind not in ("helper",):
            raise NotFissionable(s.loc, "a call that meets other threads")
        target = callee.target
        args = bound_nodes(call, self.tf.call_args[call.nid])
        arg_levels = tuple(self.levels.expr(a, UNIFORM) for a in args)
        plan = plan_fission(target, hoist_warp_calls(target), arg_levels)
        self.exits |= plan.exits
        return Inline(s, call, target, args, plan, all(level == UNIFORM for level in arg_levels))

    def region_exits(self, region: list[ir.Stmt], in_loop: bool) -> None:
        """``return`` in a region: the thread is done (an exited mask); ``break``/``continue`` that leave
        the region for a loop that meets other threads: not planned."""

        def walk(stmts: list[ir.Stmt], loop_depth: int) -> None:
            for s in stmts:
                if isinstance(s, ir.Return):
                    self.exits = True
                elif isinstance(s, (ir.Break, ir.Continue)) and loop_depth == 0 and in_loop:
                    word = "break" if isinstance(s, ir.Break) else "continue"
                    raise NotFissionable(s.loc, f"`{word}` out of a loop that meets other threads")
                elif isinstance(s, ir.If):
                    walk(s.body, loop_depth)
                    walk(s.orelse, loop_depth)
                elif isinstance(s, (ir.While, ir.ForRange)):
                    walk(s.body, loop_depth + 1)

        walk(region, 0)

    # -------------------------------------------------------------------------- places
    def places(self, plan: Plan, body: list[ir.Stmt]) -> None:
        """Decide where each local lives (see the module docstring)."""
        tf = self.tf
        seen: dict[str, set[int]] = {}  # local -> the places that mention it
        loops_of: dict[int, bool] = {}  # place -> inside a uniform loop that meets
        first_def: dict[tuple[int, str], bool] = {}  # (place, local) -> its first mention assigns it
        block_reads: set[str] = set()
        counter = [0]

        def names(node: ir.Node) -> set[str]:
            return {n.id for n in ir.walk(node) if isinstance(n, ir.Name) and n.id in tf.locals}

        def new_place(in_loop: bool) -> int:
            counter[0] += 1
            loops_of[counter[0]] = in_loop
            return counter[0]

        def mention(place: int, found: set[str]) -> None:
            for name in found:
                seen.setdefault(name, set()).add(place)

        def region_defs(place: int, stmts: list[ir.Stmt], guards: list[ir.Expr]) -> None:
            """Which locals a region's first mention of assigns whole (then its value of before is dead)."""
            done: set[str] = set()

            def first(found: set[str], assigns: bool) -> None:
                for name in found - done:
                    first_def[(place, name)] = assigns
                    done.add(name)

            for g in guards:  # read before the statements run
                first(names(g), False)

            for s in stmts:
                if isinstance(s, ir.Assign) and isinstance(s.target, ir.Name):
                    first(names(s.value), False)
                    first({s.target.id}, True)
                elif isinstance(s, ir.ForRange):
                    first(set().union(*(names(a) for a in s.args)) if s.args else set(), False)
                    first({s.target.id}, True)
                first(names(s), False)

        loop_targets: set[str] = set()

        def walk(pieces: list[Piece], in_loop: bool) -> None:
            for p in pieces:
                if isinstance(p, Region):
                    place = new_place(in_loop)
                    mention(place, set().union(*(names(s) for s in p.stmts), *(names(g) for g in p.guards)))
                    region_defs(place, p.stmts, p.guards)
                elif isinstance(p, Exchange):
                    place = new_place(in_loop)
                    mention(place, names(p.stmt))
                elif isinstance(p, (UniformIf, MaskedIf)):
                    found = names(p.stmt.test)
                    if isinstance(p, UniformIf):
                        block_reads.update(found)
                    mention(new_place(in_loop), found)
                    walk(p.body, in_loop)
                    walk(p.orelse, in_loop)
                elif isinstance(p, MaskedLoop):
                    mention(new_place(True), names(p.stmt.test))
                    walk(p.body, True)
                elif isinstance(p, LaneLoop):
                    place = new_place(True)
                    mention(place, names(p.stmt))
                    region_defs(place, p.body, [p.stmt.test])
                elif isinstance(p, UniformLoop):
                    s = p.stmt
                    heads = [s.test] if isinstance(s, ir.While) else s.args
                    found = set().union(*(names(h) for h in heads)) if heads else set()
                    block_reads.update(found)
                    mention(new_place(True), found)
                    if isinstance(s, ir.ForRange):
                        loop_targets.add(s.target.id)
                    walk(p.body, True)
                elif isinstance(p, Inline):
                    found = set().union(*(names(a) for a in p.args)) if p.args else set()
                    if p.uniform_args:
                        block_reads.update(found)
                    mention(new_place(in_loop), found)

        walk(plan.pieces, False)
        assigned, top_uniform = self.assigned, self.top_uniform
        params = {p.name for p in tf.fn.params}
        for name in loop_targets:
            if assigned.get(name, 0) > 2:
                raise NotFissionable(
                    tf.fn.loc, f"`{name}`, the variable of a loop that meets other threads, is also assigned elsewhere"
                )
            if self.levels.levels.get(name, UNIFORM) != UNIFORM:
                raise NotFissionable(
                    tf.fn.loc, f"`{name}`, the variable of a loop that meets other threads, differs between threads"
                )
        for name in set(tf.locals) | params:
            places = seen.get(name, set())
            if name in plan.remat or name in plan.drift:
                continue
            if (
                name in loop_targets
                or name in top_uniform
                or (name in params and name not in assigned and self.levels.levels.get(name, UNIFORM) == UNIFORM)
            ):
                plan.block.add(name)
            elif name in params:
                plan.per_thread.add(name)
            elif len(places) > 1 or name in block_reads:
                plan.per_thread.add(name)
            elif places:
                (place,) = places
                if loops_of[place] and not first_def.get((place, name), False):
                    plan.per_thread.add(name)


_PURE_OPS = {"+", "-", "*", "&", "|", "^", "<<", ">>"}


def _pure(self: _Planner, e: ir.Expr, remat: dict[str, ir.Expr], block: set[str], params: set[str]) -> bool:
    """Can ``e`` be evaluated again anywhere with the same result: integer arithmetic (no checks) on
    constants, the block's values and thread indices?"""
    tf = self.tf
    if isinstance(e, ir.Const) or (e.nid in tf.consts and not isinstance(e, ir.Call)):
        return True
    if e.nid in tf.callees and not isinstance(e, ir.Call):
        return False  # an operator of a struct
    if isinstance(e, ir.Name):
        return e.id in remat or e.id in block or e.id in params
    if isinstance(e, ir.BinOp):
        if e.op not in _PURE_OPS:
            divisor = tf.consts.get(e.right.nid)
            if e.op not in ("//", "%") or not isinstance(divisor, int) or isinstance(divisor, bool) or divisor <= 0:
                return False
        return _pure(self, e.left, remat, block, params) and _pure(self, e.right, remat, block, params)
    if isinstance(e, ir.UnaryOp):
        return e.op in ("-", "+", "~") and _pure(self, e.operand, remat, block, params)
    if isinstance(e, ir.Call):
        callee = tf.callees.get(e.nid)
        return callee is not None and callee.kind == "gpu" and (callee.name in GPU_INDEX or callee.name == "lane_id")
    return False


def _targets(s: ir.Stmt) -> list[ir.Expr]:
    """What a statement assigns (whole or in part)."""
    if isinstance(s, (ir.Assign, ir.AugAssign, ir.ForRange)):
        return [s.target]
    return []


def _assigned_names(target: ir.Expr) -> list[tuple[str, bool]]:
    """The locals an assignment target changes, each with whether it is assigned whole (an element of an
    array changes memory, not the local that holds the array)."""
    if isinstance(target, ir.Name):
        return [(target.id, True)]
    if isinstance(target, ir.TupleExpr):
        return [x for item in target.elts for x in _assigned_names(item)]
    if isinstance(target, ir.Attribute):
        root = ir.field_path(target)[0]
        return [(root.id, False)] if isinstance(root, ir.Name) else []
    return []


def all_stmts(stmts: list[ir.Stmt]) -> list[ir.Stmt]:
    out: list[ir.Stmt] = []
    for s in stmts:
        out.append(s)
        if isinstance(s, ir.If):
            out += all_stmts(s.body) + all_stmts(s.orelse)
        elif isinstance(s, (ir.While, ir.ForRange)):
            out += all_stmts(s.body)
    return out
