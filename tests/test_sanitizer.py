"""The CPU sanitizer (issue 20): classic GPU bugs that a plain CPU run hides, each caught by
``launch(..., device="cpu", sanitize=True)`` with the accesses' lines and threads, and each bug's fix
clean and equal to the plain native run and the Python path."""

from __future__ import annotations

import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from conftest import KERNEL_PRELUDE, ROOT, built_package
from hybrid_runtime import SanitizerError

SOURCE = (
    KERNEL_PRELUDE
    + """
BLOCK = 64


# 1. a tree reduction without syncthreads() in its loop
@kernel
def reduce_no_sync(x: Array[f32], out: Array[f32]):
    sh = gpu.shared_array(f32, BLOCK)
    t = gpu.thread_idx_x()
    sh[t] = x[gpu.global_tid_x()]
    gpu.syncthreads()
    s = BLOCK // 2
    while s > 0:
        if t < s:
            sh[t] += sh[t + s]  # RACE-REDUCE
        s //= 2
    if t == 0:
        out[gpu.block_idx_x()] = sh[0]


@kernel
def reduce_fixed(x: Array[f32], out: Array[f32]):
    sh = gpu.shared_array(f32, BLOCK)
    t = gpu.thread_idx_x()
    sh[t] = x[gpu.global_tid_x()]
    gpu.syncthreads()
    s = BLOCK // 2
    while s > 0:
        if t < s:
            sh[t] += sh[t + s]
        gpu.syncthreads()
        s //= 2
    if t == 0:
        out[gpu.block_idx_x()] = sh[0]


# 2. a 1-D blur whose shared tile's halo is never loaded
@kernel
def blur_no_halo(x: Array[f32], out: Array[f32]):
    tile = gpu.shared_array(f32, BLOCK + 2)  # TILE-HALO
    t = gpu.thread_idx_x()
    i = gpu.global_tid_x()
    tile[t + 1] = x[i]
    gpu.syncthreads()
    out[i] = (tile[t] + tile[t + 1] + tile[t + 2]) / f32(3)  # READ-HALO


@kernel
def blur_fixed(x: Array[f32], out: Array[f32]):
    tile = gpu.shared_array(f32, BLOCK + 2)
    t = gpu.thread_idx_x()
    i = gpu.global_tid_x()
    n = len(x)
    tile[t + 1] = x[i]
    if t == 0:
        tile[0] = x[i - 1] if i > 0 else f32(0)
    if t == BLOCK - 1:
        tile[BLOCK + 1] = x[i + 1] if i + 1 < n else f32(0)
    gpu.syncthreads()
    out[i] = (tile[t] + tile[t + 1] + tile[t + 2]) / f32(3)


# 3. a tile of 128 elements loaded one per thread, launched with fewer threads
@kernel
def tile_sum_short(x: Array[f32], out: Array[f32]):
    tile = gpu.shared_array(f32, 128)
    t = gpu.thread_idx_x()
    tile[t] = x[t]
    gpu.syncthreads()
    acc = f32(0)
    for k in range(128):
        acc += tile[k]  # READ-TILE
    out[t] = acc


@kernel
def tile_sum_fixed(x: Array[f32], out: Array[f32]):
    tile = gpu.shared_array(f32, 128)
    t = gpu.thread_idx_x()
    for k in range(t, 128, gpu.block_dim_x()):
        tile[k] = x[k]
    gpu.syncthreads()
    acc = f32(0)
    for k in range(128):
        acc += tile[k]
    out[t] = acc


# 4. two threads writing one output element
@kernel
def pairs_two_writers(x: Array[f32], out: Array[f32]):
    i = gpu.global_tid_x()
    out[i // 2] = x[i]  # WRITE-PAIR


@kernel
def pairs_fixed(x: Array[f32], out: Array[f32]):
    i = gpu.global_tid_x()
    if i % 2 == 0:
        out[i // 2] = x[i] + x[i + 1]


# 5. a barrier that only some threads of the block reach
@kernel
def barrier_in_branch(x: Array[f32]):
    t = gpu.thread_idx_x()
    if t < 16:
        gpu.syncthreads()  # BARRIER-BRANCH
    x[gpu.global_tid_x()] = f32(t)


# 6. threads of a block waiting at two different barriers
@kernel
def two_barriers(x: Array[f32]):
    t = gpu.thread_idx_x()
    if t % 2 == 0:
        gpu.syncthreads()  # BARRIER-EVEN
    else:
        gpu.syncthreads()  # BARRIER-ODD
    x[gpu.global_tid_x()] = f32(t)


@kernel
def barrier_fixed(x: Array[f32]):
    t = gpu.thread_idx_x()
    gpu.syncthreads()
    x[gpu.global_tid_x()] = f32(t)


# 7. a smoothing step done in place: neighbours in other blocks read what a thread writes
@kernel
def smooth_in_place(a: Array[f32]):
    i = gpu.global_tid_x()
    if 0 < i and i < len(a) - 1:
        a[i] = (a[i - 1] + a[i + 1]) / f32(2)  # SMOOTH


@kernel
def smooth_fixed(a: Array[f32], out: Array[f32]):
    i = gpu.global_tid_x()
    if 0 < i and i < len(a) - 1:
        out[i] = (a[i - 1] + a[i + 1]) / f32(2)


# 8. a shared histogram updated atomically before any thread zeroed it
@kernel
def histogram_not_zeroed(keys: Array[i32], counts: Array[i32]):
    bins = gpu.shared_array(i32, 16)
    t = gpu.thread_idx_x()
    gpu.atomic_add(bins, keys[gpu.global_tid_x()] % 16, 1)  # ATOMIC-BINS
    gpu.syncthreads()
    if t < 16:
        gpu.atomic_add(counts, t, bins[t])


@kernel
def histogram_fixed(keys: Array[i32], counts: Array[i32]):
    bins = gpu.shared_array(i32, 16)
    t = gpu.thread_idx_x()
    if t < 16:
        bins[t] = 0
    gpu.syncthreads()
    gpu.atomic_add(bins, keys[gpu.global_tid_x()] % 16, 1)
    gpu.syncthreads()
    if t < 16:
        gpu.atomic_add(counts, t, bins[t])


# 9. a counter updated atomically by every thread and read plainly by one
@kernel
def count_and_peek(counter: Array[i32], seen: Array[i32]):
    gpu.atomic_add(counter, 0, 1)  # ATOMIC-COUNT
    if gpu.global_tid_x() == 40:
        seen[0] = counter[0]  # PEEK


# 10. a shared tile read by a neighbour before the barrier that should separate them
@kernel
def rotate_no_sync(x: Array[f32], out: Array[f32]):
    sh = gpu.shared_array(f32, BLOCK)
    t = gpu.thread_idx_x()
    sh[t] = x[gpu.global_tid_x()]  # WRITE-ROTATE
    out[gpu.global_tid_x()] = sh[(t + 1) % BLOCK]  # READ-ROTATE


# 11. every thread of a block writes the first element of its block's row (through a view)
@kernel
def row_view_race(out: Array[f32, 2]):
    row = out[gpu.block_idx_x()]
    row[0] = f32(gpu.thread_idx_x())  # WRITE-ROW


# 12. a neighbour's element read through a view of the tile, before the barrier
@kernel
def view_no_sync(x: Array[f32], out: Array[f32]):
    sh = gpu.shared_array(f32, BLOCK)
    t = gpu.thread_idx_x()
    sh[t] = x[gpu.global_tid_x()]  # WRITE-VIEW
    right = sh[1:]
    v = right[t % (BLOCK - 1)]  # READ-VIEW
    gpu.syncthreads()
    out[gpu.global_tid_x()] = v


# 13. each thread its own element, unless the launch gives two threads one index
@kernel
def bump(y: Array[f32]):
    i = gpu.global_tid_x()
    y[i] = y[i] + f32(1)  # BUMP


@kernel
def bump_tiles(y: Array[f32]):
    i = gpu.block_idx_x() * 16 + gpu.thread_idx_x()
    y[i] += f32(1)  # BUMP-TILE


@kernel
def own_copy(src: Array[f32], dst: Array[f32]):
    i = gpu.global_tid_x()
    dst[i] = src[i]  # OWN-COPY


def store(out, r, c, v):
    out[r, c] = v


@kernel
def own_2d(src: Array[f32, 2], out: Array[f32, 2]):
    r, c = gpu.grid(2)
    if r < out.shape[0] and c < out.shape[1]:
        store(out, r, c, src[r, c] * f32(2))


@kernel
def own_then_other(x: Array[f32], out: Array[f32]):
    i = gpu.global_tid_x()
    out[i] = x[i]
    store2(out, i + 1)


def store2(out, j):
    if j < len(out):
        out[j] = f32(0)
"""
)

N = 256  # elements: 4 blocks of BLOCK = 64 threads


@pytest.fixture(scope="module")
def kern(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    with built_package(tmp_path_factory.mktemp("sanitizer"), "sankern", SOURCE, native=True) as module:
        assert module.reduce_fixed.native_code() is not None
        yield module


def _line(tag: str) -> str:
    """The source of the catalogue line marked ``# tag`` as the sanitizer quotes it (file:line: code)."""
    for k, line in enumerate(SOURCE.splitlines(), start=1):
        if line.rstrip().endswith(f"# {tag}"):
            return f"sankern/kern.py:{k}: {line.strip()}"
    raise AssertionError(tag)


def _inputs() -> dict[str, tuple[int, int, tuple[np.ndarray, ...]]]:
    """Each kernel's (threads, blocks, arguments)."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal(N).astype(np.float32)
    keys = rng.integers(0, 1000, N).astype(np.int32)
    out = np.zeros(N, np.float32)
    return {
        "reduce": (64, 4, (x, np.zeros(4, np.float32))),
        "blur": (64, 4, (x, out)),
        "tile_sum": (64, 1, (x, np.zeros(64, np.float32))),
        "pairs": (64, 4, (x, np.zeros(N // 2, np.float32))),
        "barrier": (64, 1, (np.zeros(64, np.float32),)),
        "smooth": (64, 4, (x,)),
        "histogram": (64, 4, (keys, np.zeros(16, np.int32))),
        "count": (64, 1, (np.zeros(1, np.int32), np.zeros(1, np.int32))),
        "rotate": (64, 4, (x, out)),
        "rows": (64, 4, (np.zeros((4, 8), np.float32),)),
    }


#: kernel, its inputs, the check that must catch it, and the tagged lines its message must quote
CATALOGUE = [
    ("reduce_no_sync", "reduce", "racecheck", ["RACE-REDUCE"]),
    ("blur_no_halo", "blur", "initcheck", ["READ-HALO", "TILE-HALO"]),
    ("tile_sum_short", "tile_sum", "initcheck", ["READ-TILE"]),
    ("pairs_two_writers", "pairs", "racecheck", ["WRITE-PAIR"]),
    ("barrier_in_branch", "barrier", "synccheck", ["BARRIER-BRANCH"]),
    ("two_barriers", "barrier", "synccheck", ["BARRIER-EVEN", "BARRIER-ODD"]),
    ("smooth_in_place", "smooth", "racecheck", ["SMOOTH"]),
    ("histogram_not_zeroed", "histogram", "initcheck", ["ATOMIC-BINS"]),
    ("count_and_peek", "count", "racecheck", ["ATOMIC-COUNT", "PEEK"]),
    ("rotate_no_sync", "rotate", "racecheck", ["WRITE-ROTATE", "READ-ROTATE"]),
    ("row_view_race", "rows", "racecheck", ["WRITE-ROW"]),
    ("view_no_sync", "rotate", "racecheck", ["WRITE-VIEW", "READ-VIEW"]),
]


@pytest.mark.parametrize("name, inputs, check, tags", CATALOGUE, ids=[c[0] for c in CATALOGUE])
def test_each_classic_bug_is_caught_where_it_is(kern: ModuleType, name: str, inputs: str, check: str, tags: list[str]):
    threads, blocks, args = _inputs()[inputs]
    k = getattr(kern, name)
    k.launch(threads, blocks, *(a.copy() for a in args), device="cpu")  # the plain native run sees nothing
    with pytest.raises(SanitizerError) as info:
        k.launch(threads, blocks, *(a.copy() for a in args), device="cpu", sanitize=True)
    message = str(info.value)
    assert info.value.check == check
    assert message.startswith(f"kernel sankern.kern.{name}: {check}: thread "), message
    for tag in tags:
        where = _line(tag)
        if tag == "TILE-HALO":  # the shared array the element lies in: named by where it is made
            where = where.split(": ", 1)[0]
        assert where in message, (tag, message)


def test_messages_name_the_element_and_both_threads(kern: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    # every block has the race: on one thread the blocks run in order, and the first is named (with
    # more, each thread starts in its own part of the grid and the first to find one names it)
    monkeypatch.setenv("HYBRID_CPU_THREADS", "1")
    threads, blocks, args = _inputs()["pairs"]
    with pytest.raises(SanitizerError) as info:
        kern.pairs_two_writers.launch(threads, blocks, *args, device="cpu", sanitize=True)
    assert str(info.value).splitlines()[0] == (
        "kernel sankern.kern.pairs_two_writers: racecheck: thread 1 of block 0 writes out[0], which thread 0 of "
        "the same block wrote with no syncthreads() between them"
    )
    assert [a[:3] for a in info.value.accesses] == [("writes", (1, 0, 0), (0, 0, 0)), ("wrote", (0, 0, 0), (0, 0, 0))]
    _, _, args = _inputs()["smooth"]
    with pytest.raises(SanitizerError, match=r"which thread 0 of block \d+ (wrote|read) in another block \(blocks run"):
        kern.smooth_in_place.launch(1, N, *args, device="cpu", sanitize=True)  # one thread per block
    threads, blocks, args = _inputs()["tile_sum"]
    with pytest.raises(SanitizerError, match=r"reads element \[64\] of the shared array made at sankern/kern.py:\d+"):
        kern.tile_sum_short.launch(threads, blocks, *args, device="cpu", sanitize=True)


FIXED = [
    ("reduce_fixed", "reduce"),
    ("blur_fixed", "blur"),
    ("tile_sum_fixed", "tile_sum"),
    ("pairs_fixed", "pairs"),
    ("barrier_fixed", "barrier"),
    ("histogram_fixed", "histogram"),
]


@pytest.mark.parametrize("name, inputs", FIXED, ids=[f[0] for f in FIXED])
def test_each_fix_is_clean_and_computes_what_the_plain_runs_do(kern: ModuleType, name: str, inputs: str) -> None:
    threads, blocks, args = _inputs()[inputs]
    results = []
    for how in ({"device": "cpu", "sanitize": True}, {"device": "cpu"}, {"device": "cpu-python"}):
        copies = [a.copy() for a in args]
        getattr(kern, name).launch(threads, blocks, *copies, **how)
        results.append(copies)
    for got in results[1:]:
        for a, b in zip(results[0], got):
            np.testing.assert_array_equal(a, b)


def test_own_elements_are_found_where_the_index_tells_threads_apart(kern: ModuleType) -> None:
    """The array parameters whose every access has one index, a function of the thread on its own
    (hatch_hybrid.targets.host.lowering.sanitize_owned): the runtime leaves them without shadow cells where the launch
    tells those indices apart."""
    owned = {name: getattr(kern, name).native_code().sanitize["owned"] for name in [
        "bump", "bump_tiles", "own_copy", "own_2d", "own_then_other", "smooth_in_place", "pairs_two_writers",
        "row_view_race", "reduce_fixed",
    ]}  # fmt: skip
    assert owned == {
        "bump": [[0, [["x", "global"]]]],
        "bump_tiles": [[0, [["x", 16]]]],
        "own_copy": [[0, [["x", "global"]]], [1, [["x", "global"]]]],
        "own_2d": [[0, [["x", "global"], ["y", "global"]]], [1, [["x", "global"], ["y", "global"]]]],
        "own_then_other": [[0, [["x", "global"]]]],  # out: also i + 1, another thread's
        "smooth_in_place": [],
        "pairs_two_writers": [[0, [["x", "global"]]]],  # out[i // 2] is shared by two threads
        "row_view_race": [],  # a view
        # out[block_idx_x()]: its own only where a block has one thread (the runtime decides per launch)
        "reduce_fixed": [[0, [["x", "global"]]], [1, [["x", "block"]]]],
    }


def _strided(n: int, stride: int) -> np.ndarray:
    """A writable f32 array of ``n`` elements ``stride`` bytes apart (0: all one element)."""
    base = np.zeros(max(1, n * stride // 4 + 1), np.float32)
    return np.lib.stride_tricks.as_strided(base, shape=(n,), strides=(stride,))


def test_own_elements_still_race_where_the_launch_or_the_arguments_let_threads_meet(kern: ModuleType) -> None:
    """An index that tells threads apart in one launch need not in another: each of these races is found,
    and the launches where the elements are the threads' own run clean and compute what the plain run does."""
    y = np.arange(128, dtype=np.float32)
    races = [
        (kern.bump, (32, 2), 2, (y.copy(),), "BUMP"),  # two rows of threads, one global_tid_x()
        (kern.bump_tiles, 32, 4, (y.copy(),), "BUMP-TILE"),  # 32 threads a block for tiles of 16
        (kern.bump, 64, 2, (_strided(128, 0),), "BUMP"),  # every index is the same element
        (kern.own_copy, 32, 2, (y[:-1], y[1:]), "OWN-COPY"),  # dst[i] is src[i + 1]
    ]
    for k, threads, blocks, args, tag in races:
        k.launch(threads, blocks, *(a.copy() if a.base is None else a for a in args), device="cpu")
        with pytest.raises(SanitizerError) as info:
            k.launch(threads, blocks, *args, device="cpu", sanitize=True)
        assert info.value.check == "racecheck" and _line(tag) in str(info.value), str(info.value)
    clean = [
        (kern.bump, 64, 2, (y,)),
        (kern.bump_tiles, 16, 8, (y,)),
        (kern.bump, 64, 2, (_strided(128, 8),)),
        (kern.own_copy, 32, 2, (y[::2].copy(), y[1::2].copy())),
        (kern.own_2d, (8, 4), (2, 4), (np.ones((16, 16), np.float32), np.zeros((16, 16), np.float32))),
    ]
    for k, threads, blocks, args in clean:
        results = []
        for how in ({"device": "cpu", "sanitize": True}, {"device": "cpu"}):
            copies = [a.copy() for a in args]
            k.launch(threads, blocks, *copies, **how)
            results.append(copies)
        for a, b in zip(*results):
            np.testing.assert_array_equal(a, b)
    with pytest.raises(SanitizerError, match="racecheck"):  # out[i + 1] in a helper: another thread's out[i]
        kern.own_then_other.launch(64, 2, y.copy(), np.zeros(128, np.float32), device="cpu", sanitize=True)


def test_smoothing_out_of_place_is_clean(kern: ModuleType) -> None:
    x = np.linspace(0, 1, N, dtype=np.float32)
    out = np.zeros_like(x)
    kern.smooth_fixed.launch(64, 4, x, out, device="cpu", sanitize=True)
    np.testing.assert_array_equal(out[1:-1], (x[:-2] + x[2:]) / np.float32(2))
    # the array it only reads gets no shadow, unless it is the one it writes
    with pytest.raises(SanitizerError, match="racecheck: .* a\\[|racecheck: .* out\\["):
        kern.smooth_fixed.launch(64, 4, x, x, device="cpu", sanitize=True)


def test_the_environment_sanitizes_every_cpu_launch(kern: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    threads, blocks, args = _inputs()["pairs"]
    launcher = kern.pairs_two_writers[blocks, threads]
    for _ in range(3):  # the second launch installs the fast launch: it must notice the variable too
        launcher(*args)
        kern.pairs_two_writers.launch(threads, blocks, *args, device="cpu")
    monkeypatch.setenv("HYBRID_DEVICE", "cpu")
    monkeypatch.setenv("HYBRID_SANITIZE", "1")
    with pytest.raises(SanitizerError):
        launcher(*args)
    with pytest.raises(SanitizerError):
        kern.pairs_two_writers.launch(threads, blocks, *args, device="cpu")
    kern.pairs_two_writers.launch(threads, blocks, *args, device="cpu", sanitize=False)  # asked not to
    monkeypatch.setenv("HYBRID_SANITIZE", "0")
    launcher(*args)


def test_failed_checks_raise_as_without_the_sanitizer(kern: ModuleType) -> None:
    """The sanitized code checks bounds: an index past the end raises IndexError, as @kernel(debug=True)."""
    x = np.zeros(N, np.float32)
    with pytest.raises(IndexError, match=r"index 63 is out of bounds for axis 0 with size 63 \(sankern/kern.py:\d+"):
        kern.tile_sum_fixed.launch(64, 1, x, np.zeros(64, np.float32)[:63].copy(), device="cpu", sanitize=True)


def test_sanitize_arguments_are_checked(kern: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    threads, blocks, args = _inputs()["reduce"]
    with pytest.raises(TypeError, match="`sanitize` must be True or False"):
        kern.reduce_fixed.launch(threads, blocks, *args, device="cpu", sanitize="yes")
    with pytest.raises(ValueError, match='`sanitize=True` checks a launch on the CPU; pass device="cpu"'):
        kern.reduce_fixed.launch(threads, blocks, *args, device="cuda", sanitize=True)
    with pytest.raises(ValueError, match="`sanitize=True` runs the kernel's native code"):
        kern.reduce_fixed.launch(threads, blocks, *args, device="cpu-python", sanitize=True)
    monkeypatch.setenv("HYBRID_DEVICE", "cpu-python")  # the default device is the Python path
    with pytest.raises(ValueError, match="`sanitize=True` runs the kernel's native code"):
        kern.reduce_fixed.launch(threads, blocks, *args, sanitize=True)


def test_a_package_built_without_it_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = KERNEL_PRELUDE + "\n@kernel\ndef one(x: Array[f32]):\n    x[gpu.global_tid_x()] = f32(1)\n"
    with built_package(tmp_path, "nosan", source, native=True, cpu_sanitize=False) as module:
        x = np.zeros(4, np.float32)
        with pytest.raises(ValueError, match=r"built without it \(cpu-sanitize = false\)"):
            module.one.launch(4, 1, x, device="cpu", sanitize=True)
        monkeypatch.setenv("HYBRID_SANITIZE", "1")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            module.one.launch(4, 1, x, device="cpu")
        assert any("runs unsanitized" in str(w.message) for w in caught)
        np.testing.assert_array_equal(x, 1)


def test_a_package_whose_sanitizer_state_differs_says_so(kern: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    """Sanitized code built by another hatch-hybrid, whose state the runtime would lay out wrongly, is not run."""
    code = kern.bump.native_code()
    monkeypatch.setitem(code.sanitize, "layout", 1)
    monkeypatch.setattr(code, "_sanitized", None)
    with pytest.raises(ValueError, match=r"lays its state out differently \(layout 1, this runtime's \d+\): rebuild"):
        kern.bump.launch(64, 2, np.zeros(128, np.float32), device="cpu", sanitize=True)


def test_the_repositorys_own_kernels_run_clean_under_the_sanitizer() -> None:
    """The numba ports and the example packages' CPU tests, run unchanged with $HYBRID_SANITIZE=1."""
    tests = ["tests/test_numba_ports.py", "tests/test_examples.py", "tests/test_block_loops.py"]
    env = {**__import__("os").environ, "HYBRID_SANITIZE": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-m", "not gpu", *tests],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert " passed" in proc.stdout.splitlines()[-1]
