"""Kernels typed at launch, as most numba-cuda code is (``@cuda.jit`` without a signature or annotations):
compiled for the signatures the project declares (the hook's ``signatures`` table) or records
(``hatch-hybrid record -- COMMAND`` into ``hybrid-signatures.json``); a launch no compiled signature
fits runs as written on the CPU with a warning naming the signature to add, and is a TypeError on a GPU."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from collections import namedtuple
from pathlib import Path

import numpy as np
import pytest
from conftest import DEVICES, HOST_TARGETS, compile_fixture, imported_package
from hybrid_runtime.lazy import signature_of

SOURCE = """
from hybrid_runtime import cuda


@cuda.jit
def axpy(a, x, y):
    i = cuda.grid(1)
    if i < y.size:
        y[i] = a * x[i] + y[i]


@cuda.jit(fastmath=False)
def bump(x):
    i = cuda.grid(1)
    if i < x.size:
        x[i] += 1


@cuda.jit
def shift_records(recs, dx):
    i = cuda.grid(1)
    if i < recs.size:
        r = recs[i]
        r.pos.x = r.pos.x + dx
        recs[i].n += 1


@cuda.jit
def tuples(out, shape, p, arrays):
    i = cuda.grid(1)
    if i < out.size:
        a, b = arrays
        out[i] = shape[0] * 10 + shape[1] + p.x * a[i] + p.y * arrays[1][i] + len(arrays)
"""
Point = namedtuple("Point", ("x", "y"))
#: numba's record: a structured dtype made with align=True, fields in an order of the author's (a nested one)
RECORD = np.dtype(
    [("n", np.uint8), ("pos", np.dtype([("x", np.float64), ("y", np.float32)], align=True)), ("w", np.int16)],
    align=True,
)
DECLARED = {
    "lz.kern.axpy": ["void(float32, float32[:], float32[:])", "void(int64, int64[:], int64[:])"],
    "lz.kern.shift_records": [signature_of((np.zeros(1, RECORD), 0.5))],
    "lz.kern.tuples": [signature_of((np.zeros(1), (1, 2), Point(1, 2.5), (np.zeros(1), np.zeros(1))))],
}


def _package(root: Path, signatures: dict[str, list[str]]):  # type: ignore[no-untyped-def]
    (root / "lz").mkdir(parents=True)
    (root / "lz" / "__init__.py").write_text("")
    (root / "lz" / "kern.py").write_text(SOURCE)
    untyped: list[str] = []
    kernels = compile_fixture([root / "lz"], root, cpu=HOST_TARGETS, signatures=signatures, untyped=untyped)
    return kernels, untyped


@pytest.fixture(scope="module")
def lz(tmp_path_factory):
    root = tmp_path_factory.mktemp("lazy")
    kernels, untyped = _package(root, DECLARED)
    names = [k.decl.qualname for k in kernels]
    assert names == ["lz.kern.axpy", "lz.kern.axpy", "lz.kern.shift_records", "lz.kern.tuples"]  # one per signature
    assert untyped == ["lz.kern.bump"]  # nothing declared: not compiled (the hook warns)
    with imported_package(root, "lz") as module:
        yield module


@pytest.mark.parametrize("device", ["cpu", "cpu-python"])
def test_declared_signatures_are_compiled(lz, device):
    x, y = np.arange(8, dtype=np.float32), np.ones(8, np.float32)
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*typed at launch")  # compiled: nothing to add
        lz.axpy.launch(8, 1, np.float32(2), x, y, device=device)
        xi, yi = np.arange(8), np.ones(8, np.int64)
        lz.axpy.launch(8, 1, 3, xi, yi, device=device)
    np.testing.assert_array_equal(y, 2 * x + 1)
    np.testing.assert_array_equal(yi, 3 * xi + 1)
    lz.axpy[1, 8](np.float32(1), x, y)  # kernel[blocks, threads] on the default device
    np.testing.assert_array_equal(y, 3 * x + 1)
    if device == "cpu" and HOST_TARGETS:  # (zig links the native code: where it is installed)
        assert lz.axpy.native_code(0) is not None and lz.axpy.native_code(1) is not None


def test_a_launch_no_signature_fits_runs_as_written_and_names_the_signature(lz):
    from hybrid_runtime import SlowPathWarning

    x, y = np.arange(8.0), np.ones(8)
    with pytest.warns(SlowPathWarning, match=r'add "void\(float64, float64\[:\], float64\[:\]\)".*lz\.kern\.axpy'):
        lz.axpy.launch(8, 1, 2.0, x, y, device="cpu")
    np.testing.assert_array_equal(y, 2 * x + 1)
    z = np.zeros(4, np.int32)
    with pytest.warns(SlowPathWarning, match=r'has no compiled signature.*add "void\(int32\[:\]\)"'):
        lz.bump.launch(4, 1, z, device="cpu")
    np.testing.assert_array_equal(z, np.ones(4))


@pytest.mark.gpu
def test_on_the_gpu_a_launch_no_signature_fits_says_which_to_add(lz):
    x, y = np.arange(8, dtype=np.float32), np.ones(8, np.float32)
    lz.axpy.launch(8, 1, np.float32(2), x, y, device="cuda")
    np.testing.assert_array_equal(y, 2 * x + 1)
    with pytest.raises(TypeError, match=r'add "void\(float64, float64\[:\], float64\[:\]\)"'):
        lz.axpy.launch(8, 1, 2.0, np.arange(8.0), np.ones(8), device="cuda")


def test_recorded_signatures_are_what_the_build_compiles(tmp_path):
    """``hatch-hybrid record -- COMMAND`` writes what COMMAND launches into hybrid-signatures.json (merged with
    what it holds); the hook's options read that file, and the build compiles those signatures."""
    from hatch_hybrid.hook.options import signatures

    root = tmp_path / "src"
    _package(root, {})
    script = tmp_path / "run.py"
    script.write_text(
        "import sys, warnings\nimport numpy as np\nwarnings.simplefilter('ignore')\n"
        f"sys.path.insert(0, {str(root)!r})\nfrom lz import kern\n"
        "kern.bump[1, 8](np.zeros(8, np.int32))\nkern.bump[1, 8](np.zeros(8, np.int32))\n"
        "kern.axpy.launch(8, 1, np.float32(1), np.ones(8, np.float32), np.ones(8, np.float32), device='cpu')\n"
        "record = np.dtype([('n', np.uint8), ('pos', np.dtype([('x', np.float64), ('y', np.float32)], align=True)),"
        " ('w', np.int16)], align=True)\n"
        "kern.shift_records[1, 8](np.zeros(8, record), 0.5)\n"
        "from collections import namedtuple\nPoint = namedtuple('Point', ('x', 'y'))\n"
        "kern.tuples[1, 8](np.zeros(8), (1, 2), Point(1, 2.5), (np.zeros(8), np.zeros(8)))\n"
    )
    into = tmp_path / "hybrid-signatures.json"
    into.write_text(json.dumps({"lz.kern.bump": ["void(float64[:])"]}))
    done = subprocess.run(
        [sys.executable, "-m", "hatch_hybrid", "record", "--into", str(into), "--", sys.executable, str(script)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "HYBRID_DEVICE": "cpu"},  # (on a GPU, a launch no signature fits is a TypeError)
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "recorded 5 launches of 4 kernels" in done.stderr
    recorded = json.loads(into.read_text())
    assert recorded == {
        "lz.kern.axpy": ["void(float32, float32[:], float32[:])"],
        "lz.kern.bump": ["void(float64[:])", "void(int32[:])"],
        "lz.kern.shift_records": DECLARED["lz.kern.shift_records"],  # numba's Record(...), read back below
        "lz.kern.tuples": DECLARED["lz.kern.tuples"],  # Tuple(...), UniTuple(... x 2), NamedTuple(...)
    }
    declared = signatures({}, tmp_path)
    assert declared == recorded
    kernels, untyped = _package(tmp_path / "rebuilt", declared)
    assert sorted(k.decl.qualname for k in kernels) == [
        "lz.kern.axpy", "lz.kern.bump", "lz.kern.bump", "lz.kern.shift_records", "lz.kern.tuples"
    ]  # fmt: skip
    assert untyped == []


def test_declared_signatures_are_checked(tmp_path):
    from hatch_hybrid.errors import CompileError
    from hatch_hybrid.hook.options import OptionError, signatures

    with pytest.raises(CompileError) as info:
        _package(tmp_path / "src", {"lz.kern.bump": ["void(float32[:], int32)"]})
    assert "the signatures declared for kernel `bump`" in info.value.message
    assert "2 parameter types and the kernel 1 parameter" in info.value.message
    assert info.value.loc is not None and info.value.loc.line == SOURCE.splitlines().index("def bump(x):") + 1
    with pytest.raises(OptionError, match="must be a table of kernel names to lists of numba signatures"):
        signatures({"signatures": {"lz.kern.bump": "void(float32[:])"}}, tmp_path)
    (tmp_path / "hybrid-signatures.json").write_text('["void(float32[:])"]')
    with pytest.raises(OptionError, match="is not a table of kernel names"):
        signatures({}, tmp_path)


@pytest.mark.parametrize("device", DEVICES)
def test_arrays_of_numba_records_typed_at_launch(lz, device):
    """An array of a structured dtype (numba's record; xoroshiro states are one) in a kernel typed at
    launch: its signature names the record as numba does, the build makes it a struct at the dtype's
    offsets, and fields (nested ones too) are read and written in place on every device."""
    text = DECLARED["lz.kern.shift_records"][0]
    assert text.startswith("void(Record(n[type=uint8;offset=0],pos[type=Record(x[type=float64;offset=0]")
    recs = np.zeros(50, RECORD)
    recs["pos"]["x"] = np.linspace(0, 1, 50)
    recs["w"] = 7
    want = recs.copy()
    want["pos"]["x"] += 0.5
    want["n"] += 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # compiled: no SlowPathWarning
        lz.shift_records[2, 32](recs, 0.5) if device == "cuda" else lz.shift_records.launch(
            32, 2, recs, 0.5, device=device
        )
    for field in (("n",), ("pos", "x"), ("pos", "y"), ("w",)):  # (padding is not data: NumPy's copy leaves it)
        got, expected = recs, want
        for name in field:
            got, expected = got[name], expected[name]
        np.testing.assert_array_equal(got, expected)


def test_a_packed_record_is_refused_with_a_located_error(tmp_path):
    from hatch_hybrid.errors import CompileError

    packed = np.dtype([("n", np.uint8), ("x", np.float64)])  # x at offset 1
    with pytest.raises(CompileError) as info:
        _package(tmp_path, {"lz.kern.shift_records": [signature_of((np.zeros(1, packed), 0.5))]})
    text = str(info.value)
    assert "kern.py:" in text and "packed" in text and "align=True" in text, text


@pytest.mark.parametrize("device", DEVICES)
def test_tuples_namedtuples_and_tuples_of_arrays_typed_at_launch(lz, device):
    """numba's UniTuple, NamedTuple and tuples of arrays as arguments of a kernel typed at launch: recorded
    and declared in numba's names, each item a parameter of the compiled kernel (arrays in tuples copied
    in and back as any array argument), the tuple itself on the Python path."""
    assert DECLARED["lz.kern.tuples"] == [
        "void(float64[:], UniTuple(int64 x 2), NamedTuple(x=int64, y=float64), UniTuple(float64[:] x 2))"
    ]
    a, b = np.linspace(0, 1, 40), np.linspace(2, 3, 40)
    out = np.zeros(40)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # compiled: no SlowPathWarning
        args = (out, (3, 4), Point(2, 0.5), (a, b))
        lz.tuples[2, 32](*args) if device == "cuda" else lz.tuples.launch(32, 2, *args, device=device)
    np.testing.assert_array_equal(out, 34 + 2 * a + 0.5 * b + 2)
    if device != "cpu":
        return
    from hybrid_runtime import SlowPathWarning

    with pytest.warns(SlowPathWarning, match=r"add \"void\(float64\[:\], UniTuple\(int64 x 3\), NamedTuple"):
        lz.tuples.launch(32, 2, out, (3, 4, 5), Point(2, 0.5), (a, b), device="cpu")  # not compiled: as written
    np.testing.assert_array_equal(out, 34 + 2 * a + 0.5 * b + 2)


#: numba-cuda's test record with an array field (test_record_dtype.py's `d`: five bytes)
ARRAY_RECORD = np.dtype([("a", np.float64), ("b", np.int32), ("c", np.complex64), ("d", (np.uint8, 5))], align=True)
ARRAY_SOURCE = """
from hybrid_runtime import cuda


@cuda.jit
def copy_records(ary, i, j):
    ary[i] = ary[j]
    ary[i].a += 1.0


@cuda.jit
def read_array_field(ary, out):
    out[0] = ary[0].d[1]
"""


def _array_record_package(root: Path, kernel: str):  # type: ignore[no-untyped-def]
    (root / "lr").mkdir(parents=True)
    (root / "lr" / "__init__.py").write_text("")
    (root / "lr" / "kern.py").write_text(ARRAY_SOURCE)
    args = (np.zeros(1, ARRAY_RECORD), 0, 0) if kernel == "copy_records" else (np.zeros(1, ARRAY_RECORD), np.zeros(1))
    signatures = {f"lr.kern.{kernel}": [signature_of(args)]}
    return compile_fixture([root / "lr"], root, cpu=HOST_TARGETS, signatures=signatures, untyped=[])


def test_records_with_array_fields_are_copied_whole(tmp_path):
    """A record whose dtype has an array field (numba-cuda's `d: (uint8, 5)`) is typed at launch: a kernel
    sets its numbers and copies whole records, the array field's bytes with them, on every CPU path."""
    _array_record_package(tmp_path / "src", "copy_records")
    with imported_package(tmp_path / "src", "lr") as m:
        for device in ("cpu", "cpu-python"):
            recs = np.zeros(3, ARRAY_RECORD)
            recs["a"], recs["b"], recs["c"] = [1.5, 2.5, 3.5], [4, 5, 6], [1j, 2j, 3j]
            recs["d"] = np.arange(15).reshape(3, 5)
            want = recs.copy()
            want[0] = want[2]
            want[0]["a"] += 1.0
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # compiled: no SlowPathWarning
                m.copy_records.launch(1, 1, recs, 0, 2, device=device)
            for field in ARRAY_RECORD.names:
                np.testing.assert_array_equal(recs[field], want[field], err_msg=f"{device}: {field}")


def test_indexing_a_record_s_array_field_is_a_located_error(tmp_path):
    from hatch_hybrid.errors import CompileError

    with pytest.raises(CompileError) as info:
        _array_record_package(tmp_path / "src", "read_array_field")
    text = str(info.value)
    assert "kern.py:" in text and "`d` is an array" in text and "argument of its own" in text, text


def test_a_record_scalar_argument_is_a_type_error_naming_the_parameter(lz):
    """numba passes a single record (``ary[0]``, a NumPy void) by reference; here a kernel typed at launch
    takes record arrays: the launch says so, naming the parameter, before anything runs."""
    with pytest.raises(TypeError, match=r"parameter `recs` is a void of .*one-record slice ary\[i:i \+ 1\]"):
        lz.shift_records.launch(1, 1, np.zeros(2, RECORD)[0], 0.5, device="cpu")
