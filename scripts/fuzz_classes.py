"""The generator classes of ``scripts/fuzz_edges.py`` beyond its edge expressions (issue 42): the shapes that
have produced silent bugs. Each generator makes one kernel ``k`` at a time, as a :class:`Kernel`: its
module source and how to run and compare it, a kernel the documentation gives one meaning (no races, no
out-of-bounds access, barriers and warp calls reached by every thread of the block or warp).

* ``barriers``: per-thread scalars, views (``v = a[i * 2:]``), tuples and ``@struct`` values defined
  before ``gpu.syncthreads()`` or a warp vote or shuffle and used after it, in uniform loops and
  branches and through a helper that meets the block;
* ``helpers``: views and structs passed to and returned from helpers (a helper that changes its struct
  parameter and returns it, a method that changes ``self``, views sliced in a helper, written through);
* ``literals``: Python int and float literals merged with NumPy scalars of every width (``v = 0`` in one
  branch, ``v = a[i]`` in the other; ``d = 1; while d < n: d *= 2``; ``x if c else 0`` passed to a
  helper), u64 literals and values near 2**63 among them;
* ``atomics``: ``gpu.atomic_*`` at computed indices, in global and shared memory: final values compared
  bit for bit where every order gives them, returned old values as multisets where the order of the
  threads is unspecified.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

ROWS = 64  # threads of every launch, one output row each
LONG = 2 * ROWS  # length of the inputs of kernels that take views (a[i * 2:] keeps two elements)
INTS = ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"]
FLOATS = ["f16", "f32", "f64"]
NUMBERS = INTS + FLOATS


@dataclass
class Kernel:
    """One generated kernel ``k``: ``source`` (after the prelude), its array parameters' dtypes, how many of
    them are inputs (edge values of length ``lengths[n]``; the others are outputs, zeros or ``fill``),
    the launch (``threads`` per block, ``blocks``) and how each output is compared with the Python path's:
    ``bits``, ``multiset`` (sorted: the order of the threads is unspecified) or ``ignore``."""

    kind: str
    source: str
    params: list[str]
    inputs: int = 2
    lengths: list[int] = field(default_factory=lambda: [ROWS, ROWS, ROWS])
    threads: int = 1
    blocks: int = ROWS
    compare: list[str] = field(default_factory=lambda: ["bits"])
    fill: list[int | float] = field(default_factory=list)

    HEADER = "# fuzz: "

    def module(self, prelude: str) -> str:
        """The module's text: a first line naming how to run it (for ``--run DIR``), the prelude, the source."""
        meta = {k: v for k, v in asdict(self).items() if k != "source"}
        return f"{self.HEADER}{json.dumps(meta)}\n{prelude}{self.source}"

    @classmethod
    def read(cls, text: str) -> Kernel:
        """The kernel a module written by :meth:`module` holds (a module without the line: an edge kernel)."""
        if text.startswith(cls.HEADER):
            first, _, rest = text.partition("\n")
            return cls(source=rest, **json.loads(first[len(cls.HEADER) :]))
        return cls(kind="edges", source=text, params=re.findall(r"Array\[(\w+)\]", text)[:3])


def _indent(lines: list[str], by: int = 1) -> list[str]:
    return ["    " * by + line for line in lines]


class Scalars:
    """Expressions of one NumPy scalar type ``w`` over names holding ``w`` values, kept in ``w`` (weak
    literals it holds, operations that do not promote), so that every store and field takes it as it is."""

    def __init__(self, r: random.Random, w: str) -> None:
        self.r, self.w = r, w
        self.is_int = w in INTS

    def literal(self) -> str:
        r = self.r
        return str(r.choice([1, 2, 3, 7])) if self.is_int else repr(r.choice([0.5, 2.0, 1.5, 3.0, 0.25]))

    def expr(self, names: list[str], depth: int = 0) -> str:
        r = self.r
        if depth >= 2 or r.random() < 0.35:
            if names and r.random() < 0.8:
                return r.choice(names)
            return f"{self.w}({self.literal()})"
        x, y = self.expr(names, depth + 1), self.expr(names, depth + 1)
        ops = ["+", "-", "*", "+"] + (["&", "|", "^", "//", "%"] if self.is_int else ["/", "//", "%"])
        shape = r.random()
        if shape < 0.55:
            return f"({x} {r.choice(ops)} {y})"
        if shape < 0.7:
            return f"({x} {r.choice(['+', '*', '-'])} {self.literal()})"  # a weak literal, kept in w
        if shape < 0.85:
            return f"{r.choice(['min', 'max'])}({x}, {y})"
        if shape < 0.93:
            return f"abs({x})"
        return f"({x} if {self.cond(names)} else {y})"

    def cond(self, names: list[str]) -> str:
        r = self.r
        x, y = (r.choice(names) if names else f"{self.w}(1)"), (r.choice(names) if names else f"{self.w}(2)")
        return r.choice([f"{x} > {y}", f"{x} == {y}", f"{x} <= {y}", "i % 3 == 0", "gpu.lane_id() < 16", f"{x} != {x}"])


STRUCT = """
@struct
class S:
    x: {w}
    y: {w}

    def swap(self):
        t = self.x
        self.x = self.y
        self.y = t

    def total(self):
        return self.x + self.y
"""

MEET = """
def meet(s, v, x):
    gpu.syncthreads()
    s.x = s.x + v[0]
    gpu.syncthreads()
    return x + v[1]
"""

#: Views of the length-LONG inputs (and of the thread's own ``loc``) with the fewest elements any thread of
#: the launch (i < 64) sees: reads at indices below it are in bounds.
VIEWS = [
    ("a[i * 2:]", 2), ("a[i:]", 65), ("b[i::2]", 33), ("a[::-1][i:]", 65), ("b[i + 1:]", 64), ("a[i:i + 3]", 3),
    ("b[-(i + 2):]", 2), ("a[i:][1:]", 64), ("loc[1:]", 3), ("loc[::-1]", 4),
]  # fmt: skip


class Barriers:
    """Values live across ``gpu.syncthreads()`` and warp votes and shuffles: scalars, views, tuples and
    structs defined before a meeting point and used after it, in uniform loops and branches (conditions
    every thread of the block shares: its index, the inputs' first elements, ``len``), and a helper that
    meets the block. ``carried``: the kinds of values carried (all four by default)."""

    CARRIED = ("scalar", "view", "tuple", "struct")

    def __init__(self, rng: random.Random, carried: tuple[str, ...] = CARRIED) -> None:
        self.r, self.carried = rng, carried

    def spec(self) -> Kernel:
        r = self.r
        w = r.choice(NUMBERS)
        self.s = Scalars(r, w)
        self.w, self.threads = w, r.choice([32, 64])
        self.scalars: list[str] = []
        self.views: list[tuple[str, int]] = []
        self.tuples: list[str] = []
        self.structs: list[str] = []
        self.count = 0
        lines = ["i = gpu.global_tid_x()", "t = gpu.thread_idx_x()", f"sh = gpu.shared_array({w}, {self.threads})"]
        lines += [f"loc = gpu.local_array({w}, 4)", "loc[t % 4] = a[i]", "loc[3] = b[i]"]
        lines += self.define("scalar") + self.define(r.choice(self.carried))
        for _ in range(r.randint(2, 4)):
            lines += self.item(0)
        if not any("syncthreads" in line or "gpu.ballot" in line or "gpu.shfl" in line or "any_" in line
                   or "all_" in line for line in lines):  # fmt: skip
            lines += self.meeting()  # none drawn: one at the end
        lines.append(f"o[i] = {self.use()}")
        text = "\n".join(lines)
        source = (STRUCT.format(w=w) if " S(" in text or "meet(" in text else "") + (MEET if "meet(" in text else "")
        body = "".join(f"    {line}\n" for line in lines)
        source += f"\n\n@kernel\ndef k(a: Array[{w}], b: Array[{w}], o: Array[{w}]):\n{body}"
        return Kernel(
            "barriers", source, [w, w, w], lengths=[LONG, LONG, ROWS], threads=self.threads, blocks=ROWS // self.threads
        )

    def name(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def terms(self) -> list[str]:
        """W-typed reads of every value live here."""
        r = self.r
        out = list(self.scalars)
        out += [f"{v}[{r.randrange(n)}]" for v, n in self.views]
        out += [f"{p}[{r.choice([0, 2])}]" for p in self.tuples]
        out += [f"{s}.{r.choice(['x', 'y'])}" for s in self.structs]
        return out

    def use(self) -> str:
        terms = self.terms() + [f"{s}.total()" for s in self.structs[:1]]
        return " + ".join(terms) if terms else "a[i]"

    def define(self, kind: str) -> list[str]:
        r, s = self.r, self.s
        if kind == "scalar":
            name = self.name("x")
            line = f"{name} = {s.expr(self.terms() + ['a[i]', 'b[i]'])}"
            self.scalars.append(name)
            return [line]
        if kind == "view":
            name = self.name("v")
            view, n = r.choice(VIEWS)
            self.views.append((name, n))
            return [f"{name} = {view}"]
        if kind == "tuple":
            name, line = self.name("p"), f"({s.expr(self.terms() + ['a[i]'])}, i, {s.expr(['b[i]', 'a[i]'])})"
            self.tuples.append(name)
            return [f"{name} = {line}"]
        name, line = self.name("s"), f"S({s.expr(self.terms() + ['a[i]'])}, b[i])"
        self.structs.append(name)
        return [f"{name} = {line}"]

    def uniform(self) -> str:
        return self.r.choice(
            ["a[0] > a[1]", "gpu.block_idx_x() % 2 == 0", "len(a) > 100", "b[3] < b[2]", "gpu.block_dim_x() == 64"]
        )

    def meeting(self) -> list[str]:
        """A barrier, a shared exchange between two barriers, a vote or a shuffle: every thread reaches it."""
        r, s, w = self.r, self.s, self.w
        shape = r.random()
        if shape < 0.2:
            return ["gpu.syncthreads()"]
        if shape < 0.45:
            name = self.name("x")
            other = r.choice(["(t + 1) % gpu.block_dim_x()", f"{self.threads - 1} - t", "t ^ 1", "0"])
            lines = [f"sh[t] = {s.expr(self.terms() + ['a[i]'])}", "gpu.syncthreads()", f"{name} = sh[{other}]"]
            self.scalars.append(name)
            return [*lines, "gpu.syncthreads()"]
        names = self.terms() + ["a[i]"]
        if shape < 0.6:
            name = self.name("m")
            self.scalars.append(name)
            return [f"{name} = {w}(gpu.ballot({s.cond(names)}) & 7)"]
        if shape < 0.75:
            name, x, y = self.name("x"), r.choice(names), r.choice(names)
            self.scalars.append(name)
            return [f"{name} = {x} if gpu.{r.choice(['any_', 'all_'])}({s.cond(names)}) else {y}"]
        name = self.name("x")
        self.scalars.append(name)
        call = r.choice(["shfl_xor(V, 1)", "shfl_xor(V, 16)", "shfl_down(V, 1)", "shfl_up(V, 3)", "shfl_idx(V, 5)",
                         "shfl_xor(V, 2, 8)"])  # fmt: skip
        return [f"{name} = gpu.{call.replace('V', r.choice(names))}"]

    def update(self) -> list[str]:
        """A new value for something live (the same type): a scalar, a view (another of the same kind), a
        struct's field, or a helper that meets the block."""
        r, s = self.r, self.s
        shape = r.random()
        if shape < 0.3 and self.scalars:
            x = r.choice(self.scalars)
            return [f"{x} = {s.expr(self.terms())}"]
        if shape < 0.5 and self.views:
            name, n = r.choice(self.views)
            if n > 12:  # one element fewer each time round (nested loops: at most nine times)
                self.views[self.views.index((name, n))] = (name, n - 9)
                return [f"{name} = {name}[1:]"]
            view, m = r.choice(VIEWS)
            self.views[self.views.index((name, n))] = (name, min(n, m))
            return [f"{name} = {view}"]
        if shape < 0.7 and self.structs:
            st = r.choice(self.structs)
            return r.choice([[f"{st}.{r.choice('xy')} = {s.expr(self.terms())}"], [f"{st}.swap()"]])
        if shape < 0.85 and self.structs and self.views and self.scalars:
            x = r.choice(self.scalars)
            return [f"{x} = meet({r.choice(self.structs)}, {r.choice(self.views)[0]}, {x})"]
        return self.define(r.choice(self.carried))

    def scoped(self, make: Callable[[], list[str]]) -> list[str]:
        """``make()``'s lines, in a loop or branch: the names they define are not used after it (the compiler
        cannot know that the body runs), and views they take again may be shorter after it."""
        saved = list(self.scalars), list(self.views), list(self.tuples), list(self.structs)
        lines = make()
        shortest = dict(self.views)
        self.scalars, self.views, self.tuples, self.structs = saved
        self.views = [(v, min(n, shortest.get(v, n))) for v, n in self.views]
        return lines

    def item(self, depth: int) -> list[str]:
        """A meeting point, an update, or a uniform loop or branch of them."""
        r = self.r
        shape = r.random()
        if shape < 0.35 or depth >= 2:
            return self.meeting() if r.random() < 0.6 else self.update()
        if shape < 0.55:
            body = self.scoped(lambda: self.item(depth + 1) + self.meeting() + self.update())
            return [f"for r{depth} in range({r.choice(['2', '3', 'len(a) // 64'])}):", *_indent(body)]
        if shape < 0.65:
            n = f"n{depth}"
            body = self.scoped(lambda: self.meeting() + self.update()) + [f"{n} += 1"]
            return [f"{n} = 0", f"while {n} < 2:", *_indent(body)]
        if shape < 0.85:  # uniform: the same branch for every thread of the block
            yes = self.scoped(lambda: self.item(depth + 1) + self.meeting())
            no = self.scoped(lambda: self.update() + self.meeting())
            return [f"if {self.uniform()}:", *_indent(yes), "else:", *_indent(no)]
        # a branch that threads take differently, with no meeting point inside
        x = r.choice(self.scalars) if self.scalars else None
        if x is None:
            return self.meeting()
        return [f"if {self.s.cond(self.terms())}:", f"    {x} = {self.s.expr(self.terms())}"]


HELPERS = """
@struct
class S:
    x: {w}
    y: {w}

    def scale(self, k):
        self.x = self.x * k
        self.y = self.y * k
        return self

    def swapped(self):
        return S(self.y, self.x)


@struct
class Q:
    p: S
    z: {w}


def bump(s, d):
    s.y = s.y + d
    return s


def grow(q, d):
    bump(q.p, d)
    q.z = q.z + q.p.x
    return q


def head(v, k):
    u = v[k:]
    return u[0]


def ends(v):
    return v[0] + v[len(v) - 1]


def tail(v, k):
    return ends(v[k:])


def put(v, x):
    v[0] = x


def mix(s, v):
    s.x = s.x + v[1]
    put(v[1:], s.y)
    return s
"""


class Helpers:
    """Views and ``@struct`` values passed to helpers and returned from them: helpers that change a struct
    parameter (or a nested struct's field, or ``self``) and return it, views sliced in a helper, passed on
    and written through (into ``w``, two elements per thread)."""

    def __init__(self, rng: random.Random, alias: bool = True) -> None:
        self.r, self.alias = rng, alias

    def spec(self) -> Kernel:
        r = self.r
        w = r.choice(NUMBERS)
        self.s = Scalars(r, w)
        self.scalars, self.structs, self.nested = ["a[i]", "b[i]"], ["s1"], []  # type: ignore[var-annotated]
        self.count = 1
        lines = ["i = gpu.global_tid_x()", f"loc = gpu.local_array({w}, 4)", "loc[1] = a[i]", "loc[2] = b[i]",
                 "s1 = S(a[i], b[i])"]  # fmt: skip
        for _ in range(r.randint(3, 6)):
            lines += self.item()
        terms = [x for x in self.scalars if x not in ("a[i]", "b[i]")] + [f"{s}.x + {s}.y" for s in self.structs]
        terms += [f"{q}.p.y + {q}.z" for q in self.nested] + ["loc[1]"]
        lines.append(f"o[i] = {' + '.join(terms)}")
        body = "".join(f"    {line}\n" for line in lines)
        head = f"def k(a: Array[{w}], b: Array[{w}], o: Array[{w}], w: Array[{w}]):"
        source = HELPERS.format(w=w) + f"\n\n@kernel\n{head}\n{body}"
        return Kernel("helpers", source, [w] * 4, lengths=[LONG, LONG, ROWS, LONG], compare=["bits", "bits"])

    def item(self) -> list[str]:
        r, e = self.r, self.s.expr(self.scalars)
        shape = r.randrange(12)
        s = r.choice(self.structs)
        new = f"s{self.count + 1}"
        views = [v for v in VIEWS if not v[0].startswith("loc")] + [("loc[1:]", 3), ("w[i * 2:i * 2 + 2]", 2)]
        view, n = r.choice(views)
        if shape == 0:
            return [f"{s} = bump({s}, {e})"]
        if shape == 1:
            return [f"bump({s}, {e})"]
        if shape == 2:
            self.count += 1
            self.structs.append(new)
            return [f"{new} = bump(S({e}, {self.s.expr(self.scalars)}), b[i])"]
        if shape == 3:
            return [r.choice([f"{s}.scale(2)", f"{s} = {s}.scale({self.s.literal()})"])]
        if shape == 4:
            self.count += 1
            self.structs.append(new)
            return [f"{new} = {s}.swapped()"]
        if shape == 5:
            q = f"q{len(self.nested) + 1}"
            self.nested.append(q)
            return [f"{q} = Q(S(a[i], {e}), b[i])", r.choice([f"grow({q}, a[i])", f"{q} = grow({q}, b[i])",
                                                           f"bump({q}.p, {e})"])]  # fmt: skip
        if shape == 6:
            x = f"x{len(self.scalars)}"
            self.scalars.append(x)
            call = r.choice([f"head({view}, {r.randrange(n)})", f"ends({view})", f"tail({view}, {r.randrange(n)})"])
            return [f"{x} = {call}"]
        if shape == 7:
            return [f"put({r.choice(['w[i * 2:]', 'w[i * 2 + 1:]', 'loc[1:]', 'loc[::-1]'])}, {e})"]
        if shape == 8:
            return [f"{s} = mix({s}, {r.choice(['w[i * 2:i * 2 + 2]', 'loc[1:]', 'w[i * 2:][:2]'])})"]
        if shape == 9 and self.alias:  # another name for the object: a change through either must show in both
            self.count += 1
            self.structs.append(new)
            return [f"{new} = bump({s}, {e})"]
        if shape == 10 and self.nested:
            q = r.choice(self.nested)
            return [f"{q}.p = bump({q}.p, {e})"]
        x = f"x{len(self.scalars)}"
        self.scalars.append(x)
        return [f"{x} = head({view}[{r.choice(['1:', '::2', '::-1', ':'])}], 0) + {e}"]


#: Python literals merged with NumPy scalars: small ones, each width's edges, u64's, those near 2**63, floats
LITERALS = [
    "0", "1", "-1", "2", "127", "-128", "255", "256", "32767", "65535", "2147483647", "-2147483648", "4294967295",
    "9223372036854775807", "-9223372036854775808", "9223372036854775808", "18446744073709551615",
    "18446744073709551614", "0.0", "-0.0", "0.5", "-1.5", "65504.0", "1e-08", "3.4e+38", "1e300", "math.inf",
    "-math.inf", "math.nan",
]  # fmt: skip


def holds(w: str, literal: str) -> bool:
    """Whether NumPy type ``w`` holds the Python number ``literal`` exactly (the literal rule's condition)."""
    import math

    import numpy as np

    value = eval(literal, {"math": math})
    if w == "boolean" or (w in INTS and not isinstance(value, int)):
        return False
    if w in INTS:
        info = np.iinfo(w.replace("i", "int").replace("u", "uint"))
        return int(info.min) <= value <= int(info.max)
    with np.errstate(all="ignore"):
        held = float(np.dtype({"f16": "float16", "f32": "float32", "f64": "float64"}[w]).type(value))
    return held == value or (math.isnan(held) and math.isnan(value))


LITERAL_HELPERS = """
def g(x):
    return x


def twice(x, y):
    return x + y


def pick(x, c):
    return x if c else 0
"""


class Literals:
    """Python int and float literals merged into every width: a variable given a literal in one branch and
    ``a[i]`` in the other (or first), ``x if c else L`` stored, compared, passed to a helper, ``min``/``max``
    with a literal, accumulators started from one, ``d = 1; while d < n: d *= 2``."""

    LITERALS = tuple(LITERALS)
    OUTPUTS = ("boolean", *NUMBERS)

    def __init__(self, rng: random.Random, literals: tuple[str, ...] = LITERALS, outputs: tuple[str, ...] = OUTPUTS):
        self.r, self.literals, self.outputs = rng, literals, outputs

    def spec(self) -> Kernel:
        r = self.r
        w = r.choice(NUMBERS + ["boolean"])
        tb = r.choice([w, w, *NUMBERS])
        to = r.choice([t for t in [w, w, w, "i64", "f64", "u64", *NUMBERS] if t in self.outputs])
        held = [x for x in self.literals if holds(w, x)]
        lit = r.choice(held if held and r.random() < 0.7 else self.literals)  # mostly what the literal rule accepts
        c = r.choice(["i % 2 == 0", "a[i] > b[i]", "b[i] != b[i]", "i < 32", "a[i] == 0"])
        use = r.choice(["v", "v", "v + a[i]", "v * 2", "v == a[i]", "v < b[i]", f"{w}(v)", "g(v)", "max(v, a[i])",
                        "v - v", "-v"])  # fmt: skip
        shape = r.randrange(9)
        if shape == 0:
            lines = [f"if {c}:", f"    v = {lit}", "else:", "    v = a[i]", f"o[i] = {use}"]
        elif shape == 1:
            lines = [f"v = {lit}", f"if {c}:", "    v = a[i]", f"o[i] = {use}"]
        elif shape == 2:
            call = r.choice(["g", "twice", "pick"])
            arg = f"a[i] if {c} else {lit}" if r.random() < 0.5 else f"{lit} if {c} else a[i]"
            lines = [f"o[i] = {call}({arg}{', b[i]' if call == 'twice' else ', ' + c if call == 'pick' else ''})"]
        elif shape == 3:
            op = r.choice(["+=", "*=", "-="])
            lines = [f"acc = {lit}", f"for j in range({r.choice([1, 3])}):", f"    acc {op} a[i]", "o[i] = acc"]
        elif shape == 4:
            n = "a[i] % 50" if w in INTS else "min(a[i], 50.0)" if w in FLOATS else "a[i] + 3"
            start, step = r.choice(["1", "1.0", lit]), r.choice(["d *= 2", "d = d * 2 + 1", "d += a[i]"])
            lines = ["d = 1" if start == "1" else f"d = {start}", "k = 0", f"while d < {n} and k < 70:",
                     f"    {step}", "    k += 1", "o[i] = d"]  # fmt: skip
        elif shape == 5:
            lines = [f"v = {r.choice(['min', 'max'])}(a[i], {lit})", f"o[i] = {use}"]
        elif shape == 6:
            lines = [f"o[i] = {lit} if {c} else a[i]"]
        elif shape == 7:  # merged in a loop: the literal first, a NumPy scalar from the second round
            lines = [f"v = {lit}", "for j in range(3):", f"    if j > 0 and {c}:", "        v = a[i] + b[i]",
                     f"o[i] = {use}"]  # fmt: skip
        else:  # a literal and a NumPy scalar of another width merged
            lines = [f"if {c}:", "    v = b[i]", "else:", f"    v = {lit}", f"o[i] = {use.replace('a[i]', 'b[i]')}"]
        body = "".join(f"    {line}\n" for line in ["i = gpu.global_tid_x()", *lines])
        source = LITERAL_HELPERS + f"\n\n@kernel\ndef k(a: Array[{w}], b: Array[{tb}], o: Array[{to}]):\n{body}"
        return Kernel("literals", source, [w, tb, to])


ATOMIC_OPS = {"add": NUMBERS, "sub": NUMBERS, "min": NUMBERS, "max": NUMBERS, "exch": NUMBERS, "and": INTS,
              "or": INTS, "xor": INTS, "cas": INTS, "inc": ["u32", "u64"], "dec": ["u32", "u64"]}  # fmt: skip
#: the same result in any order when every thread's operand differs (exch, cas, inc and dec apply one
#: function only with one operand per element)
COMMUTATIVE = {"add", "sub", "min", "max", "and", "or", "xor"}
SLOTS = 8


class Atomics:
    """``gpu.atomic_*`` at computed indices (thread index, input values, the lane), in global memory (also
    through a view) and in shared memory between barriers, in loops: the final values compared bit for bit
    (orders of the threads give the same; float sums of small integers are exact), the old values each
    returns as a multiset where every thread of an element applies the same operand, else not at all."""

    INDICES = ("i % 8", "(i * 5 + 3) % 8", "a[i] % 8", "(a[i] & 7)", "abs(i - 32) % 8", "i // 8",
               "i64(b[i] > 0) * 3", "gpu.lane_id() % 4", "7 - i % 8",
               # the same element for every thread (native code combines such atomics per worker, when
               # they are statements: targets/host/lowering/aggregate.py)
               "3", "len(a) % 8", "gpu.block_dim_x() % 8")  # fmt: skip

    def __init__(self, rng: random.Random, indices: tuple[str, ...] = INDICES) -> None:
        self.r, self.indices = rng, indices

    def spec(self) -> Kernel:
        r = self.r
        op = r.choice(sorted(ATOMIC_OPS))
        w = r.choice([t for t in ("i32", "i64", "u32", "u64", "f32", "f64") if t in ATOMIC_OPS[op]])
        ta = r.choice(INTS)
        j = r.choice(self.indices)
        uniform = op not in COMMUTATIVE or r.random() < 0.5  # one operand per element: old values as a multiset
        value = r.choice([f"{w}(j + 1)", f"{w}(j * 3)", f"{w}(2)", f"{w}(j)"] if uniform else
                         [f"{w}(i % 5)", f"{w}(i)", f"{w}(a[i] & 15)", f"{w}(i % 7) + {w}(1)"])  # fmt: skip
        init = {"min": 100, "max": 0, "and": -1, "cas": 5, "dec": 3}.get(op, 0)
        fill = init if init >= 0 or w[0] != "u" else {"u32": 2**32 - 1, "u64": 2**64 - 1}[w]
        if op == "cas":
            call = f"gpu.atomic_cas(T, j, {w}({fill}), {value})"
        elif op in ("inc", "dec"):
            call = f"gpu.atomic_{op}(T, j, {w}({r.choice([2, 5, 40])}))"
        else:
            call = f"gpu.atomic_{op}(T, j, {value})"
        shared = r.random() < 0.35
        threads = r.choice([32, 64])
        lines = ["i = gpu.global_tid_x()", f"j = {j}"]
        if shared:
            lines = ["t = gpu.thread_idx_x()", f"sh = gpu.shared_array({w}, {SLOTS})", f"if t < {SLOTS}:",
                     f"    sh[t] = {w}({fill})", "gpu.syncthreads()", *lines]  # fmt: skip
            target = "sh"
        else:
            target = r.choice(["o", "o", "o[1:]", "o[::-1]"])
        if r.random() < 0.25 and op not in ("exch", "cas"):
            # in a loop: each thread's operand meets other elements' (exch and cas would depend on the order
            # then), old values not kept
            lines += ["for q in range(3):", f"    {call.replace('T', target).replace(' j,', ' (j + q) % 8,')}",
                      "old = j"]  # fmt: skip
            compare = "ignore"
        elif r.random() < 0.3:  # a statement: its old value unused
            lines += [call.replace("T", target), "old = j"]
            compare = "ignore"
        else:
            lines.append(f"old = {call.replace('T', target)}")
            compare = "multiset" if uniform else "ignore"
        lines.append("r[i] = old")
        if shared:
            lines += ["gpu.syncthreads()", f"if t < {SLOTS}:", f"    o[gpu.block_idx_x() * {SLOTS} + t] = sh[t]"]
        body = "".join(f"    {line}\n" for line in lines)
        source = f"\n@kernel\ndef k(a: Array[{ta}], b: Array[{ta}], o: Array[{w}], r: Array[{w}]):\n{body}"
        slots = SLOTS * (ROWS // threads) if shared else SLOTS + 1
        return Kernel("atomics", source, [ta, ta, w, w], lengths=[ROWS, ROWS, slots, ROWS], threads=threads,
                      blocks=ROWS // threads, compare=["bits", compare], fill=[fill, 0])  # fmt: skip


GENERATORS = {"barriers": Barriers, "helpers": Helpers, "literals": Literals, "atomics": Atomics}
