"""The native CPU tier: kernels compiled for host CPUs, linked per package and target, run in place
on NumPy arrays. Every shipped kernel compiles for every target; the libraries have the right format
(ELF, Mach-O, PE); results equal the Python path's bit for bit; tampered or missing libraries are
refused; kernels without native code fall back to the Python path and say why, once."""

from __future__ import annotations

import importlib
import json
import shutil
import struct
import sys
import threading
import time
import warnings
from pathlib import Path

import hybrid_runtime as hr
import numpy as np
import pytest
from conftest import HOST_TARGETS, KERNEL_PRELUDE
from hybrid_runtime import cpu, native
from hybrid_runtime.manifest import ManifestError, package_manifest

from hatch_hybrid.hook.artifacts import write_package_artifacts
from hatch_hybrid.pipeline import Options, compile_packages
from hatch_hybrid.targets.host.cpus import DEFAULT_TARGETS, TARGETS
from hatch_hybrid.targets.host.link import have_zig

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = [
    ROOT / "example_project/hybrid_demo/hybrid_demo",
    ROOT / "example_project/hybrid_sort/hybrid_sort",
    ROOT / "benchmarks/bench_kernels/bench_kernels",
    ROOT / "tests/packages/kernlib/kernlib",
]
needs_host = pytest.mark.skipif(not HOST_TARGETS, reason="this machine is not one of the CPU targets")
if not have_zig():
    pytest.skip("the ziglang package (the linker of native CPU code) is not installed", allow_module_level=True)


def _format(data: bytes) -> str:
    """What a shared library is, from its headers: "ELF x86_64", "Mach-O arm64", "PE x86_64"."""
    if data[:4] == b"\x7fELF":
        machine = struct.unpack_from("<H", data, 18)[0]
        return "ELF " + {62: "x86_64", 183: "aarch64"}.get(machine, str(machine))
    if data[:4] == b"\xcf\xfa\xed\xfe":
        cputype = struct.unpack_from("<I", data, 4)[0]
        return "Mach-O " + {0x01000007: "x86_64", 0x0100000C: "arm64"}.get(cputype, hex(cputype))
    if data[:2] == b"MZ":
        pe = struct.unpack_from("<I", data, 0x3C)[0]
        assert data[pe : pe + 4] == b"PE\0\0"
        machine = struct.unpack_from("<H", data, pe + 4)[0]
        return "PE " + {0x8664: "x86_64"}.get(machine, hex(machine))
    return "unknown"


EXPECTED_FORMAT = {
    "x86_64-linux": "ELF x86_64",
    "aarch64-linux": "ELF aarch64",
    "arm64-macos": "Mach-O arm64",
    "x86_64-macos": "Mach-O x86_64",
    "x86_64-windows": "PE x86_64",
}


@pytest.fixture(scope="module")
def shipped(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every shipped package compiled for every CPU target and written out as its wheel would hold it."""
    out = tmp_path_factory.mktemp("shipped")
    for src in SHIPPED:
        shutil.copytree(src, out / src.name)
    kernels = compile_packages(
        [out / src.name for src in SHIPPED],
        options=Options(["sm_70"], cubin=False, cpu=list(DEFAULT_TARGETS)),
        search_path=[str(out), *sys.path],
    )
    unsupported = {
        k.decl.qualname: k.codes.get("cpu").unsupported
        for k in kernels
        if k.codes.get("cpu") is None or k.codes.get("cpu").unsupported
    }
    assert not unsupported, unsupported
    write_package_artifacts(kernels, ["sm_70"], out)
    return out


def test_every_shipped_kernel_runs_natively_on_every_target(shipped: Path) -> None:
    for src in SHIPPED:
        directory = shipped / src.name / "_hybrid"
        data = json.loads((directory / "manifest.json").read_text())
        assert sorted(data["cpu"]) == sorted(DEFAULT_TARGETS)
        for target, name in data["cpu"].items():
            assert name == TARGETS[target].library(src.name)
            assert _format((directory / name).read_bytes()) == EXPECTED_FORMAT[target], (src.name, target)
        for qualname, entry in data["kernels"].items():
            for variant in entry.get("variants", [entry]):
                assert "symbol" in variant["cpu"], (qualname, variant["cpu"])


def test_x86_libraries_carry_baseline_avx2_and_avx512_entries_per_kernel(shipped: Path) -> None:
    directory = shipped / "bench_kernels" / "_hybrid"
    data = json.loads((directory / "manifest.json").read_text())
    assert data["cpu_levels"]["x86_64-linux"] == ["v3", "v4"]
    blob = (directory / data["cpu"]["x86_64-linux"]).read_bytes()
    symbol = data["kernels"]["bench_kernels.kernels.saxpy"]["cpu"]["symbol"].encode()
    assert symbol + b"\0" in blob and symbol + b"__v3\0" in blob and symbol + b"__v4\0" in blob


@pytest.fixture(scope="module")
def bench(shipped: Path):  # type: ignore[no-untyped-def]
    if not HOST_TARGETS:
        pytest.skip("this machine is not one of the CPU targets")
    sys.path.insert(0, str(shipped))
    try:
        module = importlib.import_module("bench_kernels.kernels")
    finally:
        sys.path.remove(str(shipped))
    yield module
    for name in [m for m in sys.modules if m == "bench_kernels" or m.startswith("bench_kernels.")]:
        del sys.modules[name]
    package_manifest.cache_clear()


def _run(kernel, threads, blocks, *args, device):  # type: ignore[no-untyped-def]
    copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    kernel.launch(threads, blocks, *copies, device=device)
    return [a for a in copies if isinstance(a, np.ndarray)]


def _both(kernel, threads, blocks, *args):  # type: ignore[no-untyped-def]
    assert kernel.native_code() is not None, "no native code: the test would compare the Python path with itself"
    return _run(kernel, threads, blocks, *args, device="cpu"), _run(kernel, threads, blocks, *args, device="cpu-python")


def test_benchmark_kernels_native_equal_python_path_and_numpy(bench) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(1)
    x = rng.standard_normal(5000).astype(np.float32)
    y = rng.standard_normal(5000).astype(np.float32)
    native_out, python_out = _both(bench.saxpy, 128, 40, np.float32(2.5), x, y)
    assert np.array_equal(native_out[1], python_out[1])
    assert np.array_equal(native_out[1], np.float32(2.5) * x + y)

    # barriers, shared memory, warp shuffles; 48 threads: a partial last warp
    for threads in (256, 48):
        partial = np.zeros(8, np.float32)
        (_, got), (_, want) = _both(bench.block_sum, threads, 8, x, partial)
        assert np.array_equal(got, want)
        if threads % 32 == 0:  # the kernel sums whole warps only
            np.testing.assert_allclose(got.sum(), x.sum(), rtol=1e-4)

    a = rng.standard_normal((48, 32)).astype(np.float32)
    b = rng.standard_normal((32, 64)).astype(np.float32)
    for k in (bench.matmul, bench.matmul_fast):
        (_, _, got), (_, _, want) = _both(k, (16, 16), (4, 3), a, b, np.zeros((48, 64), np.float32))
        assert np.array_equal(got, want) or k is bench.matmul_fast  # fastmath may contract differently
        np.testing.assert_allclose(got, a @ b, rtol=1e-4, atol=1e-4)

    src = rng.standard_normal((40, 70)).astype(np.float32)
    (_, got), (_, want) = _both(bench.stencil, (32, 8), (3, 5), src, np.zeros_like(src))
    assert np.array_equal(got, want)

    keys = rng.standard_normal(1024).astype(np.float32)
    (got,), (want,) = _both(bench.bitonic_pass, 256, 4, keys, 1, 2)
    assert np.array_equal(got, want)


def test_thread_count_does_not_change_results(bench, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    x = np.random.default_rng(2).standard_normal(1 << 15).astype(np.float32)
    outs = []
    for n in ("1", "2", "3"):
        monkeypatch.setenv("HYBRID_CPU_THREADS", n)
        outs.append(_run(bench.block_sum, 128, 64, x, np.zeros(64, np.float32), device="cpu")[1])
    assert all(np.array_equal(outs[0], o) for o in outs[1:])
    monkeypatch.setenv("HYBRID_CPU_THREADS", "zero")
    with pytest.raises(ValueError, match="HYBRID_CPU_THREADS"):
        bench.saxpy.launch(32, 1, np.float32(1), x, x.copy(), device="cpu")


def test_baseline_and_avx2_entries_agree(bench, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    x = np.random.default_rng(3).standard_normal((64, 64)).astype(np.float32)
    outs = []
    for level in ("", "baseline"):
        monkeypatch.setenv("HYBRID_CPU_LEVEL", level)
        native.cpu_levels.cache_clear()
        bench.stencil._native.clear()
        outs.append(_run(bench.stencil, (16, 16), (4, 4), x, np.zeros_like(x), device="cpu")[1])
    native.cpu_levels.cache_clear()
    bench.stencil._native.clear()
    assert np.array_equal(outs[0], outs[1])


def test_launch_releases_the_gil(bench) -> None:  # type: ignore[no-untyped-def]
    """Another Python thread runs while a native launch computes."""
    n = 1 << 22
    x = np.ones(n, np.float32)
    ticks = [0]
    done = threading.Event()

    def count() -> None:
        while not done.is_set():
            ticks[0] += 1

    # a long switch interval: the counter gets the GIL only when the launching thread gives it up
    interval = sys.getswitchinterval()
    sys.setswitchinterval(0.05)
    t = threading.Thread(target=count)
    t.start()
    start, during = time.perf_counter(), 0
    try:
        while time.perf_counter() - start < 0.5:
            before = ticks[0]
            bench.block_sum.launch(256, 64, x, np.zeros(64, np.float32), device="cpu")
            during += ticks[0] > before  # the counter ran while this launch held no GIL
    finally:
        done.set()
        t.join()
        sys.setswitchinterval(interval)
    # some launches, not every one: the OS may give both cores to the launch's workers (under pytest -n 2,
    # to another test process too)
    assert during > 0


CHECKED = (
    KERNEL_PRELUDE
    + """
@kernel
def positive(x: Array[f32], n: i32):
    i = gpu.global_tid_x()
    gpu.syncthreads()
    if i < len(x):
        assert x[i] >= 0, "negative input"
        x[i] = x[i] * f32(2)
"""
)


@needs_host
def test_a_failed_check_in_a_barrier_kernel_raises_and_the_next_launch_works(build) -> None:  # type: ignore[no-untyped-def]
    b = build(CHECKED)
    assert b.module.positive.native_code() is not None
    x = np.ones(300, np.float32)
    x[123] = -1
    with pytest.raises(
        AssertionError, match=r"kernel .*positive: assertion failed: negative input \(.*kern.py:11: assert x\[i\] >= 0"
    ):
        b.module.positive.launch(64, 5, x, 3, device="cpu")
    y = np.ones(300, np.float32)
    b.module.positive.launch(64, 5, y, 3, device="cpu")
    assert np.array_equal(y, np.full(300, 2, np.float32))


def test_cpu_python_runs_the_python_function(bench, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    calls = []
    real = cpu.run_grid
    monkeypatch.setattr(cpu, "run_grid", lambda *a: calls.append(1) or real(*a))
    x = np.ones(64, np.float32)
    bench.saxpy.launch(64, 1, np.float32(1), x, x.copy(), device="cpu")
    assert not calls
    bench.saxpy.launch(64, 1, np.float32(1), x, x.copy(), device="cpu-python")
    assert calls
    monkeypatch.setenv("HYBRID_DEVICE", "cpu-python")
    bench.saxpy[1, 64](np.float32(1), x, x.copy())
    assert len(calls) == 2


def _copy_package(shipped: Path, tmp_path: Path, name: str) -> Path:
    root = tmp_path / "site"
    shutil.copytree(shipped / name, root / name)
    return root


def _import_fresh(root: Path, module: str):  # type: ignore[no-untyped-def]
    package = module.split(".")[0]
    for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
        del sys.modules[name]
    package_manifest.cache_clear()
    sys.path.insert(0, str(root))
    try:
        return importlib.import_module(module)
    finally:
        sys.path.remove(str(root))


@needs_host
def test_tampered_or_missing_library_is_a_manifest_error(shipped: Path, tmp_path: Path) -> None:
    target = HOST_TARGETS[0]
    for damage in ("flip", "delete"):
        root = _copy_package(shipped, tmp_path / damage, "bench_kernels")
        lib = root / "bench_kernels" / "_hybrid" / TARGETS[target].library("bench_kernels")
        if damage == "flip":
            data = bytearray(lib.read_bytes())
            data[len(data) // 2] ^= 0xFF
            lib.write_bytes(bytes(data))
        else:
            lib.unlink()
        k = _import_fresh(root, "bench_kernels.kernels")
        x = np.ones(64, np.float32)
        with pytest.raises(ManifestError, match="modified after the build" if damage == "flip" else "cannot read"):
            k.saxpy.launch(64, 1, np.float32(1), x, x.copy(), device="cpu")
    package_manifest.cache_clear()


@needs_host
def test_wheel_without_this_platform_says_so_once_and_runs_the_python_path(shipped: Path, tmp_path: Path) -> None:
    root = _copy_package(shipped, tmp_path, "bench_kernels")
    path = root / "bench_kernels" / "_hybrid" / "manifest.json"
    data = json.loads(path.read_text())
    data["cpu"] = {t: n for t, n in data["cpu"].items() if t != HOST_TARGETS[0]}
    path.write_text(json.dumps(data))
    k = _import_fresh(root, "bench_kernels.kernels")
    x = np.arange(64, dtype=np.float32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            y = np.ones(64, np.float32)
            k.saxpy.launch(64, 1, np.float32(2), x, y, device="cpu")
            k.bitonic_pass.launch(64, 1, y, 1, 2, device="cpu")
    notices = [w for w in caught if "no native CPU code for this machine" in str(w.message)]
    assert len(notices) == 1 and "has no native CPU code for this machine" in str(notices[0].message)
    package_manifest.cache_clear()


UNSUPPORTED = (
    KERNEL_PRELUDE
    + """
@kernel
def votes(x: Array[i32], out: Array[i32]):
    i = gpu.global_tid_x()
    n = 0
    while gpu.any_(n < x[i]):
        n += 1
    out[i] = n
"""
)


@needs_host
def test_kernel_without_native_code_falls_back_with_its_reason(build) -> None:  # type: ignore[no-untyped-def]
    b = build(UNSUPPORTED)
    assert "warp shuffle or vote in a `while` condition" in b.kernels["votes"].codes.get("cpu").unsupported
    x = np.arange(64, dtype=np.int32) % 7
    out = np.zeros(64, np.int32)
    with pytest.warns(RuntimeWarning, match=r"votes has no native CPU code: .*kern.py:\d+"):
        b.module.votes.launch(64, 1, x, out, device="cpu")
    assert np.array_equal(out, np.full(64, 6, np.int32))


def test_device_arrays_are_refused_without_a_gpu_on_the_native_path() -> None:
    if hr.cuda_available():
        pytest.skip("a GPU is present")
    with pytest.raises(Exception, match="device"):
        hr.device_array(4, np.float32)


BARRIER_HELPERS = (
    KERNEL_PRELUDE
    + """
def rotate(x: Array[f32], i: int) -> f32:
    # reads its neighbour's value after every thread of the block has written its own
    tile = gpu.shared_array(f32, 64)
    tile[i] = x[i]
    gpu.syncthreads()
    x[i] = 0.0
    gpu.syncthreads()
    return tile[(i + 1) % 64]


def total(v: f32) -> f32:
    s = v
    d = 16
    while d > 0:
        s += gpu.shfl_xor(s, d)
        d //= 2
    return s


@kernel
def inside(x: Array[f32], out: Array[f32]):
    i = gpu.thread_idx_x()
    # x[i] is read before the helper writes it (Python's order), the helpers' results after
    out[i] = x[i] * f32(10) + rotate(x, i) + total(x[i]) + min(f32(1), total(f32(i)))
"""
)


@needs_host
def test_helpers_that_meet_other_threads_inside_expressions_keep_pythons_order(build) -> None:  # type: ignore[no-untyped-def]
    b = build(BARRIER_HELPERS)
    assert b.module.inside.native_code() is not None
    x = np.arange(64, dtype=np.float32) + 1
    results = []
    for device in ("cpu", "cpu-python"):
        xs, out = x.copy(), np.zeros(64, np.float32)
        b.module.inside.launch(64, 1, xs, out, device=device)
        results.append(out)
    assert np.array_equal(results[0], results[1])
    lanes = np.arange(64)
    # x[i] was read before rotate zeroed it, so total(x[i]) sums zeros after the call: 0
    expected = x * 10 + x[(lanes + 1) % 64] + 0 + 1
    assert np.array_equal(results[0], expected.astype(np.float32))
