"""No silent slow path (issue 20): a kernel that would run as Python on the CPU because its package has no
native code says why, once, naming the package and the fix; ``check`` and the build say what is missing
from the project's pyproject.toml."""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

import hybrid_runtime as hr
import numpy as np
import pytest
from conftest import built_package, imported_package
from hybrid_runtime import slowpath

from hatch_hybrid.cli import main as cli_main

KERNEL = """
from hybrid_runtime import kernel, gpu, Array, f32


@kernel
def fill(x: Array[f32]):
    i = gpu.global_tid_x()
    if i < len(x):
        x[i] = 1.0
"""
RUNTIME_DEP = 'dependencies = ["hatch-hybrid-runtime"]\n'
TABLE = "[tool.hatch.build.hooks.hybrid]\n"


def _project(root: Path, name: str, dependencies: str = RUNTIME_DEP, table: str = TABLE) -> Path:
    (root / name).mkdir(parents=True)
    (root / name / "__init__.py").write_text("")
    (root / name / "kern.py").write_text(KERNEL)
    (root / "pyproject.toml").write_text(f'[project]\nname = "{name}"\nversion = "1"\n{dependencies}\n{table}')
    return root


@pytest.fixture
def fresh(monkeypatch):
    """Every reason warned about anew in this test."""
    monkeypatch.setattr(slowpath, "_said", set())


def _launch(module, device: str = "cpu") -> list[warnings.WarningMessage]:
    x = np.zeros(8, np.float32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module.fill.launch(8, 1, x, device=device)
        module.fill.launch(8, 1, x, device=device)
    assert x.tolist() == [1.0] * 8
    return [w for w in caught if issubclass(w.category, hr.SlowPathWarning)]


def _imported(root: Path, name: str):
    with imported_package(root, name) as module:
        return module


def test_a_project_without_the_hook_table_warns_once_with_the_fix(tmp_path, fresh):
    module = _imported(_project(tmp_path / "p", "sp_notable", table=""), "sp_notable")
    [w] = _launch(module)
    text = str(w.message)
    assert "package `sp_notable` has no compiled code" in text
    assert "has no [tool.hatch.build.hooks.hybrid] table" in text and "pip install" in text
    assert "1,000 to 10,000 times slower" in text
    assert w.filename == __file__  # attributed to the launching line, not the runtime's


def test_a_source_tree_with_the_table_says_to_install_it(tmp_path, fresh):
    module = _imported(_project(tmp_path / "p", "sp_tree"), "sp_tree")
    [w] = _launch(module)
    assert "imported from its source tree" in str(w.message) and "pip install -e" in str(w.message)


def test_an_installed_package_without_compiled_code(tmp_path, fresh):
    site = tmp_path / "site"
    shutil.copytree(_project(tmp_path / "p", "sp_site") / "sp_site", site / "sp_site")
    [w] = _launch(_imported(site, "sp_site"))
    assert "its wheel was built without hatch-hybrid's build hook" in str(w.message)


def test_a_wheel_built_with_cpu_false_says_so(tmp_path, fresh):
    with built_package(tmp_path, "sp_nocpu", KERNEL, native=False) as module:
        [w] = _launch(module)
    assert "built with cpu = false" in str(w.message)


def test_the_python_path_asked_for_says_nothing(tmp_path, fresh):
    module = _imported(_project(tmp_path / "p", "sp_asked", table=""), "sp_asked")
    assert _launch(module, device="cpu-python") == []


def test_native_code_says_nothing(tmp_path, fresh):
    from conftest import HOST_TARGETS

    if not HOST_TARGETS:
        pytest.skip("no native code for this machine (or no zig)")
    with built_package(tmp_path, "sp_native", KERNEL, native=True) as module:
        assert _launch(module) == []


# ------------------------------------------------------------------------- check and the build
def test_check_fails_without_the_table_or_the_runtime(tmp_path, capsys):
    root = _project(tmp_path / "a", "sp_check_a", table="")
    assert cli_main(["check", str(root)]) == 1
    err = capsys.readouterr().err
    assert "has no [tool.hatch.build.hooks.hybrid] table" in err and "Traceback" not in err
    root = _project(tmp_path / "b", "sp_check_b", dependencies="")
    assert cli_main(["check", str(root)]) == 1
    captured = capsys.readouterr()
    assert "`hatch-hybrid-runtime` is missing from [project] dependencies of sp_check_b" in captured.err
    assert "fix the project's 1 problem(s)" in captured.out
    root = _project(tmp_path / "c", "sp_check_c")
    assert cli_main(["check", str(root)]) == 0


def test_the_build_fails_in_one_line_without_the_runtime(tmp_path, capsys):
    pytest.importorskip("hatchling")
    from hatchling.builders.wheel import WheelBuilder

    root = _project(tmp_path / "p", "sp_build", dependencies="", table=TABLE + "cpu = false\n")
    with pytest.raises(SystemExit):
        next(WheelBuilder(str(root)).build(directory=str(tmp_path / "dist"), versions=["standard"]))
    out = capsys.readouterr()
    lines = [line for line in (out.out + out.err).splitlines() if line.strip()]
    assert lines == [
        "hatch-hybrid: `hatch-hybrid-runtime` is missing from [project] dependencies of sp-build: its kernels "
        "import hybrid_runtime, so its wheel would install and then fail with ModuleNotFoundError. Add it: "
        'dependencies = ["hatch-hybrid-runtime", ...]'
    ]
