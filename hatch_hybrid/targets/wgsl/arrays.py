"""Arrays in the WGSL renderer: storage buffers, shared, dynamic shared and local arrays, constant tables and
views, each an :class:`~.shader.ArrayRef` (a variable and the offset, shape and strides of its elements)."""

from __future__ import annotations

import numpy as np

from ... import ir
from ...typecheck import signs
from ...typecheck.typed import Callee
from ...types import (
    NONE,
    WEAK_INT,
    ArrayT,
    Scalar,
    StructT,
    TableT,
    TupleT,
    Type,
)
from .prelude import as_i32, widen
from .shader import (
    ATOMIC_ELEMENTS,
    ELEMENTS,
    PACKED,
    WGSL_SCALARS,
    ArrayRef,
    RendererParts,
    WgslUnsupported,
    atomic_load,
    atomic_store,
)


class ArrayRenderer(RendererParts):
    def subscript(self, e: ir.Subscript) -> str:
        base_t = self.tf.tables.get(e.value.nid) or self.tf.types[e.value.nid]
        if isinstance(base_t, TupleT):
            if e.index.nid not in self.tf.consts:
                return self.tuple_item(e, base_t)
            k = int(self.tf.consts[e.index.nid])
            if isinstance(e.value, ir.Attribute) and e.value.attr == "shape":
                return self.array(e.value.value).shape[k]
            if isinstance(self.tf.types[e.nid], TupleT) and isinstance(e.index, ir.Slice):
                raise WgslUnsupported(e.loc, "slices of tuples")
            return f"{self.expr(e.value)}.i{k + len(base_t.items) if k < 0 else k}"
        if not isinstance(base_t, ArrayT):
            raise WgslUnsupported(e.loc, f"indexing {base_t}")
        if isinstance(self.tf.types[e.nid], ArrayT):
            raise WgslUnsupported(e.loc, "array views")
        ref = self.array(e.value)
        index = self.element_index(ref, e.index)
        self.m.touch(ref, read=True, write=ref.atomic)
        return self.load_element(ref, index)

    def load_element(self, ref: ArrayRef, index: str) -> str:
        """Element ``index`` (i32, in elements) of ``ref``: atomically where atomics update the array; from its
        word where elements are packed (:data:`.shader.PACKED`), as the 32-bit value that holds it."""
        if ref.atomic:
            return self.temp(atomic_load(ref, index))
        if not ref.packed:
            return self.temp(f"{ref.base}[{index}]")
        assert isinstance(ref.elem, Scalar)
        bits = PACKED[ref.elem.name]
        word, shift = self.packed_place(index, bits)
        loaded = f"atomicLoad(&{ref.base}[{word}])" if ref.packed == "atomic" else f"{ref.base}[{word}]"
        raw = f"(({loaded} >> {shift}) & {(1 << bits) - 1}u)"
        if ref.elem.kind == "b":
            return self.temp(f"({raw} != 0u)", "bool")
        if ref.elem.kind == "i":  # sign-extended from its width
            return self.temp(f"(bitcast<i32>({raw} << {32 - bits}u) >> {32 - bits}u)", "i32")
        return self.temp(raw, "u32")

    def packed_place(self, index: str, bits: int) -> tuple[str, str]:
        """(word, shift in bits) of a packed element."""
        i = self.temp(f"u32({index})", "u32")
        per = 32 // bits
        return self.temp(f"{i} / {per}u", "u32"), self.temp(f"({i} % {per}u) * {bits}u", "u32")

    def store_element(self, ref: ArrayRef, index: str, value: str) -> None:
        """Store ``value`` (of the element type, as held) into element ``index`` of ``ref``."""
        if ref.atomic:
            self.emit(atomic_store(ref, index, value))
            return
        if not ref.packed:
            self.emit(f"{ref.base}[{index}] = {value};")
            return
        assert isinstance(ref.elem, Scalar) and ref.packed == "atomic"
        bits = PACKED[ref.elem.name]
        mask = (1 << bits) - 1
        word, shift = self.packed_place(index, bits)
        held = f"select(0u, 1u, {value})" if ref.elem.kind == "b" else f"(bitcast<u32>({value}) & {mask}u)"
        self.emit(f"atomicAnd(&{ref.base}[{word}], ~({mask}u << {shift}));")
        self.emit(f"atomicOr(&{ref.base}[{word}], {held} << {shift});")

    def tuple_item(self, e: ir.Subscript, t: TupleT) -> str:
        """An item of a tuple whose items have one type, at an index known at run time: from the end when
        negative, the last item's unless an earlier one is selected (``lower.function``'s ``tuple_item``)."""
        whole = self.temp(self.expr(e.value))
        n = len(t.items)
        raw = self.temp(self.coerce(e.index, WEAK_INT), "i64")
        i = self.temp(f"select({raw}, {raw} + {n}li, {raw} < 0li)", "i64")
        item = self.var(self.wt(self.tf.types[e.nid], e.loc), f"{whole}.i{n - 1}")
        for k in range(n - 1):
            self.emit(f"if ({i} == {k}li) {{ {item} = {whole}.i{k}; }}")
        return item

    def array(self, e: ir.Expr) -> ArrayRef:
        t = self.tf.tables.get(e.nid) or self.tf.types.get(e.nid)  # (a table of a tuple is typed as one)
        if isinstance(t, TableT):
            return self.table(e, t)
        if isinstance(e, ir.Subscript) and isinstance(t, ArrayT):
            return self.view(e)
        if isinstance(e, ir.Name) and e.id in self.arrays:
            return self.arrays[e.id]
        if isinstance(e, ir.Call):
            callee = self.tf.callees.get(e.nid)
            if callee is not None and callee.kind == "gpu" and callee.name in ("shared_array", "local_array"):
                return self.static_array(e, callee)
            if callee is not None and callee.kind == "gpu" and callee.name == "dynamic_shared_array":
                return self.dynamic_shared(e, callee)
        raise WgslUnsupported(e.loc, "this kind of array expression")

    def view(self, e: ir.Subscript) -> ArrayRef:
        """``a[i]`` of an N-d array, ``a[i:j:k]``, ``a[:, j]``: the same memory, another offset, shape and strides
        (in elements, i64), as :mod:`hatch_hybrid.lower.views` makes them: an integer index moves the offset and
        drops the dimension (negative ones count from the end), a slice keeps it with the slice's length and
        the stride times the step, bounds clamped as ``slice.indices`` does."""
        base = self.array(e.value)
        nodes = self.index_items(e.index)
        n = len(nodes)  # the dimensions after the last index are kept whole
        offset, shape, strides = base.offset, base.shape[n:], base.strides[n:]
        kept: list[tuple[str, str]] = []  # (length, stride) of each sliced dimension, in order
        for axis, (item, dim, stride) in enumerate(zip(nodes, base.shape, base.strides)):
            if isinstance(item, ir.Slice):
                first, length, step = self.slice_indices(item, dim)
                kept.append((length, self.temp(f"{stride} * {step}", "i64")))
            else:  # an integer index: the dimension is dropped
                first = self.index_i64(item, dim, axis)
            offset = self.temp(f"{offset} + {first} * {stride}", "i64")
        shape = [length for length, _ in kept] + shape
        strides = [step for _, step in kept] + strides
        return ArrayRef(base.base, base.elem, offset, shape, strides, base.atomic, base.workgroup, base.packed)

    def slice_indices(self, s: ir.Slice, n: str) -> tuple[str, str, str]:
        """(start, length, step) of ``s`` over a dimension of ``n`` elements, as ``slice(...).indices(n)`` and
        ``len(range(...))`` compute them (a step of zero found at run time fails as NumPy's ValueError)."""

        def given(node: ir.Expr | None) -> str | None:
            if node is None or self.tf.types[node.nid] == NONE:
                return None
            v = self.temp(self.coerce(node, WEAK_INT), "i64")
            if self.tf.types[node.nid] == Scalar("u64"):  # 2**63 and more: past any end, not negative
                v = self.temp(f"select({v}, 9223372036854775807li, {v} < 0li)", "i64")
            return v

        step = given(s.step)
        if step is None:
            step = "1li"
        elif s.step is not None and s.step.nid not in self.tf.consts:  # known steps are checked when typed
            self.check(f"{step} != 0li", "slicestep", s.step.loc)
        back = self.temp(f"{step} < 0li", "bool")
        lower = self.temp(f"select(0li, -1li, {back})", "i64")
        upper = self.temp(f"select({n}, {n} - 1li, {back})", "i64")

        def bound(node: ir.Expr | None, default: str) -> str:
            v = given(node)
            if v is None:
                return default
            # negative bounds count from the end, then clamp to [lower, upper]
            return self.temp(f"select(min({v}, {upper}), max({v} + {n}, {lower}), {v} < 0li)", "i64")

        start = bound(s.lower, self.temp(f"select({lower}, {upper}, {back})", "i64"))
        stop = bound(s.upper, self.temp(f"select({upper}, {lower}, {back})", "i64"))
        nonempty = f"select({start} < {stop}, {stop} < {start}, {back})"
        span = f"select({stop} - {start} - 1li, {start} - {stop} - 1li, {back})"
        magnitude = f"select({step}, -{step}, {back})"
        length = self.temp(f"select(0li, {span} / {magnitude} + 1li, {nonempty})", "i64")
        return start, length, step

    def table(self, e: ir.Expr, t: TableT) -> ArrayRef:
        """A module constant read as a table: a module-scope ``const`` array of its values (one per distinct
        table), indexed as the other arrays are."""
        if isinstance(e, ir.Subscript):
            raise WgslUnsupported(e.loc, "rows of constant tables (index every dimension at once: T[i, j])")
        elem = t.dtype
        if not isinstance(elem, Scalar) or elem.name not in ELEMENTS:
            raise WgslUnsupported(e.loc, f"constant tables of {elem} (this target: f64, f32, i32, u32, i64, u64)")
        name = self.m.tables.get(t.key)
        if name is None:
            name = self.m.tables[t.key] = f"hh_tab{len(self.m.tables)}"
            values = ", ".join(self.literal(v.item(), elem, e.loc, plain=True) for v in np.asarray(t.data).ravel())
            self.m.workgroup.append(f"const {name} = array<{elem.name}, {max(1, t.data.size)}>({values});")
        strides: list[int] = []
        acc = 1
        for d in reversed(t.shape):
            strides.insert(0, acc)
            acc *= int(d)
        return ArrayRef(name, elem, "0li", [f"{d}li" for d in t.shape], [f"{s}li" for s in strides], workgroup=True)

    def dynamic_shared(self, e: ir.Call, callee: Callee) -> ArrayRef:
        """``gpu.dynamic_shared_array(dtype)``: one workgroup array whose length is a pipeline constant, the
        launch's ``shared_bytes`` in elements (every call of a kernel views the same memory, as in CUDA; WGSL
        cannot view one memory as two element types, so they must agree)."""
        elem = callee.arg_types[0]
        if not isinstance(elem, Scalar) or elem.name not in WGSL_SCALARS or elem.name == "boolean":
            raise WgslUnsupported(e.loc, f"dynamic shared arrays of {elem}")
        m = self.m
        if m.dynamic is not None and m.dynamic != elem:
            raise WgslUnsupported(e.loc, f"dynamic shared memory viewed as {m.dynamic} and as {elem}")
        if m.dynamic is None:
            m.dynamic = elem
            m.workgroup.append(
                f"override hh_dyn_n: u32 = 0u;\nvar<workgroup> hh_dyn: array<{elem.name}, max(hh_dyn_n, 1u)>;"
            )
        # (its length through the uniform zero word: naga's constant evaluator cannot narrow a 64-bit constant,
        # which the pipeline constant would make of it)
        length = widen("hh_dyn_n | hh_p.hh_zero", Scalar("u32"), Scalar("i64"))
        return ArrayRef("hh_dyn", elem, "0li", [length], ["1li"], workgroup=True)

    def static_array(self, e: ir.Call, callee: Callee) -> ArrayRef:
        t = self.tf.types[e.nid]
        assert isinstance(t, ArrayT)
        elem = t.dtype
        if isinstance(elem, StructT) or (isinstance(elem, Scalar) and elem.kind == "c"):
            wt = self.wt(elem, e.loc)  # workgroup and private memory hold any struct (bool fields too)
        elif isinstance(elem, Scalar) and elem.name in WGSL_SCALARS and elem.name != "boolean":
            wt = WGSL_SCALARS[elem.name]  # (8- and 16-bit integers: one held in each 32-bit element)
        else:
            raise WgslUnsupported(e.loc, f"shared arrays of {elem}")
        shape = self.tf.consts.get(e.nid)
        dims = list(shape) if isinstance(shape, tuple) else None
        if dims is None:
            raise WgslUnsupported(e.loc, "this array's shape")
        size = 1
        for d in dims:
            size *= int(d)
        strides: list[int] = []
        acc = 1
        for d in reversed(dims):
            strides.insert(0, acc)
            acc *= int(d)
        atomic = e.nid in self.m.atomic_shared
        if atomic and wt not in ATOMIC_ELEMENTS:
            raise WgslUnsupported(e.loc, f"atomics on {elem} arrays")
        if callee.name == "shared_array":
            name = f"hh_sh{len(self.m.workgroup)}"
            inner = f"atomic<{ATOMIC_ELEMENTS[wt]}>" if atomic else wt
            self.m.workgroup.append(f"var<workgroup> {name}: array<{inner}, {size}>;")
        else:  # the thread's own, zero-filled each time the call runs (the Python path's np.zeros); private
            # memory at module scope, so that the helpers it is passed to reach it as they reach buffers
            name = f"hh_la{len(self.m.workgroup)}"
            self.local_arrays += 1
            self.m.workgroup.append(f"var<private> {name}: array<{wt}, {size}>;")
            self.emit(f"{name} = array<{wt}, {size}>();")
        refs = [f"{d}li" for d in dims], [f"{s}li" for s in strides]
        return ArrayRef(name, elem, "0li", *refs, atomic=atomic, workgroup=True)

    def element_lvalue(self, e: ir.Subscript, read: bool) -> str:
        """The element ``e`` of an array of structs as a place to store into (``read``: and to read first), its
        index computed now, once."""
        ref = self.array(e.value)
        if not isinstance(ref.elem, StructT):
            raise WgslUnsupported(e.loc, "a field of this value")
        index = self.temp(self.element_index(ref, e.index), "i32")
        self.m.touch(ref, read=read, write=True)
        return f"{ref.base}[{index}]"

    def index_items(self, index: ir.Expr) -> list[ir.Expr | tuple[str, Type]]:
        """The indices of ``a[index]``, one per dimension: nodes, or the (value, type) items of a tuple value
        (``a[idx]`` with ``idx = (i, j)``), evaluated once."""
        if isinstance(index, ir.TupleExpr):
            return list(index.elts)
        t = self.tf.types[index.nid]
        if isinstance(t, TupleT):
            whole = self.temp(self.expr(index))
            return [(f"{whole}.i{k}", item) for k, item in enumerate(t.items)]
        return [index]

    def element_index(self, ref: ArrayRef, index: ir.Expr) -> str:
        nodes = self.index_items(index)
        if len(nodes) != len(ref.shape):
            raise WgslUnsupported(index.loc, f"{len(nodes)} indices into a {len(ref.shape)}-d array")
        # in 32 bits, as the PTX's __i32 entry computes offsets: every array has fewer than 2**31 elements (the
        # runtime checks), so every partial offset of a valid access fits, and an index that does not fit is
        # out of bounds either way: undefined, as in CUDA, unless the kernel has debug=True (checked here, as
        # the other targets check it) or the runtime keeps WebGPU's own bounds checks (HYBRID_WGPU_CHECKS=1)
        offset = as_i32(ref.offset)
        for axis, (node, dim, stride) in enumerate(zip(nodes, ref.shape, ref.strides)):
            if self.m.debug:  # checked in i64, the index's type: an index past i32 must not pass by truncation
                i = self.temp(as_i32(self.index_i64(node, dim, axis)), "i32")
            else:
                i = self.temp(as_i32(self.index_of(node)), "i32")
                if isinstance(node, tuple) or not signs.nonnegative_given(node, self.tf, self.nonnegative):
                    i = self.temp(f"select({i}, {i} + {as_i32(dim)}, {i} < 0i)", "i32")  # Python's negative indices
            offset = f"{offset} + {i} * {as_i32(stride)}"
        return offset

    def index_of(self, node: ir.Expr | tuple[str, Type]) -> str:
        """An index (a node, or an item of a tuple value) as i64."""
        if isinstance(node, tuple):
            return self.convert(*node, WEAK_INT)
        return self.coerce(node, WEAK_INT)

    def index_i64(self, node: ir.Expr | tuple[str, Type], dim: str, axis: int) -> str:
        """An integer index on axis ``axis`` of a dimension of ``dim`` elements, as i64: negative ones count
        from the end (Python's), and with debug=True it is checked against the dimension (NumPy's IndexError;
        a u64 of 2**63 or more is past the end, not negative: NumPy's OverflowError)."""
        raw = i = self.temp(self.index_of(node), "i64")
        t = node[1] if isinstance(node, tuple) else self.tf.types[node.nid]
        unsigned = self.m.debug and t == Scalar("u64")
        known = not isinstance(node, tuple) and signs.nonnegative_given(node, self.tf, self.nonnegative)
        if not unsigned and not known:
            i = self.temp(f"select({raw}, {raw} + {dim}, {raw} < 0li)", "i64")
        if self.m.debug:
            kind = f"uindex{axis}" if unsigned else f"index{axis}"
            where = self.loc if isinstance(node, tuple) else node.loc
            self.check(f"{i} >= 0li && {i} < {dim}", kind, where, values=(raw, dim))
        return i
