"""A kernel's integers as *linear forms* at one thread of a block of a given shape, and tests over them
as *difference constraints*, which Bellman-Ford decides exactly (:mod:`.tile_forward` proves with them).

A form maps symbols to coefficients (``""``: the constant). The thread's index within the block is
concrete (the caller enumerates the threads); the block's origin (``X``, ``Y``, ``Z``: block index times
block size) and values the same for the whole launch (shapes; a parameter only alone, as a comparison's
operand) are symbols. Every form is a 64-bit integer computed without overflow: small constants and
coefficients over values bounded far below 2**63. A test ``a < b`` is the form ``a - b + 1`` meaning
``form <= 0``; it is a difference constraint when at most two symbols remain, with coefficients 1 and -1.
"""

from __future__ import annotations

from .... import ir
from ....typecheck.typed import TypedFunction
from .thread_range import _conjuncts, _int64

Form = dict[str, int]  # symbol -> coefficient, "" -> the constant
_BOUND = 1 << 40  # the largest constant of a form (its other values are far below 2**62: no overflow)
_COEFFICIENT = 1 << 10  # the largest coefficient of a form's symbol


class LinearForms:
    """Linear forms of one kernel's integers for one block shape, at a thread given by its index."""

    def __init__(
        self, tf: TypedFunction, defs: dict[str, ir.Assign], params: set[str], bx: int, by: int, bz: int = 1
    ) -> None:
        """``defs``: the locals assigned once whose value a form may stand for; ``params``: the
        parameters never assigned; ``bx``, ``by``, ``bz``: the block's shape."""
        self.tf, self.defs, self.params, self.bx, self.by, self.bz = tf, defs, params, bx, by, bz
        self.tz = 0  # the thread's z index (the methods take x and y: a block is mostly flat)
        self.lets: dict[str, ir.Expr] = {}  # values a copy loop names, at the iteration being looked at
        self.bound: dict[str, int] = {}  # loop variables at the iteration being looked at

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
            if not isinstance(name, ir.Name) or name.id not in self.defs:
                break
            name = self.defs[name.id].value
        if isinstance(name, ir.Name) and name.id in self.params and _int64(self.tf.types.get(name.nid)):
            return {f"n:{name.id}": 1}
        return self.form(e, tx, ty)

    def _form(self, e: ir.Expr, tx: int, ty: int, depth: int) -> Form | None:
        tf = self.tf
        if isinstance(e, ir.Name):
            if e.id in self.bound:
                return {"": self.bound[e.id]}
            if e.id in self.lets:
                return self.form(self.lets[e.id], tx, ty, depth + 1)
            return self.form(self.defs[e.id].value, tx, ty, depth + 1) if e.id in self.defs else None
        if isinstance(e, ir.BinOp) and e.nid not in tf.callees and e.op == "*":
            origin = self._block_origin(e.left, e.right, tx, ty, depth) or self._block_origin(
                e.right, e.left, tx, ty, depth
            )
            if origin is not None:
                return origin
        if isinstance(e, ir.BinOp) and e.nid not in tf.callees and e.op in ("+", "-", "*"):
            left, right = self.form(e.left, tx, ty, depth + 1), self.form(e.right, tx, ty, depth + 1)
            if left is None or right is None:
                return None
            if e.op == "*":
                if set(left) <= {""}:
                    return scale(right, left.get("", 0))
                if set(right) <= {""}:
                    return scale(left, right.get("", 0))
                return None
            return add(left, scale(right, -1) if e.op == "-" else right)
        if isinstance(e, ir.UnaryOp) and e.nid not in tf.callees and e.op in ("-", "+"):
            inner = self.form(e.operand, tx, ty, depth + 1)
            return None if inner is None else scale(inner, -1 if e.op == "-" else 1)
        if isinstance(e, ir.Subscript) and isinstance(e.value, ir.Attribute) and e.value.attr == "shape":
            base, k = e.value.value, tf.consts.get(e.index.nid)
            if isinstance(base, ir.Name) and base.id in self.params and isinstance(k, int):
                return {f"shape:{base.id}:{k}": 1}
            return None
        if isinstance(e, ir.Call):
            callee = tf.callees.get(e.nid)
            if callee is None:
                return None
            if callee.kind == "builtin" and callee.name == "len" and isinstance(e.args[0], ir.Name):
                return {f"shape:{e.args[0].id}:0": 1} if e.args[0].id in self.params else None
            if callee.kind == "gpu":
                return self._index(callee.name, tx, ty)
        return None

    def _block_origin(self, block: ir.Expr, times: ir.Expr, tx: int, ty: int, depth: int) -> Form | None:
        """``block * times`` where ``block`` is a block index and ``times`` a multiple of the block's size
        on its axis (``block_idx_y() * 16``, ``block_idx_x() * block_dim_x()``): a multiple of the origin."""
        callee = self.tf.callees.get(block.nid) if isinstance(block, ir.Call) else None
        if callee is None or callee.kind != "gpu" or not callee.name.startswith("block_idx_"):
            return None
        axis = callee.name[-1]
        size = {"x": self.bx, "y": self.by, "z": self.bz}.get(axis)
        factor = self.form(times, tx, ty, depth + 1)
        if size is None or factor is None or not set(factor) <= {""} or factor.get("", 0) % size:
            return None
        return {axis.upper(): factor.get("", 0) // size, "": 0}

    def _index(self, name: str, tx: int, ty: int) -> Form | None:
        what, _, axis = name.rpartition("_")
        size = {"x": self.bx, "y": self.by, "z": self.bz}.get(axis)
        if size is None:
            return None
        thread = {"x": tx, "y": ty, "z": self.tz}[axis]
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
                if difference(f):
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
            diff = add(a, scale(b, -1))  # a - b
            if op == "<":
                out.append(add(diff, {"": 1}))
            elif op == "<=":
                out.append(diff)
            elif op == ">":
                out.append(add(scale(diff, -1), {"": 1}))
            elif op == ">=":
                out.append(scale(diff, -1))
            elif op == "==":
                out += [diff, scale(diff, -1)]
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


def unsat(atoms: list[Form]) -> bool:
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


def negate(f: Form) -> Form:
    """not (f <= 0), over the integers: -f + 1 <= 0."""
    return add(scale(f, -1), {"": 1})


def difference(f: Form) -> bool:
    coefficients = sorted(v for k, v in f.items() if k != "" and v)
    return coefficients in ([1], [-1], [-1, 1])


def add(a: Form, b: Form) -> Form:
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0) + v
    return {k: v for k, v in out.items() if v or k == ""}


def scale(a: Form, k: int) -> Form:
    return {s: v * k for s, v in a.items() if v * k or s == ""}
