"""A shared tile that only copies a global array, forwarded: the kernel's reads of the tile become reads
of the array, and the copy and the barrier go, for launches whose block shape the proof was made for.

The commonest kernel with a barrier stages a stencil's neighbourhood through shared memory::

    tile = gpu.shared_array(f32, (TILE + 2, TILE + 2))
    ...
    if i < h and j < w:
        tile[ty + 1, tx + 1] = src[i, j]
        if tx == 0 and j > 0:
            tile[ty + 1, 0] = src[i, j - 1]
        ...
    gpu.syncthreads()
    if 0 < i < h - 1 and 0 < j < w - 1:
        dst[i, j] = f32(0.2) * (tile[ty + 1, tx + 1] + tile[ty, tx + 1] + ...)

On a GPU the tile saves global memory traffic; run on a CPU as loops over a block's threads, the copy
and the 16-element rows of the tile cost more than the stencil (the blur ran 2.7x numba's time).
Each element the stencil reads is an element of ``src`` at a fixed offset from the reading thread's
own position, so the second region can read ``src`` there instead.

The proof (:func:`forwarding` returns None where any part fails), for one block shape at a time
(candidates from the tile's shape; the launch must use the shape proved, which the entry checks):

* the kernel is: assignments of locals, each once, that cannot fail or have an effect (*definitions*),
  the tile's ``gpu.shared_array``, ``if`` trees whose leaves store an element of a global array (the
  *source*, a parameter the kernel never writes) into the tile, one ``gpu.syncthreads()`` at the top
  level, then code that reads the tile only as whole elements and writes neither it nor the source; no
  helper calls, atomics, prints, warp calls, and nothing but definitions and stores before the barrier;
* every index and test is an integer *linear form*: concrete in the thread's index within the block
  (enumerated), symbolic in the block's origin (``X``, ``Y``, ``Z``: block index times block size) and
  in values the same for the whole launch (shapes; a parameter only alone, as a comparison's operand,
  where its value cannot wrap as ``n + 1`` may), each a 64-bit integer computed without overflow
  (small constants and coefficients), each test a *difference constraint* (``u - v <= c``), which
  Bellman-Ford decides exactly;
* for every thread, every tile read, under the tests around the read (tests it cannot express are left
  out: fewer assumptions): exactly one store provably writes the element read and every other store of
  that element provably does not, and the element stored is the source at the reader's own global
  position plus an offset that is the same for every thread.

The forwarded kernel (``<symbol>__fwd__thread``) is then the definitions it needs and the code after
the barrier, each tile read a read of the source at the reading thread's global position plus the
offset. The entry runs it when the launch's block shape is the one proved and the source overlaps no
array the kernel writes (else, by the order of its reads and writes, the result could differ), and the
tiled code otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

from .... import ir
from ....typecheck.rules import ATOMICS, WARP_CALLS
from ....typecheck.typed import TypedFunction
from ....types import ArrayT, Scalar
from .fission_plan import all_stmts as ir_all
from .sanitize_segments import assignment_counts
from .thread_range import _int64, _Walk

FORWARD_SUFFIX = "__fwd"
_BOUND = 1 << 40  # the largest constant of a form (its other values are far below 2**62: no overflow)
_COEFFICIENT = 1 << 10  # the largest coefficient of a form's symbol
_PER_BLOCK_X = {"thread_idx_x", "block_idx_x", "lane_id"}  # what a row of blocks run as one loop does not keep

Form = dict[str, int]  # a linear form: symbol -> coefficient, "" -> the constant


@dataclass
class Forwarding:
    block: tuple[int, int]  # (x, y): the threads per block it was proved for (z: 1)
    source: str  # the global array the tile copies
    tile: str
    reads: dict[int, list[tuple[str, int]]]  # tile read node id -> per axis of the source: (position axis, offset)
    body: list[ir.Stmt]  # the forwarded kernel's statements


@dataclass
class _Store:
    stmt: ir.Assign
    tests: list[ir.Expr]  # the if tests around it


@dataclass
class _Read:
    node: ir.Subscript
    tests: list[ir.Expr]  # the if tests around it (then branches only)


def forwarding(tf: TypedFunction) -> Forwarding | None:
    """The forwarding of ``tf``'s tile, if the proof holds for some block shape."""
    shape = _Shape.of(tf)
    if shape is None:
        return None
    for bx, by in shape.candidates():
        found = shape.prove(bx, by)
        if found is not None:
            return found
    return None


class _Shape:
    """The kernel's parts, checked for the shape the proof needs."""

    def __init__(self, tf: TypedFunction, walk: _Walk, tile: str, source: str, defs: dict[str, ir.Assign]) -> None:
        self.tf, self.walk, self.tile, self.source, self.defs = tf, walk, tile, source, defs
        self.stores: list[_Store] = []
        self.reads: list[_Read] = []
        self.after: list[ir.Stmt] = []
        self.tile_shape: tuple[int, ...] = ()

    @classmethod
    def of(cls, tf: TypedFunction) -> _Shape | None:
        body = [s for s in tf.fn.body if not isinstance(s, ir.Pass)]
        barriers = [k for k, s in enumerate(body) if _is_call(tf, s, "syncthreads")]
        if len(barriers) != 1 or not _plain(tf):
            return None
        before, after = body[: barriers[0]], body[barriers[0] + 1 :]
        counts = assignment_counts(tf.fn.body)
        walk = _Walk(tf)
        defs: dict[str, ir.Assign] = {}
        tile: str | None = None
        tile_shape: tuple[int, ...] = ()
        rest: list[ir.Stmt] = []
        for s in before:
            if isinstance(s, ir.Assign) and isinstance(s.target, ir.Name) and counts.get(s.target.id) == 1:
                callee = tf.callees.get(s.value.nid)
                if callee is not None and callee.kind == "gpu" and callee.name == "shared_array":
                    if tile is not None:
                        return None  # one tile
                    found = tf.consts[s.value.nid]
                    tile, tile_shape = s.target.id, tuple(found) if isinstance(found, (tuple, list)) else (found,)
                    continue
                if walk.safe(s.value):
                    defs[s.target.id] = s
                    continue
            rest.append(s)
        if tile is None:
            return None
        for s in ir_all(tf.fn.body):  # an array given another name could write the source or the tile
            if isinstance(s, ir.Assign) and isinstance(tf.types.get(s.value.nid), ArrayT):
                if not (isinstance(s.target, ir.Name) and s.target.id == tile):
                    return None
        stores: list[_Store] = []
        if not all(_stores(tf, walk, s, [], stores) for s in rest) or not stores:
            return None
        source = _array_name(stores[0].stmt.value)
        params = {p.name for p in tf.fn.params}
        if source is None or source not in params or counts.get(source):
            return None
        tile_t, source_t = tf.types[stores[0].stmt.target.nid], tf.types[stores[0].stmt.value.nid]
        if not isinstance(tile_t, Scalar) or tile_t != source_t or not _plain_number(tile_t):
            return None  # a plain element, stored unchanged
        for d in defs.values():  # the forwarded kernel evaluates them where the code after the barrier runs:
            # they may read no memory but the source's (the tile is not stored there, other arrays may be)
            for n in ir.walk(d.value):
                if isinstance(n, ir.Subscript) and isinstance(tf.types.get(n.value.nid), ArrayT):
                    if _array_name(n) != source:
                        return None
        for st in stores:
            target = st.stmt.target
            assert isinstance(target, ir.Subscript)
            if _array_name(target) != tile or _array_name(st.stmt.value) != source:
                return None
        shape = cls(tf, walk, tile, source, defs)
        shape.stores, shape.after, shape.tile_shape = stores, after, tile_shape
        if not shape._after_reads():
            return None
        return shape

    def _after_reads(self) -> bool:
        """The code after the barrier reads the tile only as whole elements and writes neither it nor the
        source; collects the reads with the tests around them."""
        tf, tile, source = self.tf, self.tile, self.source
        uses: set[int] = set()  # the Name nodes of the tile that are read elements' bases

        def visit(stmts: list[ir.Stmt], tests: list[ir.Expr]) -> bool:
            for s in stmts:
                for target in _targets(s):
                    if _array_name(target) in (tile, source) or (
                        isinstance(target, ir.Name) and target.id in (tile, source)
                    ):
                        return False
                for e in _exprs(s):
                    for n in ir.walk(e):
                        if isinstance(n, ir.Subscript) and isinstance(n.value, ir.Name) and n.value.id == tile:
                            if isinstance(tf.types.get(n.nid), ArrayT):
                                return False  # a row or a slice of the tile
                            self.reads.append(_Read(n, list(tests)))
                            uses.add(n.value.nid)
                if isinstance(s, ir.If):
                    if not visit(s.body, [*tests, s.test]) or not visit(s.orelse, tests):
                        return False
                elif isinstance(s, (ir.While, ir.ForRange)):
                    if not visit(s.body, tests):
                        return False
            return True

        if not visit(self.after, []):
            return False
        names = [n for s in self.after for e in _exprs_deep(s) for n in ir.walk(e) if isinstance(n, ir.Name)]
        return bool(self.reads) and all(n.nid in uses for n in names if n.id == tile)

    def candidates(self) -> list[tuple[int, int]]:
        """Block shapes to try: the tile's extent on each axis, less a halo of 0 to 2; powers of two
        first (the shape a kernel is launched with: a tile of 18 is 16 and its halo, one of 16 is 16)."""

        def sizes(extent: int) -> list[int]:
            return sorted((extent - h for h in (2, 1, 0)), key=lambda n: (n & (n - 1) != 0, -n))

        xs = sizes(self.tile_shape[-1])
        ys = sizes(self.tile_shape[-2]) if len(self.tile_shape) == 2 else [1]
        return [(x, y) for y, x in product(ys, xs) if x >= 1 and y >= 1 and x * y <= 1024]

    def prove(self, bx: int, by: int) -> Forwarding | None:
        lin = _Linear(self, bx, by)
        writers: dict[tuple[int, ...], list[tuple[list[Form], bool, list[Form]]]] = {}
        for st in self.stores:
            target, value = st.stmt.target, st.stmt.value
            assert isinstance(target, ir.Subscript) and isinstance(value, ir.Subscript)
            for ty, tx in product(range(by), range(bx)):
                guard = lin.conjunction(st.tests, tx, ty)
                if guard is None:
                    continue  # a test false for this thread whatever the launch: it stores nothing
                element = self._element(lin.concrete(_index(target), tx, ty))
                stored = [lin.form(i, tx, ty) for i in _index(value)]
                if element is None or any(f is None for f in stored):
                    return None
                writers.setdefault(element, []).append((guard[0], guard[1], stored))  # type: ignore[arg-type]
        reads: dict[int, list[tuple[str, int]]] = {}
        for rd in self.reads:
            offsets: list[tuple[str, int]] | None = None
            for ty, tx in product(range(by), range(bx)):
                assume = lin.assumptions(rd.tests, tx, ty)
                if assume is None or _unsat(assume):
                    continue  # this thread never reads here
                element = self._element(lin.concrete(_index(rd.node), tx, ty))
                if element is None:
                    return None
                found = _the_writer(assume, writers.get(element, []))
                if found is None:
                    return None
                mine = _relative(found, tx, ty)
                if mine is None or (offsets is not None and mine != offsets):
                    return None
                offsets = mine
            if offsets is None:
                return None
            reads[rd.node.nid] = offsets
        body = self._body(reads)
        skip = {n.nid for r in self.reads if r.node.nid in reads for n in ir.walk(r.node)}
        for s in body:  # the entry runs it as rows of blocks, which keep only a thread's global x position
            for e in _exprs_deep(s):
                for n in ir.walk(e):
                    callee = self.tf.callees.get(n.nid) if isinstance(n, ir.Call) and n.nid not in skip else None
                    if callee is not None and callee.kind == "gpu" and callee.name in _PER_BLOCK_X:
                        return None
        return Forwarding((bx, by), self.source, self.tile, reads, body)

    def _element(self, index: tuple[int, ...] | None) -> tuple[int, ...] | None:
        """A tile element's index counted from the start on each axis (a negative one from the end, as
        Python counts); None past the tile (its store or read would be out of bounds: no proof)."""
        if index is None or len(index) != len(self.tile_shape):
            return None
        out = []
        for k, dim in zip(index, self.tile_shape):
            k = k + dim if -dim <= k < 0 else k
            if not 0 <= k < dim:
                return None
            out.append(k)
        return tuple(out)

    def _body(self, reads: dict[int, list[tuple[str, int]]]) -> list[ir.Stmt]:
        """The definitions the code after the barrier reads (not inside the forwarded reads), then that code."""
        skip = {n.nid for r in self.reads if r.node.nid in reads for n in ir.walk(r.node)}
        used = {
            n.id
            for s in self.after
            for e in _exprs_deep(s)
            for n in ir.walk(e)
            if isinstance(n, ir.Name) and n.nid not in skip
        }
        seen: set[str] = set()
        todo = [u for u in used if u in self.defs]
        while todo:
            name = todo.pop()
            if name not in seen:
                seen.add(name)
                todo += [n.id for n in ir.walk(self.defs[name].value) if isinstance(n, ir.Name) and n.id in self.defs]
        return [s for name, s in self.defs.items() if name in seen] + self.after


class _Linear:
    """Linear forms of one kernel's integers for one block shape, at a thread given by its index."""

    def __init__(self, shape: _Shape, bx: int, by: int) -> None:
        self.shape, self.tf, self.bx, self.by = shape, shape.tf, bx, by

    def form(self, e: ir.Expr, tx: int, ty: int, depth: int = 0) -> Form | None:
        """``e`` as a linear form, where its value is a 64-bit integer computed without overflow: from
        thread and block indices and sizes, shapes and constants (bounded far below 2**63), with small
        coefficients. A parameter's value can be any i64, so ``n + 1`` may wrap: a parameter is a form
        only alone, as a comparison's operand (:meth:`operand`)."""
        tf = self.tf
        if not _int64(tf.types.get(e.nid)):
            return None
        value = tf.consts.get(e.nid)
        if isinstance(value, int) and not isinstance(value, bool) and not isinstance(e, ir.Call):
            return {"": value} if abs(value) < _BOUND else None
        if depth > 32:
            return None
        found = self._form(e, tx, ty, depth)
        if found is not None and any(abs(v) >= (_BOUND if k == "" else _COEFFICIENT) for k, v in found.items()):
            return None
        return found

    def operand(self, e: ir.Expr, tx: int, ty: int) -> Form | None:
        """A comparison's operand: a form, or a parameter never assigned (through locals that copy it)."""
        name = e
        for _ in range(8):
            if not isinstance(name, ir.Name) or name.id not in self.shape.defs:
                break
            name = self.shape.defs[name.id].value
        if isinstance(name, ir.Name) and name.id in self.shape.walk.params and _int64(self.tf.types.get(name.nid)):
            return {f"n:{name.id}": 1}
        return self.form(e, tx, ty)

    def _form(self, e: ir.Expr, tx: int, ty: int, depth: int) -> Form | None:
        tf = self.tf
        if isinstance(e, ir.Name):
            return self.form(self.shape.defs[e.id].value, tx, ty, depth + 1) if e.id in self.shape.defs else None
        if isinstance(e, ir.BinOp) and e.nid not in tf.callees and e.op in ("+", "-", "*"):
            left, right = self.form(e.left, tx, ty, depth + 1), self.form(e.right, tx, ty, depth + 1)
            if left is None or right is None:
                return None
            if e.op == "*":
                if set(left) <= {""}:
                    return _scale(right, left.get("", 0))
                if set(right) <= {""}:
                    return _scale(left, right.get("", 0))
                return None
            return _add(left, _scale(right, -1) if e.op == "-" else right)
        if isinstance(e, ir.UnaryOp) and e.nid not in tf.callees and e.op in ("-", "+"):
            inner = self.form(e.operand, tx, ty, depth + 1)
            return None if inner is None else _scale(inner, -1 if e.op == "-" else 1)
        if isinstance(e, ir.Subscript) and isinstance(e.value, ir.Attribute) and e.value.attr == "shape":
            base, k = e.value.value, tf.consts.get(e.index.nid)
            if isinstance(base, ir.Name) and base.id in self.shape.walk.params and isinstance(k, int):
                return {f"shape:{base.id}:{k}": 1}
            return None
        if isinstance(e, ir.Call):
            callee = tf.callees.get(e.nid)
            if callee is None:
                return None
            if callee.kind == "builtin" and callee.name == "len" and isinstance(e.args[0], ir.Name):
                return {f"shape:{e.args[0].id}:0": 1} if e.args[0].id in self.shape.walk.params else None
            if callee.kind == "gpu":
                return self._index(callee.name, tx, ty)
        return None

    def _index(self, name: str, tx: int, ty: int) -> Form | None:
        what, _, axis = name.rpartition("_")
        size = {"x": self.bx, "y": self.by, "z": 1}.get(axis)
        if size is None:
            return None
        thread = {"x": tx, "y": ty, "z": 0}[axis]
        origin = {"x": {"X": 1}, "y": {"Y": 1}, "z": {"Z": 1}}[axis]
        if what == "thread_idx":
            return {"": thread}
        if what == "block_dim":
            return {"": size}
        if what == "global_tid":
            return {**origin, "": thread}
        if what == "block_idx":  # the origin is block * size: the block alone is a form only where size is 1
            return dict(origin) if size == 1 else None
        return None

    def atoms(self, test: ir.Expr, tx: int, ty: int) -> tuple[list[Form], bool] | None:
        """``test``'s conjuncts as forms meaning ``form <= 0``, and whether all of it is expressed; None
        where a conjunct is false for this thread whatever the launch."""
        out: list[Form] = []
        exact = True
        for c in _conjuncts(test):
            found = self._compare(c, tx, ty) if isinstance(c, ir.Compare) else None
            if found is None:
                exact = False
                continue
            for f in found:
                if set(f) <= {""}:
                    if f.get("", 0) > 0:
                        return None
                    continue
                if _difference(f):
                    out.append(f)
                else:
                    exact = False
        return out, exact

    def _compare(self, c: ir.Compare, tx: int, ty: int) -> list[Form] | None:
        out: list[Form] = []
        left = c.left
        for k, (op, right) in enumerate(zip(c.ops, c.comparators)):
            types = self.tf.cmptypes.get((c.nid, k))
            a, b = self.operand(left, tx, ty), self.operand(right, tx, ty)
            if types is None or not (_int64(types.left) and _int64(types.right)) or a is None or b is None:
                return None
            diff = _add(a, _scale(b, -1))  # a - b
            if op == "<":
                out.append(_add(diff, {"": 1}))
            elif op == "<=":
                out.append(diff)
            elif op == ">":
                out.append(_add(_scale(diff, -1), {"": 1}))
            elif op == ">=":
                out.append(_scale(diff, -1))
            elif op == "==":
                out += [diff, _scale(diff, -1)]
            else:
                return None
            left = right
        return out

    def conjunction(self, tests: list[ir.Expr], tx: int, ty: int) -> tuple[list[Form], bool] | None:
        out: list[Form] = []
        exact = True
        for t in tests:
            found = self.atoms(t, tx, ty)
            if found is None:
                return None
            out += found[0]
            exact = exact and found[1]
        return out, exact

    def assumptions(self, tests: list[ir.Expr], tx: int, ty: int) -> list[Form] | None:
        found = self.conjunction(tests, tx, ty)
        return None if found is None else found[0]

    def concrete(self, index: list[ir.Expr], tx: int, ty: int) -> tuple[int, ...] | None:
        out = []
        for i in index:
            f = self.form(i, tx, ty)
            if f is None or not set(f) <= {""}:
                return None
            out.append(f.get("", 0))
        return tuple(out)


def _the_writer(assume: list[Form], writers: list[tuple[list[Form], bool, list[Form]]]) -> list[Form] | None:
    """The element stored by the one writer that provably stores under ``assume`` while every other
    provably does not; None otherwise."""
    firing = []
    for guard, exact, stored in writers:
        if _unsat(assume + guard):
            continue  # provably not
        if exact and all(_unsat([*assume, _negate(a)]) for a in guard):
            firing.append(stored)
        else:
            return None  # may or may not store
    return firing[0] if len(firing) == 1 else None


def _relative(stored: list[Form], tx: int, ty: int) -> list[tuple[str, int]] | None:
    """The stored element's index as (position axis, offset from the reader's global position)."""
    out = []
    for f in stored:
        symbols = {k: v for k, v in f.items() if k != "" and v}
        if len(symbols) != 1 or next(iter(symbols.values())) != 1 or next(iter(symbols)) not in ("X", "Y"):
            return None
        axis = "x" if "X" in symbols else "y"
        out.append((axis, f.get("", 0) - (tx if axis == "x" else ty)))
    return out


def _unsat(atoms: list[Form]) -> bool:
    """Have the difference constraints ``form <= 0`` no integer solution (a negative cycle)?"""
    edges: list[tuple[str, str, int]] = []
    for f in atoms:
        symbols = [(k, v) for k, v in f.items() if k != "" and v]
        bound = -f.get("", 0)  # sum of the symbols' terms <= bound
        if len(symbols) == 1:  # u <= bound (an edge from the zero node), or -u <= bound (one to it)
            u, sign = symbols[0]
            edges.append(("0", u, bound) if sign == 1 else (u, "0", bound))
        elif len(symbols) == 2:  # u - v <= bound: an edge from v to u
            (u, _), (v, _) = symbols if symbols[0][1] == 1 else symbols[::-1]
            edges.append((v, u, bound))
        elif not symbols and bound < 0:
            return True
    nodes = {"0"} | {n for e in edges for n in e[:2]}
    dist = dict.fromkeys(nodes, 0)
    for _ in range(len(nodes)):
        changed = False
        for src, dst, weight in edges:
            if dist[src] + weight < dist[dst]:
                dist[dst] = dist[src] + weight
                changed = True
        if not changed:
            return False
    return True


def _negate(f: Form) -> Form:
    """not (f <= 0), over the integers: -f + 1 <= 0."""
    return _add(_scale(f, -1), {"": 1})


def _difference(f: Form) -> bool:
    coefficients = sorted(v for k, v in f.items() if k != "" and v)
    return coefficients in ([1], [-1], [-1, 1])


def _add(a: Form, b: Form) -> Form:
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0) + v
    return {k: v for k, v in out.items() if v or k == ""}


def _scale(a: Form, k: int) -> Form:
    return {s: v * k for s, v in a.items() if v * k or s == ""}


def _conjuncts(e: ir.Expr) -> list[ir.Expr]:
    if isinstance(e, ir.BoolOp) and e.op == "and":
        return [c for v in e.values for c in _conjuncts(v)]
    return [e]


def _plain_number(t: Scalar) -> bool:
    """An integer, or a 32- or 64-bit float: read back as it was stored."""
    return t.kind in "iu" or (t.kind == "f" and t.bits in (32, 64))


def _index(e: ir.Subscript) -> list[ir.Expr]:
    return list(e.index.elts) if isinstance(e.index, ir.TupleExpr) else [e.index]


def _array_name(e: ir.Expr) -> str | None:
    return e.value.id if isinstance(e, ir.Subscript) and isinstance(e.value, ir.Name) else None


def _is_call(tf: TypedFunction, s: ir.Stmt, name: str) -> bool:
    if not isinstance(s, ir.ExprStmt) or not isinstance(s.value, ir.Call):
        return False
    callee = tf.callees.get(s.value.nid)
    return callee is not None and callee.kind == "gpu" and callee.name == name


def _plain(tf: TypedFunction) -> bool:
    """No helper calls, atomics, prints or warp calls anywhere, and one barrier."""
    barriers = 0
    for s in tf.fn.body:
        for n in ir.walk(s):
            callee = tf.callees.get(n.nid) if isinstance(n, ir.Call) else None
            if callee is None:
                continue
            if callee.target is not None or callee.kind in ("helper", "method") or callee.name == "print":
                return False
            if callee.kind == "gpu" and (callee.name in ATOMICS or callee.name in WARP_CALLS):
                return False
            barriers += callee.kind == "gpu" and callee.name == "syncthreads"
    return barriers == 1


def _stores(tf: TypedFunction, walk: _Walk, s: ir.Stmt, tests: list[ir.Expr], out: list[_Store]) -> bool:
    """``s`` (before the barrier, not a definition) is an ``if`` tree of safe tests, without ``else``,
    whose leaves store a safe element into an element of an array."""
    if isinstance(s, ir.If):
        if s.orelse or not walk.safe(s.test):
            return False
        return all(_stores(tf, walk, x, [*tests, s.test], out) for x in s.body if not isinstance(x, ir.Pass))
    if isinstance(s, ir.Assign) and isinstance(s.target, ir.Subscript) and isinstance(s.value, ir.Subscript):
        element = not isinstance(tf.types.get(s.target.nid), ArrayT) and walk.safe(s.value)
        if element and all(walk.safe(i) for i in _index(s.target)):
            out.append(_Store(s, tests))
            return True
    return False


def _targets(s: ir.Stmt) -> list[ir.Expr]:
    """What ``s`` writes: names, and array elements (the element under a struct field's path)."""
    if isinstance(s, (ir.Assign, ir.AugAssign)):
        return _flat(s.target)
    if isinstance(s, ir.ForRange):
        return [s.target]
    return []


def _flat(target: ir.Expr) -> list[ir.Expr]:
    if isinstance(target, ir.TupleExpr):
        return [t for e in target.elts for t in _flat(e)]
    while isinstance(target, ir.Attribute):
        target = target.value
    return [target]


def _exprs(s: ir.Stmt) -> list[ir.Expr]:
    """The expressions of ``s`` itself (not of the statements inside it)."""
    if isinstance(s, ir.Assign):
        return [s.value, *([s.target] if not isinstance(s.target, ir.Name) else [])]
    if isinstance(s, ir.AugAssign):
        return [s.value, s.target]
    if isinstance(s, (ir.If, ir.While)):
        return [s.test]
    if isinstance(s, ir.ForRange):
        return list(s.args)
    if isinstance(s, (ir.ExprStmt, ir.Return)):
        return [s.value] if s.value is not None else []
    if isinstance(s, ir.Assert):
        return [s.test]
    return []


def _exprs_deep(s: ir.Stmt) -> list[ir.Expr]:
    out = _exprs(s)
    for inner in (getattr(s, "body", []), getattr(s, "orelse", [])):
        for x in inner:
            out += _exprs_deep(x)
    return out
