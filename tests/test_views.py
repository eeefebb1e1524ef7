"""Array views and slices (issue 14, item 7): ``a[i]`` of an N-d array, ``a[i:j:k]`` with run-time and
negative bounds and steps, ``a[:, j]``, sub-blocks, views of views and of shared and per-thread arrays,
passed to helpers and written through. Every kernel runs natively on the CPU, through the Python
function and on a GPU when present, against NumPy's basic indexing on random data."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from conftest import DEVICES, HOST_TARGETS, KERNEL_PRELUDE, built_package

SOURCE = (
    KERNEL_PRELUDE
    + """
from hybrid_runtime import struct

BLOCK = 64


@struct
class Pt:
    x: f32
    y: f32


def total(v: Array[f32]) -> f32:
    s = f32(0)
    for k in range(len(v)):
        s += v[k]
    return s


def fill(v: Array[i64], value: i64):
    for k in range(len(v)):
        v[k] = value + k


def bump(v: Array[f64, 2]):
    for r in range(v.shape[0]):
        for c in range(v.shape[1]):
            v[r, c] += 1.0


@kernel
def rows_and_columns(m: Array[f32, 2], out: Array[f32, 2]):
    i = gpu.global_tid_x()
    if i < m.shape[0]:
        row = m[i]
        out[i, 0] = total(row)
        out[i, 1] = total(m[:, i % m.shape[1]])
        out[i, 2] = total(m[i, ::-1][1:])
        out[i, 3] = total(m[-1 - i, 1:-1:2])
        out[i, 4] = row[-1] + m[i][0] + len(row) + row.shape[0] + row.size + row.ndim * 100


@kernel
def run_time_slices(
    x: Array[i64], starts: Array[i64], stops: Array[i64], steps: Array[i64], out: Array[i64, 2], which: i64
):
    t = gpu.global_tid_x()
    if t < len(starts):
        a, b, k = starts[t], stops[t], steps[t]
        if which == 0:
            v = x[a:b:k]
        elif which == 1:
            v = x[:b:k]
        elif which == 2:
            v = x[a::k]
        elif which == 3:
            v = x[a:b]
        elif which == 4:
            v = x[a:]
        else:
            v = x[:b]
        out[t, 0] = len(v)
        rest = out[t, 1:]
        for j in range(len(v)):
            rest[j] = v[j]


@kernel
def literal_slices(x: Array[i64], out: Array[i64, 2]):
    t = gpu.global_tid_x()
    if t == 0:
        fill(out[0, :1], len(x[2:]))
        out[1, 0] = len(x[:-3])
        out[2, 0] = len(x[::-1])
        out[3, 0] = len(x[::3])
        out[4, 0] = len(x[-2:1:-2])
        out[5, 0] = len(x[5:2])
        out[6, 0] = len(x[100:])
        out[7, 0] = len(x[-100::-1])
        out[8, 0] = len(x[None:4:None])
        for j in range(len(x[-2:1:-2])):
            out[4, 1 + j] = x[-2:1:-2][j]
        r = x[::-1]
        for j in range(len(r)):
            out[2, 1 + j] = r[j]
        s = x[::3]
        for j in range(len(s)):
            out[3, 1 + j] = s[j]


@kernel
def unsigned_bounds(x: Array[i64], lo: u64, hi: u64, step: u64, out: Array[i64]):
    if gpu.global_tid_x() == 0:
        v = x[lo:hi:step]
        out[0] = len(v)
        out[1] = v[0] if len(v) > 0 else i64(-1)


@kernel
def sub_blocks(m: Array[f64, 2], out: Array[f64, 2], r0: i64, r1: i64, c0: i64, c1: i64):
    t = gpu.global_tid_x()
    block = m[r0:r1, c0:c1]
    if t < block.shape[0]:
        dest = out[t]
        for c in range(block.shape[1]):
            dest[c] = block[t, c] * 2.0 + block[t][c]
        inner = m[1:-1][::2][:, 1]  # views of views
        if t < len(inner):
            out[t, block.shape[1]] = inner[t]


@kernel
def three_d(a: Array[i32, 3], out: Array[i32, 2]):
    i = gpu.global_tid_x()
    if i < a.shape[0]:
        for j in range(a.shape[1]):
            line = a[i, j]  # a 1-d view of a 3-d array
            plane = a[i]
            out[i, j] = line[0] + line[-1] * 10 + plane[j, 1] * 100 + plane.ndim * 1000


@kernel
def write_through(out: Array[i64, 2], m: Array[f64, 2]):
    i = gpu.global_tid_x()
    if i < out.shape[0]:
        v = out[i]
        v[0] = i
        v[1] += 5
        out[i][2] = i * 3
        fill(out[i, 3:], i * 100)
    if i == 0:
        bump(m[1:, ::2])


@kernel
def write_only_through_view(x: Array[f32], out: Array[f32]):
    i = gpu.global_tid_x()
    tail = out[1:]
    if i < len(tail):
        tail[i] = x[i] * f32(2.0)


@kernel
def write_only_through_helper(out: Array[i64, 2]):
    i = gpu.global_tid_x()
    if i < out.shape[0]:
        fill(out[i], i)


@kernel
def branch_views(m: Array[f32, 2], out: Array[f32]):
    i = gpu.global_tid_x()
    if i < len(out):
        if i % 2 == 0:
            v = m[i % m.shape[0]]
        else:
            v = m[:, i % m.shape[1]]
        out[i] = total(v) + len(v)


@kernel
def shared_views(x: Array[f32], out: Array[f32]):
    t = gpu.thread_idx_x()
    g = gpu.global_tid_x()
    tile = gpu.shared_array(f32, (2, BLOCK))
    mine = gpu.local_array(f32, (3, 4))
    first = tile[0]
    first[t] = x[g]
    row = mine[1]
    row[2] = x[g] * f32(3.0)
    gpu.syncthreads()
    back = tile[0, ::-1]
    tile[1][t] = back[t] + row[2]
    gpu.syncthreads()
    second = tile[1]
    out[g] = second[(t + 1) % BLOCK] + total(mine[:, 2])


@kernel
def dynamic_views(x: Array[f32], out: Array[f32]):
    t = gpu.thread_idx_x()
    buf = gpu.dynamic_shared_array(f32)
    half = buf[: len(buf) // 2]
    half[t] = x[t]
    gpu.syncthreads()
    out[t] = half[::-1][t] + len(half)


@kernel
def struct_rows(pts: Array[Pt, 2], out: Array[f32]):
    i = gpu.global_tid_x()
    if i < pts.shape[0]:
        row = pts[i, 1:]
        s = f32(0)
        for k in range(len(row)):
            p = row[k]
            s += p.x * p.y
        out[i] = s


@kernel
def atomic_into_view(keys: Array[i32], hist: Array[i32, 2]):
    i = gpu.global_tid_x()
    if i < len(keys):
        gpu.atomic_add(hist[keys[i] % 2], keys[i] % hist.shape[1], 1)


@kernel
def tuple_index_view(m: Array[i64, 3], out: Array[i64]):
    i = gpu.global_tid_x()
    if i < len(out):
        idx = (i % m.shape[0], 1)
        v = m[idx]
        out[i] = v[0] + v[-1] * 1000 + len(v) * 1000000


@kernel(debug=True)
def checked(x: Array[f32, 2], out: Array[f32], k: i64):
    i = gpu.global_tid_x()
    if i == 0:
        tail = x[0, 2:]
        out[0] = tail[k]


@kernel(debug=True)
def checked_row(x: Array[f32, 2], out: Array[f32], k: i64):
    i = gpu.global_tid_x()
    if i == 0:
        out[0] = x[k][0]


@kernel
def step_at_run_time(x: Array[f32], out: Array[f32], k: i64):
    i = gpu.global_tid_x()
    if i == 0:
        v = x[::k]
        out[0] = v[0]
"""
)


@pytest.fixture(scope="module")
def views(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The package compiled once (PTX through ptxas, native code for this machine), installed as a wheel would."""
    with built_package(tmp_path_factory.mktemp("views"), "viewspkg", SOURCE, native=True) as module:
        yield module


def _manifest(module: ModuleType) -> dict:  # type: ignore[type-arg]
    return json.loads((Path(module.__file__).parent / "_hybrid" / "manifest.json").read_text())


def _sum32(v: np.ndarray) -> np.float32:
    s = np.float32(0)
    for x in v:
        s = np.float32(s + x)
    return s


@pytest.mark.parametrize("device", DEVICES)
def test_rows_columns_reversed_strided(views: ModuleType, device: str) -> None:
    rng = np.random.default_rng(1)
    m = rng.standard_normal((13, 7)).astype(np.float32)
    out = np.zeros((13, 5), np.float32)
    views.rows_and_columns.launch(32, 1, m, out, device=device)
    for i in range(13):
        assert out[i, 0] == _sum32(m[i])
        assert out[i, 1] == _sum32(m[:, i % 7])
        assert out[i, 2] == _sum32(m[i, ::-1][1:])
        assert out[i, 3] == _sum32(m[-1 - i, 1:-1:2])
        assert out[i, 4] == np.float32(m[i][-1] + m[i][0] + 7 + 7 + 7 + 100)


@pytest.mark.parametrize("n", [11, 0])
@pytest.mark.parametrize("which", range(6))
@pytest.mark.parametrize("device", DEVICES)
def test_run_time_bounds_and_steps_as_numpy(views: ModuleType, device: str, which: int, n: int) -> None:
    rng = np.random.default_rng(2 + which)
    cases = 300
    x = rng.integers(-1000, 1000, n)
    starts = rng.integers(-16, 17, cases)
    stops = rng.integers(-16, 17, cases)
    steps = rng.choice([-5, -3, -2, -1, 1, 2, 3, 7, 40, -40], cases)
    out = np.full((cases, n + 1), -7, np.int64)
    views.run_time_slices.launch(64, 5, x, starts, stops, steps, out, which, device=device)
    for t in range(cases):
        a, b, k = int(starts[t]), int(stops[t]), int(steps[t])
        v = [x[a:b:k], x[:b:k], x[a::k], x[a:b], x[a:], x[:b]][which]
        assert out[t, 0] == len(v), (a, b, k)
        np.testing.assert_array_equal(out[t, 1 : 1 + len(v)], v)
        assert (out[t, 1 + len(v) :] == -7).all()


@pytest.mark.parametrize("device", DEVICES)
def test_unsigned_bounds_past_2_63_clip_as_in_numpy(views: ModuleType, device: str) -> None:
    x = np.arange(10, dtype=np.int64) + 5
    out = np.zeros(2, np.int64)
    big = np.uint64(2**64 - 3)
    for lo, hi, step in [(3, big, 2), (big, 4, 1), (1, 9, big), (np.uint64(2**63), big, 1)]:
        views.unsigned_bounds.launch(32, 1, x, np.uint64(lo), np.uint64(hi), np.uint64(step), out, device=device)
        v = x[np.uint64(lo) : np.uint64(hi) : np.uint64(step)]
        assert list(out) == [len(v), v[0] if len(v) else -1]


@pytest.mark.parametrize("device", DEVICES)
def test_literal_slices(views: ModuleType, device: str) -> None:
    x = np.arange(10, dtype=np.int64) * 3 + 1
    out = np.full((9, 11), -1, np.int64)
    views.literal_slices.launch(32, 1, x, out, device=device)
    lengths = [len(s) for s in (x[2:], x[:-3], x[::-1], x[::3], x[-2:1:-2], x[5:2], x[100:], x[-100::-1], x[:4])]
    np.testing.assert_array_equal(out[:, 0], lengths)
    np.testing.assert_array_equal(out[4, 1:5], x[-2:1:-2])
    np.testing.assert_array_equal(out[2, 1:], x[::-1])
    np.testing.assert_array_equal(out[3, 1:5], x[::3])


@pytest.mark.parametrize("device", DEVICES)
def test_sub_blocks_and_views_of_views(views: ModuleType, device: str) -> None:
    rng = np.random.default_rng(3)
    m = rng.standard_normal((12, 9))
    for r0, r1, c0, c1 in [(2, 9, 1, 6), (-5, -1, -8, 100), (0, 12, 3, 4), (7, 3, 0, 9)]:
        out = np.zeros((12, 10))
        views.sub_blocks.launch(32, 1, m, out, r0, r1, c0, c1, device=device)
        block = m[r0:r1, c0:c1]
        rows, cols = block.shape
        np.testing.assert_array_equal(out[:rows, :cols], block * 2.0 + block)
        inner = m[1:-1][::2][:, 1]
        k = min(rows, len(inner))
        np.testing.assert_array_equal(out[:k, cols], inner[:k])


@pytest.mark.parametrize("device", DEVICES)
def test_views_of_a_3d_array(views: ModuleType, device: str) -> None:
    a = np.random.default_rng(4).integers(-50, 50, (5, 4, 3)).astype(np.int32)
    out = np.zeros((5, 4), np.int32)
    views.three_d.launch(32, 1, a, out, device=device)
    np.testing.assert_array_equal(out, a[:, :, 0] + a[:, :, -1] * 10 + a[:, :, 1] * 100 + 2000)


@pytest.mark.parametrize("device", DEVICES)
def test_stores_write_through_to_the_parent(views: ModuleType, device: str) -> None:
    out = np.ones((6, 8), np.int64)
    m = np.zeros((5, 5))
    views.write_through.launch(32, 1, out, m, device=device)
    i = np.arange(6)
    np.testing.assert_array_equal(out[:, 0], i)
    np.testing.assert_array_equal(out[:, 1], 6)
    np.testing.assert_array_equal(out[:, 2], 3 * i)
    np.testing.assert_array_equal(out[:, 3:], i[:, None] * 100 + np.arange(5))
    expected = np.zeros((5, 5))
    expected[1:, ::2] += 1.0
    np.testing.assert_array_equal(m, expected)


def test_writes_through_views_mark_the_parent_written(views: ModuleType) -> None:
    """The manifest's `writes` decides which host arrays a GPU launch copies back."""
    kernels = _manifest(views)["kernels"]

    def written(kernel: str) -> dict[str, bool]:
        return {p["name"]: p["writes"] for p in kernels[f"viewspkg.kern.{kernel}"]["params"] if p["kind"] == "array"}

    assert written("write_only_through_view") == {"x": False, "out": True}
    assert written("write_only_through_helper") == {"out": True}
    assert written("write_through") == {"out": True, "m": True}
    assert written("atomic_into_view") == {"keys": False, "hist": True}
    assert written("rows_and_columns") == {"m": False, "out": True}


@pytest.mark.parametrize("device", DEVICES)
def test_host_arrays_written_only_through_views_come_back(views: ModuleType, device: str) -> None:
    x = np.arange(20, dtype=np.float32)
    out = np.zeros(21, np.float32)
    views.write_only_through_view.launch(32, 1, x, out, device=device)
    np.testing.assert_array_equal(out, np.concatenate([[0], x * 2]))
    grid = np.zeros((7, 4), np.int64)
    views.write_only_through_helper.launch(32, 1, grid, device=device)
    np.testing.assert_array_equal(grid, np.arange(7)[:, None] + np.arange(4))


@pytest.mark.parametrize("device", DEVICES)
def test_a_local_holds_views_from_either_branch(views: ModuleType, device: str) -> None:
    m = np.random.default_rng(5).standard_normal((6, 4)).astype(np.float32)
    out = np.zeros(10, np.float32)
    views.branch_views.launch(32, 1, m, out, device=device)
    for i in range(10):
        v = m[i % 6] if i % 2 == 0 else m[:, i % 4]
        assert out[i] == np.float32(_sum32(v) + len(v))


@pytest.mark.parametrize("device", DEVICES)
def test_views_of_shared_and_per_thread_arrays(views: ModuleType, device: str) -> None:
    x = np.random.default_rng(6).standard_normal(128).astype(np.float32)
    out = np.zeros_like(x)
    views.shared_views.launch(64, 2, x, out, device=device)
    t = np.arange(128) % 64
    block = np.arange(128) // 64 * 64
    src = (t + 1) % 64
    back = x[block + 63 - src]  # tile[0, ::-1][src]
    mine = x[block + src] * np.float32(3.0)
    np.testing.assert_array_equal(out, (back + mine) + (x * np.float32(3.0)))


@pytest.mark.parametrize("device", DEVICES)
def test_views_of_dynamic_shared_memory(views: ModuleType, device: str) -> None:
    x = np.random.default_rng(9).standard_normal(32).astype(np.float32)
    out = np.zeros_like(x)
    views.dynamic_views.launch(32, 1, x, out, shared_bytes=2 * 32 * 4, device=device)
    np.testing.assert_array_equal(out, x[::-1] + np.float32(32))


@pytest.mark.parametrize("device", DEVICES)
def test_rows_of_struct_arrays(views: ModuleType, device: str) -> None:
    pts = np.zeros((5, 4), views.Pt.dtype)
    rng = np.random.default_rng(7)
    pts["x"] = rng.standard_normal((5, 4))
    pts["y"] = rng.standard_normal((5, 4))
    out = np.zeros(5, np.float32)
    views.struct_rows.launch(32, 1, pts, out, device=device)
    for i in range(5):
        s = np.float32(0)
        for p in pts[i, 1:]:
            s = np.float32(s + p["x"] * p["y"])
        assert out[i] == s


@pytest.mark.parametrize("device", DEVICES)
def test_atomics_on_a_view(views: ModuleType, device: str) -> None:
    keys = np.random.default_rng(8).integers(0, 1000, 500).astype(np.int32)
    hist = np.zeros((2, 5), np.int32)
    views.atomic_into_view.launch(128, 4, keys, hist, device=device)
    expected = np.zeros((2, 5), np.int32)
    np.add.at(expected, (keys % 2, keys % 5), 1)
    np.testing.assert_array_equal(hist, expected)


@pytest.mark.parametrize("device", DEVICES)
def test_a_tuple_of_fewer_indices_is_a_view(views: ModuleType, device: str) -> None:
    m = np.arange(4 * 3 * 5, dtype=np.int64).reshape(4, 3, 5)
    out = np.zeros(9, np.int64)
    views.tuple_index_view.launch(32, 1, m, out, device=device)
    i = np.arange(9) % 4
    np.testing.assert_array_equal(out, m[i, 1, 0] + m[i, 1, -1] * 1000 + 5 * 1000000)


@pytest.mark.parametrize("device", DEVICES)
def test_debug_bounds_checks_against_the_view(views: ModuleType, device: str) -> None:
    x = np.zeros((3, 8), np.float32)
    out = np.zeros(1, np.float32)
    views.checked.launch(32, 1, x, out, 5, device=device)  # within the view
    with pytest.raises(
        IndexError, match=r"index 6 is out of bounds for axis 0 with size 6 \(.*kern.py:\d+: out\[0\] = tail\[k\]\)"
    ):
        views.checked.launch(32, 1, x, out, 6, device=device)
    with pytest.raises(IndexError, match=r"index -7 is out of bounds for axis 0 with size 6"):
        views.checked.launch(32, 1, x, out, -7, device=device)
    with pytest.raises(
        IndexError, match=r"index 3 is out of bounds for axis 0 with size 3 \(.*: out\[0\] = x\[k\]\[0\]\)"
    ):
        views.checked_row.launch(32, 1, x, out, 3, device=device)


@pytest.mark.parametrize("device", DEVICES)
def test_a_zero_step_at_run_time_raises_value_error(views: ModuleType, device: str) -> None:
    x = np.arange(6, dtype=np.float32)
    out = np.zeros(1, np.float32)
    views.step_at_run_time.launch(32, 1, x, out, -2, device=device)
    assert out[0] == 5.0
    with pytest.raises(
        ValueError, match=r"kernel .*step_at_run_time: slice step cannot be zero \(.*kern.py:\d+: v = x\[::k\]\)"
    ):
        views.step_at_run_time.launch(32, 1, x, out, 0, device=device)


def test_views_compile_to_native_code(views: ModuleType) -> None:
    """`cpu` above ran native code, not the Python function."""
    if not HOST_TARGETS:
        pytest.skip("no native CPU target here (zig missing)")
    for name in ("rows_and_columns", "run_time_slices", "shared_views", "struct_rows", "step_at_run_time"):
        assert getattr(views, name).native_code() is not None, name


@pytest.mark.gpu
def test_views_on_both_index_entry_points(views: ModuleType) -> None:
    """Device arrays whose offsets fit in 32 bits launch the 32-bit-index entry point, others the general
    one: views (negative steps, columns, run-time bounds) give the same results through both, and the
    CPU's."""
    import hybrid_runtime as hr

    rng = np.random.default_rng(10)
    m = rng.standard_normal((13, 7)).astype(np.float32)
    x = rng.integers(-1000, 1000, 11)
    starts, stops = rng.integers(-16, 17, 300), rng.integers(-16, 17, 300)
    steps = rng.choice([-5, -3, -1, 1, 2, 40], 300)
    expected_m, expected_s = np.zeros((13, 5), np.float32), np.full((300, 12), -7, np.int64)
    views.rows_and_columns.launch(32, 1, m, expected_m, device="cpu")
    views.run_time_slices.launch(64, 5, x, starts, stops, steps, expected_s, 0, device="cpu")
    for small in (True, False):
        args = [hr.to_device(a) for a in (m, x, starts, stops, steps)]
        out_m = hr.device_array((13, 5), np.float32)
        out_s = hr.to_device(np.full((300, 12), -7, np.int64))
        for a in (*args, out_m, out_s):
            a._small = small
        views.rows_and_columns[1, 32](args[0], out_m)
        views.run_time_slices[5, 64](*args[1:], out_s, 0)
        np.testing.assert_array_equal(out_m.copy_to_host(), expected_m)
        np.testing.assert_array_equal(out_s.copy_to_host(), expected_s)
    assert views.rows_and_columns._plans[(0, 0)].handle32 is not None
