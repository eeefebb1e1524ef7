"""Shared fixtures. Tiers: compile-only (no GPU, every PTX through ptxas), CPU path, wheel builds
(``slow``), GPU (``gpu``, skipped without a device)."""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import itertools
import os
import shutil
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from filelock import FileLock
from hybrid_runtime.native import host_target

from hatch_hybrid.cache import KernelCache
from hatch_hybrid.hook.artifacts import write_package_artifacts
from hatch_hybrid.pipeline import CompiledKernel, Options, compile_packages
from hatch_hybrid.targets.host.link import have_zig

TEST_ARCHS = ["sm_70", "sm_90"]
#: Native CPU code for this machine in every package the tests build (device="cpu" runs it).
HOST_TARGETS = [t for t in [host_target()] if t is not None and have_zig()]
#: Every kernel test runs on the native CPU code, through the Python function, on a GPU if present, and
#: through WebGPU where there is an adapter (lavapipe in CI; a kernel the target does not build is skipped,
#: with the compiler's reason)
DEVICES = [
    "cpu",
    "cpu-python",
    pytest.param("cuda", marks=pytest.mark.gpu),
    pytest.param("wgpu", marks=pytest.mark.wgpu),
]
#: For tests of what the WebGPU target never builds or promises (print(), NaN and infinities: docs/wgpu.md)
DEVICES_BUT_WGPU = DEVICES[:3]
#: Imports for kernel sources written in tests.
KERNEL_PRELUDE = """
import math
import numpy as np
from hybrid_runtime import kernel, gpu, Array, boolean, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64
"""
#: The SPEC's example kernel, as a library author writes it.
SAXPY_SOURCE = (
    KERNEL_PRELUDE
    + """
def axpy1(a: f32, x: f32, y: f32) -> f32:
    return a * x + y

@kernel
def saxpy(a: f32, x: Array[f32], y: Array[f32]):
    i = gpu.global_tid_x()
    if i < len(y):
        y[i] = axpy1(a, x[i], y[i])
"""
)
_counter = itertools.count()
ROOT = Path(__file__).resolve().parents[1]
#: Builds run their LLVM work in this process: the test workers already use every core (and a pool per
#: build would cost each build its start). tests/test_build_jobs.py runs builds with worker processes.
os.environ.setdefault("HYBRID_BUILD_JOBS", "1")

#: Hypothesis profiles. ``ci``, the default: each property test replays one fixed set of examples
#: (derandomised: drawn from a seed made from the test's own source, no example database), so a test
#: passes or fails whatever ran before it and whichever run it is; the random search belongs to
#: ``scripts/fuzz_edges.py`` and to local runs with ``HYPOTHESIS_PROFILE=explore`` (new examples each
#: run, failures kept in ``.hypothesis/`` and tried first the next time).
HYPOTHESIS_PROFILE = "HYPOTHESIS_PROFILE"
try:
    from hypothesis import settings as hypothesis_settings
except ImportError:  # the property tests skip without it
    pass
else:
    hypothesis_settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True)
    hypothesis_settings.register_profile("explore", derandomize=False, deadline=None, print_blob=True)
    hypothesis_settings.load_profile(os.environ.get(HYPOTHESIS_PROFILE, "ci"))


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Bit-identical, except that any NaN equals any NaN: IEEE 754 leaves NaN sign and payload to the
    hardware (x86 propagates an operand's NaN, NVIDIA GPUs return the canonical 0x7fffffff)."""
    if a.dtype.kind == "f":
        both_nan = np.isnan(a) & np.isnan(b)
        bits = f"u{a.dtype.itemsize}"
        return bool(np.all(both_nan | (a.view(bits) == b.view(bits))))
    return np.array_equal(a, b)


def fuzz_edges_script() -> ModuleType:
    """``scripts/fuzz_edges.py``, the differential fuzzer the tests run from fixed seeds, imported as a module."""
    spec = importlib.util.spec_from_file_location("fuzz_edges", ROOT / "scripts" / "fuzz_edges.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["fuzz_edges"] = module  # as importlib's recipe does (its dataclass looks its module up)
    spec.loader.exec_module(module)
    return module


def find_ptxas() -> str | None:
    """The ptxas the build would use for cubin = true (the pip package's, else PATH)."""
    from hatch_hybrid.targets.ptx.cubin import find_ptxas as build_ptxas

    return build_ptxas(search_path=True)


def assemble(ptx: str, arch: str, tmp: Path) -> None:
    """Assemble PTX with NVIDIA's ptxas; fails the test on any error."""
    ptxas = find_ptxas()
    if ptxas is None:
        if os.environ.get("CI"):
            pytest.fail("ptxas not found: install the test extra (nvidia-cuda-nvcc-cu12)")
        pytest.skip("ptxas not found (pip install nvidia-cuda-nvcc-cu12)")
    path = tmp / f"k{next(_counter)}.{arch}.ptx"
    path.write_text(ptx)
    proc = subprocess.run([ptxas, f"-arch={arch}", str(path), "-o", os.devnull], capture_output=True, text=True)
    if "is not defined for option 'gpu-name'" in proc.stderr:
        # a newer ptxas (CUDA 13) no longer targets this GPU; assemble the same PTX for a newer one
        proc = subprocess.run([ptxas, "-arch=sm_90", str(path), "-o", os.devnull], capture_output=True, text=True)
    assert proc.returncode == 0, f"ptxas rejected the PTX for {arch}:\n{proc.stderr}\n{ptx}"


@dataclass
class Built:
    module: ModuleType
    kernels: dict[str, CompiledKernel]
    package_dir: Path

    def ptx(self, name: str, arch: str = "sm_90") -> str:
        return self.kernels[name].codes["ptx"].ptx[arch]


_shared_builds: dict[tuple[object, ...], Built] = {}  # build(..., shared=True) results in this process


@pytest.fixture
def build(tmp_path: Path, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """``build(source, **other_modules)``: write a package, compile its kernels (ptxas checks every PTX),
    embed the artifacts next to it as a wheel would, and import it (``wgsl=True``: WebGPU shaders too).
    ``native=False``: no native CPU code (device="cpu" then runs the Python function).
    ``shared=True``: for a module's fixture that many tests use read-only: the first test of this process
    to ask builds it, the others get the same imported package."""
    created: list[str] = []

    def _build(
        source: str,
        archs: list[str] = TEST_ARCHS,
        wgsl: bool = True,
        shared: bool = False,
        native: bool = True,
        **modules: str,
    ) -> Built:
        key = (request.module.__name__, source, tuple(archs), wgsl, native, tuple(sorted(modules.items())))
        if shared and key in _shared_builds:
            return _shared_builds[key]
        name = f"hk{next(_counter)}_{request.node.name.split('[')[0][:30]}".replace("-", "_")
        root = (tmp_path_factory.mktemp("shared-build") if shared else tmp_path) / "src"
        pkg = root / name
        pkg.mkdir(parents=True)
        (pkg / "__init__.py").write_text("")
        (pkg / "kern.py").write_text(textwrap.dedent(source))
        for mod, text in modules.items():
            (pkg / f"{mod}.py").write_text(textwrap.dedent(text))
        kernels = compile_packages(
            [pkg], options=Options(list(archs), cubin=False, cpu=HOST_TARGETS if native else [], wgsl=wgsl)
        )
        for k in kernels:
            for arch, text in k.codes["ptx"].ptx.items():
                assemble(text, arch, tmp_path)
        write_package_artifacts(kernels, archs, root)
        sys.path.insert(0, str(root))
        if not shared:
            created.append(name)
        try:
            module = importlib.import_module(f"{name}.kern")
        finally:
            sys.path.remove(str(root))
        built = Built(module, {k.decl.label: k for k in kernels}, pkg)
        if shared:
            _shared_builds[key] = built
        return built

    yield _build
    for name in created:
        for mod in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[mod]


FIXTURE_CACHE = "HYBRID_TEST_FIXTURE_CACHE"


def fixture_cache() -> KernelCache:
    """The kernel cache of the fixtures that compile a fixed package (the same source, the same name) for
    tests of running it: one per test session, shared by pytest-xdist's workers and by the pytest run
    that tests/test_sanitizer.py starts (through $HYBRID_TEST_FIXTURE_CACHE, set when the session
    starts), so each such package is compiled once per session. The tests of compiling and of the
    cache itself keep their own, empty caches."""
    return KernelCache(Path(os.environ[FIXTURE_CACHE]))


def compile_fixture(packages: list[Path], root: Path, **options: Any) -> list[CompiledKernel]:
    """``packages`` (under ``root``) compiled for :data:`TEST_ARCHS` through :func:`fixture_cache`, with their
    ``_hybrid/`` written next to them as their wheels install them; ``options``: more of :class:`Options`
    (WebGPU shaders too, unless ``wgsl=False``: the kernel tests run on device="wgpu" where there is an
    adapter)."""
    cache = fixture_cache()
    options.setdefault("wgsl", True)
    kernels = compile_packages(packages, options=Options(list(TEST_ARCHS), cubin=False, cache=cache, **options))
    write_package_artifacts(kernels, TEST_ARCHS, root, cache=cache)
    return kernels


@pytest.hookimpl(trylast=True)  # after the tmp_path plugin's
def pytest_configure(config: pytest.Config) -> None:
    if FIXTURE_CACHE not in os.environ:  # the controller sets it before its workers start; they inherit it
        factory = config._tmp_path_factory  # type: ignore[attr-defined]
        base = factory.getbasetemp()
        shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
        os.environ[FIXTURE_CACHE] = str(shared / "fixture-kernel-cache")


@contextlib.contextmanager
def built_package(
    root: Path,
    name: str,
    source: str,
    native: bool = False,
    compiled: dict[str, CompiledKernel] | None = None,
    cpu_sanitize: bool = True,
) -> Iterator[ModuleType]:
    """For module-scoped fixtures: ``<root>/<name>/kern.py`` compiled with its ``_hybrid/`` next to it, as
    its wheel would install it; yields the imported ``<name>.kern``, then forgets the package.
    ``native``: with native code for this machine too, and every PTX through ptxas, as ``build`` does;
    ``compiled`` receives the compiled kernels by name; ``cpu_sanitize``: the hook option. Compiled
    through :func:`fixture_cache` (the same artifacts; only ``typed`` and the IR texts are left out
    of a cached kernel, and no test of these fixtures reads them)."""
    (root / name).mkdir(parents=True)
    (root / name / "__init__.py").write_text("")
    (root / name / "kern.py").write_text(textwrap.dedent(source))
    kernels = compile_fixture([root / name], root, cpu=HOST_TARGETS if native else [], cpu_sanitize=cpu_sanitize)
    for k in kernels if native else []:
        for arch, text in k.codes["ptx"].ptx.items():
            assemble(text, arch, root)
    if compiled is not None:
        compiled.update({k.decl.label: k for k in kernels})
    with imported_package(root, name) as module:
        yield module


@contextlib.contextmanager
def imported_package(root: Path, name: str) -> Iterator[ModuleType]:
    """``<root>/<name>/kern.py`` imported; the package is forgotten again afterwards."""
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module(f"{name}.kern")
    finally:
        sys.path.remove(str(root))
        for m in [m for m in sys.modules if m.split(".")[0] == name]:
            del sys.modules[m]


@pytest.fixture(autouse=True)
def every_ptx_goes_through_ptxas(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory):
    """Whatever PTX a test makes in this process, ptxas must accept."""
    from hatch_hybrid.targets.ptx import target as ptx_target

    produced: list[tuple[str, str]] = []
    real = ptx_target.emit_ptx

    def recording(module, arch):  # type: ignore[no-untyped-def]
        text = real(module, arch)
        produced.append((text, arch))
        return text

    monkeypatch.setattr(ptx_target, "emit_ptx", recording)
    yield
    if produced:
        tmp = tmp_path_factory.mktemp("ptxas")
        for text, arch in {(t, a) for t, a in produced}:
            assemble(text, arch, tmp)


@pytest.fixture(autouse=True)
def private_kernel_cache(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Each test gets its own, empty build cache (never the user's)."""
    directory = tmp_path_factory.mktemp("kernel-cache")
    monkeypatch.setenv("HYBRID_CACHE_DIR", str(directory))
    return directory


def run(*cmd: str | Path, **kwargs) -> subprocess.CompletedProcess[str]:
    """Run a command; fail the test with its output unless it succeeds."""
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kwargs)
    assert proc.returncode == 0, f"{cmd} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc


_early: dict[str, threading.Thread] = {}  # builds started when collection ended, by folder name


def built_once(
    tmp_path_factory: pytest.TempPathFactory, worker_id: str, name: str, build: Callable[[Path], object]
) -> Path:
    """A folder that ``build`` fills once per test session: pytest-xdist's workers share it (the first to
    come builds it while the others wait), for builds that take both cores for a while."""
    started = _early.pop(name, None)
    if started is not None:
        started.join()  # (had it failed, the folder is not marked built: the build runs again, here)
    return _built(tmp_path_factory, worker_id, name, build)


def _built(
    tmp_path_factory: pytest.TempPathFactory, worker_id: str, name: str, build: Callable[[Path], object]
) -> Path:
    base = tmp_path_factory.getbasetemp()
    shared = base if worker_id == "master" else base.parent  # this session's, above each worker's own
    folder = shared / name
    with FileLock(str(shared / f"{name}.lock")):
        if not (folder / ".built").exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            build(folder)
            (folder / ".built").write_text("")
    return folder


def start_early(
    tmp_path_factory: pytest.TempPathFactory, worker_id: str, name: str, build: Callable[[Path], object]
) -> None:
    """Begin :func:`built_once` in a thread of this process, so that its subprocesses run beside the first
    tests instead of holding up the test that needs the folder (whose fixture then waits for it)."""

    def run() -> None:
        try:
            _built(tmp_path_factory, worker_id, name, build)
        except Exception:  # noqa: BLE001 - the fixture builds it again and reports what fails
            pass

    thread = threading.Thread(target=run, name=f"build {name}", daemon=True)
    _early[name] = thread
    thread.start()


def build_project_wheels(house: Path) -> None:
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", house, ROOT / "runtime", ROOT)


@pytest.fixture(scope="session")
def project_wheels(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    """A folder holding this checkout's hatch-hybrid and hatch-hybrid-runtime wheels, for build
    frontends to find (``--find-links``) instead of an index."""
    return built_once(tmp_path_factory, worker_id, "project-wheels", build_project_wheels)


def has_wgpu() -> bool:
    """A WebGPU adapter through the wgpu package (lavapipe's Vulkan on the CPU counts)."""
    from hybrid_runtime import wgpu_device

    return wgpu_device.available()


def has_gpu() -> bool:
    from hybrid_runtime import cuda_available

    return cuda_available()


def pytest_collection_finish(session: pytest.Session) -> None:
    """The end-to-end tests' wheelhouse takes a minute of pip builds: the first worker (or the only process)
    starts it now, in the background, when those tests are among the collected ones."""
    worker_id = os.environ.get("PYTEST_XDIST_WORKER", "master")
    if worker_id not in ("master", "gw0") or not any(
        i.nodeid.startswith("tests/test_wheel_e2e.py") for i in session.items
    ):
        return
    from test_wheel_e2e import build_wheelhouse

    factory = session.config._tmp_path_factory  # type: ignore[attr-defined]

    def wheelhouse(house: Path) -> None:
        build_wheelhouse(house, built_once(factory, worker_id, "project-wheels", build_project_wheels))

    start_early(factory, worker_id, "e2e-wheelhouse", wheelhouse)


#: hybrid_runtime's ValueErrors for a kernel the WebGPU target did not build, and for one whose needs the
#: adapter lacks (lavapipe's subgroups have 8 lanes, not CUDA's 32)
NO_SHADER, UNMET = "has no WebGPU shader", ". Use device='cuda' or 'cpu'"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    """A kernel test on device="wgpu" whose kernel the WebGPU target does not build, or needs what the adapter
    lacks, is skipped, with the reason (the launch raises ValueError naming it; tests of that error expect
    it themselves)."""
    try:
        return (yield)
    except ValueError as e:
        callspec = getattr(item, "callspec", None)
        if callspec is not None and callspec.params.get("device") == "wgpu":
            if NO_SHADER in str(e):
                pytest.skip(f"not built for WebGPU: {str(e).split(NO_SHADER + ': ', 1)[-1]}")
            if str(e).endswith(UNMET):
                pytest.skip(f"this WebGPU adapter cannot run it: {str(e).removesuffix(UNMET)}")
        raise


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if any("wgpu" in item.keywords for item in items) and not has_wgpu():
        skip_wgpu = pytest.mark.skip(reason="no WebGPU adapter (pip install wgpu; apt install mesa-vulkan-drivers)")
        for item in items:
            if "wgpu" in item.keywords:
                item.add_marker(skip_wgpu)
    if any("gpu" in item.keywords for item in items) and not has_gpu():
        skip = pytest.mark.skip(reason="no CUDA GPU and driver on this machine")
        for item in items:
            if "gpu" in item.keywords:
                item.add_marker(skip)
