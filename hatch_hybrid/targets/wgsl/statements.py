"""Statements of the WGSL renderer: assignments (also of tuples and elements), ``if``, ``while``, ``for``
over a range (unrolled where the range is known and short), augmented assignment."""

from __future__ import annotations

from ... import ir
from ...errors import Loc
from ...lower.loops import RANGE_STEP_ZERO
from ...typecheck import bindings, folding
from ...typecheck.typed import SymbolT
from ...types import (
    I32,
    NONE,
    WEAK_INT,
    ArrayT,
    OptionalT,
    Scalar,
    TupleT,
    Type,
    storage,
)
from .prelude import (
    as_i32,
    widen,
)
from .shader import UNROLL_NODES, UNROLL_TRIPS, ArrayRef, RendererParts, WgslUnsupported


class StatementRenderer(RendererParts):
    def block(self, stmts: list[ir.Stmt]) -> None:
        for s in stmts:
            self.stmt(s)

    def stmt(self, s: ir.Stmt) -> None:
        self.loc = s.loc
        if isinstance(s, ir.Assign):
            self.assign(s.target, s.value)
        elif isinstance(s, ir.AugAssign):
            self.aug_assign(s)
        elif isinstance(s, ir.If):
            self.emit(f"if ({self.condition(s.test)}) {{")
            with self.indented():
                self.block(s.body)
            if s.orelse:
                self.emit("} else {")
                with self.indented():
                    self.block(s.orelse)
            self.emit("}")
        elif isinstance(s, ir.While):
            self.emit("loop {")
            with self.indented():
                self.emit(f"if (!({self.condition(s.test)})) {{ break; }}")
                self.block(s.body)
            self.emit("}")
        elif isinstance(s, ir.ForRange):
            self.for_range(s)
        elif isinstance(s, ir.Break):
            self.emit("break;")
        elif isinstance(s, ir.Continue):
            self.emit("continue;")
        elif isinstance(s, ir.Return):
            rt = self.tf.return_type
            if isinstance(rt, OptionalT) and (s.value is None or self.tf.types[s.value.nid] == NONE):
                if s.value is not None:  # `return None`, or a call that returns None
                    self.expr(s.value)
                self.emit(f"return {self.wt(rt, s.loc)}();")  # (0, false)
            elif s.value is None or self.tf.return_type == NONE:
                if s.value is not None:
                    self.expr(s.value)
                self.emit("return;")
            else:
                self.emit(f"return {self.coerce(s.value, self.tf.return_type)};")
        elif isinstance(s, ir.ExprStmt):
            self.expr(s.value)  # what has an effect (a call, a check) is emitted as it is rendered
        elif isinstance(s, ir.Assert):
            ok = self.condition(s.test)
            self.check(ok, "assert", s.loc, s.msg)
        elif isinstance(s, ir.Pass):
            pass
        else:  # pragma: no cover
            raise WgslUnsupported(s.loc, type(s).__name__)

    def for_range(self, s: ir.ForRange) -> None:
        trips = self.unrolled(s)
        if trips is not None:
            # as LLVM fully unrolls such loops for the other targets: the driver then folds each iteration's
            # indices (NVIDIA's Vulkan compiler leaves the loop as it is: the tiled matmul ran 2.3x slower)
            t = self.tf.locals[s.target.id]
            for k in trips:
                self.emit("{")
                with self.indented():
                    self.emit(f"{self.locals[s.target.id]} = {self.literal(k, t, s.loc)};")
                    self.block(s.body)
                self.emit("}")
            return
        args = [self.coerce(a, WEAK_INT) for a in s.args]
        start, stop, step = (
            ("0li", args[0], "1li") if len(args) == 1 else (*args[:2], args[2] if len(args) == 3 else "1li")
        )
        known = self.const_of(s.args[2]) if len(args) == 3 else 1
        step_value = known if isinstance(known, int) and known != 0 else None  # None: its sign known at run time
        target = self.locals[s.target.id]
        bounds = [self.const_of(a) for a in s.args]
        if step_value is not None and all(
            isinstance(b, int) and -(2**31) < b < 2**31 - abs(step_value) for b in bounds
        ):
            # known bounds within i32: a 32-bit counter (the loop variable is still the Python int it counts)
            start, stop, step = (as_i32(v) for v in (start, stop, step))
            stop_t, counter = self.temp(stop, "i32"), self.var("i32", start)
            value = widen(counter, storage(I32), storage(WEAK_INT))
        else:
            stop_t, counter = self.temp(stop, "i64"), self.var("i64", start)
            value = counter
        if step_value is not None:
            cond = f"{counter} {'<' if step_value > 0 else '>'} {stop_t}"
        else:  # count up or down; a step of 0 fails as Python's range does
            step = self.temp(step, "i64")
            if not isinstance(known, int):
                self.check(f"{step} != 0li", "value", s.loc, RANGE_STEP_ZERO)
            cond = f"({step} > 0li && {counter} < {stop_t}) || ({step} < 0li && {counter} > {stop_t})"
        # Python's range: the loop variable takes each value; the counter moves on at the loop's end
        self.emit("loop {")
        with self.indented():
            self.emit(f"if (!({cond})) {{ break; }}")
            self.emit(f"{target} = {self.convert(value, WEAK_INT, self.tf.locals[s.target.id])};")
            self.block(s.body)
            self.emit(f"continuing {{ {counter} = {counter} + {step}; }}")
        self.emit("}")

    def unrolled(self, s: ir.ForRange) -> range | None:
        """The values of a loop to render unrolled: bounds known at build time, at most
        :data:`UNROLL_TRIPS` iterations of a small body that neither leaves the loop early nor returns."""
        bounds = [self.const_of(a) for a in s.args]
        if not all(isinstance(b, int) and not isinstance(b, bool) for b in bounds) or bounds[2:3] == [0]:
            return None
        trips = range(*[int(b) for b in bounds])  # type: ignore[arg-type]
        nodes = [n for stmt in s.body for n in ir.walk(stmt)]
        if not 0 < len(trips) <= UNROLL_TRIPS or len(trips) * len(nodes) > UNROLL_NODES:
            return None
        if any(isinstance(n, ir.Return) for n in nodes) or _leaves(s.body):
            return None
        return trips

    def bound_view(self, name: str, ref: ArrayRef, loc: Loc) -> ArrayRef:
        """An array bound to a local inside a branch or loop, or more than once (``v = a[i:]`` in one branch,
        ``v = a[j:]`` in the other): its layout kept in variables of the function (declared at its top by
        :meth:`.render.FunctionRenderer.view_declarations`), which outlive the block its temporaries are in.
        Every binding must be of the same array: one buffer per name."""
        if self.depth == 1 and bindings.assignment_counts(self.tf.fn.body).get(name) == 1:
            return ref
        before = self.arrays.get(name)
        layout = (ref.base, ref.elem, ref.atomic, ref.workgroup, ref.packed, len(ref.shape))
        if before is not None and (before.base, before.elem, before.atomic, before.workgroup, before.packed,
                                   len(before.shape)) != layout:  # fmt: skip
            raise WgslUnsupported(loc, f"`{name}` bound to views of different arrays")
        slots = self.view_slots.get(name)
        if slots is None:
            k = len(self.view_slots)
            slots = [f"hv{k}_off", *(f"hv{k}_n{d}" for d in range(len(ref.shape)))]
            slots += [f"hv{k}_s{d}" for d in range(len(ref.strides))]
            self.view_slots[name] = slots
        for slot, value in zip(slots, [ref.offset, *ref.shape, *ref.strides]):
            self.emit(f"{slot} = {value};")
        d = len(ref.shape)
        return ArrayRef(ref.base, ref.elem, slots[0], slots[1 : d + 1], slots[d + 1 :], ref.atomic, ref.workgroup,
                        ref.packed)  # fmt: skip

    def assign(self, target: ir.Expr, value: ir.Expr) -> None:
        tf = self.tf
        if isinstance(target, ir.Name):
            t = tf.locals.get(target.id)
            if isinstance(t, ArrayT):
                self.arrays[target.id] = self.bound_view(target.id, self.array(value), target.loc)
                return
            if isinstance(t, SymbolT):  # a name for a type or module (`dtype = x.dtype`): known at build time
                return
            assert t is not None
            known = tf.consts.get(value.nid)
            if t == WEAK_INT and folding.beyond_i64(known):  # as the LLVM lowering's AssignLowerer._wide_local
                if bindings.assignment_counts(tf.fn.body).get(target.id) != 1:
                    folding.wide_int_as(known, WEAK_INT, value.loc)  # raises
                self.emit(f"{self.locals[target.id]} = {self.literal(known - (1 << 64), t, value.loc)};")
                return
            self.emit(f"{self.locals[target.id]} = {self.coerce(value, t, 'store')};")
            return
        if isinstance(target, ir.Subscript):
            base_t = tf.types[target.value.nid]
            if not isinstance(base_t, ArrayT) or isinstance(tf.types[target.nid], ArrayT):
                raise WgslUnsupported(target.loc, "assignment to this kind of element")
            ref = self.array(target.value)
            index = self.element_index(ref, target.index)
            v = self.coerce(value, base_t.dtype, "store")
            self.m.touch(ref, read=ref.atomic, write=True)
            self.store_element(ref, index, v)
            return
        grid = self.grid_call(value) if isinstance(target, ir.TupleExpr) else None
        if isinstance(target, ir.TupleExpr) and grid is not None:
            # `i, j = cuda.grid(2)`: each index, in order
            what, n = grid
            items = [self.temp(self.index_value(what, axis), "i64") for axis in "xyz"[:n]]
            self.unpack(target.elts, items, [WEAK_INT] * n)
            return
        if isinstance(target, ir.TupleExpr):
            vt = tf.types[value.nid]
            if not isinstance(vt, TupleT):
                raise WgslUnsupported(target.loc, f"unpacking a {vt}")
            if not isinstance(value, ir.TupleExpr):  # a tuple value: evaluated once, its items assigned in order
                whole = self.temp(self.expr(value))
                self.unpack(target.elts, [f"{whole}.i{k}" for k in range(len(vt.items))], list(vt.items))
                return
            # Python evaluates every value first, then assigns left to right
            temps, types = [], []
            for elt, item in zip(value.elts, target.elts):
                tt = tf.types.get(item.nid) or tf.types[elt.nid]
                if isinstance(item, ir.Name):
                    tt = tf.locals[item.id]
                temps.append(self.temp(self.coerce(elt, tt, "store")))
                types.append(tt)
            self.unpack(target.elts, temps, types)
            return
        if isinstance(target, ir.Attribute):
            value_s = self.temp(self.coerce(value, tf.types[target.nid], "store"))
            for place in self.field_places(target, read=False):
                self.emit(f"{place} = {value_s};")
            return
        raise WgslUnsupported(target.loc, "assignment to this target")

    def field_places(self, target: ir.Attribute, read: bool) -> list[str]:
        """Where a store to the field ``target`` goes: the field of a struct variable (and of the array element
        the variable is bound to, ``p = ps[i]``, which the CPU path's element object writes too), or the field
        of an array element (``ps[i].pos.x``: only that field's bytes), each index computed once. ``read``: the
        first place is also read (``+=``)."""
        base, path = ir.field_path(target)
        fields = "".join(".f_" + f for f in path)
        if isinstance(base, ir.Name) and base.id in self.locals:
            places = [self.locals[base.id] + fields]
            element = self.tf.element_bound.get(base.id)
            if element is not None:
                places.append(self.element_lvalue(element, read=False) + fields)
            return places
        if isinstance(base, ir.Subscript) and isinstance(self.tf.types[base.value.nid], ArrayT):
            return [self.element_lvalue(base, read=read) + fields]
        raise WgslUnsupported(target.loc, "assignment to a field of this value")

    def unpack(self, targets: list[ir.Expr], values: list[str], types: list[Type]) -> None:
        """Values already evaluated (of ``types``) assigned to the names of a tuple target, left to right."""
        for item, v, t in zip(targets, values, types):
            if isinstance(item, ir.Subscript) and isinstance(self.tf.types[item.value.nid], ArrayT):
                # an element (`a[i], a[j] = a[j], a[i]`): its index computed now, as Python does
                base_t = self.tf.types[item.value.nid]
                assert isinstance(base_t, ArrayT)
                ref = self.array(item.value)
                index = self.element_index(ref, item.index)
                self.m.touch(ref, read=ref.atomic, write=True)
                self.store_element(ref, index, self.convert(v, t, base_t.dtype))
                continue
            if isinstance(item, ir.TupleExpr) and isinstance(t, TupleT):  # nested: `(a, b), c = ...`
                self.unpack(item.elts, [f"{v}.i{k}" for k in range(len(t.items))], list(t.items))
                continue
            if not isinstance(item, ir.Name):
                raise WgslUnsupported(item.loc, "unpacking into this kind of target")
            self.emit(f"{self.locals[item.id]} = {self.convert(v, t, self.tf.locals[item.id])};")

    # ----------------------------------------------------------- checks

    def aug_assign(self, s: ir.AugAssign) -> None:
        """``x op= v``: the target read once (an element's index computed once, as Python indexes once)."""
        tf = self.tf
        ops = tf.optypes[s.nid]
        callee = tf.callees.get(s.nid)
        if callee is not None:
            raise WgslUnsupported(s.loc, "augmented assignment of structs")
        if isinstance(s.target, ir.Subscript):
            arr_t = tf.types[s.target.value.nid]
            assert isinstance(arr_t, ArrayT) and isinstance(arr_t.dtype, Scalar)
            ref = self.array(s.target.value)
            index = self.temp(self.element_index(ref, s.target.index))
            self.m.touch(ref, read=True, write=True)
            current = self.load_element(ref, index)  # (not atomic as a whole, as on CUDA: `a[i] += v`)
            result = self.binop_values(
                s.op, self.convert(current, arr_t.dtype, ops.left), ops.left, s.value, ops, s.loc
            )
            self.convert_check(result, ops.result, arr_t.dtype, s.loc, "store")
            self.store_element(ref, index, self.convert(result, ops.result, arr_t.dtype))
            return
        if isinstance(s.target, ir.Name):
            t = tf.locals[s.target.id]
            current = self.convert(self.locals[s.target.id], t, ops.left)
            result = self.binop_values(s.op, current, ops.left, s.value, ops, s.loc)
            self.convert_check(result, ops.result, t, s.loc, "store")
            self.emit(f"{self.locals[s.target.id]} = {self.convert(result, ops.result, t)};")
            return
        if isinstance(s.target, ir.Attribute):  # `p.x += v`, `ps[i].x += v`: the element's index computed once
            t = tf.types[s.target.nid]
            places = self.field_places(s.target, read=True)
            current = self.temp(places[0])  # (a bound variable's own copy, as the native code reads it)
            result = self.binop_values(s.op, self.convert(current, t, ops.left), ops.left, s.value, ops, s.loc)
            stored = self.temp(self.convert(result, ops.result, t))
            for place in places:
                self.emit(f"{place} = {stored};")
            return
        raise WgslUnsupported(s.loc, "augmented assignment of this target")


def _leaves(body: list[ir.Stmt]) -> bool:
    """Whether ``body`` breaks out of or continues its loop (not a loop nested in it)."""
    for stmt in body:
        if isinstance(stmt, (ir.Break, ir.Continue)):
            return True
        if isinstance(stmt, ir.If) and (_leaves(stmt.body) or _leaves(stmt.orelse)):
            return True
    return False
