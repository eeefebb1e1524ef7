"""Issue 19 item 3: kernel factories resolved at build time. A module-level function that defines a
``@kernel`` closing over its arguments, called at module level with build-time arguments, compiles one
kernel per call site (found by reading the source), named after the call; the runtime finds that code
from the closure the call makes. Closures over values the build cannot know are located errors."""

from __future__ import annotations

import importlib
import json
import math
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest
from conftest import DEVICES, KERNEL_PRELUDE
from hybrid_runtime import Array, i64, kernel

from hatch_hybrid.cache import KernelCache
from hatch_hybrid.errors import CompileError
from hatch_hybrid.pipeline import Options, compile_packages

FACTORIES = '''
SCALE = 2
WEIGHTS = np.array([0.25, 0.5, 0.25], dtype=np.float32)


def make_transpose(tile, dt=f64):
    """numba-cuda's kernels.transpose: the tile and the dtype are the factory's arguments."""
    tile_shape = (tile, tile + 1)

    def load(t, a, ty, tx, by, bx):
        if by + ty < a.shape[0] and bx + tx < a.shape[1]:
            t[ty, tx] = a[by + ty, bx + tx] * SCALE

    @kernel
    def transpose(a: Array[dt, 2], out: Array[dt, 2]):
        t = gpu.shared_array(shape=tile_shape, dtype=dt)
        tx = gpu.thread_idx_x()
        ty = gpu.thread_idx_y()
        bx = gpu.block_idx_x() * gpu.block_dim_x()
        by = gpu.block_idx_y() * gpu.block_dim_y()
        load(t, a, ty, tx, by, bx)
        gpu.syncthreads()
        if bx + ty < out.shape[0] and by + tx < out.shape[1]:
            out[bx + ty, by + tx] = t[tx, ty]

    return transpose


def make_map(op, k, weights):
    @kernel
    def apply(x: Array[f32], out: Array[f32]):
        i = gpu.global_tid_x()
        if i < x.size:
            acc = f32(0)
            for j in range(len(weights)):
                acc += weights[j] * x[i]
            out[i] = op(acc) * k

    return apply


def square(v):
    return v * v


transpose32 = make_transpose(32)
transpose8f = make_transpose(tile=8, dt=f32)
weighted_square = make_map(square, f32(3), WEIGHTS)
'''
SOURCE = KERNEL_PRELUDE + FACTORIES


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    from conftest import built_package

    compiled: dict = {}
    with built_package(tmp_path_factory.mktemp("factories"), "facpkg", SOURCE, native=True, compiled=compiled) as m:
        yield m, compiled


@pytest.mark.parametrize("device", DEVICES)
def test_each_call_compiles_a_kernel_that_matches_numpy(built, device):
    module, _ = built
    for k, dt, tile in ((module.transpose32, np.float64, 32), (module.transpose8f, np.float32, 8)):
        a = np.arange(45 * 37, dtype=dt).reshape(37, 45)
        out = np.zeros((45, 37), dtype=dt)
        k.launch((tile, tile), (-(-45 // tile), -(-37 // tile)), a, out, device=device)
        np.testing.assert_array_equal(out, 2 * a.T)
    x = np.linspace(-2, 2, 100, dtype=np.float32)
    out = np.zeros_like(x)
    module.weighted_square.launch(64, 2, x, out, device=device)
    acc = np.float32(0.25) * x + np.float32(0.5) * x + np.float32(0.25) * x
    np.testing.assert_array_equal(out, acc * acc * np.float32(3))


def test_kernels_are_named_after_their_calls(built, tmp_path):
    module, compiled = built
    assert set(compiled) == {"transpose32", "transpose8f", "weighted_square"}
    assert repr(module.transpose32) == "<kernel facpkg.kern.transpose32>"
    assert repr(module.weighted_square) == "<kernel facpkg.kern.weighted_square>"
    # the tile is the call's: 32 x 33 f64 and 8 x 9 f32 of shared memory
    assert compiled["transpose32"].codes.get("cpu") is not None
    ptx32, ptx8 = compiled["transpose32"].codes["ptx"].ptx["sm_90"], compiled["transpose8f"].codes["ptx"].ptx["sm_90"]
    assert "[8448]" in ptx32 and "[288]" in ptx8
    assert ".entry facpkg__kern__transpose32(" in ptx32
    site = compiled["transpose8f"].factory
    assert site["function"] == "facpkg.kern.make_transpose.<locals>.transpose"
    assert site["closure"] == {"dt": "dtype:float32", "tile_shape": "(int:8,int:9)"}
    assert compiled["weighted_square"].factory["closure"]["op"] == "function:facpkg.kern.square"
    assert compiled["weighted_square"].factory["closure"]["k"] == "float32:" + np.float32(3).tobytes().hex()


def test_list_shows_the_calls(tmp_path):
    pkg = tmp_path / "listpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "kern.py").write_text(SOURCE)
    out = subprocess.run(
        [sys.executable, "-m", "hatch_hybrid", "list", str(pkg)], capture_output=True, text=True, check=True
    ).stdout
    assert "listpkg.kern.transpose32(a: Array[f64, 2], out: Array[f64, 2])" in out
    assert "listpkg.kern.transpose8f(a: Array[f32, 2], out: Array[f32, 2])" in out
    assert "-> listpkg.kern.transpose8f.load(" in out
    assert "listpkg.kern.weighted_square(x: Array[f32], out: Array[f32])" in out


def test_a_call_the_build_did_not_compile_runs_the_python_function_and_says_why(built):
    from hybrid_runtime.manifest import ManifestError
    from hybrid_runtime.slowpath import SlowPathWarning

    module, _ = built
    k16 = module.make_transpose(16)  # made at run time: no compiled code
    assert "make_transpose.<locals>.transpose" in repr(k16)
    a = np.arange(20 * 18, dtype=np.float64).reshape(18, 20)
    out = np.zeros((20, 18))
    with pytest.warns(SlowPathWarning, match="factory call that the build did not compile"):
        k16.launch((16, 16), (2, 2), a, out, device="cpu")
    np.testing.assert_array_equal(out, 2 * a.T)
    with pytest.raises(ManifestError, match=r"compiled: facpkg\.kern\.transpose32, facpkg\.kern\.transpose8f"):
        k16.verify()


def test_a_closure_that_differs_from_the_build_is_refused(tmp_path):
    from conftest import built_package
    from hybrid_runtime.manifest import ManifestError, package_manifest

    with built_package(tmp_path, "stalepkg", SOURCE) as module:
        path = Path(module.__file__).parent / "_hybrid" / "manifest.json"
    data = json.loads(path.read_text())
    data["kernels"]["stalepkg.kern.transpose32"]["factory"]["closure"]["tile_shape"] = "(int:16,int:17)"
    path.write_text(json.dumps(data))
    package_manifest.cache_clear()
    sys.path.insert(0, str(tmp_path))
    try:
        module = importlib.import_module("stalepkg.kern")
        with pytest.raises(ManifestError, match=r"compiled closing over .*tile_shape=\(int:16,int:17\).*Rebuild"):
            module.transpose32.verify()
        assert module.transpose8f.verify() is None
    finally:
        sys.path.remove(str(tmp_path))
        for m in [m for m in sys.modules if m.split(".")[0] == "stalepkg"]:
            del sys.modules[m]
        package_manifest.cache_clear()


# ------------------------------------------------------------------------ errors
def compile_source(tmp_path: Path, source: str, cache: Path | None = None):
    pkg = tmp_path / "errpkg"
    pkg.mkdir(exist_ok=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "kern.py").write_text(KERNEL_PRELUDE + textwrap.dedent(source))
    return compile_packages([pkg], options=Options(["sm_90"], cubin=False, cache=KernelCache(cache)))


def error_of(tmp_path: Path, source: str) -> CompileError:
    with pytest.raises(CompileError) as info:
        compile_source(tmp_path, source)
    return info.value


def line_of(source: str, text: str) -> int:
    return (KERNEL_PRELUDE + textwrap.dedent(source)).splitlines().index(text) + 1


FACTORY = """
def make(n):
    @kernel
    def fill(x: Array[i32]):
        i = gpu.global_tid_x()
        if i < x.size:
            x[i] = n
    return fill

"""


def test_an_argument_known_only_at_run_time_is_a_located_error(tmp_path):
    source = "import os\nN = os.cpu_count()\n" + FACTORY + "fill_n = make(N)\n"
    err = error_of(tmp_path, source)
    assert err.loc.line == line_of(source, "fill_n = make(N)")
    assert "argument `n` of kernel factory `make` must be known at build time" in err.message
    assert "pass anything else to the kernel as a parameter" in err.hint


def test_a_factory_value_computed_at_run_time_is_a_located_error(tmp_path):
    source = """
import os


def make(n):
    tpb = os.cpu_count()

    @kernel
    def fill(x: Array[i32]):
        x[0] = tpb

    return fill


fill_n = make(4)
"""
    err = error_of(tmp_path, source)
    assert err.loc.line == line_of(source, "        x[0] = tpb")
    assert "kernels cannot read the kernel factory's `tpb`" in err.message


@pytest.mark.parametrize(
    ("body", "bad", "message"),
    [
        ("    if n > 2:\n        n = 2\n", "    if n > 2:", "a kernel factory cannot run `if` statements"),
        ("", "    return 7", "must return the kernel it defines"),
    ],
)
def test_a_factory_that_is_more_than_values_and_functions_is_a_located_error(tmp_path, body, bad, message):
    returned = "    return 7\n" if "return 7" in bad else "    return fill\n"
    source = (
        "def make(n):\n"
        + body
        + "    @kernel\n    def fill(x: Array[i32]):\n        x[0] = n\n"
        + returned
        + "\nfill_n = make(4)\n"
    )
    err = error_of(tmp_path, source)
    assert message in err.message
    assert err.loc.line == line_of(source, bad)


def test_a_decorator_named_like_the_kernel_is_pythons_unboundlocalerror(tmp_path):
    source = """
def make(n):
    @kernel
    def kernel(x: Array[i32]):
        x[0] = n
    return kernel


k = make(4)
"""
    err = error_of(tmp_path, source)
    assert "Python raises UnboundLocalError here" in err.message
    assert err.loc.line == line_of(source, "    @kernel")


def test_annotations_python_evaluates_later_cannot_name_the_factorys_values(tmp_path):
    source = """
def make(dt):
    @kernel
    def fill(x: "Array[dt]"):
        x[0] = 1
    return fill


k = make(f32)
"""
    err = error_of(tmp_path, source)
    assert "the annotation of `x` names the factory's `dt`" in err.message
    assert "remove `from __future__ import annotations`" in err.hint


def test_the_kernel_a_factory_makes_is_bound_to_one_name(tmp_path):
    source = FACTORY + "a, b = make(1), make(2)\nc, d = make(3)\n"
    err = error_of(tmp_path, source)
    assert "bind the kernel it makes to one name" in err.message
    assert err.loc.line == line_of(source, "c, d = make(3)")


def test_changing_a_calls_arguments_recompiles_only_that_kernel(tmp_path):
    source = FACTORY + "one = make(1)\ntwo = make(2)\n"
    cache = tmp_path / "cache"
    first = {k.decl.label: k for k in compile_source(tmp_path, source, cache)}
    assert first["one"].factory["closure"] == {"n": "int:1"}
    again = {k.decl.label: k for k in compile_source(tmp_path, source, cache)}
    assert again["one"].cached and again["two"].cached
    changed = {k.decl.label: k for k in compile_source(tmp_path, source.replace("make(2)", "make(5)"), cache)}
    assert not changed["two"].cached and changed["two"].factory["closure"] == {"n": "int:5"}
    assert "5" in changed["two"].codes["ptx"].ptx["sm_90"].split(".entry")[1]


def test_the_python_path_gets_the_factorys_helpers_with_ieee_math():
    """The Python path's math runs the device's math also in helpers the kernel closes over."""
    from hybrid_runtime.python_math import with_ieee_math

    def make(k):
        def helper(v):
            return math.exp(v) * k

        def body(v):
            return helper(v)

        return body

    original = make(2.0)
    patched = with_ieee_math(original)
    inner = patched.__closure__[0].cell_contents
    assert inner is not original.__closure__[0].cell_contents
    assert inner.__globals__["math"] is not math and original.__closure__[0].cell_contents.__globals__["math"] is math
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert patched(0.0) == 2.0


def test_an_argument_read_from_another_module_recompiles_when_it_changes(tmp_path):
    pkg = tmp_path / "errpkg"
    pkg.mkdir()
    (pkg / "cfg.py").write_text("N = 1\n")
    source = "from .cfg import N\n" + FACTORY + "fill_n = make(N)\n"
    cache = tmp_path / "cache"
    first = {k.decl.label: k for k in compile_source(tmp_path, source, cache)}
    assert first["fill_n"].factory["closure"] == {"n": "int:1"}
    (pkg / "cfg.py").write_text("N = 3\n")
    again = {k.decl.label: k for k in compile_source(tmp_path, source, cache)}
    assert not again["fill_n"].cached and again["fill_n"].factory["closure"] == {"n": "int:3"}
    assert "3" in again["fill_n"].codes["ptx"].ptx["sm_90"].split(".entry")[1]


def test_two_calls_on_one_line_each_find_their_own_code(tmp_path):
    from conftest import built_package

    source = KERNEL_PRELUDE + FACTORY + "one = make(1); two = make(2)\n"
    with built_package(tmp_path, "twopkg", source) as module:
        assert repr(module.one) == "<kernel twopkg.kern.one>" and repr(module.two) == "<kernel twopkg.kern.two>"
        module.two.verify()
        x = np.zeros(4, np.int32)
        module.two.launch(32, 1, x, device="cpu-python")
        assert list(x) == [2, 2, 2, 2]


@pytest.mark.parametrize("extra", ["fill_n = make(2)\n", "@kernel\ndef fill_n(x: Array[i32]):\n    x[0] = 1\n"])
def test_a_kernel_name_bound_twice_is_a_located_error(tmp_path, extra):
    source = FACTORY + "fill_n = make(1)\n" + extra
    err = error_of(tmp_path, source)
    assert "names the kernel this call of factory `make` makes, and is bound again" in err.message
    assert err.loc.line == line_of(source, "fill_n = make(1)")


def test_a_closure_over_a_recursive_helper_has_no_compiled_code_and_runs():
    """Kernels defined in functions (not compiled) may close over anything Python allows."""
    from hybrid_runtime.factories import closure_key

    def make(n):
        def fact(k):
            return 1 if k <= 1 else k * fact(k - 1)

        @kernel
        def k(x: Array[i64]):
            x[0] = fact(n)

        return k

    k = make(4)
    assert closure_key(k.py_func) is None
    x = np.zeros(1, np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the slow path's warning, once per package
        k.launch(1, 1, x, device="cpu")
    assert x[0] == 24


def test_module_level_calls_into_unreadable_modules_are_not_factories(tmp_path):
    """Every module-level call is looked at for a factory: one into an installed module the build cannot
    parse (or that is no function) leaves the package's kernels alone."""
    (tmp_path / "site" / "brokenlib").mkdir(parents=True)
    (tmp_path / "site" / "brokenlib" / "__init__.py").write_text("def f(:\n    pass\n")
    pkg = tmp_path / "okpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "kern.py").write_text(KERNEL_PRELUDE + "import brokenlib\nX = brokenlib.f()\n" + FACTORY + "k = make(3)\n")
    kernels = compile_packages(
        [pkg],
        options=Options(["sm_90"], cubin=False, cache=KernelCache(None)),
        search_path=[str(tmp_path / "site"), *sys.path],
    )
    assert [k.decl.label for k in kernels] == ["k"]
