"""What the type checker produces and what its modules share: :class:`TypedFunction` (the result
of checking one specialisation, which lowering consumes), the resolved :class:`Callee` of a call,
compile-time values (:class:`SymbolT`, :class:`MethodSym`), :class:`StructInfo`, and
:class:`ProgramLike`, the view of the whole program that the per-function checkers use (implemented
by :class:`~.program.Program`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

from hybrid_runtime.numba_signatures import NUMBA_SCALARS

from .. import ir
from ..errors import CompileError, Loc
from ..frontend.discover import ExternalSym, FunctionSym, ModuleIndex, StructSym, Symbol
from ..types import BOOL, F16, F64, NONE, Scalar, StructT, TableT, Type, Weak, parse_type_name
from . import rules

#: Where a parameter's value comes from in a call: the k-th positional argument (int), a keyword
#: argument (its name) or the parameter's default value (a node made for the call).
ArgSource = int | str | ir.Const
BUILTINS = {"len", "abs", "min", "max", "int", "float", "bool", "complex", "range", "print"}


@dataclass(eq=False)
class TypedFunction:
    fn: ir.Function
    arg_types: tuple[Type, ...]
    symbol: str
    is_kernel: bool
    return_type: Type = NONE
    types: dict[int, Type] = field(default_factory=dict)  # expression node id -> type
    optypes: dict[int, rules.OpTypes] = field(default_factory=dict)  # operator node id -> operand types
    cmptypes: dict[tuple[int, int], rules.OpTypes] = field(default_factory=dict)  # (compare id, k-th op)
    callees: dict[int, Callee] = field(default_factory=dict)
    # helper and method calls: where each parameter's value comes from (see .arguments.bind_arguments)
    call_args: dict[int, tuple[ArgSource, ...]] = field(default_factory=dict)
    consts: dict[int, Any] = field(default_factory=dict)  # node id -> compile-time constant value
    prints: dict[int, list[Any]] = field(default_factory=dict)  # print() call id -> its template (.printing)
    tables: dict[int, TableT] = field(default_factory=dict)  # node id -> the constant table it reads
    locals: dict[str, Type] = field(default_factory=dict)
    writes: set[int] = field(default_factory=set)  # indices of array parameters written
    consulted: set[str] = field(default_factory=set)  # modules whose names checking this function read
    uses_barrier: bool = False
    grid_sync: bool = False  # it (or a helper it calls) waits at a grid-wide barrier (cuda.cg.this_grid().sync())
    # struct parameters whose fields the function assigns (itself or through calls), by index: the caller's
    # value changes, as Python's object does (their final values are returned beside the result)
    mutates: set[int] = field(default_factory=set)
    # struct locals bound once to an array element that stays the same (`p = ps[i]`): the CPU path's
    # element object writes the array when a field is assigned, so the device writes the field there too
    element_bound: dict[str, ir.Subscript] = field(default_factory=dict)
    # a struct result: the parameters whose object it may be on the CPU path (None: it may be any object)
    returns_params: set[int] | None = field(default_factory=set)
    # where a value becomes the type the compiler gave it and Python would keep it as it is (a literal
    # merged into an i32 local, ...): node id -> (its location, that type, "value" (the expression is
    # converted) or "bound" (the local, right after this binding)); see .conversions
    # ("optional": a value that may be None, converted where it is a number)
    conversions: dict[int, tuple[Loc, Scalar | Weak, str]] = field(default_factory=dict)
    # Python-int operations computed at run time that can leave 64 bits, wrapped as the devices' i64 on
    # the Python path: nid -> (where, "value" or "bound" (the local an augmented assignment binds))
    wraps: dict[int, tuple[Loc, str]] = field(default_factory=dict)
    # values of an Optional type (a helper's result that may be None) used as numbers: nid -> where; each
    # raises TypeError where it is None, on every path (:data:`NONE_USED`)
    unwraps: dict[int, Loc] = field(default_factory=dict)

    def type_of(self, node: ir.Node) -> Type | None:
        return self.types.get(node.nid)

    def dump(self) -> str:
        head = f"# {self.symbol}: ({', '.join(map(str, self.arg_types))}) -> {self.return_type}"
        local_lines = [f"#   {name}: {t}" for name, t in sorted(self.locals.items())]
        return "\n".join([head, *local_lines, ir.dump(self.fn, self.type_of)])


@dataclass(frozen=True)
class MethodSym:
    """A struct's method looked up on the class: ``Complex.from_polar``."""

    struct: StructSym
    name: str

    @property
    def qualname(self) -> str:
        return f"{self.struct.qualname}.{self.name}"


@dataclass(frozen=True)
class SymbolT(Type):
    """A compile-time entity used as a value: a module, a function, a type, an intrinsic."""

    sym: Symbol | MethodSym | str  # str: a builtin name

    def __str__(self) -> str:
        return str(getattr(self.sym, "qualname", getattr(self.sym, "name", self.sym)))


@dataclass(frozen=True)
class Callee:
    """What a call node calls, resolved: ``kind`` is helper, method (the receiver is the callee
    expression's base), struct (a constructor), cast, builtin, math or gpu."""

    kind: str
    name: str
    arg_types: tuple[Type, ...] = ()
    target: TypedFunction | None = None


def type_named(sym: Symbol | str | None) -> Type | None:
    if isinstance(sym, str):
        return rules.CAST_NAMES.get(sym)
    if isinstance(sym, ExternalSym):
        mod, _, name = sym.qualname.rpartition(".")
        if mod == "numpy":
            return BOOL if name == "bool_" else parse_type_name({"intp": "i64", "uintp": "u64"}.get(name, name))
        if mod in ("hybrid_runtime.cuda.fp16", "hybrid_runtime.cuda.libdevice"):  # (the fp16 rewrite's casts)
            return {"float16": F16, "float64": F64}.get(name) or (
                parse_type_name(name) if name in ("float32", "int32", "int64", "uint32", "uint64") else None
            )
        if mod in ("hybrid_runtime", "hybrid_runtime.types", "hybrid_runtime.cuda"):
            # the runtime's own names first (its i8 is int8), then numba's (numba.cuda's i8 is int64)
            own = parse_type_name(name) if mod != "hybrid_runtime.cuda" else None
            short = NUMBA_SCALARS.get(name)
            if own is None and short is not None:
                return BOOL if short == "boolean" else parse_type_name(short)
            return BOOL if name == "boolean" else own
    return None


@contextmanager
def rule_errors(loc: Loc, default_hint: str | None = None) -> Iterator[None]:
    """Report a typing rule that does not apply as a :class:`CompileError` at ``loc``."""
    try:
        yield
    except rules.RuleError as exc:
        raise CompileError(loc, str(exc), exc.hint or default_hint) from None


@dataclass
class StructInfo:
    """A ``@struct`` class as the compiler sees it: its type and its methods."""

    type: StructT
    methods: dict[str, tuple[ir.Function, bool]]  # name -> (function, is a staticmethod)


class ProgramLike(Protocol):
    """The whole program as a function's checker sees it (:class:`~.program.Program` is one)."""

    index: ModuleIndex

    def parsed(self, sym: FunctionSym) -> ir.Function: ...

    def struct(self, sym: StructSym, loc: Loc | None = None) -> StructInfo: ...

    def annotation(self, module: str, node: ir.Expr, typevars: dict[str, Type] | None = None) -> Type: ...

    def type_of_symbol(
        self, sym: Symbol | str | None, loc: Loc, typevars: dict[str, Type] | None = None
    ) -> Type | None: ...

    def _static(self, module: str, node: ir.Expr) -> Symbol | str | None: ...

    def specialise(
        self,
        fn: ir.Function,
        arg_types: tuple[Type, ...],
        *,
        call_loc: Loc | None = None,
        literals: tuple[tuple[str, object], ...] = (),
    ) -> TypedFunction:
        """A helper checked for these argument types (once per distinct signature)."""
