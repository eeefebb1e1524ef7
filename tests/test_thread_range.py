"""Native kernels guarded by a test of the thread's global position run only the threads in range
(targets/host/lowering/thread_range.py): which guards give a range, and that the native code gives the
Python path's results bit for bit at the range's edges (grids larger than the data, lower bounds,
inclusive bounds, empty and saturated ranges, both axes, the per-block driver)."""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType

import numpy as np
import pytest
from conftest import KERNEL_PRELUDE, built_package, same_bits

from hatch_hybrid.targets.host.lowering.thread_range import thread_range

SOURCE = (
    KERNEL_PRELUDE
    + """
@kernel
def bitonic(x: Array[f32], j: i64, k: i64):
    i = gpu.global_tid_x()
    if i < len(x):
        partner = i ^ j
        if partner > i:
            a, b = x[i], x[partner]
            if ((i & k) == 0) == (a > b):
                x[i], x[partner] = b, a


@kernel
def inner(x: Array[f32], out: Array[f32]):
    i = gpu.global_tid_x()
    if 0 < i < len(x) - 1:
        out[i] = x[i - 1] + x[i + 1]


@kernel
def inclusive(out: Array[i64], lo: i64, hi: i64):
    i = gpu.global_tid_x()
    n = len(out) - 1
    if lo <= i and i <= hi and n >= i:
        out[i] = i * 3


@kernel
def mirrored(out: Array[i64], m: i32):
    i = gpu.global_tid_x()
    if m > i and len(out) > i and -5 < i:
        out[i] += 1


@kernel
def stencil(src: Array[f32, 2], dst: Array[f32, 2]):
    x, y = gpu.grid(2)
    if 0 < y < src.shape[0] - 1 and 0 < x < src.shape[1] - 1:
        dst[y, x] = f32(0.25) * (src[y - 1, x] + src[y + 1, x] + src[y, x - 1] + src[y, x + 1]) - src[y, x]


@kernel
def rows_only(out: Array[i32, 2], n: i64):
    r = gpu.global_tid_y()
    c = gpu.global_tid_x()
    if r < n and c < out.shape[1] and r < out.shape[0]:
        out[r, c] = i32(r * 100 + c)


@kernel
def per_block(out: Array[i32], n: i64):
    i = gpu.block_idx_x() * gpu.block_dim_x() + gpu.thread_idx_x()
    if i < n:
        out[i] = gpu.thread_idx_x() * 1000 + gpu.block_idx_x()


@kernel
def read_before(x: Array[f32], out: Array[f32], n: i64):
    i = gpu.global_tid_x()
    v = x[i]
    if i < n:
        out[i] = v * 2


@kernel(debug=True)
def read_before_checked(x: Array[f32], out: Array[f32], n: i64):
    i = gpu.global_tid_x()
    v = x[i]
    if i < n:
        out[i] = v * 2

@kernel
def cast_before(out: Array[i8], n: i64):
    i = gpu.global_tid_x()
    v = i8(i)
    if i < n:
        out[i] = v


@kernel
def arith_before(out: Array[i8], b: i8, n: i64):
    i = gpu.global_tid_x()
    v = b + i
    if i < n:
        out[i] = v


@kernel
def uniform_before(x: Array[f32], b: i8, n: i64):
    i = gpu.global_tid_x()
    v = b + len(x)
    if i < n:
        x[i] = f32(v)


@kernel
def slice_before(x: Array[i64], s: i64, n: i64):
    i = gpu.global_tid_x()
    m = len(x[::s])
    if i < n:
        x[i] = m


@kernel
def failing_bound(x: Array[f32], b: i8, n: i64, flag: boolean):
    i = gpu.global_tid_x()
    if flag and i < n and i < n + (b + len(x)):
        x[i] = 1.0


@kernel
def parameter_named_i(x: Array[f32], i: i64):
    if i < len(x):
        i = gpu.global_tid_x()
        x[i] = 1.0
"""
)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    with built_package(tmp_path_factory.mktemp("range"), "thread_range_pkg", SOURCE, native=True) as module:
        yield module


def outcome(kernel, blocks, threads, *args):  # type: ignore[no-untyped-def]
    """Per device: ("ok", the arrays after the launch) or ("raise", the exception's type and message)."""
    found = {}
    for device in ("cpu-python", "cpu"):
        copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        try:
            kernel.launch(threads, blocks, *copies, device=device)
            found[device] = ("ok", [a for a in copies if isinstance(a, np.ndarray)])
        except Exception as exc:
            found[device] = ("raise", f"{type(exc).__name__}: {str(exc).splitlines()[0]}")
    return found


def assert_same(kernel, blocks, threads, *args) -> None:  # type: ignore[no-untyped-def]
    """Native code and the Python path both run the launch, to the same bits."""
    assert kernel.native_code() is not None
    found = outcome(kernel, blocks, threads, *args)
    assert found["cpu"][0] == found["cpu-python"][0] == "ok", found
    assert all(same_bits(a, b) for a, b in zip(found["cpu"][1], found["cpu-python"][1]))


@pytest.mark.parametrize(("n", "j", "k"), [(1024, 1, 2), (4096, 64, 128), (512, 256, 512)])
def test_bitonic_pass(built, n: int, j: int, k: int) -> None:  # type: ignore[no-untyped-def]
    x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    assert_same(built.bitonic, -(-n // 256) + 1, 256, x, j, k)


@pytest.mark.parametrize("n", [1, 2, 3, 255, 256, 257, 1000])
def test_lower_and_upper_bounds(built, n: int) -> None:  # type: ignore[no-untyped-def]
    x = np.arange(n, dtype=np.float32)
    out = np.full(n, -1.0, np.float32)
    assert_same(built.inner, -(-n // 64) + 2, 64, x, out)


@pytest.mark.parametrize(
    ("lo", "hi"), [(0, 10**6), (5, 9), (9, 5), (-100, 3), (200, 2**63 - 1), (-(2**63), 2**63 - 1), (0, -(2**63))]
)
def test_inclusive_and_saturated_bounds(built, lo: int, hi: int) -> None:  # type: ignore[no-untyped-def]
    out = np.zeros(300, np.int64)
    assert_same(built.inclusive, 5, 64, out, lo, hi)


@pytest.mark.parametrize("m", [-7, 0, 1, 50, 10**9])
def test_mirrored_bounds(built, m: int) -> None:  # type: ignore[no-untyped-def]
    out = np.zeros(100, np.int64)
    assert_same(built.mirrored, 4, 32, out, np.int32(m))


@pytest.mark.parametrize(("h", "w"), [(1, 1), (3, 3), (37, 61), (64, 64)])
def test_two_axes(built, h: int, w: int) -> None:  # type: ignore[no-untyped-def]
    src = np.random.default_rng(h * w).standard_normal((h, w)).astype(np.float32)
    dst = np.zeros_like(src)
    assert_same(built.stencil, (-(-w // 16) + 1, -(-h // 8) + 1), (16, 8), src, dst)


@pytest.mark.parametrize("n", [0, 5, 40, 1000])
def test_y_axis(built, n: int) -> None:  # type: ignore[no-untyped-def]
    out = np.full((40, 50), -1, np.int32)
    assert_same(built.rows_only, (4, 6), (16, 8), out, n)


@pytest.mark.parametrize("n", [0, 1, 100, 127, 128, 10**6])
def test_per_block_driver(built, n: int) -> None:  # type: ignore[no-untyped-def]
    out = np.full(128, -1, np.int32)
    assert_same(built.per_block, 4, 32, out, n)


def test_reads_before_the_guard(built) -> None:  # type: ignore[no-untyped-def]
    x = np.arange(96, dtype=np.float32)
    out = np.zeros(96, np.float32)
    assert_same(built.read_before, 3, 32, x, out, 50)


def test_checked_kernels_keep_every_thread(built) -> None:  # type: ignore[no-untyped-def]
    """debug=True: a thread outside the range still fails its check, as on the Python path."""
    x = np.arange(40, dtype=np.float32)
    for device in ("cpu", "cpu-python"):
        with pytest.raises(IndexError):
            built.read_before_checked.launch(32, 2, x, np.zeros(64, np.float32), 10, device=device)


# ------------------------------------------------------------------ which guards give a range
RANGED = """
@kernel
def k(x: Array[f32], n: i64):
    i = gpu.global_tid_x()
    {body}
"""


@pytest.mark.parametrize(
    ("body", "axes"),
    [
        ("if i < len(x):\n        x[i] = 1.0", {"x": (0, 1)}),
        ("if i < n and i >= 2:\n        x[i] = 1.0", {"x": (1, 1)}),
        ("if 3 <= i <= n + 1:\n        x[i] = 1.0", {"x": (1, 1)}),
        ("m = len(x) * 2 - n\n    if i < m:\n        x[i] = 1.0", {"x": (0, 1)}),
        ("if x[i] > 0.0 and i < n:\n        x[i] = 1.0", {"x": (0, 1)}),
        ("j = i ^ 1\n    if j > i and i < n:\n        x[j] = 1.0", {"x": (0, 1)}),
        # no range: an effect or a possible failure before the guard, an `else`, code after it, a
        # bound that varies by thread or is not an integer, division, a call
        ("x[0] = 1.0\n    if i < n:\n        x[i] = 1.0", None),
        ("m = n // 2\n    if i < m:\n        x[i] = 1.0", None),
        ("if i < n:\n        x[i] = 1.0\n    else:\n        x[0] = 2.0", None),
        ("if i < n:\n        x[i] = 1.0\n    x[0] = 2.0", None),
        ("if i < gpu.thread_idx_x():\n        x[i] = 1.0", None),
        ("if i < x[0]:\n        x[i] = 1.0", None),
        ("if i < n or i > 5:\n        x[i] = 1.0", None),
        ("if i < math.floor(x[0]):\n        x[i] = 1.0", None),
        ("n2 = n\n    n2 += 1\n    if i < n2:\n        x[i] = 1.0", None),
    ],
)
def test_which_guards_give_a_range(build, body: str, axes: dict | None) -> None:  # type: ignore[no-untyped-def]
    b = build(KERNEL_PRELUDE + RANGED.format(body=body), archs=["sm_70"], native=False)
    typed = b.kernels["k"].typed
    found = thread_range(typed)
    if axes is None:
        assert found is None
    else:
        assert found is not None
        assert {a: (len(r.lower), len(r.upper)) for a, r in found.axes.items()} == axes


# ------------------------------------------------------------------ failures outside the range
def assert_same_outcome(kernel, blocks, threads, *args) -> None:  # type: ignore[no-untyped-def]
    found = outcome(kernel, blocks, threads, *args)
    (python_kind, python), (native_kind, native) = found["cpu-python"], found["cpu"]
    assert python_kind == native_kind, found
    if python_kind == "ok":
        assert all(same_bits(a, b) for a, b in zip(python, native))
    else:
        assert python == native


@pytest.mark.parametrize(
    ("name", "make"),
    [
        # a thread outside the range still fails its checked conversion of a Python int (found in review)
        ("cast_before", lambda: (1, 256, np.zeros(256, np.int8), 10)),
        ("arith_before", lambda: (1, 256, np.zeros(256, np.int8), np.int8(1), 10)),
        # a uniform value that fails, with an empty range
        ("uniform_before", lambda: (1, 64, np.zeros(300, np.float32), np.int8(1), 0)),
        ("slice_before", lambda: (1, 64, np.zeros(64, np.int64), 0, 0)),
        # a bound that fails where the Python path never evaluates it (short-circuit), or does
        ("failing_bound", lambda: (1, 64, np.zeros(300, np.float32), np.int8(1), 0, True)),
        ("failing_bound", lambda: (1, 64, np.zeros(300, np.float32), np.int8(1), 5, False)),
        ("failing_bound", lambda: (1, 64, np.zeros(400, np.float32), np.int8(1), 5, True)),
        # a parameter named like the position, then assigned it: the guard reads the parameter
        ("parameter_named_i", lambda: (1, 64, np.zeros(64, np.float32), 10**6)),
        ("parameter_named_i", lambda: (1, 64, np.zeros(64, np.float32), 3)),
    ],
)
def test_same_outcome_as_the_python_path(built, name: str, make) -> None:  # type: ignore[no-untyped-def]
    assert_same_outcome(getattr(built, name), *make())
