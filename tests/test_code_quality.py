"""The habits of the codebase, checked: mypy strict on both packages, ruff clean, the compiler's imports
following its stages (no cycles, nothing importing a later stage)."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_strict():
    pytest.importorskip("mypy")
    proc = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff():
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    if not Path(ruff).exists():
        pytest.skip("ruff is not installed")
    proc = subprocess.run([ruff, "check", "."], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _import_graph() -> ModuleType:
    spec = importlib.util.spec_from_file_location("import_graph", ROOT / "scripts" / "import_graph.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_compiler_imports_follow_the_stages():
    graph_tool = _import_graph()
    graph = graph_tool.build_graph()
    assert "hatch_hybrid.lower.loops" in graph and "hatch_hybrid.hook.artifacts" in graph
    assert "hatch_hybrid.typecheck.typed" in graph["hatch_hybrid.lower.function"]
    cycles, upward = graph_tool.check(graph)
    assert cycles == []
    assert upward == []


def test_import_checker_finds_cycles_and_upward_imports(tmp_path: Path):
    graph_tool = _import_graph()
    # a fake package: every kind of import counts, also under TYPE_CHECKING and inside functions
    pkg = tmp_path / "hatch_hybrid"
    (pkg / "lower").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "lower" / "__init__.py").write_text("")
    (pkg / "lower" / "a.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import X\n")
    (pkg / "lower" / "b.py").write_text("def f():\n    from . import a\n    from ..pipeline import run\n")
    (pkg / "pipeline.py").write_text("import hatch_hybrid.lower.a\n")
    graph = graph_tool.build_graph(pkg)
    assert graph["hatch_hybrid.lower.a"] == {"hatch_hybrid.lower.b"}
    assert graph["hatch_hybrid.lower.b"] == {"hatch_hybrid.lower.a", "hatch_hybrid.pipeline"}
    cycles, upward = graph_tool.check(graph)
    assert cycles == [["hatch_hybrid.lower.a", "hatch_hybrid.lower.b", "hatch_hybrid.pipeline"]]
    assert upward == [("hatch_hybrid.lower.b", "hatch_hybrid.pipeline")]
    # a module outside every layer is reported too
    assert graph_tool.upward({"hatch_hybrid.misc": {"hatch_hybrid.ir"}}) == [("hatch_hybrid.misc", "hatch_hybrid.ir")]
