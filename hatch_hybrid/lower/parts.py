"""What :class:`~.function.FunctionLowerer` provides to the mixins it is made of (calls, memory, loops,
operators, host): the function being built, its builder, and the methods that lower expressions,
statements and locals. The mixins derive from :class:`LowererParts` to be typed against it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from llvmlite import ir as llir

from .. import ir
from ..errors import Loc
from ..types import Type
from .ops import Ops
from .values import Value

if TYPE_CHECKING:
    from ..typecheck.rules import OpTypes
    from ..typecheck.typed import Callee, TypedFunction


class LowererParts:
    tf: TypedFunction
    b: llir.IRBuilder
    fn: llir.Function
    ops: Ops
    parent: Any  # the ModuleLowerer

    def expr(self, e: ir.Expr) -> Value:
        raise NotImplementedError

    def coerce(self, e: ir.Expr, to: Type, context: str | None = None) -> llir.Value:
        raise NotImplementedError

    def convert_checked(self, v: llir.Value, src: Type, dst: Type, loc: Loc, context: str) -> llir.Value:
        raise NotImplementedError

    def condition(self, e: ir.Expr) -> llir.Value:
        raise NotImplementedError

    def store_to(self, target: ir.Expr, value: Value, t: Type) -> None:
        raise NotImplementedError

    def element_field(self, node: ir.Subscript, path: list[str]) -> tuple[llir.Value, Any]:
        raise NotImplementedError

    def store_element(self, ptr: llir.Value, value: Value, dtype: Any, loc: Loc | None = None) -> None:
        raise NotImplementedError

    def call_numpy(self, e: ir.Call, callee: Callee) -> llir.Value:
        raise NotImplementedError

    def _binop_values(
        self, op: str, left: llir.Value, left_t: Type, right_node: ir.Expr, ops: OpTypes, loc: Loc
    ) -> llir.Value:
        raise NotImplementedError

    def convert_value(self, value: Value, src: Type, dst: Type) -> Value:
        raise NotImplementedError

    def value_as(self, e: ir.Expr, to: Type) -> Value:
        raise NotImplementedError

    def wide_literal(self, e: ir.Expr, to: Type) -> llir.Value | None:
        raise NotImplementedError

    def known(self, e: ir.Expr) -> object:
        raise NotImplementedError

    def block(self, stmts: list[ir.Stmt]) -> None:
        raise NotImplementedError

    def store_local(self, name: str, value: Any) -> None:
        raise NotImplementedError

    def _alloca(self, ty: llir.Type, name: str) -> llir.AllocaInstr:
        raise NotImplementedError

    def check(
        self, ok: llir.Value, kind: str, loc: Loc, msg: str | None = None, values: tuple[llir.Value, ...] = ()
    ) -> None:
        raise NotImplementedError
