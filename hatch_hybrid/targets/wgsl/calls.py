"""Calls in the WGSL renderer: helpers, builtins, the ``gpu`` intrinsics (thread indices, barriers), warp
calls as subgroup operations and atomics."""

from __future__ import annotations

import math

from ... import ir
from ...errors import Loc
from ...lower.calls import COMPLEX_ABS_OVERFLOW
from ...typecheck.arguments import bound_nodes
from ...typecheck.cuda_spelling import ACTIVE_MASK
from ...typecheck.numpy_funcs import BINARY_TRANSCENDENTAL, TRANSCENDENTAL
from ...typecheck.rules import BIT_OPS, GPU_INDEX, SHUFFLES, VOTES
from ...typecheck.typed import Callee, SymbolT
from ...types import (
    F64,
    NONE,
    WEAK_INT,
    ArrayT,
    EnumT,
    Scalar,
    StructT,
    TupleT,
    Type,
    Weak,
    component,
    is_float,
    storage,
)
from . import libm
from .expressions import wrapped
from .shader import (
    ATOMIC_ELEMENTS,
    ATOMIC_FUNCS,
    STORAGE_BARRIER_MARK,
    WGSL_SCALARS,
    ArrayRef,
    RendererParts,
    WgslUnsupported,
    magnitude_vs_inf,
)

#: ``math`` functions whose every result IEEE 754 fixes, rendered by :meth:`CallRenderer.math`
EXACT_MATH = {
    "sqrt", "fabs", "floor", "ceil", "trunc", "copysign", "isnan", "isinf", "isfinite", "degrees", "radians", "fmod",
    "remainder",
}  # fmt: skip
#: ``math`` functions :mod:`.libm` computes (asin and acos through its atan2; fma through WGSL's)
LIBM_MATH = {*libm.CALLS, "asin", "acos", "fma"}
SCALE = {"degrees": 180.0 / math.pi, "radians": math.pi / 180.0}  # CPython's constants, rounded once
#: NumPy's functions of floats the C library computes (and its own rounding and classifying ones) -> ``math``'s
NUMPY_MATH = {
    **TRANSCENDENTAL, **BINARY_TRANSCENDENTAL, "absolute": "fabs", "square": "square",
    **{n: n for n in ("fabs", "floor", "ceil", "trunc", "isnan", "isinf", "isfinite", "copysign")},
}  # fmt: skip


class CallRenderer(RendererParts):
    def call(self, e: ir.Call) -> str:
        tf = self.tf
        if e.nid in tf.prints:
            raise WgslUnsupported(e.loc, "print()")
        callee = tf.callees[e.nid]
        if callee.kind == "cast":
            return self.coerce(e.args[0], tf.types[e.nid], "cast")
        if callee.kind == "builtin":
            return self.builtin(e, callee)
        if callee.kind == "gpu":
            return self.gpu(e, callee)
        if callee.kind in ("helper", "method"):
            nodes = bound_nodes(e, tf.call_args[e.nid])
            if callee.kind == "method" and isinstance(e.func, ir.Attribute):
                nodes.insert(0, e.func.value)  # the receiver is `self`
            return self.call_function(callee, nodes, e.loc)
        if callee.kind == "struct":
            struct = tf.types[e.nid]
            assert isinstance(struct, StructT)
            given = dict(zip([n for n, _ in struct.fields], e.args)) | e.keywords
            items = [self.coerce(given[n], ft) for n, ft in struct.fields]
            return self.temp(f"{self.wt(struct, e.loc)}({', '.join(items)})")
        if callee.kind == "math":
            return self.math(e, callee)
        if callee.kind == "numpy":
            return self.numpy_call(e, callee)
        if callee.kind == "complex":  # complex(re, im), z.conjugate()
            t = tf.types[e.nid]
            if callee.name == "conjugate" and isinstance(e.func, ir.Attribute):
                return self.complex_conjugate(self.coerce(e.func.value, callee.arg_types[0]), t)
            if callee.name != "conjugate":
                part = component(t)
                re, im = (self.coerce(a, at) for a, at in zip(e.args, callee.arg_types))
                return self.complex_value(t, *(self.convert(v, at, part) for v, at in zip((re, im), callee.arg_types)))
        source = callee.arg_types[0] if callee.kind == "view" else None
        if isinstance(source, Scalar) and source.bits == 32 and isinstance(e.func, ir.Attribute):
            value = self.coerce(e.func.value, source)
            return self.temp(f"bitcast<{self.wt(tf.types[e.nid], e.loc)}>({value})")
        raise WgslUnsupported(e.loc, f"{callee.kind} calls ({callee.name})")

    def math(self, e: ir.Call, callee: Callee) -> str:
        """A ``math`` function (``lower.intrinsics.math_call``'s meaning)."""
        name = callee.name
        given = self.tf.types[e.args[0].nid] if e.args else None
        if name in ("floor", "ceil", "trunc") and isinstance(given, (Weak, EnumT)) and not is_float(given):
            return self.coerce(e.args[0], WEAK_INT, "cast")  # Python's floor of an int is that int
        if name not in LIBM_MATH and name not in EXACT_MATH:
            raise WgslUnsupported(e.loc, f"math.{name} (not yet written for this target)")
        values = [self.temp(self.coerce(a, t), self.wt(t, e.loc)) for a, t in zip(e.args, callee.arg_types)]
        return self.math_of(name, values, list(callee.arg_types), self.tf.types[e.nid], e.loc, python=True)

    def numpy_call(self, e: ir.Call, callee: Callee) -> str:
        """NumPy's functions of floats that are the C library's (``lower.numpy_calls``): computed as the
        ``math`` functions are, in the loop's type (f32 or f64), the result in the call's."""
        loop = callee.arg_types[0]
        name = NUMPY_MATH.get(callee.name)
        written = name in LIBM_MATH or name in EXACT_MATH or name == "square"
        if name is None or not written or storage(loop).name not in ("f32", "f64"):
            raise WgslUnsupported(e.loc, f"numpy calls ({callee.name} of {loop})")
        values = [self.temp(self.coerce(a, t, "arith"), self.wt(t, e.loc)) for a, t in zip(e.args, callee.arg_types)]
        if name == "square":
            wt = self.wt(loop, e.loc)
            value = self.temp(f"{self.nofma(wt == 'f64')}({values[0]} * {values[0]})", wt)
            return self.convert(value, loop, self.tf.types[e.nid])
        return self.math_of(name, values, list(callee.arg_types), self.tf.types[e.nid], e.loc, python=False)

    def math_of(self, name: str, values: list[str], arg_types: list[Type], t: Type, loc: Loc, python: bool) -> str:
        """``math.<name>`` of evaluated arguments: the functions IEEE 754 fixes here (a root rounded correctly,
        rounding to integers, signs and classes by their bits: WGSL lets drivers assume no NaN or infinity,
        so no float comparison can tell; the exact scalings), the others through :mod:`.libm`. ``python``:
        floor, ceil and trunc return Python ints (NumPy's: floats)."""
        if name in LIBM_MATH:
            return self.libm_of(name, values, arg_types, t, loc)
        arg_t = arg_types[0]
        wt = self.wt(arg_t, loc)
        if wt not in ("f32", "f64"):
            raise WgslUnsupported(loc, f"math.{name} of {arg_t}")
        x, *rest = values
        bits, sign = ("u64", 1 << 63) if wt == "f64" else ("u32", 1 << 31)
        suffix = "lu" if wt == "f64" else "u"
        magnitude = f"(bitcast<{bits}>({x}) & {sign - 1}{suffix})"
        if name in ("isnan", "isinf", "isfinite"):
            op = {"isnan": ">", "isinf": "==", "isfinite": "<"}[name]
            return self.temp(magnitude_vs_inf(x, wt, op), "bool")
        if name == "copysign":  # a NaN's sign counts as + (see lower.intrinsics.copysign)
            y = rest[0]
            y_sign = f"select(bitcast<{bits}>({y}) & {sign}{suffix}, 0{suffix}, {magnitude_vs_inf(y, wt, '>')})"
            return self.temp(f"bitcast<{wt}>({magnitude} | {y_sign})", wt)
        if name == "sqrt":
            result = f"{self.exact_op('sqrt', wt)}({x})"
        elif name in ("fmod", "remainder"):  # exact in the operands' type (in f64 too, where native code is)
            if self.wt(arg_types[1], loc) != wt:
                raise WgslUnsupported(loc, f"math.{name} of {arg_types[0]} and {arg_types[1]}")
            result = f"{self.fmod(wt, name)}({x}, {rest[0]})"
        elif name == "fabs":
            result = f"bitcast<{wt}>({magnitude})"
        elif name in SCALE:
            result = f"{self.nofma(wt == 'f64')}({x} * {self.literal(SCALE[name], arg_t, loc, plain=True)})"
        else:
            assert name in ("floor", "ceil", "trunc"), name
            result = f"{name}({x})"
        value = self.temp(result, wt)
        if name in ("floor", "ceil", "trunc") and python:  # Python returns an int
            self.convert_check(value, arg_t, WEAK_INT, loc, "cast")
            return self.convert(value, arg_t, WEAK_INT)
        return self.convert(value, arg_t, t)

    def need_libm(self, name: str) -> str:
        """A function of :mod:`.libm` (and those it calls) in the shader's prelude."""
        if name in ("hh_div_f64", "hh_sqrt_f64", "hh_ulp_f64"):
            return self.exact_op("sqrt" if name == "hh_sqrt_f64" else "div", "f64")
        if name == "hh_nofma64":
            return self.nofma(True)
        deps, text = libm.FUNCTIONS[name]
        for dep in deps:
            self.need_libm(dep)
        return str(self.m.need(name, text))

    def libm_of(self, name: str, values: list[str], arg_types: list[Type], t: Type, loc: Loc) -> str:
        """A ``math`` function IEEE 754 does not fix, computed in f64 by :mod:`.libm` (the same bits on every
        adapter), its result converted to ``t``; ``fma`` through WGSL's where the adapter's rounds once (a
        launch elsewhere says so)."""
        if name == "fma":
            wt = self.wt(arg_types[0], loc)
            if wt not in ("f32", "f64"):
                raise WgslUnsupported(loc, f"math.fma of {arg_types[0]}")
            self.m.need(f"hh_needs_fused_fma_{wt}", f"// (math.fma: the adapter's {wt} fma must round once)\n")
            return self.convert(self.temp(f"fma({', '.join(values)})", wt), arg_types[0], t)
        args = [self.temp(self.convert(v, at, F64), "f64") for v, at in zip(values, arg_types)]
        if name in ("asin", "acos"):  # through atan2: asin(x) = atan2(x, sqrt((1 - x)(1 + x)))
            x = args[0]
            root = f"{self.need_libm('hh_sqrt_f64')}((1.0lf - {x}) * (1.0lf + {x}))"
            pair = (x, root) if name == "asin" else (root, x)
            result = f"{self.need_libm('hh_atan2_f64')}({pair[0]}, {pair[1]})"
        else:
            fn, extra = libm.CALLS[name]
            result = f"{self.need_libm(fn)}({', '.join(args + ([extra] if extra else []))})"
        return self.convert(self.temp(result, "f64"), F64, t)

    def call_function(self, callee: Callee, nodes: list[ir.Expr], loc: Loc) -> str:
        target = callee.target
        assert target is not None
        refs: list[ArrayRef | None] = []
        args: list[str] = []
        for node, t in zip(nodes, target.arg_types):
            if isinstance(t, SymbolT):  # a function, type or module: the helper is specialised on it
                refs.append(None)
            elif isinstance(t, ArrayT):
                ref = self.array(node)
                refs.append(ref)
                args += [ref.offset, *ref.shape, *ref.strides]
            else:
                refs.append(None)
                args.append(self.coerce(node, t))
        name = self.m.helper(target, refs, loc)
        call = f"{name}({', '.join(args)})"
        if target.return_type == NONE:
            self.emit(f"{call};")
            return ""
        return self.temp(call)

    def builtin(self, e: ir.Call, callee: Callee) -> str:
        t = self.tf.types[e.nid]
        if callee.name == "len":
            arg_t = self.tf.tables.get(e.args[0].nid) or self.tf.types[e.args[0].nid]
            if isinstance(arg_t, ArrayT):
                return self.array(e.args[0]).shape[0]
            if isinstance(arg_t, TupleT):  # its length is its type's
                return f"{len(arg_t.items)}li"
            raise WgslUnsupported(e.loc, f"len() of {arg_t}")
        if callee.name == "abs":
            if storage(callee.arg_types[0]).kind == "c":  # hypot(re, im), as lower.complex's abs
                z = self.temp(self.coerce(e.args[0], callee.arg_types[0]))
                part = component(callee.arg_types[0])
                re, im = (self.convert(f"{z}.{p}", part, F64) for p in ("re", "im"))
                magnitude = self.temp(f"{self.need_libm('hh_hypot_f64')}({re}, {im})", "f64")
                if isinstance(callee.arg_types[0], Weak):  # CPython raises where finite parts overflow
                    infinite = magnitude_vs_inf(magnitude, "f64", "==")
                    finite = " && ".join(magnitude_vs_inf(v, "f64", "<") for v in (re, im))
                    self.check(f"!({infinite} && {finite})", "overflow", e.loc, COMPLEX_ABS_OVERFLOW)
                return self.convert(magnitude, F64, t)
            s = storage(t)
            v = self.coerce(e.args[0], t)
            if s.name == "f16":
                return self.temp(self.f2h(f"abs({self.h2f(v)})"), "f16")
            if s.kind == "f":
                return self.temp(f"abs({v})")
            if s.kind == "u":
                return v
            return self.temp(wrapped(f"select({v}, -{v}, {v} < {self.wt(t, e.loc)}(0))", s))
        if callee.name in ("min", "max"):
            if storage(t).kind == "f" or not all(isinstance(self.tf.types[a.nid], (Scalar, Weak)) for a in e.args):
                if storage(t).kind != "f":
                    raise WgslUnsupported(e.loc, f"{callee.name}() of these arguments")
            values = [self.coerce(a, t) for a in e.args]
            result = self.temp(values[0], self.wt(t, e.loc))
            op = "<" if callee.name == "min" else ">"
            half = storage(t).name == "f16"  # compared as f32
            for v in values[1:]:  # Python: keep the current value unless the next is strictly better
                a, b = (self.h2f(v), self.h2f(result)) if half else (v, result)
                result = self.temp(f"select({result}, {v}, {a} {op} {b})")
            return result
        raise WgslUnsupported(e.loc, f"{callee.name}()")

    def gpu(self, e: ir.Call, callee: Callee) -> str:
        name = callee.name
        if name in GPU_INDEX:
            what, axis = name.rsplit("_", 1)
            return self.temp(self.index_value(what, axis), "i64")
        if name in ("grid", "gridsize"):
            n = self.tf.consts[e.nid]
            what = "global_tid" if name == "grid" else "global_size"
            if n != 1:  # a tuple of the first n axes' indices
                items = [self.temp(self.index_value(what, axis), "i64") for axis in "xyz"[:n]]
                return self.temp(f"{self.wt(self.tf.types[e.nid], e.loc)}({', '.join(items)})")
            return self.temp(self.index_value(what, "x"), "i64")
        if name == "syncthreads":
            self.emit(STORAGE_BARRIER_MARK)
            self.emit("workgroupBarrier();")
            return ""
        if name == "threadfence":
            self.emit("storageBarrier();")
            return ""
        if name in ATOMIC_FUNCS or name in ("atomic_cas", "atomic_inc", "atomic_dec"):
            return self.atomic(e, name)
        if name in ("shared_array", "local_array"):
            raise WgslUnsupported(e.loc, "a shared array outside an assignment")
        if name in SHUFFLES or name in VOTES or name in ("lane_id", "lanemask_lt"):
            return self.warp(e, callee)
        if name in BIT_OPS:
            return self.bit_op(e, callee)
        if name == "grid_wait":
            raise WgslUnsupported(e.loc, "a grid-wide barrier (WebGPU has no cooperative dispatch)")
        raise WgslUnsupported(e.loc, f"gpu.{name}")

    def bit_op(self, e: ir.Call, callee: Callee) -> str:
        """``__popc``, ``__clz``, ``__ffs``, ``__brev`` of 32-bit integers through WGSL's bit built-ins."""
        t = callee.arg_types[0]
        if isinstance(t, Scalar) and t.name in ("i64", "u64"):
            return self.bit_op64(e, callee, t)
        if not isinstance(t, Scalar) or t.name not in ("i32", "u32"):
            raise WgslUnsupported(e.loc, f"gpu.{callee.name} of {t} (this target: 32- and 64-bit integers)")
        v = self.temp(self.coerce(e.args[0], t), WGSL_SCALARS[t.name])
        suffix = "i" if t.name == "i32" else "u"
        if callee.name == "popc":
            return self.temp(f"countOneBits({v})")
        if callee.name == "clz":
            return self.temp(f"countLeadingZeros({v})")
        if callee.name == "brev":
            return self.temp(f"reverseBits({v})")
        return self.temp(f"select(countTrailingZeros({v}) + 1{suffix}, 0{suffix}, {v} == 0{suffix})")  # ffs

    def bit_op64(self, e: ir.Call, callee: Callee, t: Scalar) -> str:
        """The bit functions of 64-bit integers (``__popcll``, ...) from their 32-bit halves."""
        bits = self.temp(f"bitcast<u64>({self.coerce(e.args[0], t)})", "u64")
        lo, hi = self.temp(f"u32({bits} & 4294967295lu)", "u32"), self.temp(f"u32({bits} >> 32u)", "u32")
        name, result = callee.name, self.tf.types[e.nid]
        if name == "brev":
            return self.temp(f"bitcast<{t.name}>((u64(reverseBits({lo})) << 32u) | u64(reverseBits({hi})))", t.name)
        if name == "popc":
            count = f"countOneBits({lo}) + countOneBits({hi})"
        elif name == "clz":
            count = f"select(32u + countLeadingZeros({lo}), countLeadingZeros({hi}), {hi} != 0u)"
        else:  # ffs: the lowest set bit's position from 1, 0 for none
            high = f"select(0u, 33u + countTrailingZeros({hi}), {hi} != 0u)"
            count = f"select({high}, 1u + countTrailingZeros({lo}), {lo} != 0u)"
        return self.convert(self.temp(count, "u32"), Scalar("u32"), result)

    def warp(self, e: ir.Call, callee: Callee) -> str:
        """Warp calls as subgroup operations: CUDA's 32 lanes are the adapter's subgroups, which the runtime
        checks at launch (32 lanes, numbered as the block's threads modulo 32); the source lane of a shuffle
        follows the native code's rules (targets/host/lowering/threads.py's _source_lane): outside the warp
        or the segment, a lane keeps its own value."""
        self.m.subgroups = True
        name = callee.name
        if e.mask is not None and not getattr(e, ACTIVE_MASK, False):  # (activemask: the subgroup's own)
            raise WgslUnsupported(
                e.loc, "a warp function with a partial mask (WGSL's subgroup operations take them all)"
            )
        lane = "bitcast<i64>(u64(hh_lid_index % 32u))"
        if name == "lane_id":
            return self.temp(lane, "i64")
        if name == "lanemask_lt":
            return self.temp(f"(1li << u32({lane})) - 1li", "i64")
        if name in VOTES:
            pred = self.condition(e.args[0])
            if name == "ballot":
                return self.temp(f"bitcast<i64>(u64(subgroupBallot({pred}).x))", "i64")
            vote = self.temp(f"{'subgroupAll' if name == 'all_' else 'subgroupAny'}({pred})", "bool")
            wt = self.wt(self.tf.types[e.nid], e.loc)  # numba's any_sync/all_sync give an int
            return vote if wt == "bool" else self.temp(f"select({wt}(0), {wt}(1), {vote})", wt)
        t = self.tf.types[e.nid]
        v = self.coerce(e.args[0], t)
        d = self.temp(self.coerce(e.args[1], WEAK_INT), "i64")
        width = int(self.tf.consts[e.args[2].nid]) if len(e.args) == 3 else 32
        ln = self.temp(lane, "i64")
        if width != 32:
            d = self.temp(f"({d} & 4294967295li)", "i64")
            low = self.temp(f"({ln} & {~(width - 1) & 31}li)", "i64")
            high = f"({low} | {width - 1}li)"
            j = {"shfl_up": f"{ln} - {d}", "shfl_down": f"{ln} + {d}", "shfl_xor": f"{ln} ^ {d}"}.get(
                name, f"{low} | ({d} & {width - 1}li)"
            )
            j = self.temp(j, "i64")
            ok = f"{j} >= {low}" if name == "shfl_up" else f"u64({j}) <= u64({high})"
        else:
            j = {"shfl_up": f"{ln} - {d}", "shfl_down": f"{ln} + {d}", "shfl_xor": f"({ln} ^ {d}) & 31li"}.get(
                name, f"{d} & 31li"
            )
            j = self.temp(j, "i64")
            ok = f"u64({j}) < 32lu"
        src = self.temp(f"u32(select({ln}, {j}, {ok}))", "u32")
        wt = self.wt(t, e.loc)
        if wt in ("f32", "i32", "u32"):
            return self.temp(f"subgroupShuffle({v}, {src})", wt)
        if wt == "bool":
            return self.temp(f"subgroupShuffle(select(0u, 1u, {v}), {src}) != 0u", "bool")
        if wt == "f16":  # as the f32 of the same value (exact both ways)
            return self.temp(f"f16(subgroupShuffle(f32({v}), {src}))", wt)
        bits = self.temp(f"bitcast<u64>({v})" if wt != "u64" else v, "u64")  # as two 32-bit shuffles
        lo = f"subgroupShuffle(u32({bits} & 4294967295lu), {src})"
        hi = f"subgroupShuffle(u32({bits} >> 32u), {src})"
        joined = f"((u64({hi}) << 32u) | u64({lo}))"
        return self.temp(f"bitcast<{wt}>{joined}" if wt != "u64" else joined, wt)

    def grid_call(self, e: ir.Expr) -> tuple[str, int] | None:
        """``cuda.grid(n)`` / ``cuda.gridsize(n)``: what it reads and n (None: another expression)."""
        callee = self.tf.callees.get(e.nid) if isinstance(e, ir.Call) else None
        if callee is None or callee.kind != "gpu" or callee.name not in ("grid", "gridsize"):
            return None
        return ("global_tid" if callee.name == "grid" else "global_size"), int(self.tf.consts[e.nid])

    def index_value(self, what: str, axis: str) -> str:
        size = {"x": "hh_bx", "y": "hh_by", "z": "hh_bz"}[axis]
        grid = {"x": "hh_p.hh_gx", "y": "hh_p.hh_gy", "z": "hh_p.hh_gz"}[axis]

        def i64(x: str) -> str:
            return f"bitcast<i64>(u64({x}))"

        if what == "thread_idx":
            return i64(f"hh_tid.{axis}")
        if what == "block_idx":
            return i64(f"hh_bid.{axis}")
        if what == "block_dim":
            return i64(size)
        if what == "grid_dim":
            return i64(grid)
        if what == "global_tid":
            return f"{i64(f'hh_bid.{axis}')} * {i64(size)} + {i64(f'hh_tid.{axis}')}"
        return f"{i64(grid)} * {i64(size)}"

    def atomic(self, e: ir.Call, name: str) -> str:
        ref = self.array(e.args[0])
        if not isinstance(ref.elem, Scalar) or ref.elem.name not in ATOMIC_ELEMENTS:
            raise WgslUnsupported(e.loc, f"atomics on {ref.elem} arrays")
        index = self.element_index(ref, e.args[1])
        self.m.touch(ref, read=True, write=True)
        elem = ref.elem
        where = f"&{ref.base}[{self.temp(index, 'i32')}]"
        if elem.kind == "f":
            return self.float_atomic(e, name, elem, where)
        if name == "atomic_cas":
            # CUDA's atomicCAS is strong; WGSL's exchange may fail spuriously: try again while the value seen is
            # the one expected and nothing was exchanged
            expected, value = (self.temp(self.coerce(a, elem), elem.name) for a in e.args[2:4])
            return self.strong_exchange(where, elem.name, expected, value)
        value = self.temp(self.coerce(e.args[2], elem), elem.name)
        if name in ("atomic_inc", "atomic_dec"):
            # CUDA's atomicInc (old >= v ? 0 : old + 1) and atomicDec (old == 0 || old > v ? v : old - 1), as a
            # compare-and-exchange loop; unsigned comparisons, as PTX's atom.inc/dec.u32 makes them
            unsigned = "u64" if elem.bits == 64 else "u32"
            u = f"bitcast<{unsigned}>({{}})" if elem.kind == "i" else "{}"
            old = self.var(elem.name, f"atomicLoad({where})")
            one, zero = f"{elem.name}(1)", f"{elem.name}(0)"
            if name == "atomic_inc":
                new = f"select({old} + {one}, {zero}, {u.format(old)} >= {u.format(value)})"
            else:
                wrap = f"{old} == {zero} || {u.format(old)} > {u.format(value)}"
                new = f"select({old} - {one}, {value}, {wrap})"
            self.emit("loop {")
            with self.indented():
                self.emit(f"let r = atomicCompareExchangeWeak({where}, {old}, {new});")
                self.emit("if (r.exchanged) { break; }")
                self.emit(f"{old} = r.old_value;")
            self.emit("}")
            return old
        return self.temp(f"{ATOMIC_FUNCS[name]}({where}, {value})")

    def strong_exchange(self, where: str, held: str, expected: str, value: str) -> str:
        """CUDA's atomicCAS (strong) from WGSL's weak exchange, which may fail spuriously: tried again while
        the value seen is the one expected and nothing was exchanged. Returns the value seen (``held``)."""
        old = self.var(held)
        self.emit("loop {")
        with self.indented():
            self.emit(f"let r = atomicCompareExchangeWeak({where}, {expected}, {value});")
            self.emit(f"if (r.exchanged || r.old_value != {expected}) {{ {old} = r.old_value; break; }}")
        self.emit("}")
        return old

    def float_atomic(self, e: ir.Call, name: str, elem: Scalar, where: str) -> str:
        """An atomic on f32 or f64 elements, held as their bits: a compare-and-exchange loop computing the new
        value from the one seen, as ``lower.intrinsics.atomic`` means it (add and sub rounded once; min and max
        as LLVM's minnum/maxnum, a NaN operand ignored; the ordered ones, numba's, store only where the
        ordered comparison holds; cas compares bits). Returns the old value."""
        wt, held = elem.name, ATOMIC_ELEMENTS[elem.name]
        if name == "atomic_cas":
            expected, value = (self.temp(f"bitcast<{held}>({self.coerce(a, elem)})", held) for a in e.args[2:4])
            return self.temp(f"bitcast<{wt}>({self.strong_exchange(where, held, expected, value)})", wt)
        value = self.temp(self.coerce(e.args[2], elem), wt)
        seen = self.var(held, f"atomicLoad({where})")
        self.emit("loop {")
        with self.indented():
            o = self.temp(f"bitcast<{wt}>({seen})", wt)
            o_nan = magnitude_vs_inf(o, wt, ">")
            if name in ("atomic_add", "atomic_sub"):
                new = f"({o} {'+' if name == 'atomic_add' else '-'} {value})"
            elif name == "atomic_exch":
                new = value
            elif name in ("atomic_max", "atomic_min"):
                op = ">" if name == "atomic_max" else "<"
                new = f"select(select({o}, {value}, {value} {op} {o}), {value}, {o_nan})"
            elif name in ("atomic_max_ordered", "atomic_min_ordered"):
                self.emit(f"if (!({o} {'<' if name == 'atomic_max_ordered' else '>'} {value})) {{ break; }}")
                new = value
            else:
                raise WgslUnsupported(e.loc, f"gpu.{name} of {wt}")
            self.emit(f"let r = atomicCompareExchangeWeak({where}, {seen}, bitcast<{held}>({new}));")
            self.emit("if (r.exchanged) { break; }")
            self.emit(f"{seen} = r.old_value;")
        self.emit("}")
        return self.temp(f"bitcast<{wt}>({seen})", wt)
