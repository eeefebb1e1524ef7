"""Issue 14, item 4: constant tables. Module-level tuples of numbers and NumPy arrays read in kernels and
helpers with run-time indices: compiled into the module (constant memory on the GPU, a constant global in
native code; PTX through ptxas), the Python path reading the module's own values, with the same results on
every device; writing to a table, and tables of no single element type, are located compile errors."""

from __future__ import annotations

import re
import textwrap

import numpy as np
import pytest
from conftest import DEVICES, KERNEL_PRELUDE
from test_errors import assert_located

from hatch_hybrid.errors import CompileError
from hatch_hybrid.pipeline import compile_packages

SOURCE = (
    KERNEL_PRELUDE
    + """
from numpy import float32
from hybrid_runtime import cuda

COEFS = (1.0, -0.3, 0.1, 1 / 3, -0.7)
W = np.array([[1, 2, 1], [2, 4, 2], [1, 2, 1]], dtype=np.float32) / 16
PERM = (3, 1, 0, 2)
PAIR = (10, 3)
GRID = ((1.5, 2.5, 3.5), (-1.0, -2.0, -3.0))
FLAGS = (True, False, False, True, True)
RAMP = np.linspace(0.0, 1.0, 9)
SQUARES = np.arange(8) ** 2
HALVES = np.asarray(COEFS, dtype=np.float32)
BIG = np.arange(12000, dtype=np.float32) * 0.5
BIG2 = np.arange(12000).astype(np.int32)


def horner(coefs, x):
    acc = x * 0.0
    for k in range(len(coefs)):
        acc = acc * x + coefs[k]
    return acc


def row_sum(row: Array[f32]) -> f32:
    s = f32(0.0)
    for k in range(len(row)):
        s += row[k]
    return s


def ends(pair):
    a, b = pair
    return a - b


@kernel
def poly(xs: Array[f32], out: Array[f32]):
    i = gpu.global_tid_x()
    if i < len(xs):
        acc = f32(0.0)
        for k in range(len(COEFS)):
            acc = acc * xs[i] + COEFS[k]
        out[i] = acc


@kernel
def poly_helper(xs: Array[f64], out: Array[f64, 2]):
    i = gpu.global_tid_x()
    if i < len(xs):
        out[i, 0] = horner(COEFS, xs[i])
        out[i, 1] = horner(HALVES, xs[i])
        out[i, 2] = horner(cuda.const.array_like(RAMP), xs[i])


@kernel
def stencil(img: Array[f32, 2], out: Array[f32, 2]):
    i = gpu.global_tid_x()
    n, m = img.shape
    if i < n * m:
        r = i // m
        c = i % m
        acc = f32(0.0)
        for dr in range(W.shape[0]):
            for dc in range(W.shape[1]):
                rr = min(max(r + dr - 1, 0), n - 1)
                cc = min(max(c + dc - 1, 0), m - 1)
                acc += W[dr, dc] * img[rr, cc]
        out[r, c] = acc + row_sum(W[r % 3]) * f32(W.size)


@kernel
def numba_stencil(img: Array[float32, 2], out: Array[float32, 2]):
    w = cuda.const.array_like(W)
    i = cuda.grid(1)
    n, m = img.shape
    if i < n * m:
        r = i // m
        c = i % m
        acc = float32(0.0)
        for dr in range(w.shape[0]):
            for dc in range(w.shape[1]):
                rr = min(max(r + dr - 1, 0), n - 1)
                cc = min(max(c + dc - 1, 0), m - 1)
                acc += w[dr, dc] * img[rr, cc]
        out[r, c] = acc + row_sum(w[r % 3]) * float32(w.size)


@kernel
def lookups(xs: Array[i64], out: Array[f64, 2]):
    i = gpu.global_tid_x()
    if i < len(xs):
        j = xs[i]
        out[i, 0] = xs[(i // 4) * 4 + PERM[i % 4]]
        out[i, 1] = GRID[j % 2][j % 3] + GRID[-1][j % 3 - 3]
        row = GRID[j % 2]
        out[i, 2] = row[j % 3] * len(row) + ends(PAIR) + ends((COEFS[0], COEFS[1]))
        out[i, 3] = 1.0 if FLAGS[j % len(FLAGS)] else -1.0
        out[i, 4] = RAMP[j % RAMP.size] + SQUARES[j % len(SQUARES)]
        out[i, 5] = BIG[j * 997 % len(BIG)] + BIG2[j * 991 % BIG2.shape[0]]
        scratch = gpu.local_array(f64, len(COEFS))
        for k in range(len(scratch)):
            scratch[k] = COEFS[(k + j) % len(COEFS)]
        out[i, 6] = scratch[j % len(COEFS)]


@kernel
def across_barrier(out: Array[f64]):
    tile = gpu.shared_array(f64, 32)
    t = gpu.thread_idx_x()
    w = RAMP  # a local bound to a table, live across the barrier
    tile[t] = w[t % len(w)] * 2.0
    gpu.syncthreads()
    out[gpu.global_tid_x()] = tile[(t + 1) % 32] + w[(t + 3) % w.size] + sum_row(GRID, t % 2)


def sum_row(grid, r):
    s = 0.0
    for c in range(len(grid[r])):
        s += grid[r][c]
    return s


@kernel(debug=True)
def checked_read(out: Array[f64], k: i64, which: i64):
    if which == 0:
        out[0] = RAMP[k]
    else:
        out[0] = COEFS[k]
"""
)


@pytest.fixture
def tables(build):  # type: ignore[no-untyped-def]
    return build(SOURCE, shared=True)


COEFS = (1.0, -0.3, 0.1, 1 / 3, -0.7)
W = np.array([[1, 2, 1], [2, 4, 2], [1, 2, 1]], dtype=np.float32) / 16
GRID = ((1.5, 2.5, 3.5), (-1.0, -2.0, -3.0))
BIG = np.arange(12000, dtype=np.float32) * 0.5


def _horner(coefs, x: np.ndarray) -> np.ndarray:  # type: ignore[no-untyped-def]
    acc = x * 0.0
    for c in coefs:
        acc = acc * x + c
    return acc


@pytest.mark.parametrize("device", DEVICES)
def test_polynomial_table_elements_are_python_floats(tables, device: str) -> None:  # type: ignore[no-untyped-def]
    """COEFS[k] is a Python float on the CPU path, so `acc * x + COEFS[k]` stays in f32: every step
    rounds to f32, as NumPy does (a table read as f64 would round differently)."""
    xs = np.linspace(-2, 2, 50, dtype=np.float32)
    out = np.zeros_like(xs)
    tables.module.poly.launch(32, 2, xs, out, device=device)
    acc = np.zeros_like(xs)
    for c in COEFS:
        acc = acc * xs + np.float32(c)
    assert acc.dtype == np.float32
    np.testing.assert_array_equal(out, acc)
    assert not np.array_equal(acc, (_horner(COEFS, xs.astype(np.float64))).astype(np.float32))


@pytest.mark.parametrize("device", DEVICES)
def test_tables_passed_to_a_helper(tables, device: str) -> None:  # type: ignore[no-untyped-def]
    xs = np.linspace(-1.5, 1.5, 40)
    out = np.zeros((40, 3))
    tables.module.poly_helper.launch(32, 2, xs, out, device=device)
    np.testing.assert_array_equal(out[:, 0], _horner(COEFS, xs))
    np.testing.assert_array_equal(out[:, 1], _horner(np.asarray(COEFS, dtype=np.float32), xs))
    np.testing.assert_array_equal(out[:, 2], _horner(np.linspace(0.0, 1.0, 9), xs))


def _stencil(img: np.ndarray) -> np.ndarray:
    n, m = img.shape
    padded = np.pad(img, 1, mode="edge")
    acc = np.zeros_like(img)
    for dr in range(3):
        for dc in range(3):
            acc += W[dr, dc] * padded[dr : dr + n, dc : dc + m]
    rows = np.zeros(3, np.float32)
    for k in range(3):
        rows += W[:, k]
    return acc + (rows[np.arange(n) % 3] * np.float32(9))[:, None]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("kernel", ["stencil", "numba_stencil"])
def test_2d_stencil_weights(tables, device: str, kernel: str) -> None:  # type: ignore[no-untyped-def]
    img = np.random.default_rng(5).standard_normal((7, 11)).astype(np.float32)
    out = np.zeros_like(img)
    getattr(tables.module, kernel).launch(32, 3, img, out, device=device)
    np.testing.assert_array_equal(out, _stencil(img))


@pytest.mark.parametrize("device", DEVICES)
def test_lookups_int_bool_nested_and_large_tables(tables, device: str) -> None:  # type: ignore[no-untyped-def]
    xs = np.array([5, -7, 0, 13, 2, 8, -1, 100, 33, 4, 9, -20], dtype=np.int64)
    out = np.zeros((len(xs), 7))
    tables.module.lookups.launch(8, 2, xs, out, device=device)
    i = np.arange(len(xs))
    perm = np.array([3, 1, 0, 2])
    np.testing.assert_array_equal(out[:, 0], xs[(i // 4) * 4 + perm[i % 4]])
    grid = np.array(GRID)
    j = xs
    np.testing.assert_array_equal(out[:, 1], grid[j % 2, j % 3] + grid[-1, j % 3 - 3])
    np.testing.assert_array_equal(out[:, 2], grid[j % 2, j % 3] * 3 + (10 - 3) + (1.0 - -0.3))
    np.testing.assert_array_equal(out[:, 3], np.where(np.array([1, 0, 0, 1, 1], bool)[j % 5], 1.0, -1.0))
    np.testing.assert_array_equal(out[:, 4], np.linspace(0.0, 1.0, 9)[j % 9] + (np.arange(8) ** 2)[j % 8])
    big2 = np.arange(12000).astype(np.int32)
    np.testing.assert_array_equal(out[:, 5], BIG[j * 997 % 12000].astype(np.float64) + big2[j * 991 % 12000])
    np.testing.assert_array_equal(out[:, 6], np.array(COEFS)[(j % 5 + j) % 5])


def test_tables_live_in_constant_memory_then_read_only_global_memory(tables) -> None:  # type: ignore[no-untyped-def]
    """Small tables are `.const` data read with ld.const; once a module's tables pass 64 KiB, the rest are
    read-only global memory read with ld.global.nc (ptxas assembled every PTX for sm_70 and sm_90)."""
    for arch in ("sm_70", "sm_90"):
        ptx = tables.ptx("lookups", arch)
        assert "ld.const." in ptx
        assert ".const .align 4 .b8 hybrid_table_" in ptx  # BIG: 48000 bytes, still in the 64 KiB bank
        assert ".global .align 4 .b8 hybrid_table_" in ptx  # BIG2: would pass 64 KiB
        assert "ld.global.nc." in ptx
        consts = re.findall(r"^\.const .*?\[(\d+)\]", ptx, flags=re.M)
        assert 48000 < sum(map(int, consts)) <= 64 * 1024
    for name in ("poly_helper", "stencil", "numba_stencil"):
        assert not re.search(r"\.global .*hybrid_table_", tables.ptx(name))  # their tables fit constant memory
    # the numba spelling compiles to the same code as reading the module constant
    package = tables.package_dir.name
    a = tables.ptx("stencil").replace(package, "P").replace("numba_stencil", "K").replace("stencil", "K")
    b = tables.ptx("numba_stencil").replace(package, "P").replace("numba_stencil", "K")
    code = [sorted(line for line in ptx.splitlines() if not line.lstrip().startswith(".loc")) for ptx in (a, b)]
    assert code[0] == code[1]  # the same code (on other source lines), its globals in another order


@pytest.mark.parametrize("device", DEVICES)
def test_table_read_across_a_barrier(tables, device: str) -> None:  # type: ignore[no-untyped-def]
    """Native CPU code runs a block's threads as loops between barriers: a table bound to a local is read
    on both sides; a nested tuple passed to a helper is indexed row by row."""
    out = np.zeros(64)
    tables.module.across_barrier.launch(32, 2, out, device=device)
    ramp = np.linspace(0.0, 1.0, 9)
    t = np.arange(64) % 32
    expected = ramp[((t + 1) % 32) % 9] * 2.0 + ramp[(t + 3) % 9] + np.array(GRID).sum(axis=1)[t % 2]
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("device", DEVICES)
def test_debug_checks_table_indices(tables, device: str) -> None:  # type: ignore[no-untyped-def]
    """With debug=True a table read out of bounds raises IndexError on every device, as the Python path's
    tuple or array does; negative indices count from the end."""
    out = np.zeros(1)
    tables.module.checked_read.launch(1, 1, out, -9, 0, device=device)
    assert out[0] == 0.0
    tables.module.checked_read.launch(1, 1, out, -1, 1, device=device)
    assert out[0] == COEFS[-1]
    with pytest.raises(IndexError, match="index 9 is out of bounds for axis 0 with size 9"):
        tables.module.checked_read.launch(1, 1, out, 9, 0, device=device)
    with pytest.raises(IndexError):
        tables.module.checked_read.launch(1, 1, out, -6, 1, device=device)


ERROR_MODULE = (
    KERNEL_PRELUDE
    + """
TABLE = (1.0, 2.0, 4.0)
ARR = np.array([1, 2, 3], dtype=np.int32)
MIXED = (1, 2.5, 3)
RAGGED = ((1.0, 2.0), (3.0,))
NESTED = ((1.0, 2.0), (3.0, 4.0))
NOISE = np.random.rand(4)
HUGE = np.arange(300000, dtype=np.float64)
EMPTY = np.array([], dtype=np.float32)
NARROW = np.array([1, 300], dtype=np.uint8)
HUGEINT = (1, 2**63)


def clear(t, i):
    t[i] = 0


def size_of(t):
    return t.size


"""
)
# (kernel body, the snippet the caret must start at, message part, hint part)
ERRORS = [
    ("TABLE[n] = 1.0", "TABLE[n]", "cannot change `TABLE` with an assignment", "gpu.local_array"),
    ("ARR[n] += 1", "ARR[n]", "cannot change `ARR` with an assignment", "build time"),
    ("gpu.atomic_add(ARR, n, 1)", "ARR, n", "cannot change `ARR` with gpu.atomic_add", "array argument"),
    ("clear(ARR, n)", "t[i] = 0", "cannot change `ARR` with an assignment", "gpu.local_array"),
    ("TABLE[0] = 1.0", "TABLE[0]", "cannot change an item of a tuple", "TypeError"),
    (
        "x[0] = MIXED[n]",
        "MIXED[n]",
        "`MIXED` cannot be indexed at run time: it mixes float and int elements",
        "np.array",
    ),
    ("x[0] = RAGGED[n][0]", "RAGGED[n]", "its rows have different lengths (1, 2)", "np.array"),
    ("x[0] = NESTED[n, 0]", "n, 0", "indexed one level at a time", "NESTED[r][c]"),
    ("x[0] = TABLE.shape[0]", "TABLE.shape", "has no attribute `shape`", None),
    ("x[0] = size_of(TABLE)", "t.size", "`TABLE` is a tuple, which has no attribute `size`", "len(TABLE)"),
    ("t = (1.0, n)\nx[0] = t[n]", "n]", "a tuple of 2 can only be indexed with a literal", "module-level constant"),
    ("x[0] = NOISE[n]", "NOISE", "it is a call of `numpy.random.rand`", "NumPy arrays"),
    ("x[0] = HUGE[n]", "np.arange(300000", "takes 2400000 bytes", "array argument"),
    ("x[0] = EMPTY[n]", "EMPTY", "`EMPTY` is an empty array", None),
    ("x[0] = NARROW[n]", "np.array([1, 300]", "out of bounds for uint8", "NumPy raises"),
    ("x[0] = HUGEINT[n]", "HUGEINT[n]", "an int does not fit in 64 bits", "np.array"),
    ("x[0] = ARR[n, 0]", "n, 0", "`ARR` has 1 dimensions, not 2", None),
    ("x[0] = ARR[0.5]", "0.5", "table indices must be integers", "int("),
    ("x[0] = ARR[1:][n]", "1:", "`ARR` is a constant table, which is not sliced", "ARR[i]"),
]


@pytest.mark.parametrize("body, marked, message, hint", ERRORS, ids=[e[2][:40] for e in ERRORS])
def test_table_errors_are_located(tmp_path, body: str, marked: str, message: str, hint: str | None) -> None:  # type: ignore[no-untyped-def]
    pkg = tmp_path / "tabpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    source = ERROR_MODULE + "@kernel\ndef k(x: Array[f32], n: i32):\n" + textwrap.indent(body, "    ") + "\n"
    (pkg / "k.py").write_text(source)
    with pytest.raises(CompileError) as info:
        compile_packages([pkg], ["sm_90"])
    assert_located(info.value, pkg / "k.py", marked, message, hint)


ARRAY_CONSTANTS = """
import math
import numpy as np
from hybrid_runtime import f32, i16

TWO = 2.0
TUP = (0.1, 0.2, 1 / 3)
NESTED = ((1, 2), (3, 4), (5, 6))
A1 = np.array([1, 2, 3])
A2 = np.array([1.5, 2, 3])
A3 = np.array([[1, 2], [3, 4]], dtype=np.float32)
A4 = np.array((1, -2), dtype="int16")
A5 = np.array(TUP, dtype=f32)
A6 = np.asarray(NESTED, dtype=np.float64)
A7 = np.arange(5)
A8 = np.arange(1, 10, 2, dtype=np.int32)
A9 = np.linspace(0.0, 1.0, 7)
A10 = np.linspace(-1, 1, num=5, dtype=np.float32)
A11 = (np.arange(6) * 0.5 - 1).astype(np.float32)
A12 = np.array([True, False, True])
A13 = -np.array([1, 2], dtype=np.uint8)
A14 = np.array([1, 2], dtype=np.int8) * 100
A15 = np.array([math.pi, TWO, math.sqrt(TWO)], dtype=float)
A16 = A3 / 16 + 1
A17 = np.array([f32(0.1), f32(0.2)])
A18 = np.array([0, 2, 0], dtype=bool)
A19 = np.array([[1], [2]], dtype=i16) // 2
A20 = ~np.arange(3, dtype=np.uint16)
"""


def test_array_constants_are_what_numpy_computes_at_import(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from hatch_hybrid.frontend.discover import ConstSym, ModuleIndex

    pkg = tmp_path / "arrpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "m.py").write_text(ARRAY_CONSTANTS)
    index = ModuleIndex()
    index.add_package(pkg)
    namespace: dict = {}
    with np.errstate(all="ignore"):
        exec(ARRAY_CONSTANTS, namespace)
    names = [n for n in namespace if n[0] == "A" and n[1:].isdigit()]
    assert len(names) == 20
    for name in names:
        sym = index.resolve_global("arrpkg.m", name)
        assert isinstance(sym, ConstSym), (name, sym)
        expected = namespace[name]
        assert sym.value.dtype == expected.dtype and sym.value.shape == expected.shape, name
        np.testing.assert_array_equal(sym.value, expected, err_msg=name)
    nested = index.resolve_global("arrpkg.m", "NESTED")
    assert isinstance(nested, ConstSym) and nested.value == ((1, 2), (3, 4), (5, 6))


SHARED_TO_HELPER = (
    KERNEL_PRELUDE
    + """
def fill(a, v):
    a[0, 1] = v
    return a[0, 1]


@kernel
def k(out: Array[f32]):
    out[0] = fill(gpu.shared_array(f32, (2, 2)), f32(1.5)) + fill(gpu.local_array(f32, (1, 2)), f32(2.0))
"""
)


@pytest.mark.parametrize("device", DEVICES)
def test_arrays_with_a_constant_shape_are_not_tables(build, device: str) -> None:  # type: ignore[no-untyped-def]
    """A shared or local array passed straight to a helper stays a writable array (its shape is known at
    compile time, its values are not)."""
    out = np.zeros(1, np.float32)
    build(SHARED_TO_HELPER).module.k.launch(1, 1, out, device=device)
    assert out[0] == 3.5


COMPLEX_TABLES = (
    KERNEL_PRELUDE
    + """
from hybrid_runtime import c64

ROTS = np.array([1, 1j, -1, -1j, 0.5 + 0.5j], dtype=np.complex64)
SHIFTS = (1 + 2j, 3j, -0.25 + 0j)


@kernel
def rotate(zs: Array[c64], out: Array[c64]):
    i = gpu.global_tid_x()
    if i < len(zs):
        out[i] = zs[i] * ROTS[i % len(ROTS)] + SHIFTS[i % 3]
"""
)


@pytest.mark.parametrize("device", DEVICES)
def test_complex_tables(build, device: str) -> None:  # type: ignore[no-untyped-def]
    """An np.complex64 table gives NumPy complex64 scalars; a tuple of Python complex numbers gives
    Python complex values (weak: c64 + Python complex stays c64)."""
    b = build(COMPLEX_TABLES)
    rng = np.random.default_rng(3)
    zs = (rng.standard_normal(50) + 1j * rng.standard_normal(50)).astype(np.complex64)
    out = np.zeros_like(zs)
    b.module.rotate.launch(32, 2, zs, out, device=device)
    rots = np.array([1, 1j, -1, -1j, 0.5 + 0.5j], dtype=np.complex64)
    shifts = (1 + 2j, 3j, -0.25 + 0j)
    want = [zs[i] * rots[i % 5] + shifts[i % 3] for i in range(50)]
    assert all(w.dtype == np.complex64 for w in want)
    np.testing.assert_array_equal(out, np.array(want))
