"""Errors are product output: a catalogue of unsupported code, each with file:line:col, the source
line, a caret under the construct, and a hint; never compiler internals."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from hatch_hybrid.errors import CompileError
from hatch_hybrid.pipeline import compile_packages

PRELUDE = """from __future__ import annotations
import enum
import math
from typing import TypeVar
from hybrid_runtime import kernel, gpu, cuda, struct, Array, boolean, f32, f64, i32, i8, u8
"""

# (kernel body line or lines, the marked snippet the caret must start at, message part, hint part)
CATALOGUE = [
    ("class C:\n    pass", "class C", "class definitions", "@hybrid_runtime.struct"),
    ("def inner():\n    return 1", "def inner", "nested functions", "module level"),
    ("f = lambda v: v", "lambda", "lambda", "helper function"),
    ("try:\n    x[0] = 1.0\nexcept Exception:\n    pass", "try", "exceptions", "output array"),
    ("raise ValueError()", "raise", "raise", "output array"),
    ("with open('f') as fh:\n    pass", "with", "with statements", "remove"),
    ("global G", "global G", "global", "argument"),
    ("del x", "del x", "del", "remove"),
    ("import os", "import os", "import inside a kernel", "module level"),
    ("print(x)", "x)", "print() in kernel code shows numbers and strings, not Array[f32] values", "one by one"),
    ("print(Pt(1.0, 2.0))", "Pt(1.0", "not Pt values", "p.x, p.y"),
    ("print(n, file=None)", "None", "print(file=...) is not supported", "sys.stdout"),
    ("print(n, sep=n)", "n)", "print(sep=...) takes a string literal", "literally"),
    ("print(n, flush=n)", "n)", "print(flush=...) takes True or False", None),
    ("print(n, colour=1)", "1)", "no keyword argument `colour`", "sep=, end="),
    ("print(*x)", "*x", "print(*values) is not supported", "one by one"),
    ("print(n, **opts)", "opts", "print(**options) is not supported", "sep=, end="),
    ("v = [1, 2]", "[1, 2]", "lists", "shared_array"),
    ("v = {1: 2}", "{1: 2}", "dicts", "arrays"),
    ("v = {1, 2}", "{1, 2}", "sets", "arrays"),
    ("v = [i for i in range(3)]", "[i for", "list comprehensions", "loop"),
    ("v = sum(i for i in range(3))", "(i for i", "generator expressions", "loop"),
    ("yield 1", "yield", "generators", "output array"),
    ("v = 'text'", "'text'", "strings", "numbers"),
    ("v = f'{n}'", "f'{n}'", "f-strings", "strings"),
    ("x[1:3] = 2.0", "x[1:3]", "assigning to a view (Array[f32])", "in a loop"),
    ("m = gpu.local_array(f32, (2, 2))\nm[0] += 1.0", "m[0]", "assigning to a view", "in a loop"),
    ("v = x[...]", "...", "`...` (Ellipsis) in an index", "a[i, :]"),
    ("v = x[None]", "None", "`None` (np.newaxis) in an index", "integers and slices"),
    ("v = x[::0]", "0]", "slice step cannot be zero", "ValueError"),
    ("v = x[1.5:]", "1.5", "slice bounds and steps must be integers or None, not float", "int("),
    ("v = x.shape[1:]", "1:", "slicing a tuple", "literals"),
    ("v = helper(x[1:])", "return a", "returning arrays is not supported", "parameter"),
    ("for v in gpu.grid(2):\n    pass", "gpu.grid(2)", "range(...), a tuple, a constant table", "range(len(a))"),
    ("while n:\n    break\nelse:\n    pass", "pass", "while ... else", "flag"),
    ("a = b = n\nb = x", "b = x", "variable `b` changes type from i32 to Array[f32]", None),
    ("a, b = 1, 2, 3", "1, 2, 3", "cannot unpack a tuple of 3 into 2 variables", None),
    ("a, b = n", "n", "cannot unpack i32 into 2 variables", None),
    ("t = (x, n)", "x, n", "tuples of arrays", "directly"),
    ("p = Pt(1.0)", "Pt(1.0)", "missing field y", None),
    ("p = Pt(1.0, 2.0, 3.0)", "Pt(1.0, 2.0, 3.0)", "takes 2 fields", None),
    ("p = Pt(1.0, z=2.0)", "2.0", "Pt has no field `z`", "fields: x, y"),
    ("p = Pt(x, 2.0)", "x, 2.0", "field `x` of Pt is a f32, not Array[f32]", None),
    ("p = Pt(1.0, 2.0)\nv = p.z", "p.z", "struct Pt has no field `z`", "fields: x, y"),
    ("p = Pt(1.0, 2.0)\nv = p.nope()", "p.nope", "struct Pt has no method `nope`", "methods: norm2, moved"),
    ("p = Pt(1.0, 2.0)\nq = bump(p)\nq.x = 3.0", "q.x = 3.0", "bound to an existing struct value", "new value"),
    ("p = Pt(1.0, 2.0)\nq = p.moved()\nq.x = 3.0", "q.x = 3.0", "bound to an existing struct value", "new value"),
    ("p = Pt(1.0, 2.0)\nq = p\np.x = 3.0", "p", "share one struct object on the CPU", "construct a new value"),
    ("v = Color(1)", "Color", "converting to the enum Color", "Color.RED"),
    ("p = Pt(1.0, 2.0)\nq = p + p", "p + p", "struct Pt does not support `+`", "define __add__(self, other)"),
    ("p = Pt(1.0, 2.0)\nq = -p", "-p", "struct Pt does not support `-`", "define __neg__(self)"),
    ("p = Pt(1.0, 2.0)\nq = 2.0 * p", "2.0 * p", "unsupported operand types for *: float and Pt", "on the left"),
    ("v = Color.PURPLE", "Color.PURPLE", "Color has no member `PURPLE`", "RED, GREEN"),
    ("v = T(1)", "T", "TypeVar T is not bound here", "specialize="),
    ("v = n if n else x", "x", "different types", "one type"),
    ("v = max(n, 2**40)", "2**40", "Python integer 1099511627776 is out of bounds for i32", "fits in i32"),
    ("v = i8(n)\nv = 300", "300", "Python integer 300 is out of bounds for i8", "fits in i8"),
    ("v = 1\nv = x", "v = x", "changes type from int to Array[f32]", "new variable"),
    ("v = x[0] > 0\nv = i32(2)", "v = i32(2)", "changes type from boolean to i32", "convert"),
    ("v = undefined_name + 1", "undefined_name", "not defined", "module level"),
    ("v = n + x", "n + x", "unsupported operand types", "index arrays"),
    ("v = 1.5 << 2", "1.5 << 2", "unsupported operand types", "integers"),
    ("v = boolean(n) - boolean(n)", "boolean(n) - boolean(n)", "two NumPy booleans", "int("),
    ("v = i8(n) + 300", "300", "out of bounds for i8", "OverflowError"),
    ("v = x[1.5]", "1.5", "indices must be integers", "int("),
    ("v = x[1, 2]", "1, 2", "too many indices for Array[f32]: it is 1-dimensional, but 2", "each dimension once"),
    ("v = x.T", "x.T", "no attribute", ".shape"),
    ("v = math.factorial(3)", "math.factorial", "math.factorial is not supported", "supported:"),
    ("v = math.ldexp(1.0, 2.5)", "math.ldexp", "integer exponent", "int(...)"),
    ("v = gpu.warp_vote()", "gpu.warp_vote", "not a kernel intrinsic", "docs"),
    ("v = len(n)", "len(n)", "len() takes one array", "first dimension"),
    ("v = max(n)", "max(n)", "two or more", "loop"),
    ("v = range(3)", "range(3)", "for ... in range", None),
    ("v = helper(n, n)", "helper(n, n)", "takes 1 arguments", None),
    ("v = helper(b=n)", "n)", "helper() has no parameter `b`", "parameters: a"),
    ("v = helper(n, a=n)", "n)", "got parameter `a` twice", None),
    ("v = needs()", "needs()", "needs() is missing argument `a`", None),
    ("v = scaled(n)", "math.pi", "default value of parameter `k` must be a compile-time number", "literal"),
    ("v = gpu.atomic_add(x, 0, val=1.0)", "1.0", "`gpu.atomic_add` has no parameter `val`", "array, index, value"),
    ("v = math.sqrt(x=1.0)", "1.0", "takes no keyword arguments", "by position"),
    ("p = Pt(1.0, 2.0)\nx[0] = first(p, bump(p))", "p, bump", "changed in place by a later argument", "own"),
    ("v: 'f32 +' = 1.0", "'f32 +'", "is not a Python expression", "Vec2"),
    ("v = gpu.local_array(f32, n)", "n", "per-thread array must be known at compile time", "literals"),
    ("v = gpu.local_array(x, 4)", "x", "dtype of a per-thread array", "@struct"),
    ("v = cuda.shfl_down_sync(True, n, 1)", "True", "the mask of cuda.shfl_down_sync is a bool", "0xFFFFFFFF"),
    ("v = cuda.const.array_like(n)", "n)", "module-level constant", "TABLE"),
    ("v = cuda.shared.array(4)", "cuda.shared.array(4)", "takes a shape and a dtype", "dtype=np.float32"),
    ("v = cuda.grid(n)", "cuda.grid(n)", "takes the number of dimensions", None),
    ("v = recurse(n)", "recurse(a)", "recursion is not supported", "loop"),
    ("v = other(x)", "other(x)", "is a kernel and cannot be called", "plain helper"),
    ("v = os.getcwd()", "os.getcwd", "standard library module `os`", "kernels can call"),
    ("v = notinstalled.f(n)", "notinstalled.f", "package `notinstalled`, which is not installed", "kernels can call"),
    ("v = typed(x[0])", "v: i32", "annotated i32 but this call passes f32", "i32(x)"),
    ("v = maybe(n)", "def maybe", "on some paths and None on others", "a number or None"),
    ("break", "break", "outside a loop", None),
    ("v = gpu.shared_array(f32, n)", "n", "known at compile time", "literals"),
    ("v = gpu.atomic_add(x, 0)", "gpu.atomic_add(x, 0)", "takes 3 arguments", None),
    ("v = gpu.atomic_cas(x, 0, 1.0, 2.0)", "x", "does not support arrays of f32", "i32"),
    ("v = x @ x", "x @ x", "matrix multiplication", "loops"),
    ("v = n is 3", "n is 3", "`is` comparisons (is, is not, in, not in)", "=="),
    ("v = gpu.grid_sync()", "gpu.grid_sync()", "a grid-wide barrier inside an expression", "statement of its own"),
    ("grid_sync()", "grid_sync()", "a grid-wide barrier is spelled through its module", "gpu.grid_sync()"),
    ("assert n > 0, n", "n", "must be a string literal", "kernel, file and line"),
    ("match n:\n    case Pt(x=1):\n        pass", "Pt(x=1)", "class patterns", "enum members"),
    ("match n:\n    case [1, 2]:\n        pass", "[1, 2]", "sequence patterns", "enum members"),
    ("match n:\n    case True:\n        pass", "True", "case True/False/None", "if flag"),
    ("match n:\n    case 1 | v:\n        pass", "v", "captures inside `|` patterns", None),
    ("v = (w := 3)", "w := 3", "assignment expressions", "statement"),
    # issue 12: one meaning. Values known at build time that Python or NumPy would reject
    ("v = 123456789012345678901234567890", "1234", "does not fit in 64 bits", "64 bits"),
    ("v = 1 << 100", "1 << 100", "does not fit in 64 bits", None),
    ("v = (1 << 63) + len(x)", "1 << 63", "held as i64", "u64"),  # meeting a u64 it is 2**63: test_wide_int_literals
    ("v = 2 ** -1", "2 ** -1", "negative power", "2.0 ** -1"),
    ("v = n ** -2", "n ** -2", "negative power", "float base"),
    ("v = np.fmod(x[0], 2.0)", "np.fmod", "`numpy.fmod` is not supported", "math.fmod(x, y)"),
    ("v = np.logaddexp(x[0], x[1])", "np.logaddexp", "`numpy.logaddexp` is not supported", "np.log(np.exp(x)"),
    ("v = np.cumsum(x[0])", "np.cumsum", "`numpy.cumsum` is not supported", "sqrt, square"),
    ("v = np.sign(x[0] > 0)", "np.sign(x[0] > 0)", "NumPy has no np.sign() of boolean", "convert the operand"),
    ("v = np.sqrt(x[0], x[1])", "np.sqrt(x[0], x[1])", "np.sqrt() takes 1 argument", None),
    ("v = np.sqrt(x)", "np.sqrt(x)", "np.sqrt() needs numbers here, not Array[f32]", "index arrays"),
    ("v = np.exp(1j)", "np.exp(1j)", "of a complex number", "cmath"),
    ("v = np.finfo(np.int32).max", "np.finfo(np.int32).max", "takes a float type", "np.iinfo(int32)"),
    ("v = np.finfo(np.float32).dtype", "np.finfo(np.float32).dtype", "not a number kernels can read", "eps"),
    ("v = np.iinfo(n).max", "np.iinfo(n)", "np.iinfo() takes a scalar type", "np.iinfo(np.int32)"),
    ("v = np.iinfo(np.uint64).max + len(x)", "np.iinfo(np.uint64).max", "held as i64", "u64("),
    ("w = np.where(n > 0, x[0], x[1])\nw += 1.0", "w += 1.0", "0-d array", "w = w + ..."),
    ("v = i32(2**40)", "2**40", "out of bounds for i32", "OverflowError"),
    ("x2 = gpu.shared_array(i32, 4)\nx2[0] = 3000000000", "3000000000", "out of bounds for i32", None),
    ("v = 1 // 0", "1 // 0", "division by zero", "ZeroDivisionError"),
    ("v = 1.0 / 0.0", "1.0 / 0.0", "division by zero", None),
    ("for i in range(0, 10, 0):\n    pass", "0):", "step must not be zero", "ValueError"),
    ("v = SCALE", "SCALE *= 3", "`SCALE` is assigned more than once", "assign it once"),
    ("v = LIMIT", "LIMIT = 5.0", "`LIMIT` is assigned more than once", "parameter"),
    ("v = COUNTER", "COUNTER", "`COUNTER` is assigned more than once", None),
    ("v = BAD_DIV", "1 // 0", "division by zero in a constant expression", None),
    ("v = BAD_BIG", "2 ** 70", "does not fit in 64 bits", None),
    ("v = BAD_SQRT", "math.sqrt(-1.0)", "math.sqrt(-1.0) fails: math domain error", None),
    ("v = BAD_CAST", "i32(2 ** 40)", "out of bounds for i32", "OverflowError"),
    ("v = ON_DEVICE[0] + len(ON_DEVICE)", "ON_DEVICE", "cannot read the device array `ON_DEVICE`", "argument"),
    # issue 12: messages that name the construct
    ("v = list()", "list", "the builtin `list` is not supported", "tuple"),
    (
        "range = 3\nfor i in range(n):\n    x[i] = 0.0",
        "for i in range(n)",
        "`range` is a variable of this function (assigned at line",
        "range_",
    ),
    ("for len in range(n):\n    x[len] = len(x)", "len(x)", "`len` is a variable of this function", "rename"),
    ("min = 2\nv = min(n, 3)", "min(n, 3)", "calls the variable or raises UnboundLocalError", "min_"),
    ("v = dict()", "dict", "the builtin `dict` is not supported", None),
    ("v = TABLE[0]", "TABLE", "cannot read the module-level `TABLE`: it is a list", "tuples of numbers"),
    ("v = gpu.shared_array(f32, 0)", "0", "must be positive, not 0", "at least 1"),
    ("v = gpu.shared_array(f32, 10**9)", "10**9", "static shared memory is at most 49152 bytes", "dynamic"),
    ("v = gpu.shared_array(f32, (TILE, TILE * 200))", "(TILE", "takes 204800 bytes", None),
    ("other[1, 32](x)", "other[1, 32]", "launches a kernel, which device code cannot do", "host"),
]

HELPERS = """
from hybrid_runtime.gpu import grid_sync
def helper(a):
    return a

def recurse(a):
    return again(a)

def again(a):
    return recurse(a)

def typed(v: i32):
    return v

def needs(a, b=1):
    return a + b

def scaled(a, k=math.pi):
    return a * k

def either(a, m):
    if m > 1:
        return False
    return x_positive(a)

def x_positive(a):
    return a > 0.0

def maybe(a):
    if a > 0:
        return (a, a)

@kernel
def other(x: Array[f32]):
    x[0] = 1.0

import os
import notinstalled
import numpy as np
import hybrid_runtime.cuda
G = 1
T = TypeVar("T")
SCALE = 2.0
SCALE *= 3
LIMIT = 2.0
if G:
    LIMIT = 5.0
COUNTER = 0
def bump_counter():
    global COUNTER
    COUNTER = COUNTER + 1
BAD_DIV = 1 // 0 + 1
BAD_BIG = 2 ** 70
BAD_SQRT = math.sqrt(-1.0)
BAD_CAST = i32(2 ** 40)
TABLE = [1.0, 2.0]
TILE = 16
ON_DEVICE = hybrid_runtime.cuda.to_device(np.arange(4.0))


class Color(enum.IntEnum):
    RED = 1
    GREEN = 2


@struct
class Pt:
    x: f32
    y: f32

    def norm2(self) -> f32:
        return self.x * self.x + self.y * self.y

    def moved(self) -> Pt:
        return self

def bump(p: Pt) -> Pt:
    p.x = 0.0
    return p

def first(a: Pt, b: Pt) -> f32:
    return a.x + b.x
"""


def _compile(tmp_path: Path, body: str) -> CompileError:
    pkg = tmp_path / "errpkg"
    pkg.mkdir(exist_ok=True)
    (pkg / "__init__.py").write_text("")
    source = PRELUDE + HELPERS + "\n@kernel\ndef k(x: Array[f32], n: i32):\n" + textwrap.indent(body, "    ") + "\n"
    (pkg / "k.py").write_text(source)
    with pytest.raises(CompileError) as info:
        compile_packages([pkg], ["sm_90"])
    return info.value


@pytest.mark.parametrize("body, marked, message, hint", CATALOGUE, ids=[c[2][:40] for c in CATALOGUE])
def test_unsupported_construct(tmp_path, body, marked, message, hint):
    err = _compile(tmp_path, body)
    assert_located(err, tmp_path / "errpkg" / "k.py", marked, message, hint)


def assert_located(err: CompileError, path: Path, marked: str, message: str, hint: str | None) -> None:
    """The error says ``message`` (and ``hint``) at the file:line:col of ``marked`` in ``path``, shows the
    source line with a caret under it, and names no compiler internals."""
    text = str(err)
    assert message in text
    if hint:
        assert err.hint and hint in err.hint, text
    # file:line:col of the construct, then the source line, then a caret under it
    lines = text.splitlines()
    m = re.match(r"^(?P<file>.+k\.py):(?P<line>\d+):(?P<col>\d+): error: ", lines[0])
    assert m, text
    source = path.read_text().splitlines()
    line = source[int(m["line"]) - 1]
    assert lines[1].strip() == line.strip()
    caret_col = lines[2].index("^") - 4
    assert caret_col == int(m["col"]) - 1
    assert line[caret_col:].startswith(marked), f"caret at {line[caret_col:]!r}, expected {marked!r}\n{text}"
    for internal in ("Traceback", "hatch_hybrid", "typecheck", "lower.py", "llvmlite"):
        assert internal not in text


def test_variable_type_change_points_at_both_assignments(tmp_path):
    err = _compile(tmp_path, "v = f32(1)\nv = x[0] > 0")
    assert len(err.notes) == 1
    text = str(err)
    assert "note: `v` is first assigned a f32 here" in text
    assert text.count("^") >= 2


def test_syntax_error_is_reported_with_location(tmp_path):
    pkg = tmp_path / "synpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "k.py").write_text("from hybrid_runtime import kernel\n@kernel\ndef k(:\n    pass\n")
    with pytest.raises(CompileError, match=r"k\.py:3:\d+: error: syntax error"):
        compile_packages([pkg], ["sm_90"])


def test_internal_errors_do_not_leak_compiler_frames(tmp_path, monkeypatch):
    from hatch_hybrid.targets.ptx import target as ptx_target

    def broken(*args, **kwargs):
        raise KeyError("boom")

    monkeypatch.setattr(ptx_target, "optimise", broken)
    err = _compile_ok_kernel(tmp_path)
    assert "internal compiler error while compiling kernel `k`" in str(err)
    assert "HYBRID_DEBUG=1" in (err.hint or "")
    assert err.__cause__ is None and err.__suppress_context__
    monkeypatch.setenv("HYBRID_DEBUG", "1")
    with pytest.raises(KeyError):
        _compile_ok_kernel(tmp_path)


def _compile_ok_kernel(tmp_path: Path) -> CompileError:
    pkg = tmp_path / "okpkg"
    pkg.mkdir(exist_ok=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "k.py").write_text(PRELUDE + "@kernel\ndef k(x: Array[f32]):\n    x[0] = 1.0\n")
    try:
        compile_packages([pkg], ["sm_90"])
    except CompileError as exc:
        return exc
    raise AssertionError("expected a CompileError")


def test_missing_libdevice_names_the_kernel_and_the_fix(tmp_path, monkeypatch):
    from hatch_hybrid.targets.ptx import libdevice

    monkeypatch.setattr(libdevice, "find_libdevice", lambda: None)
    libdevice.libdevice_bitcode.cache_clear()
    pkg = tmp_path / "mathpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "k.py").write_text(PRELUDE + "@kernel\ndef uses_exp(x: Array[f32]):\n    x[0] = math.exp(x[1])\n")
    with pytest.raises(CompileError) as info:
        compile_packages([pkg], ["sm_90"])
    libdevice.libdevice_bitcode.cache_clear()
    text = str(info.value)
    assert re.match(r".*k\.py:7:1: error: kernel `uses_exp`: .*libdevice.*not found at build time", text)
    assert "nvidia-cuda-nvcc-cu12" in text and "HYBRID_LIBDEVICE" in text
