"""The native CPU path's worker pool and launch plans: a launch is one call into the library, whose
pool spreads the blocks over the calling thread and persistent workers. Launches from several Python
threads at once, failed checks in one block of many, thread counts above and below the number of
blocks, the fast launch's argument checks against the general path's, and a forked child."""

from __future__ import annotations

import dataclasses
import os
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from conftest import HOST_TARGETS, KERNEL_PRELUDE, built_package
from hybrid_runtime import cpu, native_plan, native_pool
from hybrid_runtime.abi import GRID_ABORT, GRID_INIT, GRID_LEAVE, GRID_WAIT
from test_f16 import _macho_undefined

from hatch_hybrid.targets.host import pool
from hatch_hybrid.targets.host.cpus import DEFAULT_TARGETS, TARGETS
from hatch_hybrid.targets.host.driver import LAUNCH, SANITIZER_BLOCK, SANITIZER_SYNC
from hatch_hybrid.targets.host.link import link
from hatch_hybrid.targets.host.lowering.sanitize import ACCESS, QUIET

pytestmark = pytest.mark.skipif(not HOST_TARGETS, reason="no native CPU code for this machine (or no zig)")

SOURCE = (
    KERNEL_PRELUDE
    + """
@kernel
def saxpy(a: f32, x: Array[f32], y: Array[f32]):
    i = gpu.global_tid_x()
    if i < len(y):
        y[i] = a * x[i] + y[i]


@kernel
def block_sums(x: Array[f32], out: Array[f32]):
    tile = gpu.shared_array(f32, 64)
    t = gpu.thread_idx_x()
    i = gpu.global_tid_x()
    tile[t] = x[i] if i < len(x) else f32(0)
    gpu.syncthreads()
    if t == 0:
        s = f32(0)
        for k in range(64):
            s += tile[k]
        out[gpu.block_idx_x()] = s


@kernel
def bump(x: Array[f32], bad: i64):
    i = gpu.global_tid_x()
    if i < len(x):
        assert i != bad, "bad element"
        x[i] = x[i] + f32(1)


@kernel
def bump_in_rounds(x: Array[f32], bad: i64):
    i = gpu.global_tid_x()
    gpu.syncthreads()
    if i < len(x):
        assert i != bad, "bad element"
        x[i] = x[i] + f32(1)


@kernel(debug=True)
def gather(x: Array[f32], index: Array[i64], out: Array[f32]):
    i = gpu.global_tid_x()
    if i < len(out):
        out[i] = x[index[i]]


@kernel
def grid_2d(out: Array[i64, 2], scale: i64):
    r = gpu.block_idx_y() * gpu.block_dim_y() + gpu.thread_idx_y()
    c = gpu.global_tid_x()
    if r < out.shape[0] and c < out.shape[1]:
        out[r, c] = (r * 1000 + c) * scale
"""
)


@pytest.fixture(scope="module")
def kern(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    with built_package(tmp_path_factory.mktemp("pool"), "poolkern", SOURCE, native=True) as module:
        assert module.saxpy.native_code() is not None
        yield module


def test_the_runtime_knows_the_launch_words_and_the_pool_of_the_compiler() -> None:
    assert native_plan.WORD == LAUNCH
    assert native_plan.LAUNCH_WORDS == max(LAUNCH.values()) + 1 <= native_plan.OWN_WORDS // 8
    assert pool.EXPORTS == (
        native_pool.LAUNCH,
        native_pool.WORK,
        native_pool.RESET,
        ACCESS,
        SANITIZER_SYNC,
        SANITIZER_BLOCK,
        QUIET,
        GRID_INIT,
        GRID_WAIT,
        GRID_LEAVE,
        GRID_ABORT,
    )


#: linker flags that make any unresolved symbol an error (the default for DLLs; Mach-O: read them below)
_STRICT = {"x86_64-linux": ("-Wl,-z,defs",), "aarch64-linux": ("-Wl,-z,defs",)}


@pytest.mark.parametrize("target", DEFAULT_TARGETS)
def test_the_pool_links_alone_for_every_target(target: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """No C library, no compiler runtime: the pool resolves nothing but kernel32's functions on Windows
    and the process's pthreads on macOS (Linux: system calls)."""
    monkeypatch.setitem(TARGETS, target, dataclasses.replace(TARGETS[target], link_flags=_STRICT.get(target, ())))
    library = link([], target, needs_libc=False)
    if target.endswith("macos"):
        assert _macho_undefined(library) == {"dyld_stub_binder", *pool.MACOS_IMPORTS}
    for name in pool.EXPORTS:
        assert name.encode() in library, (target, name)


def test_the_libraries_pool_serves_launches_with_persistent_workers(kern, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("HYBRID_CPU_THREADS", "3")
    x = np.arange(4096, dtype=np.float32)
    y = np.ones_like(x)
    kern.saxpy.launch(64, 64, np.float32(2), x, y, device="cpu")
    assert np.array_equal(y, 2 * x + 1)
    served = native_pool.current()
    assert served is not None and served.started >= 2
    workers = {t.name for t in threading.enumerate() if t.name.startswith("hybrid-cpu-")}
    for _ in range(20):  # back-to-back launches reuse the same threads
        kern.saxpy.launch(64, 64, np.float32(2), x, y, device="cpu")
    assert {t.name for t in threading.enumerate() if t.name.startswith("hybrid-cpu-")} == workers
    assert np.array_equal(y, 42 * x + 1)


@pytest.mark.parametrize("threads", ["1", "3", "8"])
@pytest.mark.parametrize("blocks", [1, 2, 3, 37])
def test_results_do_not_depend_on_threads_or_blocks(kern, monkeypatch, threads: str, blocks: int) -> None:  # type: ignore[no-untyped-def]
    """HYBRID_CPU_THREADS below, at and above the number of blocks (more threads than blocks: the
    pool takes only as many as there are)."""
    monkeypatch.setenv("HYBRID_DEVICE", "cpu")
    monkeypatch.setenv("HYBRID_CPU_THREADS", threads)
    x = np.random.default_rng(blocks).standard_normal(blocks * 64).astype(np.float32)
    out = np.full(blocks, np.nan, np.float32)
    kern.block_sums.launch(64, blocks, x, out, device="cpu")
    want = np.zeros(blocks, np.float32)
    for b in range(blocks):  # the kernel's order of additions
        for v in x[b * 64 : (b + 1) * 64]:
            want[b] += v
    assert np.array_equal(out, want)
    grid = np.zeros((2 * blocks + 1, 70), np.int64)
    kern.grid_2d[(3, blocks + 1), (32, 2)](grid, 5)
    r, c = np.indices(grid.shape)
    assert np.array_equal(grid, (r * 1000 + c) * 5)


def test_launches_from_many_python_threads_at_once(kern, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """The same kernel and different kernels from 8 threads: one launch at a time has the workers, the
    others run on their own threads; each with its own block memory and parameters."""
    monkeypatch.setenv("HYBRID_CPU_THREADS", "3")
    monkeypatch.setenv("HYBRID_DEVICE", "cpu")
    rng = np.random.default_rng(7)
    xs = [rng.standard_normal(64 * 40).astype(np.float32) for _ in range(8)]

    def work(k: int) -> bool:
        ok = True
        for round_ in range(30):
            x = xs[k]
            if (k + round_) % 2:
                y = np.full_like(x, k)
                kern.saxpy[40, 64](np.float32(round_), x, y)  # the launcher: fast path on its own thread
                ok &= bool(np.array_equal(y, np.float32(round_) * x + np.float32(k)))
            else:
                out = np.zeros(40, np.float32)
                kern.block_sums.launch(64, 40, x, out, device="cpu")
                ok &= bool(np.array_equal(out, x.reshape(40, 64).cumsum(axis=1, dtype=np.float32)[:, -1]))
        return ok

    with ThreadPoolExecutor(8) as pool_:
        assert all(pool_.map(work, range(8)))


@pytest.mark.parametrize("name", ["bump", "bump_in_rounds"])
def test_a_failed_check_in_one_block_of_many_raises_once(kern, monkeypatch, name: str) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("HYBRID_CPU_THREADS", "3")
    monkeypatch.setenv("HYBRID_DEVICE", "cpu")
    k = getattr(kern, name)
    x = np.zeros(64 * 100, np.float32)
    with pytest.raises(AssertionError, match=rf"kernel .*{name}: assertion failed: bad element \(.*kern.py:\d+"):
        k.launch(64, 100, x, 64 * 57 + 5, device="cpu")
    assert x[64 * 57 + 5] == 0
    # the error slot was cleared: the next launches run and report nothing
    for launch in (lambda: k.launch(64, 100, x, -1, device="cpu"), lambda: k[100, 64](x, -1)):
        x[:] = 0
        launch()
        assert np.array_equal(x, np.ones_like(x))
    with pytest.raises(AssertionError, match="bad element"):  # and a failure is found again
        k[100, 64](x, 3)


def test_a_failed_bounds_check_names_the_index(kern, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("HYBRID_CPU_THREADS", "2")
    monkeypatch.setenv("HYBRID_DEVICE", "cpu")
    x = np.arange(1000, dtype=np.float32)
    index = np.arange(2000, dtype=np.int64) % 1000
    index[1234] = 1000
    out = np.zeros(2000, np.float32)
    with pytest.raises(IndexError, match=r"gather: index 1000 is out of bounds for axis 0 with size 1000"):
        kern.gather[16, 128](x, index, out)
    index[1234] = 7
    kern.gather[16, 128](x, index, out)
    assert np.array_equal(out, x[index])


def test_the_fast_launch_checks_what_the_general_path_checks(kern, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """Arguments the fast launch does not take (views with odd strides, other dtypes, out-of-range
    scalars, read-only outputs) go to the general path, which runs them or names what is wrong."""
    monkeypatch.setenv("HYBRID_DEVICE", "cpu")
    general = []
    real = kern.saxpy.launch_cpu
    monkeypatch.setattr(kern.saxpy, "launch_cpu", lambda *a: general.append(a) or real(*a))
    x = np.arange(512, dtype=np.float32)
    launch = kern.saxpy[4, 64]
    for a in (2.0, 2, np.float32(2), np.float64(2)):  # scalar types, the last through the general path
        y = np.ones(256, np.float32)
        launch(a, x[::2], y)
        assert np.array_equal(y, 2 * x[::2] + 1)
    assert len(general) == 3  # the first two launches (the second makes the fast launch) and the float64
    y = np.ones(512, np.float32)[::-2]  # negative strides
    launch(np.float32(3), x[:256], y)
    assert np.array_equal(y, 3 * x[:256] + 1)
    with pytest.raises(TypeError, match="parameter `x` expects Array\\[f32\\], got an array of float64"):
        launch(np.float32(1), x.astype(np.float64), np.ones(256, np.float32))
    with pytest.raises(ValueError, match=r"parameter `a` expects f32, got 1e\+300, which is out of range"):
        launch(1e300, x, np.ones(256, np.float32))
    frozen = np.ones(256, np.float32)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="parameter `y` is written by the kernel, got a read-only array"):
        launch(np.float32(1), x, frozen)
    odd = np.zeros(256, dtype=[("v", np.float32), ("pad", np.uint8)])["v"]  # strides of 5 bytes
    with pytest.raises(ValueError, match="not multiples of its item size"):
        launch(np.float32(1), x, odd)
    grid = np.zeros((40, 70), np.int64)
    kern.grid_2d[(3, 20), (32, 2)](grid.T.T, np.int64(2))
    transposed = np.zeros((70, 40), np.int64).T
    kern.grid_2d[(3, 20), (32, 2)](transposed, 2)
    assert np.array_equal(transposed, grid)
    with pytest.raises(ValueError, match="out of range"):
        kern.grid_2d[(3, 20), (32, 2)](grid, 2**63)


def test_a_library_without_the_pool_runs_launches_on_the_calling_thread(kern, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """What a process that has loaded only libraries of older builds does."""
    monkeypatch.setattr(native_pool, "_pool", None)
    monkeypatch.setenv("HYBRID_CPU_THREADS", "4")
    x = np.random.default_rng(3).standard_normal(64 * 11).astype(np.float32)
    out = np.zeros(11, np.float32)
    for _ in range(2):  # the general path's plan, then the fast launch's
        out[:] = 0
        kern.block_sums.launch(64, 11, x, out, device="cpu")
        assert np.array_equal(out, x.reshape(11, 64).cumsum(axis=1, dtype=np.float32)[:, -1])
    assert kern.block_sums[11, 64, None, 0]._on_cpu.__globals__["plan"].pool is None
    y = np.zeros(64 * 11, np.float32)
    with pytest.raises(AssertionError, match="bad element"):
        kern.bump_in_rounds.launch(64, 11, y, 64 * 7, device="cpu")
    y[:] = 0
    kern.bump_in_rounds.launch(64, 11, y, -1, device="cpu")
    assert np.array_equal(y, np.ones_like(y))


def test_the_configured_launch_follows_hybrid_device(kern, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """``kernel[blocks, threads]`` on the CPU: its native launch (made at the second launch) gives way
    to the Python path when $HYBRID_DEVICE asks for it, and comes back."""
    python_runs = []
    real = cpu.run_grid
    monkeypatch.setattr(cpu, "run_grid", lambda *a: python_runs.append(1) or real(*a))
    x = np.arange(64 * 3, dtype=np.float32)
    launch = kern.saxpy[3, 64]
    for device, runs in (("cpu", 0), ("cpu-python", 3), ("cpu", 3), ("cpu-python", 6)):
        monkeypatch.setenv("HYBRID_DEVICE", device)
        for _ in range(3):
            y = np.ones_like(x)
            launch(np.float32(2), x, y)
            assert np.array_equal(y, 2 * x + 1)
        assert len(python_runs) == runs, device
        assert (launch._launch.__name__ == "launch") == (device == "cpu")


def test_a_changed_thread_count_is_seen_by_the_next_launch(kern, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("HYBRID_DEVICE", "cpu")
    x = np.arange(64 * 9, dtype=np.float32)
    launch = kern.saxpy[9, 64]
    for threads in ("1", "4", "2", ""):
        monkeypatch.setenv("HYBRID_CPU_THREADS", threads)
        y = np.zeros_like(x)
        launch(np.float32(1), x, y)
        assert np.array_equal(y, x)
    monkeypatch.setenv("HYBRID_CPU_THREADS", "-1")
    with pytest.raises(ValueError, match="HYBRID_CPU_THREADS must be a positive integer"):
        launch(np.float32(1), x, x.copy())


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork() here")
@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # fork() in a process with threads
def test_a_forked_child_starts_workers_of_its_own(kern, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("HYBRID_CPU_THREADS", "3")
    x = np.arange(64 * 50, dtype=np.float32)
    kern.saxpy.launch(64, 50, np.float32(1), x, x.copy(), device="cpu")  # the parent's workers exist
    pid = os.fork()
    if pid == 0:  # the child: only this thread was forked
        status = 1
        try:
            y = np.zeros_like(x)
            for _ in range(5):
                kern.saxpy.launch(64, 50, np.float32(1), x, y, device="cpu")
            status = 0 if np.array_equal(y, 5 * x) and native_pool.current().started >= 2 else 1  # type: ignore[union-attr]
        finally:
            os._exit(status)
    deadline = time.monotonic() + 60
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            pytest.fail("the forked child's launch did not finish")
        time.sleep(0.01)
    assert os.waitstatus_to_exitcode(status) == 0
