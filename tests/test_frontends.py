"""Every build frontend, every Python: the example ``hybrid_sort`` built with ``pip wheel``, ``python -m
build``, ``hatch build`` and ``uv build`` (hatch-hybrid itself from a local wheelhouse, each build with
a cache of its own so each one compiles) gives the same wheel, and so does its sdist rebuilt; and
``scripts/build_matrix.sh`` builds it under each Python 3.10-3.13 found here.

"The same wheel" compares the list of member names (in order) and every member's bytes, except
``RECORD`` (hashes and sizes of the others, so it adds nothing) and the zip's own metadata (member
timestamps, permissions, compression), which are not compared."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import ROOT, run

pytestmark = pytest.mark.slow
PROJECT = ROOT / "example_project" / "hybrid_sort"
FRONTENDS = ["pip", "build", "hatch", "uv"]
PYTHONS = ["python3.10", "python3.11", "python3.12", "python3.13"]


def members(wheel: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(wheel) as zf:
        return {n: zf.read(n) for n in zf.namelist() if not n.endswith(".dist-info/RECORD")}


@pytest.fixture(scope="module")
def frontend_build(tmp_path_factory, project_wheels):
    """``frontend_build(name)``: the wheel that frontend builds from a copy of the example (once)."""
    base = tmp_path_factory.mktemp("frontends")
    source = base / "hybrid_sort"
    shutil.copytree(PROJECT, source)
    built: dict[str, Path] = {}

    def build(name: str) -> Path:
        if name in built:
            return built[name]
        out = base / "out" / name
        env = {
            **os.environ,
            "HYBRID_CACHE_DIR": str(base / "cache" / name),
            # pip and build read PIP_FIND_LINKS (several folders: space-separated); uv, and hatch
            # (which installs its build environment with uv), read UV_FIND_LINKS
            "PIP_FIND_LINKS": f"{project_wheels} {os.environ.get('PIP_FIND_LINKS', '')}".strip(),
            "UV_FIND_LINKS": str(project_wheels),
            "HATCH_DATA_DIR": str(base / "hatch-data"),
        }
        python = sys.executable
        if name == "sdist":  # uv's sdist, rebuilt by pip
            (sdist,) = build("uv").parent.glob("*.tar.gz")
            run(python, "-m", "pip", "wheel", "--no-deps", "-w", out, sdist, env=env)
            built[name] = next(out.glob("*.whl"))
            return built[name]
        commands = {
            "pip": [python, "-m", "pip", "wheel", "--no-deps", "-w", out, source],
            "build": [python, "-m", "build", "-o", out, source],  # sdist, then the wheel from it
            "hatch": [python, "-m", "hatch", "build", "-t", "wheel", out],
            "uv": [python, "-m", "uv", "build", "--python", python, "-o", out, source],  # sdist, then wheel
        }
        run(*commands[name], cwd=source, env=env)
        (wheel,) = out.glob("*.whl")
        built[name] = wheel
        return wheel

    return build


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_frontend_builds_the_example(frontend, frontend_build):
    wheel = frontend_build(frontend)
    assert wheel.name == "hybrid_sort-0.1.0-py3-none-any.whl"
    files = members(wheel)
    manifest = json.loads(files["hybrid_sort/_hybrid/manifest.json"])
    assert manifest["compiler"].startswith("hatch-hybrid ")  # this checkout's hook, not another one
    (kernel,) = manifest["kernels"].values()
    assert [v["types"] for v in kernel["variants"]] == [{"K": "f32"}, {"K": "u32"}, {"K": "i32"}]
    for variant in kernel["variants"]:
        for arch in manifest["arch"]:
            assert files[f"hybrid_sort/_hybrid/{variant['ptx'][arch]}"].startswith(b"//")


@pytest.mark.parametrize("frontend", [f for f in FRONTENDS if f != "pip"] + ["sdist"])
def test_frontends_build_identical_wheels(frontend, frontend_build):
    reference, other = members(frontend_build("pip")), members(frontend_build(frontend))
    assert list(other) == list(reference)
    assert [n for n in reference if other[n] != reference[n]] == []


@pytest.fixture(scope="module")
def matrix(tmp_path_factory, project_wheels) -> tuple[str, Path]:
    """scripts/build_matrix.sh run once over every Python version: its output and scratch folder."""
    work = tmp_path_factory.mktemp("matrix")
    env = {**os.environ, "HOUSE": str(project_wheels), "WORK": str(work), "PROJECT": str(PROJECT)}
    env["UV"] = shutil.which("uv", path=Path(sys.executable).parent) or ""
    proc = subprocess.run(
        ["bash", ROOT / "scripts" / "build_matrix.sh", *PYTHONS], capture_output=True, text=True, env=env
    )
    return proc.stdout + proc.stderr, work


@pytest.mark.parametrize("python", PYTHONS)
def test_build_under_each_python(python, matrix):
    output, _ = matrix
    (line,) = [x for x in output.splitlines() if x.startswith(f"{python}: ")]
    if line == f"{python}: missing":
        pytest.skip(f"{python} is not installed here")
    assert re.match(rf"{python}: ok Python {python[6:]}\.\d+ hybrid_sort-0\.1\.0-py3-none-any\.whl$", line), output


def test_every_python_compiles_the_same_ptx(matrix):
    _, work = matrix
    wheels = sorted(work.glob("python3.*/dist/*.whl"))
    if len(wheels) < 2:
        pytest.skip("fewer than two Python versions here")
    ptx = [{n: b for n, b in members(w).items() if n.endswith(".ptx")} for w in wheels]
    assert ptx[0] and all(p == ptx[0] for p in ptx[1:])
