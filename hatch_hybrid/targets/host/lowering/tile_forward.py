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
  Bellman-Ford decides exactly (:mod:`.linear_forms`);
* for every thread, every tile read, under the tests around the read (tests it cannot express are left
  out: fewer assumptions): exactly one store provably writes the element read and every other store of
  that element provably does not, and the element stored is the source at the reader's own global
  position plus an offset that is the same for every thread.

The forwarded kernel (``<symbol>__fwd__thread``) is then the definitions it needs and the code after
the barrier, each tile read a read of the source at the reading thread's global position plus the
offset. The entry runs it when the launch's block shape is the one proved and the source overlaps no
array the kernel writes (else, by the order of its reads and writes, the result could differ), and the
tiled code otherwise. Where the forwarded kernel's statements are a guard on the thread's global
position (:mod:`.thread_range`: a stencil's ``if 0 < i < h - 1 and 0 < j < w - 1``), it gets a range
function too (``<symbol>__fwd__range__thread``), and the entry runs only the positions in range.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from itertools import product

from .... import ir
from ....typecheck.rules import ATOMICS, WARP_CALLS
from ....typecheck.typed import TypedFunction
from ....types import ArrayT, Scalar
from .fission_plan import all_stmts as ir_all
from .linear_forms import Form, LinearForms, negate, unsat
from .sanitize_segments import assignment_counts
from .thread_range import ThreadRange, _int64, _needed, _Walk, thread_range

FORWARD_SUFFIX = "__fwd"
INNER_SUFFIX = "__inner"  # the forwarded kernel for x positions whose clamped reads clamp nothing
_PER_BLOCK_X = {"thread_idx_x", "block_idx_x", "lane_id"}  # what a row of blocks run as one loop does not keep


@dataclass(frozen=True)
class Clamp:
    """An index of the source kept within ``[lo, hi]`` as the copy wrote it: ``min(max(i, lo), hi)``
    (``max_first``) or ``max(min(i, hi), lo)``, ``lo`` and ``hi`` the same for the whole launch."""

    lo: ir.Expr
    hi: ir.Expr
    max_first: bool


@dataclass(frozen=True)
class Wrap:
    """An index of the source taken modulo ``n`` as the copy wrote it (``i % n``, Python's: floor), ``n``
    the same for the whole launch; the entry runs the tiled code where it is 0 (ZeroDivisionError)."""

    n: ir.Expr


#: per axis of the source: (position axis, offset from the reader's global position, its clamp or wrap)
Offsets = list[tuple[str, int, Clamp | Wrap | None]]


@dataclass
class Forwarding:
    block: tuple[int, int, int]  # (x, y, z): the threads per block it was proved for
    sources: list[str]  # the global arrays the tiles copy
    reads: dict[int, Offsets]  # tile read node id -> where in its source it reads
    read_sources: dict[int, str]  # tile read node id -> that source
    body: list[ir.Stmt]  # the forwarded kernel's statements
    range: ThreadRange | None = None  # theirs (thread_range.py), if they have one
    per_block: bool = False  # they read a thread's index in its block or the block's x index


@dataclass
class _Store:
    stmt: ir.Assign
    tests: list[ir.Expr]  # the if tests around it
    loops: list[ir.ForRange]  # the loops around it, outermost first (their iterations are enumerated)


@dataclass
class _Read:
    node: ir.Subscript
    tests: list[ir.Expr]  # the if tests around it (then branches only)


def forwarding(tf: TypedFunction) -> Forwarding | None:
    """The forwarding of ``tf``'s tile, if the proof holds for some block shape."""
    shape = _Shape.of(tf)
    if shape is None:
        return None
    for bx, by, bz in shape.candidates():
        found = shape.prove(bx, by, bz)
        if found is not None:
            found.range = thread_range(tf, found.body, found.block[:2])
            shape.inner_range(found)
            return found
    return None


class _Shape:
    """The kernel's parts, checked for the shape the proof needs."""

    def __init__(
        self,
        tf: TypedFunction,
        walk: _Walk,
        defs: dict[str, ir.Assign],
        tiles: dict[str, tuple[int, ...]],
        sources: dict[str, str],
        stores: list[_Store],
        after: list[ir.Stmt],
    ) -> None:
        """``tiles``: each tile's name and shape; ``sources``: the array each copies; ``stores``: the copy;
        ``after``: the code after the barrier."""
        self.tf, self.walk, self.defs, self.stores, self.after = tf, walk, defs, stores, after
        self.tiles, self.sources = tiles, sources
        self.reads: list[_Read] = []
        self.lets: dict[str, ir.Expr] = {}  # values the copy loops name (their values stand in for them)

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
        tiles: dict[str, tuple[int, ...]] = {}
        rest: list[ir.Stmt] = []
        for s in before:
            if isinstance(s, ir.Assign) and isinstance(s.target, ir.Name) and counts.get(s.target.id) == 1:
                callee = tf.callees.get(s.value.nid)
                if callee is not None and callee.kind == "gpu" and callee.name == "shared_array":
                    found = tf.consts[s.value.nid]
                    tiles[s.target.id] = tuple(found) if isinstance(found, (tuple, list)) else (found,)
                    continue
                if walk.safe(s.value):
                    defs[s.target.id] = s
                    continue
            rest.append(s)
        if not tiles:
            return None
        for s in ir_all(tf.fn.body):  # an array given another name could write a source or a tile
            if isinstance(s, ir.Assign) and isinstance(tf.types.get(s.value.nid), ArrayT):
                if not (isinstance(s.target, ir.Name) and s.target.id in tiles):
                    return None
        stores: list[_Store] = []
        lets: dict[str, ir.Expr] = {}
        if not all(_stores(tf, walk, s, [], [], stores, lets) for s in rest) or not stores:
            return None
        # a copy loop's variable is the loop's alone (assigned nowhere else, read nowhere after the barrier)
        loop_vars = {loop.target.id for st in stores for loop in st.loops}
        after_names = {n.id for s in after for n in ir.walk(s) if isinstance(n, ir.Name)}
        if any(counts.get(v) != 2 or v in after_names or v in defs for v in loop_vars):
            return None
        # a copy loop's named value is the loop's alone too (the forwarded kernel has no copy to assign it)
        if any(counts.get(v) != 1 or v in after_names or v in defs or v in loop_vars for v in lets):
            return None
        sources: dict[str, str] = {}  # each tile's one source: a parameter never assigned
        for st in stores:
            tile, source = _array_name(st.stmt.target), _array_name(st.stmt.value)
            if (
                tile not in tiles
                or source is None
                or source not in walk.params
                or sources.setdefault(tile, source) != source
            ):
                return None
            tile_t, source_t = tf.types[st.stmt.target.nid], tf.types[st.stmt.value.nid]
            if not isinstance(tile_t, Scalar) or tile_t != source_t or not _plain_number(tile_t):
                return None  # a plain element, stored unchanged
        if set(sources) != set(tiles) or set(sources.values()) & set(tiles):
            return None
        for d in defs.values():  # the forwarded kernel evaluates them where the code after the barrier runs:
            # they may read no memory but the sources' (a tile is not stored there, other arrays may be)
            for n in ir.walk(d.value):
                if isinstance(n, ir.Subscript) and isinstance(tf.types.get(n.value.nid), ArrayT):
                    if _array_name(n) not in sources.values():
                        return None
        shape = cls(tf, walk, defs, tiles, sources, stores, after)
        shape.lets = lets
        if not shape._after_reads():
            return None
        return shape

    def _after_reads(self) -> bool:
        """The code after the barrier reads the tiles only as whole elements and writes neither them nor
        their sources; collects the reads with the tests around them."""
        tf, tiles = self.tf, set(self.tiles)
        kept = tiles | set(self.sources.values())
        uses: set[int] = set()  # the Name nodes of the tiles that are read elements' bases

        def visit(stmts: list[ir.Stmt], tests: list[ir.Expr]) -> bool:
            for s in stmts:
                for target in _targets(s):
                    if _array_name(target) in kept or (isinstance(target, ir.Name) and target.id in kept):
                        return False
                for e in _exprs(s):
                    for n in ir.walk(e):
                        if isinstance(n, ir.Subscript) and isinstance(n.value, ir.Name) and n.value.id in tiles:
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
        names = [n for s in self.after for n in ir.walk(s) if isinstance(n, ir.Name)]
        return bool(self.reads) and all(n.nid in uses for n in names if n.id in tiles)

    def candidates(self) -> list[tuple[int, int, int]]:
        """Block shapes to try: the tile's extent on each axis, less a halo of 0 to 2; powers of two
        first (the shape a kernel is launched with: a tile of 18 is 16 and its halo, one of 16 is 16)."""

        def sizes(extent: int) -> list[int]:
            return sorted((extent - h for h in (2, 1, 0)), key=lambda n: (n & (n - 1) != 0, -n))

        found: list[tuple[int, int, int]] = []
        for shape in self.tiles.values():  # (several tiles: each one's, the first's first)
            xs = sizes(shape[-1])
            ys = sizes(shape[-2]) if len(shape) >= 2 else [1]
            zs = sizes(shape[-3]) if len(shape) == 3 else [1]
            found += [
                (x, y, z)
                for z, y, x in product(zs, ys, xs)
                if min(x, y, z) >= 1 and x * y * z <= 1024 and (x, y, z) not in found
            ]
        return found

    def prove(self, bx: int, by: int, bz: int = 1) -> Forwarding | None:
        lin = LinearForms(self.tf, self.defs, self.walk.params, bx, by, bz)
        lin.lets = self.lets
        threads = [(tz, ty, tx) for tz, ty, tx in product(range(bz), range(by), range(bx))]
        writers: dict[tuple[str, tuple[int, ...]], list[tuple[list[Form], bool, _Stored]]] = {}
        for st in self.stores:
            target, value = st.stmt.target, st.stmt.value
            assert isinstance(target, ir.Subscript) and isinstance(value, ir.Subscript)
            for tz, ty, tx in threads:
                lin.tz = tz
                iterations = _iterations(lin, st.loops, tx, ty)
                if iterations is None:
                    return None
                for bound in iterations:
                    lin.bound = bound
                    guard = lin.conjunction(st.tests, tx, ty)
                    if guard is None:
                        continue  # a test false for this thread whatever the launch: it stores nothing
                    tile = _array_name(target)
                    assert tile is not None
                    element = self._element(tile, lin.concrete(_index(target), tx, ty))
                    stored = [self._stored(lin, i, tx, ty) for i in _index(value)]
                    if element is None or any(f is None for f in stored):
                        return None
                    writers.setdefault((tile, element), []).append((guard[0], guard[1], stored))  # type: ignore[arg-type]
                lin.bound = {}
        reads: dict[int, Offsets] = {}
        for rd in self.reads:
            offsets: Offsets | None = None
            for tz, ty, tx in threads:
                lin.tz = tz
                assume = lin.assumptions(rd.tests, tx, ty)
                if assume is None or unsat(assume):
                    continue  # this thread never reads here
                tile = _array_name(rd.node)
                assert tile is not None
                element = self._element(tile, lin.concrete(_index(rd.node), tx, ty))
                if element is None:
                    return None
                found = _the_writer(assume, writers.get((tile, element), []))
                if found is None:
                    return None
                mine = _relative(found, tx, ty, tz)
                if mine is None or (offsets is not None and _keys(mine) != _keys(offsets)):
                    return None
                offsets = mine
            if offsets is None:
                return None
            reads[rd.node.nid] = offsets
        skip = {n.nid for r in self.reads for n in ir.walk(r.node)}  # every read is forwarded
        body = self._body(skip)
        # the entry runs it as rows of blocks, which keep only a thread's global x position, unless it reads
        # the thread's or the block's own (then block by block)
        per_block = any(
            callee is not None and callee.kind == "gpu" and callee.name in _PER_BLOCK_X
            for s in body
            for n in ir.walk(s)
            for callee in [self.tf.callees.get(n.nid) if isinstance(n, ir.Call) and n.nid not in skip else None]
        )
        read_sources = {rd.node.nid: self.sources[rd.node.value.id] for rd in self.reads}  # type: ignore[attr-defined]
        sources = sorted(set(self.sources.values()))
        return Forwarding((bx, by, bz), sources, reads, read_sources, body, per_block=per_block)

    def inner_range(self, found: Forwarding) -> None:
        """The x positions where ``found``'s clamped reads on x clamp nothing, for the entry to run them
        without the clamps (vectorised: a clamped index is no consecutive access), given by the range
        function, which evaluates the clamps' bounds (safe, uniform)."""
        windows = [(axis, offset, c) for offsets in found.reads.values() for axis, offset, c in offsets if c]
        inner: dict[object, tuple[ir.Expr | None, ir.Expr, int, bool]] = {}
        nonzero: dict[object, ir.Expr] = {}
        for axis, offset, c in windows:
            if isinstance(c, Wrap):
                nonzero[_key(c.n)] = c.n
            if axis == "x" and isinstance(c, Clamp):
                inner[(_key(c.lo), _key(c.hi), offset)] = (c.lo, c.hi, offset, True)
            elif axis == "x" and isinstance(c, Wrap):
                inner[(_key(c.n), offset)] = (None, c.n, offset, False)
        for value in self.lets.values():  # (a named wrap no read uses still divides in the tiled code)
            named = _wrap(self.tf, self.walk, value)
            if named is not None:
                nonzero[_key(named[1].n)] = named[1].n
        if not windows and not nonzero:
            return
        if found.range is None:
            found.range = ThreadRange({}, [], set())
        bounds = [b for lo, hi, _, _ in inner.values() for b in (lo, hi) if b is not None] + list(nonzero.values())
        names = {n.id for b in bounds for n in ir.walk(b) if isinstance(n, ir.Name)}
        defs = {id(d): d for d in [*found.range.defs, *_needed(self.defs, names)]}
        order = {id(s): k for k, s in enumerate(self.tf.fn.body)}
        found.range.defs = sorted(defs.values(), key=lambda d: order[id(d)])
        found.range.inner = list(inner.values())
        found.range.nonzero = list(nonzero.values())

    def _stored(self, lin: LinearForms, e: ir.Expr, tx: int, ty: int) -> tuple[Form, Clamp | Wrap | None] | None:
        """An index of the element a store copies: a form, or a form clamped by bounds the same for the
        whole launch (``min(max(i, lo), hi)``: a stencil's edge) or taken modulo such a value (``i % n``: a
        torus), which the forwarded read clamps or wraps alike."""
        for _ in range(8):  # a value the copy loop named: its expression
            if isinstance(e, ir.Name) and e.id in self.lets:
                e = self.lets[e.id]
        wrap = _wrap(self.tf, self.walk, e)
        if wrap is not None:
            found = lin.form(wrap[0], tx, ty)
            return None if found is None else (found, wrap[1])
        clamp = self._clamp(e)
        if clamp is None:
            found = lin.form(e, tx, ty)
            return None if found is None else (found, None)
        inner, bounds = clamp
        found = lin.form(inner, tx, ty)
        return None if found is None else (found, bounds)

    def _clamp(self, e: ir.Expr) -> tuple[ir.Expr, Clamp] | None:
        """``e`` as ``min(max(i, lo), hi)`` or ``max(min(i, hi), lo)`` (either argument order) with uniform
        bounds: (i, the clamp)."""
        outer = self._minmax(e)
        if outer is None:
            return None
        inner = self._minmax(outer[1])
        if inner is None or inner[0] == outer[0]:
            return None
        low, high = (inner[2], outer[2]) if outer[0] == "min" else (outer[2], inner[2])
        if not all(self.walk.safe(b) and self.walk.uniform(b) for b in (low, high)):
            return None
        names = {n.id for b in (low, high) for n in ir.walk(b) if isinstance(n, ir.Name)}
        if not names <= self.walk.params | set(self.defs):  # (evaluated in the forwarded kernel)
            return None
        return inner[1], Clamp(low, high, max_first=outer[0] == "min")

    def _minmax(self, e: ir.Expr) -> tuple[str, ir.Expr, ir.Expr] | None:
        """``e`` as min or max of two 64-bit integers one of which is uniform: (which, the other, the uniform one)."""
        callee = self.tf.callees.get(e.nid) if isinstance(e, ir.Call) else None
        if callee is None or callee.kind != "builtin" or callee.name not in ("min", "max"):
            return None
        assert isinstance(e, ir.Call)
        if len(e.args) != 2 or e.keywords or not self.walk.safe(e):
            return None
        a, b = e.args
        if self.walk.uniform(b) and not self.walk.uniform(a):
            return callee.name, a, b
        if self.walk.uniform(a) and not self.walk.uniform(b):
            return callee.name, b, a
        return None

    def _element(self, tile: str, index: tuple[int, ...] | None) -> tuple[int, ...] | None:
        """A tile element's index counted from the start on each axis (a negative one from the end, as
        Python counts); None past the tile (its store or read would be out of bounds: no proof)."""
        shape = self.tiles[tile]
        if index is None or len(index) != len(shape):
            return None
        out = []
        for k, dim in zip(index, shape):
            k = k + dim if -dim <= k < 0 else k
            if not 0 <= k < dim:
                return None
            out.append(k)
        return tuple(out)

    def _body(self, skip: set[int]) -> list[ir.Stmt]:
        """The definitions the code after the barrier reads outside the forwarded reads (``skip``: their
        nodes), then that code."""
        used = {n.id for s in self.after for n in ir.walk(s) if isinstance(n, ir.Name) and n.nid not in skip}
        for st in self.stores:  # the bounds of clamped reads and the divisors of wrapped ones (the copy's)
            assert isinstance(st.stmt.value, ir.Subscript)
            for index in _index(st.stmt.value):
                for _ in range(8):
                    if isinstance(index, ir.Name) and index.id in self.lets:
                        index = self.lets[index.id]
                clamp, wrap = self._clamp(index), _wrap(self.tf, self.walk, index)
                bounds = [clamp[1].lo, clamp[1].hi] if clamp is not None else [wrap[1].n] if wrap is not None else []
                for bound in bounds:
                    used |= {n.id for n in ir.walk(bound) if isinstance(n, ir.Name)}
        return [*_needed(self.defs, used), *self.after]


#: an element a store copies: per axis of the source, its index as a form and the clamp around it
_Stored = list[tuple[Form, Clamp | None]]


def _iterations(lin: LinearForms, loops: list[ir.ForRange], tx: int, ty: int) -> list[dict[str, int]] | None:
    """The values of the copy loops' variables, iteration by iteration, for the thread (tx, ty): each
    loop's range concrete for it (the thread's index and constants), at most 64 iterations in all;
    None otherwise."""
    out: list[dict[str, int]] = [{}]
    for loop in loops:
        more = []
        for bound in out:
            lin.bound = bound
            args = [lin.form(a, tx, ty) for a in loop.args]
            if any(f is None or not set(f) <= {""} for f in args):
                lin.bound = {}
                return None
            values = [f.get("", 0) for f in args if f is not None]
            start, stop, step = (0, values[0], 1) if len(values) == 1 else (*values, 1)[:3]
            if step == 0:
                lin.bound = {}
                return None
            more += [{**bound, loop.target.id: v} for v in range(start, stop, step)[:65]]
        out = more
        if len(out) > 64:
            lin.bound = {}
            return None
    lin.bound = {}
    return out


def _keys(offsets: Offsets) -> list[tuple[str, int, object]]:
    """``offsets`` compared by what they compute (a clamp's bounds, a wrap's divisor by their text)."""
    return [
        (
            a,
            k,
            ("wrap", _key(c.n))
            if isinstance(c, Wrap)
            else None
            if c is None
            else (_key(c.lo), _key(c.hi), c.max_first),
        )
        for a, k, c in offsets
    ]


def _wrap(tf: TypedFunction, walk: _Walk, e: ir.Expr) -> tuple[ir.Expr, Wrap] | None:
    """``e`` as ``i % n`` of 64-bit integers, ``i`` safe and ``n`` the same for the whole launch: (i, the wrap)."""
    if not isinstance(e, ir.BinOp) or e.op != "%" or e.nid in tf.callees:
        return None
    ops = tf.optypes.get(e.nid)
    if ops is None or not all(_int64(t) for t in (ops.left, ops.right, tf.types.get(e.nid))):
        return None
    names = {n.id for n in ir.walk(e.right) if isinstance(n, ir.Name)}
    if not (walk.safe(e.left) and walk.safe(e.right) and walk.uniform(e.right)):
        return None
    if not names <= walk.params | set(walk.uniform_defs):
        return None
    return e.left, Wrap(e.right)


def _key(e: ir.Node) -> object:
    """An expression's structure, without its node ids and places (the same text, the same value: the
    clamps' bounds read only parameters, definitions and constants)."""
    if isinstance(e, ir.Const):
        return ("const", repr(e.value))
    if isinstance(e, ir.Name):
        return ("name", e.id)
    own = tuple((f.name, getattr(e, f.name)) for f in fields(e) if isinstance(getattr(e, f.name), (str, int)))
    own = tuple(x for x in own if x[0] not in ("nid",))
    return (type(e).__name__, own, tuple(_key(c) for c in ir.children(e)))


def _the_writer(assume: list[Form], writers: list[tuple[list[Form], bool, _Stored]]) -> _Stored | None:
    """The element stored by the one writer that provably stores under ``assume`` while every other
    provably does not; None otherwise."""
    firing = []
    for guard, exact, stored in writers:
        if unsat(assume + guard):
            continue  # provably not
        if exact and all(unsat([*assume, negate(a)]) for a in guard):
            firing.append(stored)
        else:
            return None  # may or may not store
    return firing[0] if len(firing) == 1 else None


def _relative(stored: _Stored, tx: int, ty: int, tz: int = 0) -> Offsets | None:
    """The stored element's index as (position axis, offset from the reader's global position, clamp)."""
    out: Offsets = []
    for f, clamp in stored:
        symbols = {k: v for k, v in f.items() if k != "" and v}
        if len(symbols) != 1 or next(iter(symbols.values())) != 1 or next(iter(symbols)) not in ("X", "Y", "Z"):
            return None
        axis = next(iter(symbols)).lower()
        out.append((axis, f.get("", 0) - {"x": tx, "y": ty, "z": tz}[axis], clamp))
    return out


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


def _stores(
    tf: TypedFunction,
    walk: _Walk,
    s: ir.Stmt,
    tests: list[ir.Expr],
    loops: list[ir.ForRange],
    out: list[_Store],
    lets: dict[str, ir.Expr] | None = None,
) -> bool:
    """``s`` (before the barrier, not a definition) is a tree of ``if`` (safe tests, without ``else``) and
    ``for ... in range(...)`` (safe bounds: the loops over a block's share of the tile) whose leaves store
    a safe element into an element of an array; a loop's body may name values first (``r = min(max(...))``:
    ``lets``, each assigned there alone, a safe value or a wrapped index)."""
    if isinstance(s, ir.If):
        if s.orelse or not walk.safe(s.test):
            return False
        inner = [x for x in s.body if not isinstance(x, ir.Pass)]
        return all(_stores(tf, walk, x, [*tests, s.test], loops, out, lets) for x in inner)
    if isinstance(s, ir.ForRange):
        if not all(walk.safe(a) for a in s.args) or s.target.id in walk.params:
            return False
        inner = [x for x in s.body if not isinstance(x, ir.Pass)]
        for x in inner:
            if isinstance(x, ir.Assign) and isinstance(x.target, ir.Name) and lets is not None:
                value_ok = walk.safe(x.value) or _wrap(tf, walk, x.value) is not None
                if not value_ok or x.target.id in lets or not _int64(tf.types.get(x.value.nid)):
                    return False
                lets[x.target.id] = x.value
            elif not _stores(tf, walk, x, tests, [*loops, s], out, lets):
                return False
        return True
    if isinstance(s, ir.Assign) and isinstance(s.target, ir.Subscript) and isinstance(s.value, ir.Subscript):
        element = not isinstance(tf.types.get(s.target.nid), ArrayT) and _safe_copy(tf, walk, s.value)
        if element and all(walk.safe(i) for i in _index(s.target)):
            out.append(_Store(s, tests, loops))
            return True
    return False


def _safe_copy(tf: TypedFunction, walk: _Walk, value: ir.Subscript) -> bool:
    """An element of an array whose indices cannot fail, but for a modulo by a divisor the same for the
    whole launch (a torus's edge: the entry runs the tiled code, which raises, where it is 0)."""
    if not isinstance(value.value, ir.Name) or isinstance(tf.types.get(value.nid), ArrayT):
        return False
    index = _index(value)
    return all(not isinstance(i, ir.Slice) and (walk.safe(i) or _wrap(tf, walk, i) is not None) for i in index)


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
    return [ir.field_path(target)[0]]


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
