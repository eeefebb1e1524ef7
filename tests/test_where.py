"""``python -m hybrid_runtime``: this machine's devices and where each kernel of a package runs, with the
reasons; and ``device="auto"`` running a kernel the WebGPU adapter it picked cannot run on the next device."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import HOST_TARGETS, imported_package

from hatch_hybrid.cache import KernelCache
from hatch_hybrid.hook.artifacts import write_package_artifacts
from hatch_hybrid.pipeline import Options, compile_packages

SOURCE = """
from hybrid_runtime import Array, f32, f64, gpu, kernel

@kernel
def scale32(x: Array[f32], out: Array[f32]):
    i = gpu.global_tid_x()
    if i < len(x):
        out[i] = x[i] * f32(2)

@kernel
def scale64(x: Array[f64], out: Array[f64]):
    i = gpu.global_tid_x()
    if i < len(x):
        out[i] = x[i] * 2.0

@kernel
def shout(z: Array[f64], out: Array[f64]):
    i = gpu.global_tid_x()
    if i < len(z):
        out[i] = z[i] * z[i]
    if i == 0:
        print("first", z[0])  # (WebGPU shaders cannot print)
"""


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("where")
    (root / "wherepkg").mkdir()
    (root / "wherepkg" / "__init__.py").write_text("")
    (root / "wherepkg" / "kern.py").write_text(SOURCE)
    options = Options(["sm_80"], cubin=False, cpu=HOST_TARGETS, cpu_sanitize=False, wgsl=True, cache=KernelCache(None))
    write_package_artifacts(compile_packages([root / "wherepkg"], options=options), ["sm_80"], root)
    with imported_package(root, "wherepkg") as module:
        yield root, module


def test_the_devices_of_this_machine_and_what_auto_picks() -> None:
    from hybrid_runtime import native

    done = subprocess.run([sys.executable, "-m", "hybrid_runtime"], capture_output=True, text=True, check=True)
    lines = done.stdout.splitlines()
    assert lines[0] == "devices on this machine:"
    cuda = next(line for line in lines if line.startswith(("  cuda ", "  cuda:")))
    cpu = next(line for line in lines if line.startswith("  cpu "))
    assert f"{native.host_target()};" in cpu and f"{native.cpu_threads()} worker threads" in cpu
    auto = next(line for line in lines if line.startswith("  auto "))
    assert auto.split()[2] in ("cuda", "wgpu", "cpu")
    if auto.split()[2] == "cpu":  # then neither a CUDA device nor a WebGPU GPU: each line says why
        assert "none:" in cuda or "wgpu" in done.stdout


def test_each_kernel_where_auto_runs_it_and_why_not_elsewhere(package, capsys: pytest.CaptureFixture[str]) -> None:
    from hybrid_runtime import where

    machine = where.survey()
    assert where.main(["wherepkg", "no_such_package_here"]) == 0
    out = capsys.readouterr().out
    block = out[out.index("package wherepkg (3 kernels") :]
    scale32 = block[block.index("wherepkg.kern.scale32:") : block.index("wherepkg.kern.scale64")]
    square = block[block.index("wherepkg.kern.shout:") : block.index("package no_such")]
    assert "no shader: print() in wherepkg.kern.shout" in square  # the compiler's reason
    assert f"cpu   yes  native {machine.cpu_target} code" in square
    assert "PTX for sm_80" in square
    assert ("wgpu  yes  a shader, on" in scale32) == (machine.wgpu is not None)
    if not machine.cuda:
        assert "no CUDA device here" in scale32
        assert "auto runs it on cpu" in square  # no shader: the next device, even where auto picks wgpu
    assert "package no_such_package_here: not found" in out


@pytest.mark.wgpu
def test_auto_runs_a_kernel_its_adapter_cannot_run_on_the_cpu(package, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where ``auto`` picks a WebGPU adapter (here: lavapipe, taken for a GPU), a kernel without a shader
    runs natively instead of failing; asked for by name, the adapter still refuses it."""
    from hybrid_runtime import targets, wgpu_device

    _, kern = package
    monkeypatch.setattr(wgpu_device, "available", lambda real_gpu_only=False: True)
    monkeypatch.setattr(targets, "cuda_available", lambda: False)
    monkeypatch.delenv("HYBRID_DEVICE", raising=False)
    monkeypatch.setattr(targets, "_defaults", {})
    assert targets.default_device().kind == "wgpu"
    z = np.arange(64) * 1.5
    out = np.zeros(64)
    kern.shout.launch(64, 1, z, out)  # the configured launcher (device=None)
    np.testing.assert_array_equal(out, z * z)
    out[:] = 0
    kern.shout.launch(64, 1, z, out, device="auto")
    np.testing.assert_array_equal(out, z * z)
    with pytest.raises(ValueError, match=r"has no WebGPU shader: print\(\)"):
        kern.shout.launch(64, 1, z, out, device="wgpu")
    # a shader whose needs the adapter lacks (here its shader-f64, as Metal's adapters lack it): the same
    x, out64 = np.arange(64, dtype=np.float64), np.zeros(64)
    monkeypatch.setattr(wgpu_device.get_device(), "f64", False)
    kern.scale64.launch(64, 1, x, out64, device="auto")
    np.testing.assert_array_equal(out64, x * 2)
    with pytest.raises(ValueError, match="uses f64 values .* need the WebGPU adapter's shader-f64"):
        kern.scale64.launch(64, 1, x, out64, device="wgpu")
    out32 = np.zeros(64, np.float32)
    kern.scale32.launch(64, 1, x.astype(np.float32), out32)  # this one the adapter runs
    np.testing.assert_array_equal(out32, np.arange(64, dtype=np.float32) * 2)


def test_the_command_needs_no_gpu_and_no_package(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "hybrid_runtime", "--help"], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    assert "PACKAGE" in done.stdout
