"""End to end, as users do it: ``pip wheel`` the example (build isolation, the hook from a local
wheel), install it into a fresh virtual environment from local wheels with ``--no-index``, check
the compiler is absent there, and run kernels on the CPU path."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest
from conftest import ROOT, assemble, built_once, run

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory, project_wheels, worker_id) -> Path:
    """The example projects' wheels, built once per test session (a minute of both cores)."""
    return built_once(
        tmp_path_factory, worker_id, "e2e-wheelhouse", lambda house: build_wheelhouse(house, project_wheels)
    )


def build_wheelhouse(house: Path, project_wheels: Path) -> Path:
    pip = [sys.executable, "-m", "pip"]
    env = {**os.environ, "HYBRID_CACHE_DIR": str(house / "cache")}
    for wheel in project_wheels.glob("*.whl"):
        shutil.copy(wheel, house)
    run(*pip, "wheel", "--no-deps", "-q", "-w", house, ROOT / "example_project" / "mathlets")
    examples = ROOT / "example_project"
    build = run(*pip, "wheel", "--no-deps", "-v", "-w", house, "--find-links", house, examples / "hybrid_demo", env=env)
    assert "hatch-hybrid: hybrid_demo.saxpy.saxpy -> hybrid_demo__saxpy__saxpy" in build.stdout + build.stderr
    # the second package names hybrid-demo and mathlets only as ordinary dependencies
    build = run(*pip, "wheel", "--no-deps", "-v", "-w", house, "--find-links", house, examples / "hybrid_ext", env=env)
    assert "hatch-hybrid: hybrid_ext.kernels.blend -> hybrid_ext__kernels__blend" in build.stdout + build.stderr
    build = run(*pip, "wheel", "--no-deps", "-v", "-w", house, "--find-links", house, examples / "hybrid_sort", env=env)
    assert "hybrid_sort.bitonic.bitonic_pass -> hybrid_sort__bitonic__bitonic_pass__u32" in build.stdout + build.stderr
    # the tile kernel calls hybrid_demo's Complex: the build environment gets hybrid-demo, and not dask
    build = run(*pip, "wheel", "--no-deps", "-v", "-w", house, "--find-links", house, examples / "hybrid_dask", env=env)
    assert "hybrid_dask.tiles.mandelbrot_tile -> hybrid_dask__tiles__mandelbrot_tile" in build.stdout + build.stderr
    assert "distributed" not in build.stdout + build.stderr
    # the runtime's own dependencies, so the install below needs no index
    run(*pip, "download", "-q", "--only-binary", ":all:", "-d", house, "numpy", "cuda-bindings")
    return house


@pytest.fixture(scope="module")
def env(wheelhouse, tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("venv")
    venv.create(target, with_pip=True)
    python = target / "bin" / "python"
    run(
        python,
        "-m",
        "pip",
        "install",
        "-q",
        "--no-index",
        "--find-links",
        wheelhouse,
        "hybrid-demo",
        "hybrid-ext",
        "hybrid-sort",
    )
    return python


def test_wheel_is_pure_and_holds_ptx(wheelhouse, tmp_path):
    import zipfile

    (wheel,) = wheelhouse.glob("hybrid_demo-*.whl")
    assert wheel.name.endswith("-py3-none-any.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "hybrid_demo/_hybrid/manifest.json" in names
    assert "hybrid_demo/_hybrid/hybrid_demo__mandelbrot__mandelbrot_kernel.sm_90.ptx" in names
    with zipfile.ZipFile(wheel) as zf:
        for name in names:
            if name.endswith(".ptx"):
                assemble(zf.read(name).decode(), name.rsplit(".", 2)[1], tmp_path)


def test_compiler_is_not_installed(env, tmp_path):
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    for module in ("llvmlite", "hatchling", "hatch_hybrid", "numba"):
        proc = subprocess.run([env, "-c", f"import {module}"], capture_output=True, text=True, cwd=tmp_path, env=clean)
        assert proc.returncode != 0, f"{module} should not be importable in the runtime environment"


def test_kernels_run_from_the_installed_wheel(env, tmp_path):
    script = """
import numpy as np, hybrid_runtime as hr
from hybrid_demo import saxpy, render_kernel, render_cpu_threads
x = np.arange(1000, dtype=np.float32); y = np.ones_like(x)
saxpy.launch(128, 8, np.float32(3.0), x, y, device="cpu")
assert np.array_equal(y, np.float32(3.0) * np.arange(1000, dtype=np.float32) + 1)
a = render_kernel(48, 32, 40, device="cpu")
b = render_cpu_threads(48, 32, 40)
assert np.array_equal(a, b) and a.max() == 40 and a.min() < 5
print("ok", hr.__file__)
"""
    out = run(env, "-c", script, cwd=tmp_path)
    assert out.stdout.startswith("ok") and "site-packages" in out.stdout


def test_demo_command_reports_the_device(env, tmp_path):
    out = run(
        env,
        "-m",
        "hybrid_demo",
        "--device",
        "cpu",
        "--size",
        "64x48",
        "--out",
        tmp_path / "m.png",
        cwd=tmp_path,
        env={**os.environ, "HYBRID_DEVICE": "cpu"},
    )
    assert "running on cpu" in out.stdout
    assert "give identical images" in out.stdout
    assert (tmp_path / "m.png").read_bytes().startswith(b"\x89PNG")


def test_second_package_uses_the_first_ones_kernels_and_helpers(env, tmp_path, wheelhouse):
    import zipfile

    (wheel,) = wheelhouse.glob("hybrid_ext-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "hybrid_ext/_hybrid/hybrid_ext__kernels__escape_histogram.sm_90.ptx" in names
    assert not any(n.startswith(("hybrid_demo/", "mathlets/")) for n in names)
    out = run(env, "-m", "hybrid_ext", "--device", "cpu", cwd=tmp_path)
    assert out.stdout.count("matches numpy") == 4, out.stdout


def test_dask_example_wheel_holds_only_its_own_kernel(wheelhouse):
    import zipfile

    (wheel,) = wheelhouse.glob("hybrid_dask-*.whl")
    ptx = sorted(n for n in zipfile.ZipFile(wheel).namelist() if n.endswith(".ptx"))
    assert ptx == [f"hybrid_dask/_hybrid/hybrid_dask__tiles__mandelbrot_tile.sm_{a}.ptx" for a in (70, 80, 90)]


def test_generic_sort_example_runs_from_its_wheel(env, tmp_path, wheelhouse):
    import json
    import zipfile

    (wheel,) = wheelhouse.glob("hybrid_sort-*.whl")
    archive = zipfile.ZipFile(wheel)
    manifest = json.loads(archive.read("hybrid_sort/_hybrid/manifest.json"))
    variants = manifest["kernels"]["hybrid_sort.bitonic.bitonic_pass"]["variants"]
    assert [v["types"] for v in variants] == [{"K": "f32"}, {"K": "u32"}, {"K": "i32"}]
    for v in variants:
        assert f"hybrid_sort/_hybrid/{v['symbol']}.sm_90.ptx" in archive.namelist()
    out = run(env, "-m", "hybrid_sort", "--device", "cpu", "--log2n", "14", cwd=tmp_path)
    assert out.stdout.count("identical") == 6, out.stdout
