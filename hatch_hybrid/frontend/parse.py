"""Stage 1: Python ``ast`` -> kernel IR, rejecting what the kernel language does not have."""

from __future__ import annotations

import ast

from .. import ir
from ..errors import CompileError, Loc
from . import strings

_BINOPS: dict[type[ast.operator], str] = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.BitXor: "^",
}
_UNARYOPS: dict[type[ast.unaryop], str] = {ast.USub: "-", ast.UAdd: "+", ast.Invert: "~", ast.Not: "not"}
_IDENTITY_OPS: dict[type[ast.cmpop], str] = {ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in"}
_CMPOPS: dict[type[ast.cmpop], str] = {
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
}

# What users write that kernels cannot run, and what to do instead.
_UNSUPPORTED: dict[type[ast.AST], tuple[str, str]] = {
    ast.ClassDef: ("class definitions inside a kernel", "define classes at module level with @hybrid_runtime.struct"),
    ast.FunctionDef: (
        "nested functions (closures)",
        "move the function to module level and pass what it needs as arguments",
    ),
    ast.AsyncFunctionDef: ("async functions", "kernels are synchronous; move the function to module level"),
    ast.Lambda: ("lambda expressions", "define a module-level helper function and call it"),
    ast.Try: ("exceptions (try/except)", "check conditions with `if` and report results through an output array"),
    ast.Raise: ("raise", "report errors through an output array"),
    ast.With: ("with statements", "kernels have no context managers; remove the `with`"),
    ast.AsyncWith: ("async with", "kernels are synchronous"),
    ast.AsyncFor: ("async for", "use `for i in range(...)`"),
    ast.Global: ("global declarations", "pass the value in as a kernel argument or array"),
    ast.Nonlocal: ("nonlocal declarations", "pass the value in as an argument"),
    ast.Delete: ("del", "variables live until the function returns; remove the `del`"),
    ast.Import: ("import inside a kernel", "import at module level"),
    ast.ImportFrom: ("import inside a kernel", "import at module level"),
    ast.List: ("lists", "use an Array argument or gpu.shared_array(dtype, shape)"),
    ast.ListComp: ("list comprehensions", "write a `for i in range(...)` loop into an array"),
    ast.Dict: ("dicts", "kernels work on arrays and scalars"),
    ast.DictComp: ("dict comprehensions", "kernels work on arrays and scalars"),
    ast.Set: ("sets", "kernels work on arrays and scalars"),
    ast.SetComp: ("set comprehensions", "kernels work on arrays and scalars"),
    ast.GeneratorExp: ("generator expressions", "write a `for i in range(...)` loop"),
    ast.Yield: ("generators (yield)", "write results into an output array"),
    ast.YieldFrom: ("generators (yield from)", "write results into an output array"),
    ast.Await: ("await", "kernels are synchronous"),
    ast.JoinedStr: ("f-strings", 'kernels have no strings; print() takes f-strings: print(f"x={x}")'),
    ast.Starred: ("starred arguments", "pass arguments one by one"),
    ast.NamedExpr: ("assignment expressions (:=)", "assign in a statement of its own"),
    ast.MatchSequence: ("sequence patterns", "match on numbers and enum members: `case 1 | 2:`, `case Color.RED:`"),
    ast.MatchMapping: ("mapping patterns", "match on numbers and enum members: `case 1 | 2:`, `case Color.RED:`"),
    ast.MatchClass: ("class patterns", "match on numbers and enum members: `case 1 | 2:`, `case Color.RED:`"),
    ast.MatchStar: ("star patterns", "match on numbers and enum members"),
    ast.MatchSingleton: (
        "`case True/False/None` (Python compares with `is`, which NumPy booleans never are)",
        "use `if flag:` or `case 1:`",
    ),
}


class Parser:
    """Translates one function definition into :class:`ir.Function`."""

    def __init__(self, file: str, module: str) -> None:
        self.file = file
        self.module = module

    # ---------------------------------------------------------------- helpers
    def loc(self, node: ast.AST) -> Loc:
        line = getattr(node, "lineno", 0)
        col = getattr(node, "col_offset", 0)
        end_line = getattr(node, "end_lineno", line)
        end_col = getattr(node, "end_col_offset", None) if end_line == line else None
        return Loc(self.file, line, col, end_col)

    def unsupported(self, node: ast.AST) -> CompileError:
        what, hint = _UNSUPPORTED.get(type(node), (None, None))
        if what is None:
            name = type(node).__name__
            what, hint = f"`{name}` syntax", "rewrite it with scalars, arrays, if/while/for-range and calls"
        return CompileError(self.loc(node), f"kernel code cannot use {what}", hint)

    # -------------------------------------------------------------- functions
    def function(self, node: ast.FunctionDef) -> ir.Function:
        args = node.args
        if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs:
            bad = args.vararg or args.kwarg or (args.kwonlyargs or args.posonlyargs)[0]
            raise CompileError(
                self.loc(bad if isinstance(bad, ast.AST) else node),
                "kernel-language functions take plain positional parameters only",
                "remove *args, **kwargs and keyword-only or positional-only markers",
            )
        params = [
            ir.Param(a.arg, self.annotation(a.annotation) if a.annotation else None, loc=self.loc(a)) for a in args.args
        ]
        # defaults belong to the last parameters; they are compile-time values, checked where a call uses them
        for p, default in zip(params[len(params) - len(args.defaults) :], args.defaults):
            p.default = self.expr(default)
        returns = self.annotation(node.returns) if node.returns is not None else None
        body = self.block(node.body)
        return ir.Function(node.name, self.module, params, returns, body, loc=self.loc(node))

    def annotation(self, node: ast.expr) -> ir.Expr:
        """An annotation; a string (forward reference, ``"Vec2"``) is parsed as the expression it holds."""
        if isinstance(node, ast.Subscript):  # Array["Vec2"]
            return ir.Subscript(self.expr(node.value), self.annotation(node.slice), loc=self.loc(node))
        if isinstance(node, ast.Tuple):
            return ir.TupleExpr([self.annotation(e) for e in node.elts], loc=self.loc(node))
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            return self.expr(node)
        try:
            inner = ast.parse(node.value.strip(), mode="eval").body
        except SyntaxError:
            raise CompileError(
                self.loc(node),
                f"the string annotation {node.value!r} is not a Python expression",
                'write the type\'s name, e.g. "Vec2" or "Array[f32]"',
            ) from None
        for sub in ast.walk(inner):  # point into the string (single-line annotations exactly)
            if isinstance(sub, (ast.expr, ast.stmt)):
                shift = node.col_offset + 1 if sub.lineno == 1 else 0
                end_shift = node.col_offset + 1 if sub.end_lineno == 1 else 0
                sub.lineno, sub.end_lineno = node.lineno + sub.lineno - 1, node.lineno + (sub.end_lineno or 1) - 1
                sub.col_offset += shift
                sub.end_col_offset = (sub.end_col_offset or 0) + end_shift
        return self.annotation(inner)

    def block(self, stmts: list[ast.stmt]) -> list[ir.Stmt]:
        out: list[ir.Stmt] = []
        for s in stmts:
            stmt = self.match(s) if isinstance(s, ast.Match) else self.stmt(s)
            if isinstance(stmt, list):
                out += stmt
            elif stmt is not None:
                out.append(stmt)
        return out

    # ----------------------------------------------------------------- match
    def match(self, node: ast.Match) -> list[ir.Stmt]:
        """``match`` as the if/elif chain Python runs: the subject is evaluated once, value patterns
        compare with ``==``, ``|`` tries alternatives, captures bind the subject, guards come last."""
        loc = self.loc(node)
        subject = f"match.{node.lineno}.{node.col_offset}"  # not a Python name: cannot clash
        out: list[ir.Stmt] = [ir.Assign(ir.Name(subject, loc=loc), self.expr(node.subject), loc=loc)]
        chain: list[ir.Stmt] = out
        for case in node.cases:
            test, binds = self.pattern(case.pattern, subject)
            if case.guard is not None:
                guard = self.expr(case.guard)
                test = guard if test is None else ir.BoolOp("and", [test, guard], loc=guard.loc)
            body = self.block(case.body) or [ir.Pass(loc=self.loc(case.pattern))]
            chain += binds
            if test is None:  # irrefutable: the rest is unreachable (Python rejects cases after it)
                chain += body
                break
            branch = ir.If(test, body, [], loc=self.loc(case.pattern))
            chain.append(branch)
            chain = branch.orelse
        return out

    def pattern(self, p: ast.pattern, subject: str) -> tuple[ir.Expr | None, list[ir.Stmt]]:
        """(test or None when it always matches, assignments of captured names)."""
        loc = self.loc(p)
        if isinstance(p, ast.MatchValue):
            return ir.Compare(ir.Name(subject, loc=loc), ["=="], [self.expr(p.value)], loc=loc), []
        if isinstance(p, ast.MatchAs):
            binds: list[ir.Stmt] = []
            if p.name is not None:
                binds.append(ir.Assign(ir.Name(p.name, loc=loc), ir.Name(subject, loc=loc), loc=loc))
            if p.pattern is None:
                return None, binds
            test, inner = self.pattern(p.pattern, subject)
            return test, inner + binds
        if isinstance(p, ast.MatchOr):
            tests = []
            for alt in p.patterns:
                test, inner = self.pattern(alt, subject)
                if inner:
                    raise CompileError(self.loc(alt), "captures inside `|` patterns are not supported in kernel code")
                if test is None:
                    return None, []
                tests.append(test)
            return ir.BoolOp("or", tests, loc=loc), []
        raise self.unsupported(p)

    # ------------------------------------------------------------- statements
    def stmt(self, node: ast.stmt) -> ir.Stmt | list[ir.Stmt] | None:
        loc = self.loc(node)
        if isinstance(node, ast.Assert):
            msg = node.msg
            if msg is not None and not (isinstance(msg, ast.Constant) and isinstance(msg.value, str)):
                raise CompileError(
                    self.loc(msg),
                    "the message of an assert in kernel code must be a string literal",
                    "the device reports the kernel, file and line; write a fixed message",
                )
            text = msg.value if isinstance(msg, ast.Constant) and isinstance(msg.value, str) else None
            return ir.Assert(self.expr(node.test), text, loc=loc)
        if isinstance(node, ast.Assign):
            if len(node.targets) != 1:  # a = b = value: the value once, then each target from left to right
                held = f"chain.{node.lineno}.{node.col_offset}"  # not a Python name: cannot clash
                chain: list[ir.Stmt] = [ir.Assign(ir.Name(held, loc=loc), self.expr(node.value), loc=loc)]
                return chain + [ir.Assign(self.target(t), ir.Name(held, loc=loc), loc=loc) for t in node.targets]
            return ir.Assign(self.target(node.targets[0]), self.expr(node.value), loc=loc)
        if isinstance(node, ast.AnnAssign):
            if node.value is None:
                raise CompileError(
                    loc,
                    "a declaration without a value is not supported in kernel code",
                    "give the variable an initial value: `x: f32 = 0.0`",
                )
            return ir.Assign(self.target(node.target), self.expr(node.value), self.annotation(node.annotation), loc=loc)
        if isinstance(node, ast.AugAssign):
            return ir.AugAssign(self.target(node.target), self.binop(node.op, node), self.expr(node.value), loc=loc)
        if isinstance(node, ast.If):
            return ir.If(self.expr(node.test), self.block(node.body), self.block(node.orelse), loc=loc)
        if isinstance(node, ast.While):
            if node.orelse:
                raise CompileError(
                    self.loc(node.orelse[0]),
                    "while ... else is not supported in kernel code",
                    "use a flag variable set before `break`",
                )
            return ir.While(self.expr(node.test), self.block(node.body), loc=loc)
        if isinstance(node, ast.For):
            return self.for_range(node)
        if isinstance(node, ast.Break):
            return ir.Break(loc=loc)
        if isinstance(node, ast.Continue):
            return ir.Continue(loc=loc)
        if isinstance(node, ast.Return):
            return ir.Return(self.expr(node.value) if node.value is not None else None, loc=loc)
        if isinstance(node, ast.Pass):
            return ir.Pass(loc=loc)
        if isinstance(node, ast.Expr):
            if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                return None  # docstring or string statement
            return ir.ExprStmt(self.expr(node.value), loc=loc)
        raise self.unsupported(node)

    def for_range(self, node: ast.For) -> ir.ForRange | list[ir.Stmt]:
        loc = self.loc(node)
        if node.orelse:
            raise CompileError(
                self.loc(node.orelse[0]),
                "for ... else is not supported in kernel code",
                "use a flag variable set before `break`",
            )
        it = node.iter
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id in ("zip", "enumerate"):
            return self.for_zip(node, it)
        if not isinstance(node.target, ast.Name):
            raise CompileError(
                self.loc(node.target),
                "a for loop must bind a single variable (or loop over zip(...) or enumerate(...))",
                "write `for i in range(...)`",
            )
        if isinstance(it, (ast.Tuple, ast.Name, ast.Attribute, ast.Subscript)):
            return self.for_items(node, it)
        # numba's prange (hybrid_runtime.prange: range) is a range: a kernel thread runs its loop in order
        ranges = ("range", "prange")
        if not (
            isinstance(it, ast.Call)
            and (
                (isinstance(it.func, ast.Name) and it.func.id in ranges)
                or (isinstance(it.func, ast.Attribute) and it.func.attr == "prange")
            )
        ):
            raise CompileError(
                self.loc(it),
                "kernels can loop over range(...), a tuple, a constant table or an array",
                "write `for i in range(len(a)):` and index it",
            )
        if it.keywords or not 1 <= len(it.args) <= 3:
            raise CompileError(self.loc(it), "range() takes 1 to 3 positional arguments")
        target = ir.Name(node.target.id, loc=self.loc(node.target))
        return ir.ForRange(target, [self.expr(a) for a in it.args], self.block(node.body), loc=loc)

    def for_items(self, node: ast.For, it: ast.expr) -> ir.ForRange:
        """``for d in (16, 8, 4, 2, 1):`` (numba unrolls it), ``for w in WEIGHTS:`` (a constant table),
        ``for v in x:`` (an array's first axis): a loop over the positions, binding the variable to each
        item in turn as Python does (``break`` and ``continue`` keep their meaning). A tuple written there
        picks its item with a chain of ``if``s, which LLVM folds once it unrolls the loop."""
        assert isinstance(node.target, ast.Name)
        loc, target_loc = self.loc(node), self.loc(node.target)
        counter = ir.Name(f"__hh_for_{loc.line}_{loc.col}", loc=loc)
        target = ir.Name(node.target.id, loc=target_loc)

        def position() -> ir.Name:
            return ir.Name(counter.id, loc=loc)

        if isinstance(it, ast.Tuple):
            items = [self.expr(e) for e in it.elts]
            if not items:
                raise CompileError(self.loc(it), "a for loop over an empty tuple runs no iteration", "remove the loop")
            chain: list[ir.Stmt] = [ir.Assign(target, items[-1], loc=target_loc)]
            for k in range(len(items) - 2, -1, -1):
                test = ir.Compare(position(), ["=="], [ir.Const(k, loc=loc)], loc=loc)
                chain = [
                    ir.If(
                        test, [ir.Assign(ir.Name(target.id, loc=target_loc), items[k], loc=target_loc)], chain, loc=loc
                    )
                ]
            stop: ir.Expr = ir.Const(len(items), loc=loc)
        else:
            seq = self.expr(it)
            stop = ir.Call(ir.Name("len", loc=loc), [seq], {}, loc=loc)
            item = ir.Subscript(self.expr(it), position(), loc=target_loc)
            chain = [ir.Assign(target, item, loc=target_loc)]
        return ir.ForRange(counter, [stop], [*chain, *self.block(node.body)], loc=loc)

    def for_zip(self, node: ast.For, it: ast.Call) -> list[ir.Stmt]:
        """``for i, v in enumerate(x, start)``, ``for a, b in zip(range(n), x, ...)`` (nested too): a loop over
        positions ``k`` up to the shortest length, binding the target to the items at ``k`` as Python does
        (a range's item is ``start + k * step``; a tuple's, table's or array's ``seq[k]``). Range bounds and
        enumerate's start are evaluated once, before the loop, as Python evaluates them."""
        loc = _synthetic(self.loc(node))
        if node.orelse:
            raise CompileError(
                self.loc(node.orelse[0]),
                "for ... else is not supported in kernel code",
                "use a flag set before `break`",
            )
        counter = ir.Name(f"__hh_zip_{loc.line}_{loc.col}", loc=loc)
        length, item, before = self._walk(it, counter.id, counter)
        return [
            *before,
            ir.ForRange(counter, [length], [*self._bind(node.target, item), *self.block(node.body)], loc=loc),
        ]

    def _bind(self, target: ast.expr, item: ir.Expr) -> list[ir.Stmt]:
        """``a, (b, c) = item``, item by item where the item is a tuple written out (no tuple is built)."""
        if isinstance(target, ast.Tuple) and isinstance(item, ir.TupleExpr) and len(target.elts) == len(item.elts):
            return [s for t, v in zip(target.elts, item.elts) for s in self._bind(t, v)]
        return [ir.Assign(self.target(target), item, loc=self.loc(target))]

    def _walk(self, src: ast.expr, name: str, counter: ir.Name) -> tuple[ir.Expr, ir.Expr, list[ir.Stmt]]:
        """One iterable of zip/enumerate: (its length, its item at ``counter``, statements before the loop)."""
        loc = _synthetic(self.loc(src))

        def ref(suffix: str) -> ir.Name:
            return ir.Name(f"{name}_{suffix}", loc=loc)

        def k() -> ir.Name:
            return ir.Name(counter.id, loc=loc)

        if isinstance(src, ast.Call) and isinstance(src.func, ast.Name) and src.func.id in ("range", "prange"):
            if src.keywords or not 1 <= len(src.args) <= 3:
                raise CompileError(self.loc(src), "range() takes 1 to 3 positional arguments")
            args = [self.expr(a) for a in src.args]
            lo, hi, step = (
                (ir.Const(0, loc=loc), args[0], ir.Const(1, loc=loc)) if len(args) == 1
                else (args[0], args[1], args[2] if len(args) == 3 else ir.Const(1, loc=loc))
            )  # fmt: skip
            setup: list[ir.Stmt] = [
                ir.Assign(ref("lo"), lo, loc=loc), ir.Assign(ref("hi"), hi, loc=loc),
                ir.Assign(ref("step"), step, loc=loc),
            ]  # fmt: skip

            # Python's len(range(lo, hi, step)): (hi - lo + step - 1) // step counting up, mirrored counting down
            def op(a: ir.Expr, o: str, b: ir.Expr) -> ir.Expr:
                return ir.BinOp(op=o, left=a, right=b, loc=loc)

            one = ir.Const(1, loc=loc)
            up = op(op(op(ref("hi"), "-", ref("lo")), "+", op(ref("step"), "-", one)), "//", ref("step"))
            down = op(op(op(ref("lo"), "-", ref("hi")), "-", op(ref("step"), "+", one)), "//",
                      ir.UnaryOp("-", ref("step"), loc=loc))  # fmt: skip
            positive = ir.Compare(ref("step"), [">"], [ir.Const(0, loc=loc)], loc=loc)
            count = ir.IfExp(positive, up, down, loc=loc)
            length = ir.Call(ir.Name("max", loc=loc), [ir.Const(0, loc=loc), count], {}, loc=loc)
            item = op(ref("lo"), "+", op(k(), "*", ref("step")))
            return length, item, setup
        if isinstance(src, ast.Call) and isinstance(src.func, ast.Name) and src.func.id in ("zip", "enumerate"):
            setup = []
            items: list[ir.Expr] = []
            lengths: list[ir.Expr] = []
            if src.func.id == "enumerate":
                if not 1 <= len(src.args) + len(src.keywords) <= 2 or any(k.arg != "start" for k in src.keywords):
                    raise CompileError(self.loc(src), "enumerate() takes an iterable and a start: enumerate(x, start)")
                given = src.args[1] if len(src.args) == 2 else (src.keywords[0].value if src.keywords else None)
                setup.append(ir.Assign(ref("start"), self.expr(given) if given else ir.Const(0, loc=loc), loc=loc))
                items.append(ir.BinOp("+", ref("start"), k(), loc=loc))
                sources = src.args[:1]
            else:
                if src.keywords or not src.args:
                    raise CompileError(self.loc(src), "zip() takes the iterables to walk together, positionally")
                sources = src.args
            for n, inner in enumerate(sources):
                walked, item, more = self._walk(inner, f"{name}_{n}", counter)
                setup += more
                lengths.append(walked)
                items.append(item)
            shortest = lengths[0] if len(lengths) == 1 else ir.Call(ir.Name("min", loc=loc), lengths, {}, loc=loc)
            return shortest, ir.TupleExpr(items, loc=loc), setup
        if isinstance(src, (ast.Tuple, ast.Name, ast.Attribute, ast.Subscript)):
            length = ir.Call(ir.Name("len", loc=loc), [self.expr(src)], {}, loc=loc)
            return length, ir.Subscript(self.expr(src), k(), loc=loc), []
        raise CompileError(
            self.loc(src),
            "zip() and enumerate() in kernels walk range(...), tuples, constant tables and arrays",
            "loop over positions: `for i in range(len(a)):` and index",
        )

    def target(self, node: ast.expr) -> ir.Expr:
        if isinstance(node, ast.Name):
            return ir.Name(node.id, loc=self.loc(node))
        if isinstance(node, ast.Subscript):
            return self.expr(node)
        if isinstance(node, ast.Attribute):
            root: ast.expr = node
            while isinstance(root, ast.Attribute):
                root = root.value
            if not isinstance(root, (ast.Name, ast.Subscript)):
                raise CompileError(
                    self.loc(node),
                    "only fields of struct variables and of array elements can be assigned in kernel code",
                    "write `c.re = ...` for a local `c`, `p[i].vx = ...` for an element of an array of structs",
                )
            return self.expr(node)
        if isinstance(node, ast.Tuple):
            if any(isinstance(e, ast.Starred) for e in node.elts):
                raise self.unsupported(next(e for e in node.elts if isinstance(e, ast.Starred)))
            return ir.TupleExpr([self.target(e) for e in node.elts], loc=self.loc(node))
        if isinstance(node, ast.List):
            raise CompileError(self.loc(node), "unpack into a tuple, not a list", "write `a, b = ...`")
        raise self.unsupported(node)

    def binop(self, op: ast.operator, node: ast.AST) -> str:
        try:
            return _BINOPS[type(op)]
        except KeyError:
            raise CompileError(
                self.loc(node),
                "matrix multiplication (@) is not supported in kernel code",
                "write the loops over array elements",
            ) from None

    # ------------------------------------------------------------ expressions
    def expr(self, node: ast.expr) -> ir.Expr:
        loc = self.loc(node)
        if isinstance(node, ast.Constant):
            v = node.value
            if isinstance(v, (bool, int, float, complex)) or v is None:
                return ir.Const(v, loc=loc)
            kind = "strings" if isinstance(v, (str, bytes)) else f"{type(v).__name__} constants"
            raise CompileError(
                loc,
                f"{kind} are not supported in kernel code",
                "kernels compute with numbers and arrays (strings only as arguments of print())",
            )
        if isinstance(node, ast.Name):
            return ir.Name(node.id, loc=loc)
        if isinstance(node, ast.Attribute):
            return ir.Attribute(self.expr(node.value), node.attr, loc=loc)
        if isinstance(node, ast.BinOp):
            return ir.BinOp(self.binop(node.op, node), self.expr(node.left), self.expr(node.right), loc=loc)
        if isinstance(node, ast.UnaryOp):
            return ir.UnaryOp(_UNARYOPS[type(node.op)], self.expr(node.operand), loc=loc)
        if isinstance(node, ast.Compare):
            ops = []
            if len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.IsNot)):
                # `x is None`, `x is not None`: whether a helper's result that may be None is one
                sides = [node.left, node.comparators[0]]
                nones = [isinstance(s, ast.Constant) and s.value is None for s in sides]
                if any(nones) and not all(nones):
                    value = sides[1] if nones[0] else sides[0]
                    identity = "is" if isinstance(node.ops[0], ast.Is) else "is not"
                    return ir.Compare(self.expr(value), [identity], [ir.Const(None, loc=loc)], loc=loc)
            for op in node.ops:
                if type(op) not in _CMPOPS:
                    raise CompileError(
                        loc,
                        f"`{_IDENTITY_OPS[type(op)]}` comparisons (is, is not, in, not in) are not supported in "
                        "kernel code, but for `x is None` and `x is not None`",
                        "compare numbers with ==, !=, <, <=, >, >=",
                    )
                ops.append(_CMPOPS[type(op)])
            return ir.Compare(self.expr(node.left), ops, [self.expr(c) for c in node.comparators], loc=loc)
        if isinstance(node, ast.BoolOp):
            return ir.BoolOp(
                "and" if isinstance(node.op, ast.And) else "or", [self.expr(v) for v in node.values], loc=loc
            )
        if isinstance(node, ast.IfExp):
            return ir.IfExp(self.expr(node.test), self.expr(node.body), self.expr(node.orelse), loc=loc)
        if isinstance(node, ast.Call) and strings.is_print_call(node):
            return strings.print_call(node, self.expr, self.loc)
        if isinstance(node, ast.Call) and _operator_function(node) is not None:
            # `operator.mod(n, 2)` (the standard library's operator module): the operator itself
            kind, symbol = _operator_function(node)  # type: ignore[misc]
            args = [self.expr(a) for a in node.args]
            if kind == "binary":
                return ir.BinOp(symbol, args[0], args[1], loc=loc)
            if kind == "compare":
                return ir.Compare(args[0], [symbol], [args[1]], loc=loc)
            return ir.UnaryOp(symbol, args[0], loc=loc)
        if isinstance(node, ast.Call):
            for a in node.args:
                if isinstance(a, ast.Starred):
                    raise self.unsupported(a)
            kw: dict[str, ir.Expr] = {}
            for k in node.keywords:
                if k.arg is None:
                    raise CompileError(
                        self.loc(k.value),
                        "**kwargs in calls are not supported in kernel code",
                        "pass arguments one by one",
                    )
                kw[k.arg] = self.expr(k.value)
            return ir.Call(self.expr(node.func), [self.expr(a) for a in node.args], kw, loc=loc)
        if isinstance(node, ast.Subscript):
            return ir.Subscript(self.expr(node.value), self.index(node.slice), loc=loc)
        if isinstance(node, ast.Tuple):
            return ir.TupleExpr([self.expr(e) for e in node.elts], loc=loc)
        raise self.unsupported(node)

    def index(self, node: ast.expr) -> ir.Expr:
        """What goes between the brackets: an expression, a slice, or a tuple of these."""
        loc = self.loc(node)
        if isinstance(node, ast.Slice):
            parts = (node.lower, node.upper, node.step)
            return ir.Slice(*(self.expr(p) if p is not None else None for p in parts), loc=loc)
        if isinstance(node, ast.Tuple):
            return ir.TupleExpr([self.index(e) for e in node.elts], loc=loc)
        if isinstance(node, ast.Constant) and node.value is Ellipsis:
            raise CompileError(
                loc,
                "`...` (Ellipsis) in an index is not supported in kernel code",
                "write the indices out: `a[i]` or `a[i, :]` for the rest of the dimensions, `a[:, :, k]`",
            )
        return self.expr(node)


def parse_function(node: ast.FunctionDef, file: str, module: str) -> ir.Function:
    return Parser(file, module).function(node)


def _synthetic(loc: Loc) -> Loc:
    """The location of IR a statement is rewritten into (``zip``/``enumerate`` loops): errors point at the
    statement, and no conversion of the Python path is recorded at a real expression's position
    (:attr:`Loc.synthetic`)."""
    return loc.rewritten()


#: the standard library's ``operator`` functions kernels call (numba compiles them as their operators)
_OPERATORS = {
    **{f: ("binary", o) for f, o in (("add", "+"), ("sub", "-"), ("mul", "*"), ("truediv", "/"), ("floordiv", "//"),
       ("mod", "%"), ("pow", "**"), ("lshift", "<<"), ("rshift", ">>"), ("and_", "&"), ("or_", "|"),
       ("xor", "^"))},
    **{f: ("compare", o) for f, o in (("lt", "<"), ("le", "<="), ("eq", "=="), ("ne", "!="), ("ge", ">="),
       ("gt", ">"))},
    **{f: ("unary", o) for f, o in (("neg", "-"), ("pos", "+"), ("invert", "~"), ("inv", "~"), ("not_", "not"))},
}  # fmt: skip


def _operator_function(node: ast.Call) -> tuple[str, str] | None:
    """``operator.mod(a, b)`` and the like: (kind, operator symbol), or None for other calls."""
    func = node.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "operator"):
        return None
    found = _OPERATORS.get(func.attr)
    if found is None or node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
        return None
    return found if len(node.args) == (1 if found[0] == "unary" else 2) else None
