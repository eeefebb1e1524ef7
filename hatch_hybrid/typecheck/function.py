"""Stage 2: type inference. Runs to completion before any code is generated.

Each (function, argument types) pair becomes one :class:`TypedFunction`; helpers are checked once
per distinct signature they are called with (monomorphisation). Local variable types are found by
iterating to a fixed point, so loop-carried variables get the type they settle on.
"""

from __future__ import annotations

import numpy as np

from .. import ir
from ..errors import CompileError, Loc, Note
from ..frontend.constants import check_int
from ..frontend.discover import (
    FunctionSym,
)
from ..types import (
    BOOL,
    NONE,
    WEAK_BOOL,
    WEAK_COMPLEX,
    WEAK_FLOAT,
    WEAK_INT,
    ArrayT,
    OptionalT,
    Scalar,
    StructT,
    TableT,
    TupleT,
    Type,
    Weak,
    is_complex,
    is_int,
    is_numeric,
    unify_assignment,
    unify_variable,
)
from . import bindings, folding, rules
from .calls import CallChecker
from .conversions import WRAPPING_OPS
from .names import NameChecker, Unresolved, aliasable
from .tables import TableChecker, accepts_table, refuse_write, unpacked
from .typed import ProgramLike, SymbolT, TypedFunction, rule_errors
from .user_types import UserTypeChecker
from .views import ViewChecker, array_root


def _terminates(block: list[ir.Stmt]) -> bool:
    if not block:
        return False
    last = block[-1]
    if isinstance(last, ir.Return):
        return True
    if isinstance(last, ir.If):
        return _terminates(last.body) and _terminates(last.orelse)
    return False


class FunctionChecker(TableChecker, CallChecker, UserTypeChecker, ViewChecker, NameChecker):
    """Infers the types of one specialisation."""

    def __init__(
        self,
        program: ProgramLike,
        tf: TypedFunction,
        typevars: dict[str, Type],
        literals: dict[str, object] | None = None,
    ) -> None:
        self.program = program
        self.tf = tf
        self.fn = tf.fn
        self.module = tf.fn.module
        self.typevars = typevars  # TypeVar qualname -> type, for this specialisation
        self.params = {p.name: i for i, p in enumerate(self.fn.params)}
        self.assigned: dict[str, Loc] = {}
        self.final = False
        self.returns: list[tuple[Type, Loc]] = []
        self.returned: list[tuple[ir.Expr, Type]] = []  # each `return value` and its type
        self.aliases: dict[str, set[int]] = {}
        # struct locals: whose fields are written, which are bound to an existing value, copied where
        self.mutated: dict[str, Loc] = {}
        self.shared: dict[str, Loc] = {}
        self.copies: list[tuple[str, Loc]] = []
        self.mutations: dict[str, list[Loc]] = {}  # every place a struct local is changed in place
        # `s2 = bump(s1, d)` where bump returns its parameter: (s1, where, s2), s2 being s1's object on the CPU
        self.returned_objects: list[tuple[str, Loc, str]] = []
        self._defaults: dict[tuple[int, str], ir.Const] = {}
        # values that are a Python bool or a NumPy bool depending on the operand Python returns
        self.where_results: set[str] = set()  # locals assigned an np.where() result (a 0-d array on the CPU)
        self.local_consts: dict[str, object] = {}  # locals assigned once, a number known at build time
        self.literals = literals or {}  # parameters specialised to their value (the caller's build-time constant)

    # ------------------------------------------------------------------ driver
    def run(self) -> None:
        fn, tf = self.fn, self.tf
        if len(tf.arg_types) != len(fn.params):
            raise CompileError(fn.loc, f"{fn.name}() takes {len(fn.params)} arguments, got {len(tf.arg_types)}")
        self.assignment_counts = bindings.assignment_counts(fn.body)
        self.local_names = set(self.assignment_counts) | set(self.params)
        bindings.check_shadowing(fn, self.local_names)
        if not tf.is_kernel:
            self._bind_typevars()
        for p, t in zip(fn.params, tf.arg_types):
            tf.locals[p.name] = t
            self.assigned[p.name] = p.loc
            if p.name in self.literals and not self.assignment_counts.get(p.name):
                self.local_consts[p.name] = self.literals[p.name]
            if isinstance(t, ArrayT):
                self.aliases[p.name] = {self.params[p.name]}
        for _ in range(50):
            before = dict(tf.locals)
            self._round()
            if tf.locals == before:
                break
        self.final = True
        self._round()
        self._check_params()
        self._finish_returns()
        self._check_struct_sharing()

    def _round(self) -> None:
        self.tf.types.clear()
        self.tf.writes.clear()
        self.returns = []
        self.returned = []
        self.block(self.fn.body, loop_depth=0)

    def _check_params(self) -> None:
        for p, t in zip(self.fn.params, self.tf.arg_types):
            if p.annotation is None or self.tf.is_kernel:
                continue
            want = self.program.annotation(self.module, p.annotation, self.typevars)
            # the argument's own type, a Python number the annotated type absorbs, or int/float for i64/f64
            ok = (
                want == t
                or accepts_table(want, t)
                or (isinstance(t, Weak) and unify_assignment(want, t) == want)
                or (isinstance(want, Weak) and t == want.storage)
            )
            if not ok:
                raise CompileError(
                    p.loc,
                    f"parameter `{p.name}` of {self.fn.name}() is annotated {want} but this call passes {t}",
                    f"convert the argument at the call site, e.g. {want}(x)",
                )

    def _finish_returns(self) -> None:
        tf = self.tf
        values = [(t, loc) for t, loc in self.returns if t != NONE]
        if not values:
            tf.return_type = NONE
            return
        maybe_none = len(values) != len(self.returns) or not _terminates(self.fn.body)
        maybe_none = maybe_none or any(isinstance(t, OptionalT) for t, _ in values)
        values = [(t.inner if isinstance(t, OptionalT) else t, loc) for t, loc in values]
        result = values[0][0]
        for t, loc in values[1:]:
            merged = unify_assignment(result, t)
            if merged is None:
                raise CompileError(
                    loc,
                    f"{self.fn.name}() returns {t} here but {result} elsewhere",
                    "convert the return values to one type, e.g. f32(x)",
                    [Note(values[0][1], f"returns {result} here")],
                )
            result = merged
        if isinstance(result, ArrayT):
            raise CompileError(
                values[0][1],
                "returning arrays is not supported in kernel code",
                "pass the output array in as a parameter",
            )
        if maybe_none and (not is_numeric(result) or self.tf.is_kernel):
            where = next((loc for t, loc in self.returns if t == NONE), self.fn.loc)
            raise CompileError(
                where,
                f"{self.fn.name}() returns {result} on some paths and None on others",
                "return a value on every path (add a final `return ...`); a helper may return a number or None",
            )
        if self.fn.returns is not None:
            want = self.program.annotation(self.module, self.fn.returns, self.typevars)
            if unify_assignment(want, result) is None and not (isinstance(want, Weak) and result == want.storage):
                raise CompileError(
                    values[0][1],
                    f"{self.fn.name}() is annotated to return {want} but returns {result}",
                    f"convert the result, e.g. return {want}(x)",
                )
        tf.return_type = OptionalT.of(result) if maybe_none else result
        for node, t in self.returned:  # `return 0` where others return an i32: that i32 (numba's rule too)
            if t == NONE:
                continue
            if not isinstance(t, OptionalT):
                self.convert_value(node, t, result)
            elif t.inner != result and self.final and isinstance(result, Scalar):  # another helper's number or None
                self.tf.conversions[node.nid] = (node.loc, result, "optional")

    # -------------------------------------------------------------- statements
    def block(self, stmts: list[ir.Stmt], loop_depth: int) -> None:
        for s in stmts:
            try:
                self.stmt(s, loop_depth)
            except Unresolved:
                if self.final:
                    raise
                continue

    def stmt(self, s: ir.Stmt, loop_depth: int) -> None:
        if isinstance(s, ir.Assign):
            value = self.expr(s.value, optional=isinstance(s.target, ir.Name) and s.annotation is None)
            if s.annotation is not None:
                declared = self.local_annotation(s.annotation)
                numbers = is_numeric(declared) and is_numeric(value) and (is_complex(declared) or not is_complex(value))
                if unify_assignment(declared, value) is None and not numbers:
                    raise CompileError(s.value.loc, f"cannot assign {value} to a variable declared {declared}")
                if isinstance(s.target, ir.Name):  # `x: f32 = 0`: Python does not convert, the device does
                    self.convert_bound(s.target, value, declared, s.value)
                value = declared
            self.assign(s.target, value, s.value)
        elif isinstance(s, ir.AugAssign):
            if isinstance(s.target, ir.Name) and s.target.id in self.where_results:
                raise CompileError(
                    s.loc,
                    f"`{s.target.id}` holds an np.where() result, which on the Python path is a 0-d array: "
                    f"`{s.op}=` changes it in place, and every other name bound to it",
                    f"write `{s.target.id} = {s.target.id} {s.op} ...`, or convert the result: f32(np.where(...))",
                )
            current = self.expr(s.target)
            if isinstance(s.target, ir.Subscript):
                self.check_element_target(s.target, current)
            value = self.expr(s.value)
            ops = self._binop(s.op, current, value, s.value, s)
            self.assign(s.target, ops.result, s.value)
            if ops.result == WEAK_INT and s.op in WRAPPING_OPS:
                self.wrap_int(s, s.target)
        elif isinstance(s, ir.If):
            self.condition(s.test)
            self.block(s.body, loop_depth)
            self.block(s.orelse, loop_depth)
        elif isinstance(s, ir.While):
            self.condition(s.test)
            self.block(s.body, loop_depth + 1)
        elif isinstance(s, ir.ForRange):
            for a in s.args:
                t = self.expr(a)
                if not is_int(t):
                    raise CompileError(a.loc, f"range() needs integers, not {t}", "convert with int(...)")
            if len(s.args) == 3 and self.tf.consts.get(s.args[2].nid) == 0:
                raise CompileError(
                    s.args[2].loc, "range() step must not be zero", "Python raises ValueError here; use a step of 1"
                )
            self.assign(s.target, WEAK_INT, s.target)
            self.block(s.body, loop_depth + 1)
        elif isinstance(s, (ir.Break, ir.Continue)):
            if loop_depth == 0:
                raise CompileError(s.loc, f"`{type(s).__name__.lower()}` outside a loop")
        elif isinstance(s, ir.Return):
            t = self.expr(s.value, optional=True) if s.value is not None else NONE
            self.returns.append((t, s.loc))
            if s.value is not None:
                self.returned.append((s.value, t))
            if isinstance(t, StructT) and s.value is not None:
                self._note_returned_struct(s.value)
        elif isinstance(s, ir.ExprStmt):
            self.expr(s.value, optional=True)
        elif isinstance(s, ir.Assert):
            self.condition(s.test)
        elif isinstance(s, ir.Pass):
            pass
        else:  # pragma: no cover - the parser produces no other statements
            raise CompileError(s.loc, f"unsupported statement {type(s).__name__}")

    def local_annotation(self, node: ir.Expr) -> Type:
        """A local's annotation: a type, or the dtype of an array it names (``temp: out.dtype = 0``, as
        cuSignal writes it)."""
        if isinstance(node, ir.Attribute) and node.attr == "dtype" and isinstance(node.value, ir.Name):
            array = self.tf.locals.get(node.value.id)
            if isinstance(array, ArrayT) and isinstance(array.dtype, Scalar):
                return array.dtype
        return self.program.annotation(self.module, node, self.typevars)

    def condition(self, test: ir.Expr) -> None:
        _truths(test)
        t = self.expr(test)
        if not is_numeric(t):
            raise CompileError(test.loc, f"a condition must be a number or boolean, not {t}")

    def assign(self, target: ir.Expr, value: Type, value_node: ir.Expr) -> None:
        tf = self.tf
        if isinstance(target, ir.TupleExpr):
            value = unpacked(value)
            if isinstance(value, ArrayT) and value.ndim == 1 and isinstance(value.dtype, Scalar):
                # `nx, ny = shape_array`: its elements, after a check of its length (Python's ValueError)
                value = TupleT((value.dtype,) * len(target.elts))
            if not isinstance(value, TupleT) or len(value.items) != len(target.elts):
                what = f"a tuple of {len(value.items)}" if isinstance(value, TupleT) else str(value)
                raise CompileError(value_node.loc, f"cannot unpack {what} into {len(target.elts)} variables")
            nodes = value_node.elts if isinstance(value_node, ir.TupleExpr) else [value_node] * len(target.elts)
            for t_node, item, v_node in zip(target.elts, value.items, nodes):
                self.assign(t_node, item, v_node)
            return
        if isinstance(target, ir.Subscript):
            elem = self.expr(target)  # checks the index
            self.check_element_target(target, elem)
            refuse_write(target, tf.types[target.value.nid], "an assignment")
            base = array_root(target.value)
            if base is not None:
                tf.writes.update(self.aliases.get(base, set()))
            self.check_storable(value_node, value, elem, "cannot store {value} into an array of {dest}")
            return
        if isinstance(target, ir.Attribute):
            self.assign_field(target, value, value_node)
            return
        assert isinstance(target, ir.Name)
        name = target.id
        old = tf.locals.get(name)
        if isinstance(value, SymbolT) and (old is None or old == value) and aliasable(value):
            tf.locals[name] = value  # `dtype = x.dtype`: a name for the type, known at build time
            self.assigned.setdefault(name, target.loc)
            return
        if value == NONE or isinstance(value, SymbolT):
            raise CompileError(value_node.loc, f"cannot assign {value} to a variable in kernel code")
        if old is None:
            tf.locals[name] = value
            self.assigned[name] = target.loc
        else:
            merged = unify_variable(old, value)
            if merged is None and (isinstance(old, OptionalT) or isinstance(value, OptionalT)):
                # a local that may hold None: `b = f(x)` then `b = 0`
                inner = unify_variable(*(t.inner if isinstance(t, OptionalT) else t for t in (old, value)))
                merged = OptionalT.of(inner) if inner is not None and is_numeric(inner) else None
            if merged is None:
                raise CompileError(
                    target.loc,
                    f"variable `{name}` changes type from {old} to {value}",
                    f"a variable keeps one type; convert the value, e.g. {old}(...), or use a new variable",
                    [Note(self.assigned[name], f"`{name}` is first assigned a {old} here")],
                )
            tf.locals[name] = merged
            self.convert_bound(target, value, merged, value_node if tf.types.get(value_node.nid) == value else None)
        callee = tf.callees.get(value_node.nid)
        if callee is not None and callee.kind == "numpy" and callee.name == "where":
            self.where_results.add(name)
        known = tf.consts.get(value_node.nid)
        if (
            self.assignment_counts.get(name) == 1
            and isinstance(known, int | float | np.number | np.bool_)
            and tf.types.get(value_node.nid) == value  # the value itself, not a tuple it is unpacked from
            and (not isinstance(value_node, ir.Call) or getattr(tf.callees.get(value_node.nid), "kind", "") == "cast")
        ):
            self.local_consts[name] = known  # `N = 100` once: a compile-time number (a shared array's size)
        if isinstance(value, ArrayT):
            root = array_root(value_node)  # a view of an array parameter aliases it
            self.aliases.setdefault(name, set()).update(self.aliases.get(root, set()) if root else set())
        if isinstance(value, StructT) and name not in self.shared:
            fresh = self._fresh_struct(name, value_node) or self._fixed_element(name, value_node)
            if not fresh:
                self.shared[name] = value_node.loc
            if isinstance(value_node, ir.Name):
                self.copies.append((value_node.id, value_node.loc))
            for source in self._returned_locals(value_node):
                if source != name:
                    self.returned_objects.append((source, value_node.loc, name))
        tf.types[target.nid] = tf.locals[name]

    # ------------------------------------------------------------- expressions
    def expr(self, e: ir.Expr, optional: bool = False) -> Type:
        """The type of ``e``. A value that may be None (:class:`OptionalT`) is unwrapped to its number,
        checked, wherever it is used, except where ``optional`` says it is kept: bound to a local,
        returned, tested with ``is None``, or unused."""
        t = self._expr(e)
        if isinstance(t, OptionalT) and not optional:
            self.tf.unwraps[e.nid] = e.loc
            t = t.inner
        else:
            self.tf.unwraps.pop(e.nid, None)
        self.tf.types[e.nid] = t
        return t

    def _expr(self, e: ir.Expr) -> Type:
        tf = self.tf
        if isinstance(e, ir.Const):
            if isinstance(e.value, bool):
                return WEAK_BOOL
            if e.value is None:
                return NONE
            if isinstance(e.value, int):
                check_int(e.value, e.loc)
            tf.consts[e.nid] = e.value
            if isinstance(e.value, complex):
                return WEAK_COMPLEX
            return WEAK_INT if isinstance(e.value, int) else WEAK_FLOAT
        if isinstance(e, ir.Name):
            return self.name(e)
        if isinstance(e, ir.Attribute):
            return self.attribute(e)
        if isinstance(e, ir.BinOp):
            result = self._binop(e.op, self.expr(e.left), self.expr(e.right), e.right, e).result
            if result == WEAK_INT and e.op in WRAPPING_OPS:
                self.wrap_int(e)
            return result
        if isinstance(e, ir.UnaryOp):
            operand = self.expr(e.operand)
            if isinstance(operand, StructT) and e.op != "not":
                return self._struct_operator(e, e.op, operand, None)
            with rule_errors(e.loc):
                result = rules.unary(e.op, operand)
            if e.operand.nid in tf.consts and not isinstance(tf.consts[e.operand.nid], tuple):
                tf.consts[e.nid] = folding.unary(e.op, operand, tf.consts[e.operand.nid], e.loc)
            if result == WEAK_INT and e.op == "-":
                self.wrap_int(e)
            return result
        if isinstance(e, ir.Compare) and e.ops[0] in ("is", "is not"):  # `x is None` (see frontend.parse)
            tested = self.expr(e.left, optional=True)
            if not isinstance(tested, OptionalT):  # never None: known now (numba folds it too)
                tf.consts[e.nid] = e.ops[0] == "is not"
            self.expr(e.comparators[0])
            return WEAK_BOOL
        if isinstance(e, ir.Compare):
            left = self.expr(e.left)
            results = set()
            for k, (op, comp) in enumerate(zip(e.ops, e.comparators)):
                right = self.expr(comp)
                with rule_errors(e.loc):
                    tf.cmptypes[(e.nid, k)] = rules.compare(op, left, right)
                results.add(tf.cmptypes[(e.nid, k)].result)
                left = right
            if results == {WEAK_BOOL}:
                return WEAK_BOOL
            # a chain mixing Python numbers (a Python bool) and NumPy scalars: Python returns either; one type
            self.convert_value(e, WEAK_BOOL if WEAK_BOOL in results else BOOL, BOOL)
            return BOOL
        if isinstance(e, (ir.BoolOp, ir.IfExp)):
            if isinstance(e, ir.IfExp):
                self.condition(e.test)
                values, what = [e.body, e.orelse], "a conditional expression"
            else:
                values, what = e.values, f"`{e.op}`"
            types = [self.expr(values[0])]
            result = types[0]
            for v in values[1:]:
                types.append(self.expr(v))
                with rule_errors(v.loc, "convert the values to one type"):
                    result = rules.common(result, types[-1], what)
            for node, t in zip(values, types):
                self.convert_value(node, t, result)
            if isinstance(e, ir.BoolOp) and not is_numeric(result):
                raise CompileError(e.loc, f"`{e.op}` works on numbers and booleans, not {result}")
            if isinstance(result, (ArrayT, SymbolT)):
                raise CompileError(e.loc, f"a conditional expression cannot choose between {result} values")
            return result
        if isinstance(e, ir.Subscript):
            return self.subscript(e)
        if isinstance(e, ir.Slice):
            return self.slice_type(e)
        if isinstance(e, ir.TupleExpr):
            items = tuple(self.expr(x) for x in e.elts)
            for x, t in zip(e.elts, items):
                if isinstance(t, ArrayT):
                    raise CompileError(
                        x.loc, "tuples of arrays are not supported in kernel code", "use the arrays directly"
                    )
                if isinstance(t, SymbolT):
                    raise CompileError(x.loc, f"`{t}` cannot be put in a tuple")
            return TupleT(items)
        if isinstance(e, ir.Call):
            return self.call(e)
        raise CompileError(e.loc, f"unsupported expression {type(e).__name__}")  # pragma: no cover

    def _binop(self, op: str, left: Type, right: Type, right_node: ir.Expr, node: ir.Node) -> rules.OpTypes:
        if isinstance(left, StructT) or isinstance(right, StructT):
            result = self._struct_operator(node, op, left, right)
            ops = rules.OpTypes(left, right, result)
            self.tf.optypes[node.nid] = ops
            return ops
        const = self.tf.consts.get(right_node.nid)
        if op == "-" and isinstance(right_node, ir.UnaryOp):
            const = None
        folding.check_divisor(op, left, right, self.tf.consts.get(right_node.nid), node.loc)
        folding.check_power(op, left, self.tf.consts.get(right_node.nid), node.loc)
        with rule_errors(node.loc):
            ops = rules.binop(op, left, right, const)
        self.tf.optypes[node.nid] = ops
        left_node = getattr(node, "left", None)
        for t, n in ((ops.left, left_node), (ops.right, right_node)):
            if n is not None:
                self._check_int_literal(n, t)
        if isinstance(node, ir.BinOp) and left_node is not None:
            lv, rv = self.tf.consts.get(left_node.nid), self.tf.consts.get(right_node.nid)
            if lv is not None and rv is not None and not isinstance(lv, tuple) and not isinstance(rv, tuple):
                self.tf.consts[node.nid] = folding.binop(op, ops.left, ops.right, ops.result, lv, rv, node.loc)
        return ops

    def subscript(self, e: ir.Subscript) -> Type:
        base = self.expr(e.value)
        index = self.index_type(e.index)
        if isinstance(base, TupleT) and not isinstance(self.tf.consts.get(e.index.nid), int):
            base = self.as_table(e.value, e.loc) or base  # a module constant tuple indexed at run time
        if isinstance(base, TableT):
            return self.table_subscript(e, base, index)
        if isinstance(base, TupleT):
            self.check_tuple_index(e, index)
            value = self.tf.consts.get(e.index.nid)
            same = all(_uniform(t) and t == base.items[0] for t in base.items)
            if not isinstance(value, int) and same and base.items and is_int(index):
                return base.items[0]  # `out.shape[i]`: one type, any index (wrapped from the end when negative)
            if not isinstance(value, int) or not -len(base.items) <= value < len(base.items):
                raise CompileError(
                    e.index.loc,
                    f"a tuple of {len(base.items)} can only be indexed with a "
                    f"literal from {-len(base.items)} to {len(base.items) - 1}",
                    "only tuples whose items have one type (shapes, tuples of ints) and module-level constant "
                    "tuples (tables) can be indexed at run time",
                )
            table = self.tf.consts.get(e.value.nid)
            if isinstance(table, tuple):
                self.tf.consts[e.nid] = table[value]
            return base.items[value]
        if isinstance(base, SymbolT) and isinstance(base.sym, FunctionSym):
            raise CompileError(
                e.loc,
                f"`{base.sym.name}[...]` launches a kernel, which device code cannot do",
                "launch kernels from the host; to share code, call a plain helper function from both kernels",
            )
        if not isinstance(base, ArrayT):
            raise CompileError(e.value.loc, f"{base} cannot be indexed", "only arrays and shapes can be indexed")
        return self.array_subscript(e, base, index)


def _truths(e: ir.Expr) -> None:
    """A condition only tests ``a and b`` for truth, so each operand of its ``and``/``or`` (and ``not``)
    that is not itself a test becomes ``bool(operand)``: a boolean and a number may then meet, as
    ``if i < n and mask_word:`` does in Python and numba, with the same truth (outside a condition
    their values are the result, so they need one type)."""
    if isinstance(e, ir.UnaryOp) and e.op == "not":
        _truths(e.operand)
    elif isinstance(e, ir.BoolOp):
        for k, v in enumerate(e.values):
            if isinstance(v, ir.BoolOp) or (isinstance(v, ir.UnaryOp) and v.op == "not"):
                _truths(v)
            elif not isinstance(v, ir.Compare) and not _is_truth(v):
                e.values[k] = ir.Call(ir.Name("bool", loc=v.loc), [v], {}, loc=v.loc)


def _is_truth(e: ir.Expr) -> bool:
    return isinstance(e, ir.Call) and isinstance(e.func, ir.Name) and e.func.id == "bool"


def _uniform(t: Type) -> bool:
    """Whether items of type ``t`` can be picked at run time from a tuple of them: numbers, or tuples of them."""
    return isinstance(t, (Scalar, Weak)) or (isinstance(t, TupleT) and all(_uniform(i) for i in t.items))
