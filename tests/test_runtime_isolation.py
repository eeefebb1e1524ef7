"""The runtime installs and imports without the compiler, and importing it never touches the driver."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

RUNTIME = Path(__file__).resolve().parents[1] / "runtime" / "hybrid_runtime"
FORBIDDEN = {"llvmlite", "hatchling", "hatch_hybrid", "numba"}


def test_runtime_sources_never_import_the_compiler_side():
    offenders = []
    for path in RUNTIME.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module]
            offenders += [f"{path.name}: {n}" for n in names if n.split(".")[0] in FORBIDDEN]
    assert not offenders


def test_import_is_light_and_does_not_touch_the_driver():
    code = (
        "import sys, hybrid_runtime\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('llvmlite', 'hatchling', 'hatch_hybrid', 'cuda')]\n"
        "print(bad)\n"
    )
    assert _run_alone(code) == "[]"


def _run_alone(code: str) -> str:
    """What ``code`` prints in a fresh interpreter that finds only the runtime (and what is installed)."""
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(RUNTIME.parent), "PATH": "/usr/bin:/bin"},
    )
    return out.stdout.strip()


def test_import_leaves_out_what_only_slows_a_cold_start():
    """``dataclasses`` (and the ``inspect`` it imports) cost every program about 20 ms before its first
    launch; the runtime's value classes are written out (hybrid_runtime/_records.py) instead."""
    code = (
        "import sys, numpy\n"
        "before = {m for m in ('dataclasses', 'inspect', 'hashlib') if m in sys.modules}\n"
        "import hybrid_runtime\n"
        "print(sorted({m for m in ('dataclasses', 'inspect', 'hashlib') if m in sys.modules} - before))\n"
    )
    assert _run_alone(code) == "[]"
