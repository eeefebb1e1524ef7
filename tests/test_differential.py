"""Differential testing: random well-typed expressions, compiled (lowered IR, JIT-compiled for the
host exactly as the semantics tier does) versus the same Python run on NumPy scalars (the CPU path).
Results must agree bit for bit (NaN equals NaN whatever its payload)."""

from __future__ import annotations

import collections
import itertools
import re
import warnings

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
import hybrid_runtime as hr  # noqa: E402
from conftest import KERNEL_PRELUDE as HEADER  # noqa: E402
from conftest import fuzz_edges_script, same_bits  # noqa: E402
from hypothesis import HealthCheck, assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from test_semantics import host_compile  # noqa: E402

from hatch_hybrid.errors import CompileError  # noqa: E402
from hatch_hybrid.types import Scalar  # noqa: E402

DTYPES = ["i8", "i16", "i32", "i64", "u8", "u32", "u64", "f32", "f64"]
ARITH = ["+", "-", "*", "//", "%", "/"]
BITWISE = ["&", "|", "^", "<<", ">>"]
CMP = ["<", "<=", ">", ">=", "==", "!="]


#: Build-time errors of the one-meaning rule: values known when compiling that Python would reject.
ONE_MEANING = ("division by zero", "negative power", "does not fit in 64 bits", "step must not be zero")


_packages = itertools.count()


def _compile_both(tmp, src: str, types: dict):  # type: ignore[no-untyped-def]
    """``f`` of ``src`` compiled natively, and as the Python path runs it: its source with the compiler's
    conversions (``min(n_i32, 0.5)`` an f64 on every path), made by the runtime from the record the wheel
    would hold."""
    import importlib
    import sys

    from hybrid_runtime.python_typed import typed_kernel

    from hatch_hybrid.targets.python.target import PythonTarget, _converting

    package = f"diffpkg{next(_packages)}"
    cfunc, ret = host_compile(tmp, src, "f", tuple(Scalar(types[n]) for n in "abc"), package=package)
    sys.path.insert(0, str(tmp))
    try:
        module = importlib.import_module(cfunc.module)
    finally:
        sys.path.remove(str(tmp))
    order = _converting(cfunc.tf)
    number = {id(tf): k for k, tf in enumerate(order)}
    record = {"functions": [PythonTarget._function(tf, number) for tf in order]}
    python = typed_kernel(module.f, record) if cfunc.tf in order else module.f
    assert python is not None
    return cfunc, ret, python


def _is_int(dtype: str) -> bool:
    return dtype[0] in "iu"


@st.composite
def expressions(draw, kinds: dict[str, bool], depth: int = 0):
    """(source, is_int) of an expression over the variables a, b, c (is_int: every leaf an integer)."""
    if depth >= 3 or draw(st.integers(0, 3)) == 0:
        if draw(st.booleans()):
            name = draw(st.sampled_from(sorted(kinds)))
            return name, kinds[name]
        if draw(st.booleans()):
            return str(draw(st.integers(-5, 9))), True
        return repr(draw(st.sampled_from([0.5, -1.25, 3.0, 1e-3, 2.0]))), False
    shape = draw(st.integers(0, 5))
    left, left_int = draw(expressions(kinds, depth + 1))
    right, right_int = draw(expressions(kinds, depth + 1))
    if shape == 0 and left_int and right_int:
        op = draw(st.sampled_from(BITWISE))
        if op in ("<<", ">>"):
            right = f"({right}) & 7"
        return f"({left}) {op} ({right})", True
    # Python's conditional expressions and min/max return an operand unconverted: the kernel language
    # requires one type there, so both sides are converted (i64 for integers, else f64)
    if shape == 1:
        cmp = draw(st.sampled_from(CMP))
        other, other_int = draw(expressions(kinds, depth + 1))
        cast = "i64" if left_int and other_int else "f64"
        return f"({cast}({left}) if ({left}) {cmp} ({right}) else {cast}({other}))", cast == "i64"
    if shape == 2:
        fn = draw(st.sampled_from(["min", "max"]))
        cast = "i64" if left_int and right_int else "f64"
        return f"{fn}({cast}({left}), {cast}({right}))", cast == "i64"
    if shape == 3:
        return f"abs({left})", left_int
    op = draw(st.sampled_from(ARITH))
    return f"({left}) {op} ({right})", left_int and right_int and op != "/"


@st.composite
def programs(draw, kinds: dict[str, bool]):
    """Source of ``g(x, y)`` and ``f(a, b, c)``: f's body assigns locals (plain, in if/else branches, in a
    bounded loop with an early ``break``), calls the helper g, and returns an expression of its locals."""
    kinds = dict(kinds)
    lines: list[str] = []
    helper = "def g(x, y):\n    return x\n"
    for k in range(draw(st.integers(1, 3))):
        name = f"v{k}"
        shape = draw(st.integers(0, 3))
        if shape == 0:
            expr, is_int = draw(expressions(kinds))
            lines.append(f"{name} = {expr}")
        elif shape == 1:  # if/else: both branches give one type (the kernel language's rule)
            test, _ = draw(expressions(kinds))
            cmp = draw(st.sampled_from(CMP))
            other, _ = draw(expressions(kinds))
            yes, yes_int = draw(expressions(kinds))
            no, no_int = draw(expressions(kinds))
            is_int = yes_int and no_int
            cast = "i64" if is_int else "f64"
            lines += [
                f"if ({test}) {cmp} ({other}):",
                f"    {name} = {cast}({yes})",
                "else:",
                f"    {name} = {cast}({no})",
            ]
        elif shape == 2:  # a bounded loop with an early exit
            start, is_int = draw(expressions(kinds))
            cast = "i64" if is_int else "f64"
            inner = dict(kinds, i=True)
            step, step_int = draw(expressions(inner))
            if cast == "i64" and not step_int:
                cast, is_int = "f64", False
            stop, _ = draw(expressions(inner))
            lines += [
                f"{name} = {cast}({start})",
                f"for i in range({draw(st.integers(0, 4))}):",
                f"    if ({stop}) > ({name}):",
                "        break",
                f"    {name} = {cast}(({name}) + ({step}))",
            ]
        else:  # the helper, specialised to this call's argument types
            x, x_int = draw(expressions(kinds))
            y, y_int = draw(expressions(kinds))
            body, is_int = draw(expressions({"x": x_int, "y": y_int}))
            helper = f"def g(x, y):\n    return {body}\n"
            lines.append(f"{name} = g({x}, {y})")
        kinds[name] = is_int
    result, _ = draw(expressions(kinds))
    body = "".join(f"    {line}\n" for line in lines)
    return f"{helper}\ndef f(a, b, c):\n{body}    return {result}\n"


def _value(draw, dtype: str):
    dt = Scalar(dtype).dtype
    if _is_int(dtype):
        info = np.iinfo(dt)
        edges = st.sampled_from([0, 1, -1 if info.min else 2, int(info.min), int(info.max)])  # zero divisors too
        return dt.type(draw(st.one_of(edges, st.integers(int(info.min), int(info.max)))))
    value = draw(
        st.one_of(
            st.floats(-1e6, 1e6, width=dt.itemsize * 8), st.sampled_from([0.0, -0.0, 1.0, np.inf, -np.inf, np.nan])
        )
    )
    return dt.type(value)


def _same(a, b, dtype) -> bool:
    if dtype.kind == "f":
        a, b = np.array(a, dtype=dtype), np.array(b, dtype=dtype)
        return bool((np.isnan(a) and np.isnan(b)) or a.view(f"u{dtype.itemsize}") == b.view(f"u{dtype.itemsize}"))
    return int(np.array(a).astype(dtype)) == int(np.array(b).astype(dtype))


COUNT = {"programs": 0, "checked": 0, "bodies": 0, "body_checks": 0, "rejected at build time": 0}


@settings(
    max_examples=int(__import__("os").environ.get("HYBRID_DIFF_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_random_expressions_compile_to_numpy_semantics(data, tmp_path_factory):
    types = {name: data.draw(st.sampled_from(DTYPES)) for name in "abc"}
    source, _ = data.draw(expressions({name: _is_int(t) for name, t in types.items()}))
    src = f"def f(a, b, c):\n    return {source}\n"
    tmp = tmp_path_factory.mktemp("diff")
    try:
        cfunc, ret, python = _compile_both(tmp, src, types)
    except CompileError as exc:
        if " if " in source:
            return  # the one-type rule; or the rejected part sits in a branch Python never evaluates
        if any(m in str(exc) for m in ONE_MEANING):
            COUNT["rejected at build time"] += 1
            return  # a zero divisor, negative integer power or >64-bit value known at build time
        # rejected at build time: NumPy must reject it too (a type error or an out-of-range literal)
        args = [_value(data.draw, types[n]) for n in "abc"]
        ns: dict = {}
        exec("from hybrid_runtime import *\n" + src, ns)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            with pytest.raises((TypeError, OverflowError, np.exceptions.DTypePromotionError)):
                ns["f"](*args)
        return
    COUNT["programs"] += 1
    rdtype = (ret if isinstance(ret, Scalar) else ret.storage).dtype
    for _ in range(4):
        args = [_value(data.draw, types[n]) for n in "abc"]
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            try:
                expected = python(*args)
            except (ZeroDivisionError, OverflowError):
                continue  # Python-int arithmetic on literals only; not a kernel-language difference
        assume(not isinstance(expected, int) or -(2**63) <= expected < 2**64)
        got = cfunc(*[a.item() for a in args])
        assert _same(got, expected, rdtype), f"{source} with {types} {args}: compiled {got!r}, numpy {expected!r}"
        COUNT["checked"] += 1


@settings(
    max_examples=int(__import__("os").environ.get("HYBRID_DIFF_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_random_kernel_bodies_compile_to_numpy_semantics(data, tmp_path_factory):
    """Whole bodies: locals, if/else, loops with break, a monomorphised helper."""
    types = {name: data.draw(st.sampled_from(DTYPES)) for name in "abc"}
    src = data.draw(programs({name: _is_int(t) for name, t in types.items()}))
    tmp = tmp_path_factory.mktemp("diffbody")
    try:
        cfunc, ret, python = _compile_both(tmp, src, types)
    except CompileError:
        return  # the body's one-type rules, or what NumPy rejects too (the expression test checks which)
    ns = {"f": python}
    rdtype = (ret if isinstance(ret, Scalar) else ret.storage).dtype
    COUNT["bodies"] += 1
    for _ in range(4):
        args = [_value(data.draw, types[n]) for n in "abc"]
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            try:
                expected = ns["f"](*args)
            except (ZeroDivisionError, OverflowError, TypeError, np.exceptions.DTypePromotionError):
                continue  # Python-int arithmetic on literals, or NumPy rejecting a mix the branch never ran
        assume(not isinstance(expected, int) or -(2**63) <= expected < 2**64)
        if _float_to_int_out_of_range(ns, args):
            continue  # NumPy's conversion of out-of-range floats to ints is platform-defined
        got = cfunc(*[a.item() for a in args])
        assert _same(got, expected, rdtype), f"{src} with {types} {args}: compiled {got!r}, numpy {expected!r}"
        COUNT["body_checks"] += 1


def _float_to_int_out_of_range(ns: dict, args: list) -> bool:
    """Did running f convert a NaN/inf/out-of-range float to an integer (NumPy warns: invalid value)?"""
    with warnings.catch_warnings(record=True) as caught, np.errstate(all="ignore", invalid="warn"):
        warnings.simplefilter("always")
        try:
            ns["f"](*args)
        except Exception:
            return True
    return any("invalid value encountered in cast" in str(w.message) for w in caught)


def test_report_counts():
    """Runs after the property tests: how much they compared (shown with -s)."""
    print(
        f"\ndifferential: {COUNT['programs']} compiled expressions, {COUNT['checked']} evaluations compared; "
        f"{COUNT['bodies']} compiled kernel bodies, {COUNT['body_checks']} evaluations compared"
    )
    assert COUNT["programs"] > 0 or COUNT["checked"] == 0


def test_differential_native_cpu_equals_python_path(build):
    """The random expressions as kernels, built into a package with native CPU code: native == Python."""
    differential_kernels(build, bodies=False, device="cpu", examples=25)


def test_differential_bodies_native_cpu_equals_python_path(build):
    """The random kernel bodies (locals, if/else, loops with break, a helper), native == Python."""
    # the fixed set (tests/conftest.py's profile) builds 16 of its first 18 bodies, as many as 25 random
    # draws built on average: the same time
    differential_kernels(build, bodies=True, device="cpu", examples=18)


@pytest.mark.wgpu
def test_differential_wgpu_equals_python_path(build):
    """The random expressions as WebGPU shaders (lavapipe in CI): kernels the target builds == Python."""
    differential_kernels(build, bodies=False, device="wgpu", examples=60, dtypes=WGSL_DTYPES)


@pytest.mark.wgpu
def test_differential_bodies_wgpu_equals_python_path(build):
    """The random kernel bodies as WebGPU shaders: locals, branches, loops with break, a helper."""
    differential_kernels(build, bodies=True, device="wgpu", examples=60, dtypes=WGSL_DTYPES)


WGSL_DTYPES = DTYPES  # (8- and 16-bit integers held in 32 bits and wrapped)


def differential_kernels(build, bodies: bool, device: str, examples: int = 40, dtypes: list[str] = DTYPES) -> None:
    """The random expressions (or bodies) as kernels over arrays, run on ``device`` and on the Python
    path (the reference): bits must agree."""
    pytest.importorskip("hypothesis")
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    seen = {"programs": 0, "not_built": 0, "reran": 0}
    reasons: collections.Counter[str] = collections.Counter()

    @settings(
        max_examples=int(__import__("os").environ.get("HYBRID_DIFF_EXAMPLES", str(examples))),
        deadline=None,
        database=None,
        # the same programs every run, as the profile says (tests/conftest.py: HYPOTHESIS_PROFILE=explore
        # draws new ones); on WebGPU always (a driver that crashes on a shader takes the test process with
        # it, so CI runs what passed here; scripts and HYBRID_DIFF_EXAMPLES explore further)
        derandomize=device == "wgpu" or settings.default.derandomize,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    @given(data=st.data())
    def run(data):
        types = {name: data.draw(st.sampled_from(dtypes)) for name in "abc"}
        kinds = {name: _is_int(t) for name, t in types.items()}
        if bodies:
            functions = data.draw(programs(kinds))
        else:
            functions = f"def f(a, b, c):\n    return {data.draw(expressions(kinds))[0]}\n"
        ns: dict = {}
        exec(f"from hybrid_runtime import *\n{functions}", ns)
        columns = {n: np.array([_value(data.draw, types[n]) for _ in range(64)]) for n in "abc"}
        with np.errstate(all="ignore"):
            try:
                sample = ns["f"](*(columns[n][0] for n in "abc"))
            except (ZeroDivisionError, OverflowError, TypeError, np.exceptions.DTypePromotionError):
                return
        out_type = {float: "f64", int: "i64", bool: "boolean"}.get(type(sample)) or hr.types.scalar_name(
            np.asarray(sample).dtype
        )
        if out_type == "i64" and isinstance(sample, int) and not -(2**63) <= sample < 2**63:
            return
        kernel_source = (
            HEADER
            + functions
            + f"""
@kernel
def k(a: Array[{types["a"]}], b: Array[{types["b"]}], c: Array[{types["c"]}], out: Array[{out_type}]):
    i = gpu.global_tid_x()
    if i < len(out):
        out[i] = f(a[i], b[i], c[i])
"""
        )
        try:
            # (the WebGPU runs compare with the Python path alone: no native code to build)
            built = build(kernel_source, archs=["sm_90"], wgsl=device == "wgpu", native=device != "wgpu")
        except CompileError:
            return
        if device == "wgpu" and built.kernels["k"].codes.get("wgsl") is None:
            seen["not_built"] += 1
            reasons[re.sub(r" \(.*", "", built.kernels["k"].not_built.get("wgsl", "?"))] += 1
            return  # something the target refuses: not built for it
        out = np.zeros(64, dtype=hr.types.SCALAR_DTYPES[out_type])
        try:
            outs = []
            for where in ("cpu-python", device):
                outs.append(out.copy())
                built.module.k.launch(64, 1, columns["a"], columns["b"], columns["c"], outs[-1], device=where)
            cpu, gpu = outs
        except (ZeroDivisionError, OverflowError, TypeError, np.exceptions.DTypePromotionError):
            return  # another input row took a branch NumPy rejects (e.g. an out-of-range Python int)
        # rows converting NaN/inf/out-of-range floats to ints (bodies and expressions alike, e.g.
        # `i64(a + c)` of an i8 and a u64, a float64 past i64's range): platform-defined in NumPy, saturated
        # on the GPU (docs/language.md, "Known differences")
        keep = [not _float_to_int_out_of_range(ns, [columns[n][r] for n in "abc"]) for r in range(64)]
        cpu, gpu = cpu[keep], gpu[keep]
        finite = [True] * len(cpu)
        if device == "wgpu":  # WGSL lets drivers assume no NaN or infinity: compared where all is finite
            finite = _finite_rows({n: c[keep] for n, c in columns.items()}, cpu)
            cpu, gpu = cpu[finite], gpu[finite]
        if device == "wgpu" and not same_bits(cpu, gpu):
            # lavapipe under a loaded machine has (rarely, not reproducibly) returned other values for a
            # shader that matches when run again: run it once more, count it, and fail only if it differs again
            again = out.copy()
            built.module.k.launch(64, 1, columns["a"], columns["b"], columns["c"], again, device=device)
            if same_bits(cpu, again[keep][finite]):
                seen["reran"] += 1
                gpu = again[keep][finite]
        bad = [r for r in range(len(cpu)) if not same_bits(cpu[r : r + 1], gpu[r : r + 1])]
        assert not bad, f"{functions} {types}: rows {bad[:6]}: python {cpu[bad[:6]]} {device} {gpu[bad[:6]]}"
        seen["programs"] += 1

    run()
    what = "kernel bodies" if bodies else "expressions"
    print(
        f"\ndifferential on {device}: {seen['programs']} {what}, 64 inputs each, bit-identical "
        f"({seen['not_built']} not built for the target: {reasons.most_common(5)}; {seen['reran']} matched when "
        "run again)"
    )
    assert seen["programs"] > 0


def _finite_rows(columns: dict[str, np.ndarray], reference: np.ndarray) -> np.ndarray:
    """The rows whose inputs and reference result are finite numbers, none of them subnormal (integers always
    are): WGSL lets drivers assume no NaN or infinity, and NVIDIA's flushes subnormals (docs/wgpu.md)."""
    finite = np.ones(len(reference), bool)
    for values in [*columns.values(), reference]:
        if values.dtype.kind == "f":
            tiny = np.finfo(values.dtype).tiny
            finite &= np.isfinite(values) & ((values == 0) | (np.abs(values) >= tiny))
    return finite


def test_differential_edges_native_cpu_equals_python_path(build, tmp_path):
    """Issue 22's shapes (Python ints from thread indices, comparisons as numbers, stores into narrower
    arrays, Python-float ``**`` and ``%``, ``math`` on extremes, signalling NaNs, branches and loops) at
    every dtype's edge values: native == Python path, the same bits or the same exception and line."""
    edge_kernels(build, tmp_path, device="cpu", examples=10)


def edge_kernels(build, tmp_path, device: str, examples: int) -> None:
    """``examples`` packages of eight kernels from scripts/fuzz_edges.py's generator, from fixed seeds: the
    same kernels every run, whatever ran before (the script explores further)."""
    import random

    fz = fuzz_edges_script()
    seen = {"kernels": 0, "raised": 0}
    checked = itertools.count()

    def run(rng: random.Random) -> None:
        gen = fz.Gen(rng)
        kernels = []
        while len(kernels) < 8:  # eight kernels the type checker accepts, built as one package
            source = gen.kernel(f"k{len(kernels)}")
            if fz.typechecks(source.replace(f"def k{len(kernels)}(", "def k("), tmp_path, f"m{next(checked)}"):
                kernels.append(source)
        try:
            built = build(fz.PRELUDE + "\n".join(kernels), archs=["sm_90"])
        except CompileError:
            return  # refused when lowering (a build-time error: one meaning by construction)
        values = np.random.default_rng(rng.randrange(2**32))
        for n, source in enumerate(kernels):
            kernel = getattr(built.module, f"k{n}")
            types = re.findall(r"Array\[(\w+)\]", source)
            args = [fz.edge_values(hr.types.SCALAR_DTYPES[t], values) for t in types[:2]]
            args.append(np.zeros(fz.ROWS, hr.types.SCALAR_DTYPES[types[2]]))
            verdict = fz.judge(kernel, args, source, [device])
            if verdict.skipped:
                continue  # a documented difference (platform-defined casts, complex powers)
            seen["kernels"] += 1
            seen["raised"] += verdict.raised
            diverged = fz.divergences(verdict, args)
            assert not diverged, f"{source}\n{diverged}"

    for example in range(int(__import__("os").environ.get("HYBRID_DIFF_EXAMPLES", str(examples)))):
        run(random.Random(f"edges/{example}"))
    print(f"\nedges on {device}: {seen['kernels']} kernels ({seen['raised']} raising), 64 edge inputs each, the same")
    assert seen["kernels"] > 0
