"""The compiler's arithmetic equals NumPy's, bit for bit, checked without a GPU.

The lowering stage's LLVM IR for plain helper functions, as the native CPU backend lowers it (the
same lowering the NVPTX backend gets, with the C library's fmod/pow for libdevice's), is JIT-compiled
for this CPU and run on edge-case inputs; the reference is the very same Python function run on
NumPy scalars, i.e. the Python path.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import itertools
import textwrap
import warnings

import llvmlite.binding as llvm
import numpy as np
import pytest

from hatch_hybrid.frontend.discover import FunctionSym, ModuleIndex
from hatch_hybrid.lower.function import ModuleLowerer
from hatch_hybrid.targets.host.flavour import HostFlavour
from hatch_hybrid.targets.host.lowering.context import CTX_WORDS
from hatch_hybrid.typecheck.program import Program
from hatch_hybrid.types import Scalar, Weak

_CT = {
    "boolean": ctypes.c_bool,
    "i8": ctypes.c_int8,
    "i16": ctypes.c_int16,
    "i32": ctypes.c_int32,
    "i64": ctypes.c_int64,
    "u8": ctypes.c_uint8,
    "u16": ctypes.c_uint16,
    "u32": ctypes.c_uint32,
    "u64": ctypes.c_uint64,
    "f32": ctypes.c_float,
    "f64": ctypes.c_double,
}

_engine = None


def _jit():
    global _engine
    if _engine is None:
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        libm = ctypes.CDLL(ctypes.util.find_library("m"))
        for nv, c in (("__nv_fmodf", "fmodf"), ("__nv_fmod", "fmod"), ("__nv_powf", "powf"), ("__nv_pow", "pow")):
            llvm.add_symbol(nv, ctypes.cast(getattr(libm, c), ctypes.c_void_p).value)
        tm = llvm.Target.from_default_triple().create_target_machine()
        _engine = (llvm.create_mcjit_compiler(llvm.parse_assembly(""), tm), tm)
    return _engine


def host_compile(tmp_path, source: str, name: str, arg_types: tuple, package: str = "hostpkg"):
    """``name`` of ``source`` compiled natively, as a ctypes function (``.tf``: its typed IR, ``.module``: the
    module it was compiled from, importable with ``tmp_path`` on sys.path)."""
    pkg = tmp_path / package
    pkg.mkdir(exist_ok=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "m.py").write_text("import math\nfrom hybrid_runtime import *\n" + textwrap.dedent(source))
    index = ModuleIndex()
    index.add_package(pkg)
    program = Program(index)
    tf = program.specialise(program.parsed(FunctionSym(f"{package}.m", name)), arg_types)
    engine, tm = _jit()
    # the native CPU backend's lowering: every function takes the thread context first
    lowerer = ModuleLowerer("host", str(tm.target_data), flavour=HostFlavour(llvm.get_process_triple()))
    module = lowerer.lower_functions([tf])
    mod = llvm.parse_assembly(str(module))
    mod.verify()
    engine.add_module(mod)
    engine.finalize_object()
    restype = _CT[str(tf.return_type if isinstance(tf.return_type, Scalar) else tf.return_type.storage)]
    argtypes = [_CT[str(t if isinstance(t, Scalar) else t.storage)] for t in arg_types]
    proto = ctypes.CFUNCTYPE(restype, ctypes.c_void_p, *argtypes)(engine.get_function_address(tf.symbol))
    ctx = (ctypes.c_int64 * CTX_WORDS)()

    def cfunc(*args):  # type: ignore[no-untyped-def]
        return proto(ctypes.addressof(ctx), *args)

    cfunc.keep = (proto, ctx)  # type: ignore[attr-defined]
    cfunc.tf, cfunc.module = tf, f"{package}.m"  # type: ignore[attr-defined]
    return cfunc, tf.return_type


def _bits(value, t) -> int:
    dtype = (t if isinstance(t, Scalar) else t.storage).dtype
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _bits_of(value, dtype)


def _bits_of(value, dtype) -> int:
    return (
        int(np.array(value, dtype=dtype).view(f"u{dtype.itemsize}"))
        if dtype.kind == "f"
        else int(np.array(value, dtype=dtype).astype(dtype))
    )


INTS = {
    "i8": [0, 1, -1, 7, -7, 127, -128, 3, -3],
    "i16": [0, 1, -1, 300, -300, 32767, -32768, 5],
    "i32": [0, 1, -1, 7, -7, 2**31 - 1, -(2**31), 100000, -3],
    "i64": [0, 1, -1, 2**63 - 1, -(2**63), 12345, -7],
    "u8": [0, 1, 2, 7, 200, 255],
    "u32": [0, 1, 3, 2**32 - 1, 2**31],
    "u64": [0, 1, 5, 2**64 - 1, 2**63],
}
FLOATS = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    2.5,
    -2.5,
    7.0,
    -3.0,
    0.1,
    1e-30,
    -1e30,
    3.4e38,
    float("inf"),
    float("-inf"),
    float("nan"),
    5e-324,
    1e300,
]
OPS = ["+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^", "<", "<=", "==", "!=", ">", ">="]


def _values(t: str):
    if t in INTS:
        return [np.dtype(Scalar(t).dtype).type(v) for v in INTS[t]]
    with np.errstate(over="ignore"):  # 1e300 as f32 is inf, on purpose
        return [Scalar(t).dtype.type(v) for v in FLOATS]


def _check(tmp_path, expr: str, types: tuple[str, ...], values_per_arg, skip=lambda *a: False):
    names = "abcd"[: len(types)]
    src = f"def f({', '.join(names)}):\n    return {expr}\n"
    cfunc, ret = host_compile(tmp_path, src, "f", tuple(Scalar(t) for t in types))
    ns: dict = {}
    exec("import math\nfrom hybrid_runtime import *\n" + src, ns)
    checked = 0
    for args in itertools.product(*values_per_arg):
        if skip(*args):
            continue
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            try:
                expected = ns["f"](*args)
            except (ZeroDivisionError, ValueError, OverflowError):
                continue
        got = cfunc(*[a.item() for a in args])
        assert _bits(got, ret) == _bits(expected, ret), f"{expr} with {args!r}: compiled {got!r}, numpy {expected!r}"
        checked += 1
    assert checked > 0


@pytest.mark.parametrize("t", list(INTS))
@pytest.mark.parametrize("op", OPS)
def test_integer_binops_match_numpy(tmp_path, t, op):
    def skip(a, b):
        return op == "**" and b < 0

    _check(tmp_path, f"a {op} b", (t, t), [_values(t), _values(t)], skip)


@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("op", [o for o in OPS if o not in ("<<", ">>", "&", "|", "^")])
def test_float_binops_match_numpy(tmp_path, t, op):
    _check(tmp_path, f"a {op} b", (t, t), [_values(t), _values(t)])


@pytest.mark.parametrize(
    "expr, types",
    [
        ("a * 2.5 + 1", ("f32",)),
        ("a / 3", ("i32",)),
        ("a // 2.0 - 1", ("f32",)),
        ("a + 1", ("u8",)),
        ("a * b", ("f32", "i32")),
        ("a + b", ("u64", "i64")),
        ("a < b", ("u64", "i64")),
        ("a - b", ("i8", "u8")),
        ("a % -3", ("i16",)),
        ("-a", ("u32",)),
        ("~a", ("i64",)),
        ("abs(a)", ("i8",)),
        ("abs(a)", ("f64",)),
        ("min(a, b)", ("f32", "f32")),
        ("max(a, b, i32(0))", ("i32", "i32")),
        ("a if a > b else b", ("f64", "f64")),
        ("a > 0 and b > 0", ("i32", "i32")),
        ("(a < b) + (a == b) * 2", ("i16", "i16")),
        ("(a < b) * 1.5", ("f32", "f32")),
        ("a or b", ("i32", "i32")),
        ("not a", ("f32",)),
        ("0 < a <= b", ("i64", "i64")),
        ("0 < a < b - 1 <= a * 2", ("i64", "i64")),
        ("(-1 < a) + (a < 300) * 2 + (a == -256) * 4", ("u8",)),  # NumPy 2 compares Python ints by value
        ("(a > -129) + (a >= 2**40) * 2", ("i8",)),  # operators inside a chain keep their own types
        ("b // 2 if 0 <= a < b % 7 else b", ("i32", "i32")),
        ("f32(a)", ("f64",)),
        ("f64(a)", ("f32",)),
        ("i8(a)", ("i32",)),
        ("u16(a)", ("i64",)),
        ("f32(a)", ("i64",)),
        ("f32(a)", ("u64",)),
        ("boolean(a)", ("f32",)),
        ("int(a) + 1", ("u32",)),
        ("math.sqrt(a)", ("f32",)),
        ("math.sqrt(a)", ("f64",)),
        ("f32(math.sqrt(a))", ("f32",)),
        ("math.floor(a) + math.ceil(a)", ("f32",)),
        ("math.fabs(a)", ("f32",)),
        ("a ** 2", ("f32",)),
        ("a ** 3", ("i64",)),
        ("2 ** a", ("u8",)),
    ],
)
def test_mixed_expressions_match_numpy(tmp_path, expr, types):
    def skip(*args):
        if any(isinstance(a, np.floating) and not np.isfinite(a) for a in args) and (
            "math.floor" in expr or expr.startswith(("i8", "u16", "int"))
        ):
            return True  # float -> int of inf/nan is undefined in NumPy (and raises in Python)
        if "math.floor" in expr and any(abs(float(a)) >= 2.0**63 for a in args):
            return True  # Python ints beyond 64 bits
        return ("**" in expr and any(isinstance(a, np.integer) and a < 0 for a in args)) or (
            expr == "2 ** a" and args[0] > 62
        )

    _check(tmp_path, expr, types, [_values(t) for t in types], skip)


def test_loops_and_helpers_match_python(tmp_path):
    src = """
def collatz(n):
    steps = 0
    while n != 1 and steps < 1000:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps

def f(a, b):
    total = i64(0)
    for k in range(a, b, -3 if a > b else 2):
        if k % 5 == 0:
            continue
        if total > 100:
            break
        total += collatz(k) + k
    return total
"""
    cfunc, _ = host_compile(tmp_path, src, "f", (Scalar("i64"), Scalar("i64")))
    ns: dict = {}
    exec("from numpy import int64 as i64\n" + src, ns)
    for a, b in [(1, 30), (30, 1), (-5, 5), (7, 7), (100, -100)]:
        assert cfunc(a, b) == ns["f"](np.int64(a), np.int64(b))


def test_weak_types_follow_nep50(tmp_path):
    # f32 * Python float stays f32; the result type is part of the compiled signature
    _, ret = host_compile(tmp_path, "def f(a):\n    return a * 0.1\n", "f", (Scalar("f32"),))
    assert ret == Scalar("f32")
    _, ret = host_compile(tmp_path, "def f(a):\n    return a * 3 + 0.5\n", "f", (Weak("int"),))
    assert ret == Weak("float")
