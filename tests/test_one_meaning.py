"""Issue 12 and 14: a program has one meaning. Module constants computed as Python computes them,
constant folding, and run-time edge values (math domain errors, division by zero) giving the same
results compiled (the native CPU lowering, shared with the GPU) and on the Python path."""

from __future__ import annotations

import math
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest
from conftest import DEVICES, KERNEL_PRELUDE
from hybrid_runtime.python_math import with_ieee_math
from test_semantics import host_compile

from hatch_hybrid.cli import main
from hatch_hybrid.types import F64, I32, I64, Scalar

CONSTANTS = """
import numpy as np
TILE = 16
SHAPE = (TILE, TILE + 1)
EPS2 = np.float32(0.01)
EPS3 = f32(0.01) + EPS2
HALF = math.sqrt(4.0) / 4
TAB = (1.5, 2.5, 3.5)
MASK = (1 << 20) - 1
NEG = -(2 ** 10) // 3
"""


def _python(source: str):
    ns: dict = {}
    exec("import math\nfrom hybrid_runtime import *\n" + textwrap.dedent(source), ns)
    return ns


@pytest.mark.parametrize(
    "expr, arg_type, args",
    [
        ("a * EPS2 + EPS3", "f32", [1.0, -3.5, 1e30]),
        ("a + HALF + TAB[1] + TAB[-1]", "f64", [0.25, -1e300]),
        ("(a & MASK) + NEG + SHAPE[1]", "i64", [0, -1, 123456789]),
    ],
)
def test_module_constants_compile_to_what_python_computes(tmp_path, expr, arg_type, args):
    source = CONSTANTS + f"def f(a):\n    return {expr}\n"
    cfunc, _ = host_compile(tmp_path, source, "f", (Scalar(arg_type),))
    f = _python(source)["f"]
    for a in args:
        value = Scalar(arg_type).dtype.type(a)
        with np.errstate(all="ignore"):
            expected = f(value)
        got = cfunc(value.item())
        assert got == expected or (math.isnan(got) and math.isnan(expected)), (expr, a, got, expected)


MATH_EDGES = [
    ("math.sqrt(a)", [-1.0, -0.0, 0.0, float("-inf"), float("inf"), float("nan")]),
    ("math.log(a)", [0.0, -0.0, -1.0, float("inf")]),
    ("math.log2(a)", [0.0, -2.0]),
    ("math.log10(a)", [0.0, -2.0]),
    ("math.log1p(a)", [-1.0, -2.0]),
    ("math.exp(a)", [1000.0, -1000.0, float("inf")]),
    ("math.expm1(a)", [1000.0]),
    ("math.asin(a)", [2.0, -2.0]),
    ("math.acos(a)", [2.0]),
    ("math.sinh(a)", [1000.0, -1000.0]),
    ("math.cosh(a)", [1000.0]),
    ("math.sin(a)", [float("inf")]),
    ("math.cos(a)", [float("-inf")]),
    ("math.tan(a)", [float("inf")]),
    ("math.pow(a, 0.5)", [-1.0]),
    ("math.pow(a, -1.0)", [0.0]),
    ("math.pow(a, 2.0)", [1e200]),
]


@pytest.mark.parametrize("expr, values", MATH_EDGES, ids=[e for e, _ in MATH_EDGES])
def test_math_domain_edges_give_ieee_results_on_both_paths(tmp_path, expr, values):
    """Python's math raises (ValueError, OverflowError); the device gives nan/inf; the Python path
    runs kernels with an IEEE math, so both agree."""
    source = f"def f(a):\n    return {expr}\n"
    cfunc, _ = host_compile(tmp_path, source, "f", (F64,))
    f = with_ieee_math(_python(source)["f"])
    for v in values:
        expected, got = f(np.float64(v)), cfunc(v)
        assert isinstance(expected, float)
        assert (math.isnan(got) and math.isnan(expected)) or got == expected, (expr, v, got, expected)


def test_ieee_math_keeps_ordinary_results_and_helpers(tmp_path):
    ns = _python("def h(x):\n    return math.sqrt(x)\n\ndef f(a):\n    return h(a) + math.log(a)\n")
    f = with_ieee_math(ns["f"])
    assert f(np.float64(4.0)) == 2.0 + math.log(4.0)
    assert math.isnan(f(np.float64(-1.0)))
    assert ns["f"].__globals__["math"] is math  # the user's module is untouched


@pytest.mark.parametrize(
    "expr, types, args, expected",
    [
        ("a // b", (I32, I32), (7, 0), 0),
        ("a % b", (I32, I32), (-7, 0), 0),
        ("a // b", (I64, I64), (-(2**63), -1), -(2**63)),
        ("a / b", (F64, F64), (1.0, 0.0), float("inf")),
        ("a / b", (F64, F64), (-1.0, 0.0), float("-inf")),
    ],
)
def test_division_by_zero_at_run_time_is_numpy_on_both_paths(tmp_path, expr, types, args, expected):
    source = f"def f(a, b):\n    return {expr}\n"
    cfunc, _ = host_compile(tmp_path, source, "f", types)
    f = _python(source)["f"]
    values = [t.dtype.type(a) for t, a in zip(types, args)]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert f(*values) == expected
    assert cfunc(*args) == expected


# ------------------------------------------------------------------ CLI and build configuration
KERNEL = """from hybrid_runtime import kernel, Array, f32

@kernel
def k(x: Array[f32]):
    x[0] = 1.0
"""


def _project(tmp_path: Path, hook: str, files: dict[str, str]) -> Path:
    root = tmp_path / "proj"
    pkg = root / "proj"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    for name, text in files.items():
        (pkg / name).parent.mkdir(parents=True, exist_ok=True)
        (pkg / name).write_bytes(text.encode("latin-1"))
    (root / "pyproject.toml").write_text(
        '[project]\nname = "proj"\nversion = "1"\ndependencies = ["hatch-hybrid-runtime"]\n\n'
        "[tool.hatch.build.hooks.hybrid]\n" + hook + "\n"
    )
    return root


@pytest.mark.parametrize(
    "hook, argv, message",
    [
        ('arch = ["sm_999"]', [], "Option `arch` for build hook `hybrid` has unknown target 'sm_999'"),
        ('arch = ["sm_91"]', [], "unknown target 'sm_91'"),
        ("arch = []", [], "must be a list of strings"),
        ('speed = "max"', [], "Unknown option `speed`"),
        ('arch = ["sm_80"]', ["--arch", "banana"], "unknown target 'banana'"),
    ],
)
def test_cli_check_reads_the_project_options(tmp_path, capsys, hook, argv, message):
    root = _project(tmp_path, hook, {"k.py": KERNEL})
    assert main(["check", str(root), *argv]) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert main(["list", str(root)]) == (0 if argv else 1)


def test_cli_check_uses_the_project_archs(tmp_path, capsys):
    root = _project(tmp_path, 'arch = "sm_86"', {"k.py": KERNEL})
    assert main(["check", str(root)]) == 0
    assert "1 of 1 kernel(s) compile for sm_86" in capsys.readouterr().out
    assert main(["show", "k", str(root)]) == 0
    assert ".target sm_86" in capsys.readouterr().out


def test_cli_check_fails_where_the_build_fails_on_symbols(tmp_path, capsys):
    """proj.x__y.k and proj.x.y.k both map to proj__x__y__k: the build fails, so check fails."""
    root = _project(tmp_path, "", {"x__y.py": KERNEL, "x/__init__.py": "", "x/y.py": KERNEL})
    assert main(["check", str(root)]) == 1
    assert "map to the same symbol proj__x__y__k" in capsys.readouterr().err


def test_latin1_host_module_is_read_as_python_reads_it(tmp_path, capsys):
    host = "# -*- coding: latin-1 -*-\nNAME = 'caf\xe9'\n"
    root = _project(
        tmp_path, "", {"k.py": KERNEL.replace("from hybrid", "from . import host\nfrom hybrid"), "host.py": host}
    )
    assert main(["check", str(root)]) == 0, capsys.readouterr().err


ZERO_DIVISION = (
    KERNEL_PRELUDE
    + """
@kernel
def split(out: Array[i64], width: Array[i64]):
    i = gpu.global_tid_x()
    if i < len(out):
        w = int(width[i])  # a Python int, as on the Python path
        out[i] = (i * 10) // w
"""
)


@pytest.mark.parametrize("device", DEVICES)
def test_division_of_python_numbers_by_a_run_time_zero_raises_on_every_path(build, device):
    """Python ints (and floats) raise ZeroDivisionError in Python, so the compiled kernel raises it too,
    naming the kernel, file and line; NumPy scalars keep NumPy's inf/0 (the test above)."""
    b = build(ZERO_DIVISION)
    out = np.zeros(64, np.int64)
    width = np.ones(64, np.int64)
    b.module.split.launch(64, 1, out, width, device=device)
    assert np.array_equal(out, np.arange(64) * 10)
    width[17] = 0
    with pytest.raises(
        ZeroDivisionError, match=r"kernel .*split: division by zero .*kern.py:\d+: out\[i\] = \(i \* 10\) // w"
    ):
        b.module.split.launch(64, 1, out, width, device=device)
