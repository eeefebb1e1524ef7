"""A function lowered for the host CPU: the shared lowering (:class:`~hatch_hybrid.lower.function.FunctionLowerer`)
with a block's threads as loops on one core.

What differs from the GPU, and where it is:

* every function takes the thread's context first (:mod:`.context`); a kernel becomes the per-thread
  function ``<symbol>__thread`` that the driver (``targets/host/driver.py``) runs, which returns where
  its thread stopped;
* a kernel whose threads meet at barriers or warp calls runs its block's threads as loops between the
  meeting points (:mod:`.fission`, planned by :mod:`.fission_plan`), or where its structure does not
  allow that, as a state machine whose threads keep their locals in a frame (:mod:`.threads`); helpers
  that meet other threads are lowered inline into it;
* sanitized code reports each access and barrier to the sanitizer (:mod:`.sanitize`).
"""

from __future__ import annotations

from typing import Any

from hybrid_runtime.abi import GRID_WAIT
from llvmlite import ir as llir

from .... import ir
from ....lower.function import FunctionLowerer, ModuleLowerer
from ....lower.ops import I32, I64, PTR, declare
from ....lower.values import ArrayValue, Value, abi_types, flatten, unflatten
from ....typecheck.rules import WARP_CALLS
from ....typecheck.typed import Callee, TypedFunction
from ....types import I64 as I64_TYPE
from ....types import NONE, Scalar, StructT, TupleT
from . import context as hx
from .aggregate import Aggregated, aggregated_atomics, combine
from .fission import FissionLowerer
from .record import host_record, sanitizing
from .sanitize import SanitizeLowerer
from .thread_range import RANGE_SUFFIX, RANGE_WORDS, ThreadRange, thread_range
from .threads import Frame, HostLowerer, Yield, hoist_warp_calls
from .tile_forward import FORWARD_SUFFIX, INNER_SUFFIX, Forwarding, Offsets, Wrap, forwarding


class HostFunctionLowerer(FissionLowerer, HostLowerer, SanitizeLowerer, FunctionLowerer):
    threads_as_loops = True

    def __init__(self, parent: ModuleLowerer, tf: TypedFunction, inline_into: FunctionLowerer | None = None) -> None:
        super().__init__(parent, tf, inline_into)
        self.inline_exit: tuple[llir.Block, list[llir.AllocaInstr]] | None = None
        record = host_record(parent.flavour)
        # the kernel's tile forwarded (tile_forward.py): its second function, without the tile and the barrier
        self.forward: Forwarding | None = record.forward if record.forwarding and inline_into is None else None
        meets = tf.uses_barrier and self.forward is None
        if inline_into is not None:
            assert isinstance(inline_into, HostFunctionLowerer)
            self.ctx, self.kernel_fn, self.yields = inline_into.ctx, inline_into.kernel_fn, inline_into.yields
            self.frame = inline_into.frame
        else:
            self.ctx = self.fn.args[0]
            self.kernel_fn = self.fn if tf.is_kernel else None
            self.yields: list[Yield] = []
            self.frame = Frame(self.entry, self.fn.args[1]) if self.kernel_fn and meets else None
        # warp calls of functions that meet other threads get statements of their own
        if self.forward is not None:
            self.body = self.forward.body
        elif tf.uses_barrier:
            self.body = hoist_warp_calls(tf)
        # kernels whose threads meet: a block's threads as loops between meeting points, where the kernel's
        # structure allows (see .fission); else the state machine of .threads
        if inline_into is None and self.kernel_fn is not None and meets:
            self.plan_block_loops()
        # kernels guarded by a test of their global position: the driver runs only the threads in range,
        # and the links of its test that the range implies are true
        if inline_into is not None:
            self.range = None
        else:
            self.range = self.forward.range if self.forward is not None else kernel_range(parent, tf)
        self.known_links = self.range.known if self.range is not None else set()
        # atomics on one global element that the entry combines (aggregate.py)
        self.aggregated = (
            aggregated_atomics(tf, sanitizing(parent)) if inline_into is None and not parent.suffix else {}
        )
        if self.aggregated:
            record.aggregated = sorted(self.aggregated.values(), key=lambda a: a.k)

    # ------------------------------------------------------------------ the function
    def lower(self) -> None:
        if self.kernel_fn is None:
            super().lower()
            return
        # the entry block keeps the locals; it dispatches to the start or a resumption
        body = self.fn.append_basic_block("start")
        self.b.position_at_end(body)
        super().lower()
        frame_bytes = self.finish_host_kernel(body)
        if self.forward is None:
            host_record(self.parent.flavour).frame_bytes = frame_bytes

    def expr(self, e: ir.Expr) -> Value:
        if self.forward is not None and e.nid in self.forward.reads:
            return self.forwarded_read(e, self.forward.reads[e.nid])
        return super().expr(e)

    def forwarded_read(self, e: ir.Expr, offsets: Offsets) -> Value:
        """A read of the forwarded tile: the source's element at this thread's global position plus the
        offsets, clamped as the copy clamped it (tile_forward.py proved it is the element the tile held)."""
        assert self.forward is not None
        source = self.load_local(self.forward.read_sources[e.nid])
        assert isinstance(source, ArrayValue)
        indices = []
        for axis, offset, clamp in offsets:
            position = hx.special_register(self.ops, self.ctx, f"global_tid_{axis}")
            index = self.b.add(position, llir.Constant(I64, offset)) if offset else position
            if clamp is not None and axis == "x" and self.parent.suffix.endswith(INNER_SUFFIX):
                self.ops.nonnegative.add(id(index))  # the range function's inner_lo_x saw to it
            elif isinstance(clamp, Wrap):  # Python's modulo (floor), the divisor nonzero (forward_ok)
                index = self.ops.binop("%", index, self.coerce(clamp.n, I64_TYPE), I64_TYPE)
            elif clamp is not None:
                lo, hi = (self.coerce(bound, I64_TYPE) for bound in (clamp.lo, clamp.hi))
                if clamp.max_first:
                    index = self.ops.minmax("min", [self.ops.minmax("max", [index, lo], I64_TYPE), hi], I64_TYPE)
                else:
                    index = self.ops.minmax("max", [self.ops.minmax("min", [index, hi], I64_TYPE), lo], I64_TYPE)
            indices.append(index)
        dtype = self.tf.types[e.nid]
        assert isinstance(dtype, Scalar)
        return self.load_element(self.address(source, indices, dtype, None), dtype, None)

    def parameter_values(self) -> list[llir.Value]:
        return list(self.fn.args)[2:] if self.frame is not None else list(self.fn.args)[1:]

    def kernel_parameter(self, k: int, value: Value) -> Value:
        if sanitizing(self.parent) and isinstance(value, ArrayValue):
            value.root = k  # the runtime's table has each parameter's region
        return value

    def lower_body(self, params: list[tuple[str, Value]]) -> None:
        if self.plan is not None and self.kernel_fn is not None:
            self.fission_kernel(params)
        elif self.range is not None and self.parent.suffix.endswith(RANGE_SUFFIX):
            self.lower_range(params, self.range)
        else:
            super().lower_body(params)

    def lower_range(self, params: list[tuple[str, Value]], rng: ThreadRange) -> None:
        """The kernel's range function: each axis's ``[lo, hi)`` of global positions into the words of
        the driver's context after its own (:data:`.thread_range.RANGE_WORDS`)."""
        for name, value in params:
            self.store_local(name, value)
        self.block(list(rng.defs))
        for name, value in self.range_values(rng).items():
            self.b.store(value, self.b.gep(self.ctx, [llir.Constant(I64, RANGE_WORDS[name])], source_etype=I64))
        self.b.ret(llir.Constant(I32, hx.DONE))

    def range_values(self, rng: ThreadRange) -> dict[str, llir.Value]:
        """``rng``'s bounds, each axis's ``lo_<axis>`` (at least 0) and ``hi_<axis>`` (0 if less)."""
        b = self.b
        sat = self.parent.module.declare_intrinsic("llvm.sadd.sat", [I64], llir.FunctionType(I64, [I64, I64]))
        zero = llir.Constant(I64, 0)
        out = {}
        for axis in "xy":
            found = rng.axes.get(axis)
            for end, bounds in (("lo", found.lower if found else []), ("hi", found.upper if found else [])):
                values: list[llir.Value] = [zero if end == "lo" else llir.Constant(I64, (1 << 63) - 1)]
                for bound in bounds:
                    v = self.coerce(bound.expr, I64_TYPE)
                    values.append(b.call(sat, [v, llir.Constant(I64, bound.add)]) if bound.add else v)
                # the largest lower bound, the smallest upper one (at least 0: the loops over threads
                # subtract a block's offset from it)
                value = self.ops.minmax("max" if end == "lo" else "min", values, I64_TYPE)
                out[f"{end}_{axis}"] = value if end == "lo" else self.ops.minmax("max", [value, zero], I64_TYPE)
        # a forwarded kernel's clamped reads clamp nothing for x in [lo - offset, hi - offset], each, and read
        # no index from the end (lo at least 0)
        lows: list[llir.Value] = [llir.Constant(I64, -(1 << 63))]
        highs: list[llir.Value] = [llir.Constant(I64, (1 << 63) - 1)]
        for lo, hi, offset, inclusive in rng.inner:  # (at least 0 - offset: no index there counts from the end)
            low = self.ops.minmax("max", [self.coerce(lo, I64_TYPE), zero], I64_TYPE) if lo is not None else zero
            lows.append(b.call(sat, [low, llir.Constant(I64, -offset)]))
            highs.append(b.call(sat, [self.coerce(hi, I64_TYPE), llir.Constant(I64, int(inclusive) - offset)]))
        inner = bool(rng.inner)
        out["inner_lo_x"] = self.ops.minmax("max", lows, I64_TYPE) if inner else zero
        out["inner_hi_x"] = self.ops.minmax("min", highs, I64_TYPE) if inner else zero
        ok: llir.Value = llir.Constant(llir.IntType(1), 1)
        for n in rng.nonzero:
            ok = b.and_(ok, b.icmp_signed("!=", self.coerce(n, I64_TYPE), zero))
        out["forward_ok"] = b.zext(ok, I64)
        return out

    def known_link(self, nid: int, k: int) -> bool | None:
        return True if (nid, k) in self.known_links else None

    def fall_off_end(self) -> None:
        if self.kernel_fn is not None:
            self.b.ret(llir.Constant(I32, hx.DONE))
        else:
            super().fall_off_end()

    # ------------------------------------------------------------------ locals
    def _alloca(self, ty: llir.Type, name: str) -> llir.AllocaInstr:
        if self.plan is not None and name == "local.array":
            return self.thread_local_array(ty)
        if self.plan is None and self.frame is not None:  # the state machine: locals in the thread's frame
            return self.frame.slot(self.b, ty, name)
        return super()._alloca(ty, name)

    def store_local(self, name: str, value: Value) -> None:
        if self.plan is not None and (name in self.plan.remat or name in self.plan.drift):
            return  # recomputed where it is read
        super().store_local(name, value)

    def load_local(self, name: str) -> Value:
        if self.plan is not None and name in self.plan.remat:
            e = self.plan.remat[name]
            return self.convert_value(self.expr(e), self.tf.types[e.nid], self.tf.locals[name])
        if self.plan is not None and name in self.plan.drift:
            return self.drifted(name)
        return super().load_local(name)

    # ------------------------------------------------------------------ returns and calls
    def return_(self, s: ir.Return) -> None:
        if self.inline_exit is not None or self.kernel_fn is self.fn is not None:
            self.host_return(s)
        else:
            super().return_(s)

    def host_return(self, s: ir.Return) -> None:
        """``return`` in a host kernel (the thread is done) or in a helper lowered inline."""
        rt = self.tf.return_type
        if self.plan is not None:
            self.fission_return(s)
            return
        if self.inline_exit is None:
            if s.value is not None:
                self.expr(s.value)
            self.b.ret(llir.Constant(I32, hx.EXITED if sanitizing(self.parent) else hx.DONE))
            return
        exit_block, slots = self.inline_exit
        if s.value is not None and rt != NONE:
            if isinstance(rt, (TupleT, StructT)):
                parts = flatten(self.convert_value(self.expr(s.value), self.tf.types[s.value.nid], rt))
            else:
                parts = [self.coerce(s.value, rt)]
            for slot, part in zip(slots, parts):
                self.b.store(part, slot)
        elif s.value is not None:
            self.expr(s.value)
        self.b.branch(exit_block)

    def call_prefix(self) -> list[llir.Value]:
        return [self.ctx]

    def call_function(self, callee: Callee, nodes: list[ir.Expr]) -> Value:
        target = callee.target
        assert target is not None
        if target.uses_barrier and self.kernel_fn is not None:
            return self.inline_call(target, nodes)
        return super().call_function(callee, nodes)

    def inline_call(self, target: TypedFunction, nodes: list[ir.Expr]) -> Value:
        """Lower a helper that meets other threads into the kernel, so its locals are saved at its
        barriers like the kernel's own."""
        values = [self.expr(node) for node in nodes]
        inner: Any = type(self)(self.parent, target, inline_into=self)
        rt = target.return_type
        slots = [self._alloca(t, "inline.result") for t in abi_types(rt)] if rt != NONE else []
        exit_block = self.fn.append_basic_block("inline.exit")
        inner.inline_exit = (exit_block, slots)
        for p, value in zip(target.fn.params, values):
            inner.store_local(p.name, value)
        inner.block(inner.body)
        if not self.b.block.is_terminated:
            self.b.branch(exit_block)
        self.b.position_at_end(exit_block)
        if target.mutates:
            self.write_back(target, nodes, {k: inner.load_local(target.fn.params[k].name) for k in target.mutates})
        if not slots:
            return None
        return unflatten(rt, [self.b.load(s, typ=s.allocated_type) for s in slots])[0]

    def call_gpu(self, e: ir.Call, callee: Callee) -> Value:
        site = self.aggregated.get(e.nid)
        if site is None:
            return super().call_gpu(e, callee)
        return self.aggregated_atomic(e, site)

    def aggregated_atomic(self, e: ir.Call, site: Aggregated) -> Value:
        """An atomic the entry combines (aggregate.py): its operand combined into the entry's value, and the
        element's address kept for the entry's one atomic. Returns nothing anyone reads (a statement's)."""
        b = self.b
        _, ptr, values = self.atomic_operands(e)
        value_slot, address_slot = hx.combined_words(b, self.ctx, site.k)
        combined = b.load(value_slot, typ=values[0].type)
        b.store(combine(b, site, combined, values[0]), b.bitcast(value_slot, combined.type.as_pointer()))
        b.store(b.ptrtoint(ptr, I64), address_slot)
        return None

    def call_gpu_host(self, e: ir.Call, callee: Callee) -> Value:
        """The ``gpu`` intrinsics as the host runs them (atomics are the same instructions)."""
        name = callee.name
        ops = self.ops
        if name == "syncthreads":
            if sanitizing(self.parent):
                self.sanitize_barrier()
            self.yield_point(hx.AT_BARRIER, e.loc)
            return None
        if name in WARP_CALLS:
            return self.warp_call(e, name, e.loc)
        if name == "lane_id":
            return hx.lane_id(ops, self.ctx)
        if name == "lanemask_lt":
            return ops.b.sub(ops.b.shl(llir.Constant(I64, 1), hx.lane_id(ops, self.ctx)), llir.Constant(I64, 1))
        if name == "threadfence":
            hx.threadfence(ops)
            return None
        if name == "grid_wait":  # the block's first thread, between two of the block's barriers
            barrier = ops.b.inttoptr(hx.ctx_load(ops, self.ctx, "grid"), PTR)
            ops.b.call(declare(ops.module, GRID_WAIT, I32, [PTR]), [barrier])
            return None
        return hx.special_register(ops, self.ctx, name)


def lower_host_kernel(lowerer: ModuleLowerer, tf: TypedFunction) -> llir.Function:
    """The kernel as the function the host driver calls for each thread, and the helpers it reaches."""
    assert issubclass(lowerer.lowerer, HostFunctionLowerer)
    kernel = lowerer.function(tf)
    lowerer.lower_pending()
    return kernel


def kernel_range(lowerer: ModuleLowerer, tf: TypedFunction) -> ThreadRange | None:
    """The range of ``tf`` (:mod:`.thread_range`) where it gets one: a kernel whose threads never meet,
    lowered without checks (checked and sanitized code keep every thread)."""
    if not tf.is_kernel or tf.uses_barrier or sanitizing(lowerer) or lowerer.debug:
        return None
    return thread_range(tf)


def lower_range_function(lowerer: ModuleLowerer, tf: TypedFunction) -> llir.Function | None:
    """The kernel's range function (:mod:`.thread_range`), if its threads outside a range of global
    positions do nothing and :func:`lower_host_kernel` lowered it knowing so."""
    if kernel_range(lowerer, tf) is None:
        return None
    return _lower_as(lowerer, tf, RANGE_SUFFIX)


def _lower_as(lowerer: ModuleLowerer, tf: TypedFunction, suffix: str) -> llir.Function:
    """``tf`` lowered once more as the function ``<symbol><suffix>`` (with what it calls)."""
    lowerer.suffix = suffix
    try:
        fn = lowerer.function(tf)
        lowerer.lower_pending()
    finally:
        lowerer.suffix = ""
    # a range function's bounds are evaluated at every launch, also where no thread of the kernel would
    # evaluate them: they must not be able to fail (thread_range's safe expressions), so it never
    # records an error
    ranged = suffix.endswith(RANGE_SUFFIX)
    assert not ranged or "cmpxchg" not in str(fn), f"the range function of {tf.symbol} has a check"
    return fn


def lower_forward_function(lowerer: ModuleLowerer, tf: TypedFunction) -> Forwarding | None:
    """The kernel's forwarded function (:mod:`.tile_forward`), if its tile is proved to only copy a global
    array: a kernel whose threads meet, lowered as loops over threads, without checks."""
    record = host_record(lowerer.flavour)
    if not tf.is_kernel or not record.fission or sanitizing(lowerer) or lowerer.debug:
        return None
    found = forwarding(tf)
    if found is None:
        return None
    record.forward, record.forwarding = found, True
    try:
        suffixes = [FORWARD_SUFFIX] + [FORWARD_SUFFIX + RANGE_SUFFIX] * bool(found.range)
        for suffix in suffixes + [FORWARD_SUFFIX + INNER_SUFFIX] * bool(found.range and found.range.inner):
            _lower_as(lowerer, tf, suffix)
    finally:
        record.forwarding = False
    return found
