"""A shared tile that only copies a global array, forwarded on the CPU (targets/host/lowering/tile_forward.py):
which kernels the proof accepts and which it refuses, and that the native code gives the Python path's
results bit for bit where the forwarded function runs (the proved block shape, images of every size)
and where it must not (other block shapes, a source that overlaps the output)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from conftest import KERNEL_PRELUDE, built_package, same_bits

from hatch_hybrid.targets.host.lowering.tile_forward import forwarding

TILE_PRELUDE = (
    KERNEL_PRELUDE
    + """
TILE = 16
"""
)

BLUR = """
@kernel
def blur(src: Array[f32, 2], dst: Array[f32, 2]):
    tile = gpu.shared_array(f32, (TILE + 2, TILE + 2))
    tx = gpu.thread_idx_x()
    ty = gpu.thread_idx_y()
    j = gpu.global_tid_x()
    i = gpu.global_tid_y()
    h = src.shape[0]
    w = src.shape[1]
    {before}
    if i < h and j < w:
        tile[ty + 1, tx + 1] = src[i, j]
        if tx == 0 and j > 0:
            tile[ty + 1, 0] = src[i, j - 1]
        {right}
        if ty == 0 and i > 0:
            tile[0, tx + 1] = src[i - 1, j]
        if ty == TILE - 1 and i + 1 < h:
            tile[TILE + 1, tx + 1] = src[i + 1, j]
    gpu.syncthreads()
    if 0 < i < h - 1 and 0 < j < w - 1:
        {after}
        dst[i, j] = f32(0.2) * (
            tile[ty + 1, tx + 1] + tile[ty, tx + 1] + tile[ty + 2, tx + 1] + tile[ty + 1, tx] + tile[ty + 1, tx + 2]
        )
"""
RIGHT = """if tx == TILE - 1 and j + 1 < w:
            tile[ty + 1, TILE + 1] = src[i, j + 1]"""

SMOOTH = """
@kernel
def smooth(x: Array[f64], out: Array[f64]):
    # one dimension, the halo two wide on the left, loaded by the block's first two threads
    tile = gpu.shared_array(f64, TILE + 2)
    t = gpu.thread_idx_x()
    i = gpu.global_tid_x()
    n = len(x)
    if i < n:
        tile[t + 2] = x[i]
    {halo}
    gpu.syncthreads()
    if 2 <= i < n:
        out[i] = tile[t + 2] - tile[t] + tile[t + 1] * 0.5
"""
HALO = """if t < 2 and 2 <= i < n + 2:
        tile[t] = x[i - 2]"""

# the same blur, correct for any block of at most TILE x TILE threads: the halo at the block's own edges
BLUR_ANY = (
    BLUR.format(right=RIGHT, before="pass", after="pass")
    .replace("def blur(", "def blur_any(")
    .replace("    h = src.shape[0]", "    bw = gpu.block_dim_x()\n    bh = gpu.block_dim_y()\n    h = src.shape[0]")
    .replace("tx == TILE - 1", "tx == bw - 1")
    .replace("tile[ty + 1, TILE + 1]", "tile[ty + 1, bw + 1]")
    .replace("ty == TILE - 1", "ty == bh - 1")
    .replace("tile[TILE + 1, tx + 1]", "tile[bh + 1, tx + 1]")
)

# the tile and its halo loaded the CUDA way, by loops over the block's share, clamped at the image's edges
BLUR_LOOP = """
@kernel
def blur_loop(src: Array[f32, 2], dst: Array[f32, 2]):
    tile = gpu.shared_array(f32, (TILE + 2, TILE + 2))
    tx = gpu.thread_idx_x()
    ty = gpu.thread_idx_y()
    r0 = gpu.block_idx_y() * TILE
    c0 = gpu.block_idx_x() * gpu.block_dim_x()
    h = src.shape[0]
    w = src.shape[1]
    for k in range(ty, TILE + 2, TILE):
        for m in range(tx, TILE + 2, TILE):
            tile[k, m] = src[min(max(r0 + k - 1, 0), h - 1), max(min(c0 + m - 1, w - 1), 0)]
    gpu.syncthreads()
    r = r0 + ty
    c = c0 + tx
    if r < h and c < w:
        dst[r, c] = f32(0.2) * (
            tile[ty + 1, tx + 1] + tile[ty, tx + 1] + tile[ty + 2, tx + 1] + tile[ty + 1, tx] + tile[ty + 1, tx + 2]
        )
"""

# the same on a torus: the copy's indices wrapped (Python's modulo) instead of clamped
BLUR_WRAP = (
    BLUR_LOOP.replace("def blur_loop(", "def blur_wrap(")
    .replace("min(max(r0 + k - 1, 0), h - 1)", "(r0 + k - 1) % h")
    .replace("max(min(c0 + m - 1, w - 1), 0)", "(c0 + m - 1) % w")
)

# two tiles, each copying its own array (their reads mixed in one expression)
TWO_TILES = """
@kernel
def two_tiles(a: Array[f32, 2], b: Array[f32, 2], out: Array[f32, 2]):
    ta = gpu.shared_array(f32, (TILE + 2, TILE + 2))
    tb = gpu.shared_array(f32, (TILE + 2, TILE + 2))
    tx = gpu.thread_idx_x()
    ty = gpu.thread_idx_y()
    r0 = gpu.block_idx_y() * TILE
    c0 = gpu.block_idx_x() * TILE
    h = a.shape[0]
    w = a.shape[1]
    for k in range(ty, TILE + 2, TILE):
        for m in range(tx, TILE + 2, TILE):
            ta[k, m] = a[min(max(r0 + k - 1, 0), h - 1), min(max(c0 + m - 1, 0), w - 1)]
            tb[k, m] = b[(r0 + k - 1) % h, (c0 + m - 1) % w]
    gpu.syncthreads()
    r = r0 + ty
    c = c0 + tx
    if r < h and c < w:
        out[r, c] = (ta[ty, tx + 1] + ta[ty + 2, tx + 1]) * tb[ty + 1, tx] - tb[ty + 1, tx + 2]
"""

# a 3-D tile (8 x 8 x 4 threads, a one-cell halo on every side) for a 7-point stencil
CUBE = """
@kernel
def cube(src: Array[f32, 3], dst: Array[f32, 3]):
    t = gpu.shared_array(f32, (6, 10, 10))
    tx = gpu.thread_idx_x()
    ty = gpu.thread_idx_y()
    tz = gpu.thread_idx_z()
    x0 = gpu.block_idx_x() * 8
    y0 = gpu.block_idx_y() * 8
    z0 = gpu.block_idx_z() * 4
    d = src.shape[0]
    h = src.shape[1]
    w = src.shape[2]
    for kz in range(tz, 6, 4):
        for ky in range(ty, 10, 8):
            for kx in range(tx, 10, 8):
                t[kz, ky, kx] = src[
                    min(max(z0 + kz - 1, 0), d - 1), min(max(y0 + ky - 1, 0), h - 1), min(max(x0 + kx - 1, 0), w - 1)
                ]
    gpu.syncthreads()
    z = z0 + tz
    y = y0 + ty
    x = x0 + tx
    if z < d and y < h and x < w:
        dst[z, y, x] = (
            t[tz + 1, ty + 1, tx + 1] + t[tz, ty + 1, tx + 1] + t[tz + 2, ty + 1, tx + 1] + t[tz + 1, ty, tx + 1]
            + t[tz + 1, ty + 2, tx + 1] + t[tz + 1, ty + 1, tx] + t[tz + 1, ty + 1, tx + 2]
        )
"""

# the copy loop names the source's indices first (rows wrapped, columns clamped)
BLUR_LETS = BLUR_LOOP.replace("def blur_loop(", "def blur_lets(").replace(
    "            tile[k, m] = src[min(max(r0 + k - 1, 0), h - 1), max(min(c0 + m - 1, w - 1), 0)]",
    "            gr = (r0 + k - 1) % h\n"
    "            gc = max(min(c0 + m - 1, w - 1), 0)\n"
    "            tile[k, m] = src[gr, gc]",
)

SOURCE = (
    TILE_PRELUDE
    + BLUR.format(right=RIGHT, before="pass", after="pass")
    + BLUR_ANY
    + SMOOTH.format(halo=HALO)
    + BLUR_LOOP
    + BLUR_WRAP
    + TWO_TILES
    + CUBE
    + BLUR_LETS
)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    with built_package(tmp_path_factory.mktemp("forward"), "tile_forward_pkg", SOURCE, native=True) as module:
        yield module


def manifest_entry(module: ModuleType, name: str) -> dict:  # type: ignore[type-arg]
    path = Path(module.__file__).parent / "_hybrid" / "manifest.json"  # type: ignore[arg-type]
    return json.loads(path.read_text())["kernels"][f"{module.__name__}.{name}"]["cpu"]  # type: ignore[no-any-return]


def assert_same(kernel, blocks, threads, *args) -> list[np.ndarray]:  # type: ignore[no-untyped-def]
    """Native code and the Python path run the launch to the same bits; returns the native arrays."""
    found = {}
    for device in ("cpu-python", "cpu"):
        copies = [a.copy() for a in args]
        kernel.launch(threads, blocks, *copies, device=device)
        found[device] = copies
    assert all(same_bits(a, b) for a, b in zip(found["cpu"], found["cpu-python"]))
    return found["cpu"]


def test_the_proof_accepts_the_tiled_stencils(built) -> None:  # type: ignore[no-untyped-def]
    assert manifest_entry(built, "blur")["forwarded"] == [16, 16]
    assert manifest_entry(built, "blur_any")["forwarded"] == [16, 16]
    assert manifest_entry(built, "smooth")["forwarded"] == [16, 1]
    assert manifest_entry(built, "blur_loop")["forwarded"] == [16, 16]
    assert manifest_entry(built, "blur_wrap")["forwarded"] == [16, 16]


@pytest.mark.parametrize("shape", [(16, 16), (37, 53), (1, 70), (70, 1), (2, 2), (100, 130)])
def test_a_tile_loaded_by_loops_with_clamped_edges_is_forwarded(built, shape: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    h, w = shape
    src = np.random.default_rng(h * 7 + w).standard_normal(shape).astype(np.float32)
    dst = np.full(shape, -7.0, np.float32)
    native = assert_same(built.blur_loop, (-(-w // 16), -(-h // 16)), (16, 16), src, dst)
    p = np.pad(src, 1, mode="edge")  # the clamped neighbours, added in the kernel's order
    centre, up, down, left, right = p[1:-1, 1:-1], p[:-2, 1:-1], p[2:, 1:-1], p[1:-1, :-2], p[1:-1, 2:]
    assert same_bits(native[1], np.float32(0.2) * ((((centre + up) + down) + left) + right))


@pytest.mark.parametrize("shape", [(16, 16), (37, 53), (1, 70), (70, 1), (2, 2), (100, 130)])
def test_a_tile_loaded_with_wrapped_indices_is_forwarded(built, shape: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    h, w = shape
    src = np.random.default_rng(h * 5 + w).standard_normal(shape).astype(np.float32)
    dst = np.full(shape, -7.0, np.float32)
    native = assert_same(built.blur_wrap, (-(-w // 16), -(-h // 16)), (16, 16), src, dst)
    p = np.pad(src, 1, mode="wrap")
    centre, up, down, left, right = p[1:-1, 1:-1], p[:-2, 1:-1], p[2:, 1:-1], p[1:-1, :-2], p[1:-1, 2:]
    assert same_bits(native[1], np.float32(0.2) * ((((centre + up) + down) + left) + right))


@pytest.mark.parametrize("shape", [(16, 16), (37, 53), (1, 70), (70, 1)])
def test_several_tiles_each_with_its_source_are_forwarded(built, shape: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    assert manifest_entry(built, "two_tiles")["forwarded"] == [16, 16]
    h, w = shape
    rng = np.random.default_rng(h + w)
    a, b = (rng.standard_normal(shape).astype(np.float32) for _ in range(2))
    native = assert_same(built.two_tiles, (-(-w // 16), -(-h // 16)), (16, 16), a, b, np.zeros(shape, np.float32))
    pa, pb = np.pad(a, 1, mode="edge"), np.pad(b, 1, mode="wrap")
    expected = (pa[:-2, 1:-1] + pa[2:, 1:-1]) * pb[1:-1, :-2] - pb[1:-1, 2:]
    assert same_bits(native[2], expected)
    same_array = assert_same(built.two_tiles, (-(-w // 16), -(-h // 16)), (16, 16), a, a, np.zeros(shape, np.float32))
    assert same_bits(
        same_array[2],
        (pa[:-2, 1:-1] + pa[2:, 1:-1]) * np.pad(a, 1, mode="wrap")[1:-1, :-2] - np.pad(a, 1, mode="wrap")[1:-1, 2:],
    )


@pytest.mark.parametrize("shape", [(4, 8, 8), (5, 9, 17), (1, 1, 30), (9, 3, 1)])
def test_a_three_dimensional_tile_is_forwarded(built, shape: tuple[int, int, int]) -> None:  # type: ignore[no-untyped-def]
    assert manifest_entry(built, "cube")["forwarded"] == [8, 8, 4]
    d, h, w = shape
    src = np.random.default_rng(d * 100 + h * 10 + w).standard_normal(shape).astype(np.float32)
    dst = np.full(shape, -7.0, np.float32)
    native = assert_same(built.cube, (-(-w // 8), -(-h // 8), -(-d // 4)), (8, 8, 4), src, dst)
    p = np.pad(src, 1, mode="edge")
    c = p[1:-1, 1:-1, 1:-1]
    terms = [
        p[:-2, 1:-1, 1:-1],
        p[2:, 1:-1, 1:-1],
        p[1:-1, :-2, 1:-1],
        p[1:-1, 2:, 1:-1],
        p[1:-1, 1:-1, :-2],
        p[1:-1, 1:-1, 2:],
    ]
    expected = c
    for term in terms:  # the kernel's order of additions
        expected = expected + term
    assert same_bits(native[1], expected)


@pytest.mark.parametrize("shape", [(16, 16), (37, 53), (1, 70), (70, 1)])
def test_indices_the_copy_loop_names_first_are_followed(built, shape: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    assert "gr = (r0 + k - 1) % h" in BLUR_LETS and manifest_entry(built, "blur_lets")["forwarded"] == [16, 16]
    h, w = shape
    src = np.random.default_rng(h * 3 + w).standard_normal(shape).astype(np.float32)
    native = assert_same(built.blur_lets, (-(-w // 16), -(-h // 16)), (16, 16), src, np.zeros(shape, np.float32))
    p = np.pad(np.pad(src, ((1, 1), (0, 0)), mode="wrap"), ((0, 0), (1, 1)), mode="edge")
    centre, up, down, left, right = p[1:-1, 1:-1], p[:-2, 1:-1], p[2:, 1:-1], p[1:-1, :-2], p[1:-1, 2:]
    assert same_bits(native[1], np.float32(0.2) * ((((centre + up) + down) + left) + right))


def test_a_named_index_read_after_the_barrier_is_refused(build) -> None:  # type: ignore[no-untyped-def]
    source = BLUR_LETS.replace("if r < h and c < w:", "if r < h and c < w + gc:")
    b = build(TILE_PRELUDE + source, archs=["sm_70"], native=False)
    assert forwarding(b.kernels["blur_lets"].typed) is None


def test_a_wrapped_copy_by_zero_raises_as_the_tiled_code_does(built) -> None:  # type: ignore[no-untyped-def]
    """An empty image launched with a block: the tiled copy divides by its height 0 (Python's
    ZeroDivisionError, on every path); the forwarded kernel, which would read nothing, is not run."""
    for device in ("cpu-python", "cpu"):
        with pytest.raises(ZeroDivisionError):
            built.blur_wrap.launch(
                (16, 16), (1, 1), np.zeros((0, 5), np.float32), np.zeros((0, 5), np.float32), device=device
            )


@pytest.mark.parametrize("shape", [(16, 16), (37, 53), (1, 70), (70, 1), (48, 33), (2, 2), (100, 130)])
def test_forwarded_blur_equals_the_python_path(built, shape: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    h, w = shape
    src = np.random.default_rng(h * 1000 + w).standard_normal(shape).astype(np.float32)
    dst = np.full(shape, -7.0, np.float32)
    grid = (-(-w // 16) + 1, -(-h // 16))  # one block more than needed on x: its threads do nothing
    native = assert_same(built.blur, grid, (16, 16), src, dst)
    reference = dst.copy()
    inner = (
        src[1:-1, 1:-1] + src[:-2, 1:-1] + src[2:, 1:-1] + src[1:-1, :-2] + src[1:-1, 2:]
    )  # the kernel's order of additions
    reference[1:-1, 1:-1] = np.float32(0.2) * inner
    assert same_bits(native[1], reference)


@pytest.mark.parametrize("block", [(16, 16), (8, 8), (16, 4), (5, 7)])
def test_other_block_shapes_run_the_tiled_code(built, block: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    src = np.random.default_rng(3).standard_normal((41, 67)).astype(np.float32)
    dst = np.zeros_like(src)
    assert_same(built.blur_any, (-(-67 // block[0]), -(-41 // block[1])), block, src, dst)


@pytest.mark.parametrize("n", [1, 2, 3, 16, 17, 100])
def test_one_dimensional_tile_with_a_wide_halo(built, n: int) -> None:  # type: ignore[no-untyped-def]
    x = np.random.default_rng(n).standard_normal(n)
    assert_same(built.smooth, -(-n // 16), 16, x, np.zeros(n))


def test_a_source_that_overlaps_the_output_runs_the_tiled_code(built, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """In place (and through overlapping views), forwarded reads would see the stencil's own writes where
    the tile read the image before any of them: on one thread the tiled code's order is the Python
    path's, which the native code must then keep."""
    monkeypatch.setenv("HYBRID_CPU_THREADS", "1")
    image = np.random.default_rng(5).standard_normal((40, 40)).astype(np.float32)
    for device in ("cpu-python", "cpu"):
        a = image.copy()
        built.blur.launch((16, 16), (3, 3), a, a, device=device)
        b = image.copy()
        built.blur.launch((16, 16), (3, 3), b[:, :-1], b[:, 1:], device=device)
        if device == "cpu-python":
            expected = (a, b)
        else:
            assert same_bits(a, expected[0]) and same_bits(b, expected[1])


@pytest.mark.parametrize(
    ("right", "after"),
    [
        ("pass", "pass"),  # the right halo never stored: tile[ty + 1, tx + 2] unwritten at the block's edge
        # a second store of elements the first already stores
        ("if tx == 0:\n            tile[ty + 1, tx + 1] = src[i, j]", "pass"),
        (RIGHT, "src[i, j] = f32(0)"),  # the source written after the barrier
        (RIGHT, "tile[ty + 1, tx + 1] = f32(0)"),  # the tile written after the barrier
        (RIGHT, "alias = src\n        alias[0, 0] = f32(1)"),  # the source written through another name
        (RIGHT, "gpu.syncthreads()"),  # a second barrier
        (RIGHT, "gpu.atomic_add(dst, (0, 0), f32(1))"),  # an atomic
    ],
)
def test_the_proof_refuses(build, right: str, after: str) -> None:  # type: ignore[no-untyped-def]
    b = build(TILE_PRELUDE + BLUR.format(right=right, before="pass", after=after), archs=["sm_70"], native=False)
    assert forwarding(b.kernels["blur"].typed) is None


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("range(tx, TILE + 2, TILE)", "range(tx, TILE + 1, TILE)"),  # the right halo column never loaded
        ("min(max(r0 + k - 1, 0), h - 1)", "min(max(r0 + k - 1, 0), h - ty)"),  # a bound that is the thread's
        ("if r < h and c < w:", "if r < h and c < w + k:"),  # the copy loop's variable read after the barrier
    ],
)
def test_the_proof_refuses_copy_loops_that_do_not_copy_the_window(build, old: str, new: str) -> None:  # type: ignore[no-untyped-def]
    assert old in BLUR_LOOP
    b = build(TILE_PRELUDE + BLUR_LOOP.replace(old, new), archs=["sm_70"], native=False)
    assert forwarding(b.kernels["blur_loop"].typed) is None


def test_the_proof_refuses_a_value_read_before_the_barrier_from_an_array_written_after(build) -> None:  # type: ignore[no-untyped-def]
    """The forwarded kernel would read dst[0, 0] where the stencil runs, after other threads wrote it."""
    source = BLUR.format(right=RIGHT, before="first = dst[0, 0]", after="dst[0, 1] = first")
    b = build(TILE_PRELUDE + source, archs=["sm_70"], native=False)
    assert forwarding(b.kernels["blur"].typed) is None


def test_the_proof_finds_a_halo_left_unstored_at_the_end(build) -> None:  # type: ignore[no-untyped-def]
    """Loaded only by threads inside the array, the halo's second element is never stored for a block
    whose first thread is the array's last element (thread 1 is past the end), yet that thread reads
    it: the tiled kernel reads an element no thread stored, and the proof says no."""
    source = TILE_PRELUDE + SMOOTH.format(halo="if t < 2 and 2 <= i < n:\n        tile[t] = x[i - 2]")
    b = build(source, archs=["sm_70"], native=False)
    assert forwarding(b.kernels["smooth"].typed) is None


ONE_D = """
@kernel
def k(x: Array[f32], out: Array[f32], n: i64):
    tile = gpu.shared_array(f32, TILE)
    t = gpu.thread_idx_x()
    i = gpu.global_tid_x()
    m = len(x)
    if i < m:
        tile[t] = x[i]
    {second}
    gpu.syncthreads()
    if i < m:
        {after}
        out[i] = tile[t]
"""


@pytest.mark.parametrize(
    ("second", "after"),
    [
        # the grid's z index is not 0 in every block: a second store where it is not
        ("if gpu.block_idx_z() > 0 and i + 1 < m:\n        tile[t] = x[i + 1]", "pass"),
        # n + 1 wraps for n = 2**63 - 1: the two tests do not contradict each other then
        ("if i + 1 < m and i > n + 1:\n        tile[t] = x[i + 1]", "pass"),
        # the source and the tile written through a tuple target
        ("pass", "x[i], q = f32(7), 0"),
        ("pass", "tile[t], q = f32(5), 0"),
    ],
)
def test_the_proof_refuses_what_its_review_found(build, second: str, after: str) -> None:  # type: ignore[no-untyped-def]
    """Kernels a review of the first version found accepted (native results then differed from the
    Python path, or the build failed)."""
    b = build(TILE_PRELUDE + ONE_D.format(second=second, after=after), archs=["sm_70"], native=False)
    assert forwarding(b.kernels["k"].typed) is None


def test_a_bare_parameter_bound_is_still_proved(build) -> None:  # type: ignore[no-untyped-def]
    """Compared without arithmetic, a parameter cannot wrap: `i < n` stays a difference constraint."""
    barrier = "gpu.syncthreads()\n    if i < m:"
    source = ONE_D.format(second="pass", after="pass").replace(barrier, barrier.replace("i <", "i < n and i <"))
    b = build(TILE_PRELUDE + source, archs=["sm_70"], native=False)
    found = forwarding(b.kernels["k"].typed)
    assert found is not None and found.block == (16, 1, 1)


def test_the_forwarded_kernel_gets_the_range_of_its_guard(build) -> None:  # type: ignore[no-untyped-def]
    """After the barrier the blur is a guard on the thread's position (thread_range.py): its forwarded
    function runs only the positions in range and no longer tests them (the built blur above runs that
    way over images of every size). Code after the barrier outside the guard: no range, still forwarded."""
    b = build(TILE_PRELUDE + BLUR.format(right=RIGHT, before="pass", after="pass"), archs=["sm_70"], native=False)
    found = forwarding(b.kernels["blur"].typed)
    assert found is not None and found.range is not None
    assert {axis: (len(r.lower), len(r.upper)) for axis, r in found.range.axes.items()} == {"x": (1, 1), "y": (1, 1)}
    unguarded = ONE_D.format(second="pass", after="pass") + "    out[0] = out[0]\n"
    b = build(TILE_PRELUDE + unguarded, archs=["sm_70"], native=False)
    found = forwarding(b.kernels["k"].typed)
    assert found is not None and found.range is None


def test_a_forwarded_range_launch_with_a_grid_of_spare_blocks(built) -> None:  # type: ignore[no-untyped-def]
    """Blocks beyond the image on both axes and an image one pixel wider than a block: the range is
    clamped to the grid, and the positions outside it are neither read nor written."""
    src = np.random.default_rng(11).standard_normal((17, 17)).astype(np.float32)
    dst = np.full_like(src, 3.0)
    native = assert_same(built.blur, (4, 3), (16, 16), src, dst)
    assert (native[1][0] == 3.0).all() and (native[1][:, -1] == 3.0).all()
