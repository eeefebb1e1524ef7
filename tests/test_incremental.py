"""Kernels across packages, the build cache, cubins, editable installs and the command line."""

from __future__ import annotations

import importlib
import json
import shutil
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from hatch_hybrid.cache import KernelCache
from hatch_hybrid.errors import CompileError
from hatch_hybrid.pipeline import Options, compile_packages

pytest.importorskip("hatchling")
from hatchling.builders.wheel import WheelBuilder  # noqa: E402

PACKAGES = Path(__file__).parent / "packages"


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))


@pytest.fixture
def kernlib(tmp_path: Path) -> Path:
    root = tmp_path / "kernlib"
    shutil.copytree(PACKAGES / "kernlib", root)
    return root


def build(root: Path, out: Path, capsys: pytest.CaptureFixture[str], version: str = "standard") -> tuple[Path, str]:
    wheel = Path(next(WheelBuilder(str(root)).build(directory=str(out), versions=[version])))
    captured = capsys.readouterr()
    return wheel, captured.out + captured.err


# ------------------------------------------------------------------------ cache
def test_unchanged_rebuild_compiles_nothing(kernlib, tmp_path, capsys):
    first, log1 = build(kernlib, tmp_path / "a", capsys)
    second, log2 = build(kernlib, tmp_path / "b", capsys)
    assert "2 compiled, 0 from cache" in log1
    assert "0 compiled, 2 from cache" in log2
    assert first.read_bytes() == second.read_bytes()


def test_one_changed_helper_recompiles_exactly_the_kernels_reaching_it(kernlib, tmp_path, capsys):
    build(kernlib, tmp_path / "a", capsys)
    util = kernlib / "kernlib" / "util.py"
    ops = kernlib / "kernlib" / "ops.py"
    # comments, formatting and functions no kernel reaches change nothing
    util.write_text("# a comment\n" + util.read_text().replace("return lo if", "return  lo  if"))
    ops.write_text(ops.read_text().replace('"host code may do anything: "', '"host code changed: "'))
    _, log = build(kernlib, tmp_path / "b", capsys)
    assert "0 compiled, 2 from cache" in log
    # the helper that only `scale` reaches
    util.write_text(util.read_text().replace("return  lo  if v < lo", "return lo if v <= lo"))
    _, log = build(kernlib, tmp_path / "c", capsys)
    assert "kernlib.ops.scale -> kernlib__ops__scale (PTX + CPU + WGSL, sm_70, sm_80): compiled in" in log
    assert "kernlib.ops.add_one -> kernlib__ops__add_one (PTX + CPU + WGSL, sm_70, sm_80): from cache" in log
    assert "1 compiled, 1 from cache" in log


def test_cache_location_and_switch(kernlib, tmp_path, capsys):
    pyproject = kernlib / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + 'cache-dir = "build-cache"\n')
    _, log = build(kernlib, tmp_path / "a", capsys)
    assert f"({kernlib / 'build-cache'})" in log and any((kernlib / "build-cache").rglob("*.json"))
    pyproject.write_text(pyproject.read_text() + "cache = false\n")
    build(kernlib, tmp_path / "b", capsys)
    _, log = build(kernlib, tmp_path / "c", capsys)
    assert "2 compiled, 0 from cache (cache off)" in log


# --------------------------------------------------------------- across packages
@pytest.fixture
def two_packages(tmp_path: Path) -> Path:
    """liba: plain helpers (no hatch-hybrid at all); libb: kernels calling them."""
    src = tmp_path / "site"
    write(src / "liba" / "__init__.py", "from .helpers import twice\n")
    write(
        src / "liba" / "helpers.py",
        """
        def twice(v):
            return v + v

        def unrelated(v):
            return v
    """,
    )
    write(src / "libb" / "__init__.py", "")
    write(
        src / "libb" / "k.py",
        """
        from hybrid_runtime import kernel, gpu, Array, f32
        import liba
        from liba import helpers

        @kernel
        def k1(x: Array[f32]):
            x[0] = liba.twice(x[0])

        @kernel
        def k2(x: Array[f32]):
            x[0] = helpers.unrelated(x[0])
    """,
    )
    return src


def _compile_libb(src: Path, cache: Path, search: list[str]):
    return {
        k.decl.name: k
        for k in compile_packages(
            [src / "libb"], options=Options(["sm_80"], cubin=False, cache=KernelCache(cache)), search_path=search
        )
    }


def test_helpers_of_installed_packages_compile_into_the_callers_ptx(two_packages, tmp_path):
    kernels = _compile_libb(two_packages, tmp_path / "cache", [str(two_packages)])
    assert {d[:2] for d in kernels["k1"].deps} >= {("liba.helpers", "twice"), ("libb.k", "k1")}
    assert ".entry libb__k__k1" in kernels["k1"].codes["ptx"].ptx["sm_80"]
    assert not any(d[0] == "liba.helpers" and d[1] == "unrelated" for d in kernels["k1"].deps)


def test_a_change_in_another_package_recompiles_the_kernels_that_reach_it(two_packages, tmp_path):
    search = [str(two_packages)]
    _compile_libb(two_packages, tmp_path / "cache", search)
    again = _compile_libb(two_packages, tmp_path / "cache", search)
    assert again["k1"].cached and again["k2"].cached
    helpers = two_packages / "liba" / "helpers.py"
    helpers.write_text(helpers.read_text().replace("return v + v", "return v * 2"))
    again = _compile_libb(two_packages, tmp_path / "cache", search)
    assert not again["k1"].cached and again["k2"].cached


def test_calls_into_packages_that_are_not_installed_name_the_call_and_package(two_packages, tmp_path):
    with pytest.raises(CompileError) as info:
        _compile_libb(two_packages, tmp_path / "cache", [])
    text = str(info.value)
    assert "k.py:8:" in text and "liba.twice" in text
    assert "package `liba`, which is not installed in the build environment" in text


def test_build_environment_gets_only_the_dependencies_kernels_reach(two_packages, tmp_path):
    from hatch_hybrid.hook.plugin import HybridBuildHook

    root = tmp_path / "proj"
    shutil.copytree(two_packages / "libb", root / "libb")
    write(
        root / "pyproject.toml",
        """
        [project]
        name = "libb"
        version = "1"
        dependencies = ["hatch-hybrid-runtime", "LibA>=1.0", "requests"]
        [tool.hatch.build.hooks.hybrid]
        cubin = false
    """,
    )
    builder = WheelBuilder(str(root))
    hook = HybridBuildHook(
        str(root), builder.config.hook_config["hybrid"], builder.config, builder.metadata, "", "wheel"
    )
    assert [d.lower() for d in hook.dependencies()] == ["liba>=1.0"]


# ---------------------------------------------------------------------- cubins
def test_cubins_are_embedded_and_reproducible(kernlib, tmp_path, capsys):
    from hatch_hybrid.targets.ptx.cubin import find_ptxas

    if find_ptxas() is None:
        pytest.skip("ptxas not found")
    pyproject = kernlib / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace("cubin = false", "cubin = true"))
    first, log = build(kernlib, tmp_path / "a", capsys)
    assert "(PTX + cubin + CPU + WGSL, sm_70, sm_80)" in log
    import zipfile

    with zipfile.ZipFile(first) as zf:
        cubins = sorted(n for n in zf.namelist() if n.endswith(".cubin"))
        manifest = json.loads(zf.read("kernlib/_hybrid/manifest.json"))
        assert all(zf.read(n).startswith(b"\x7fELF") for n in cubins)
    assert cubins == [
        f"kernlib/_hybrid/kernlib__ops__{k}.{a}.cubin" for k in ("add_one", "scale") for a in ("sm_70", "sm_80")
    ]
    assert manifest["kernels"]["kernlib.ops.scale"]["cubin"] == {
        "sm_70": "kernlib__ops__scale.sm_70.cubin",
        "sm_80": "kernlib__ops__scale.sm_80.cubin",
    }
    shutil.rmtree(Path(__import__("os").environ["HYBRID_CACHE_DIR"]))  # compile again, no cache
    second, _ = build(kernlib, tmp_path / "b", capsys)
    assert first.read_bytes() == second.read_bytes()


# -------------------------------------------------------------------- editable
def test_editable_install_notices_source_changes(kernlib, tmp_path, capsys, monkeypatch):
    import hybrid_runtime.manifest as rt_manifest

    build(kernlib, tmp_path / "dist", capsys, version="editable")
    monkeypatch.syspath_prepend(str(kernlib))
    rt_manifest.package_manifest.cache_clear()
    ops = importlib.import_module("kernlib.ops")
    try:
        manifest, entry = ops.scale._manifest_entry()
        assert manifest.data["editable"] and entry["deps"]
        assert ops.scale._refresh_editable(manifest, entry) == (manifest, entry)  # unchanged: nothing to do
        ptx = kernlib / "kernlib" / "_hybrid" / "kernlib__ops__scale.sm_80.ptx"
        old_ptx = ptx.read_text()
        util = kernlib / "kernlib" / "util.py"
        util.write_text(util.read_text().replace("return lo if v < lo", "return lo if v <= lo"))

        real_import = importlib.import_module
        monkeypatch.setattr(
            importlib,
            "import_module",
            lambda name: (
                (_ for _ in ()).throw(ImportError(name)) if name == "hatch_hybrid.hook.editable" else real_import(name)
            ),
        )
        with pytest.raises(rt_manifest.ManifestError, match=r"kernlib\.util\.clamp changed since this editable"):
            ops.scale._refresh_editable(manifest, entry)
        monkeypatch.setattr(importlib, "import_module", real_import)

        new_manifest, new_entry = ops.scale._refresh_editable(manifest, entry)  # recompiles in place
        assert new_entry["deps"] != entry["deps"]
        from hybrid_runtime.staleness import changed_sources

        assert changed_sources(new_entry["deps"]) == []
        assert ptx.read_text() != old_ptx
    finally:
        for name in [m for m in sys.modules if m == "kernlib" or m.startswith("kernlib.")]:
            del sys.modules[name]
        rt_manifest.package_manifest.cache_clear()


# ---------------------------------------------------------------- command line
def test_cli_lists_checks_and_shows(two_packages, tmp_path, capsys, monkeypatch):
    from hatch_hybrid.cli import main

    monkeypatch.syspath_prepend(str(two_packages))
    assert main(["list", str(two_packages / "libb")]) == 0
    out = capsys.readouterr().out
    assert "libb.k.k1(x: Array[f32])  [libb__k__k1]" in out
    assert "-> liba.helpers.twice(f32) -> f32  (from package liba)" in out
    assert main(["check", str(two_packages / "libb"), "--arch", "sm_80"]) == 0
    assert "2 of 2 kernel(s) compile for sm_80" in capsys.readouterr().out
    for stage, needle in [
        ("typed", "(x : Array[f32])"),
        ("llvm", '@"libb__k__k1"('),
        ("opt", "@libb__k__k1("),
        ("ptx", ".entry libb__k__k1"),
        ("wgsl", "@compute @workgroup_size(hh_bx, hh_by, hh_bz)"),
    ]:
        assert main(["show", "k1", str(two_packages / "libb"), "--stage", stage]) == 0
        assert needle in capsys.readouterr().out
    bad = two_packages / "libb" / "k.py"
    bad.write_text(bad.read_text().replace("x[0] = helpers.unrelated(x[0])", "x[0] = [1]"))
    assert main(["check", str(two_packages / "libb")]) == 1
    captured = capsys.readouterr()
    assert "k.py:12:12: error: kernel code cannot use lists" in captured.err
    assert "1 of 2 kernel(s) compile" in captured.out


def test_an_edited_editable_install_recompiles_what_it_built(kernlib, tmp_path, capsys, monkeypatch):
    """The first launch after an edit recompiles an editable install with its build's options (the manifest
    records them): native CPU code again, not only PTX; and a CPU launch notices the edit too (it ran the
    native code of the source as installed)."""
    import hybrid_runtime.manifest as rt_manifest
    from conftest import HOST_TARGETS

    build(kernlib, tmp_path / "dist", capsys, version="editable")
    monkeypatch.syspath_prepend(str(kernlib))
    ops_py = kernlib / "kernlib" / "ops.py"

    def fresh_ops():  # type: ignore[no-untyped-def]
        for name in [m for m in sys.modules if m == "kernlib" or m.startswith("kernlib.")]:
            del sys.modules[name]
        rt_manifest.package_manifest.cache_clear()
        return importlib.import_module("kernlib.ops")

    try:
        ops = fresh_ops()
        manifest, _ = ops.scale._manifest_entry()
        built = manifest.data["build_options"]
        assert sorted(built["cpu"]) == sorted(manifest.data["cpu"]) and built["wgsl"] is True
        x = np.full(4, 100, np.float32)
        ops_py.write_text(ops_py.read_text().replace("f32(10.0)", "f32(5.0)"))
        ops = fresh_ops()
        ops.scale.launch(4, 1, x, np.float32(1), device="cpu")  # recompiles in place, then runs
        assert x.tolist() == [5.0] * 4
        manifest, entry = ops.scale._manifest_entry()
        assert manifest.data["build_options"] == built and sorted(manifest.data["cpu"]) == sorted(built["cpu"])
        assert "wgsl" in entry  # (WebGPU too, as the install built it)
        if HOST_TARGETS:  # (zig links the native code)
            assert ops.scale.native_code(0) is not None
    finally:
        for name in [m for m in sys.modules if m == "kernlib" or m.startswith("kernlib.")]:
            del sys.modules[name]
        rt_manifest.package_manifest.cache_clear()
