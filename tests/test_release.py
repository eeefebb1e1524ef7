"""Release-ready distributions (issue 20): ``scripts/release.py`` builds both sdists and wheels, each wheel
rebuilt from its sdist byte for byte, one version, ``twine check --strict`` clean."""

from __future__ import annotations

import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_release_builds_everything_into_dist(tmp_path):
    pytest.importorskip("build")
    pytest.importorskip("twine")
    out = tmp_path / "dist"
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "release.py"), "--out", str(out)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "sdists rebuild into identical wheels; twine check passed" in done.stdout
    names = sorted(p.name for p in out.iterdir())
    assert [n.split("-")[0] for n in names] == ["hatch_hybrid"] * 2 + ["hatch_hybrid_runtime"] * 2
    version = names[0].split("-")[1].removesuffix(".tar.gz")
    import hybrid_runtime

    assert version == hybrid_runtime.__version__  # the one version source
    wheel = next(out.glob("hatch_hybrid-*.whl"))
    with zipfile.ZipFile(wheel) as zf:
        metadata = zf.read(f"hatch_hybrid-{version}.dist-info/METADATA").decode()
        assert not any(n.startswith("runtime/") for n in zf.namelist())
    for field in ("License-Expression: MIT", "License-File: LICENSE", "Requires-Python: >=3.10", "Project-URL: "):
        assert field in metadata
    with tarfile.open(next(out.glob("hatch_hybrid-*.tar.gz"))) as tar:
        members = {m.name.split("/", 1)[1] for m in tar.getmembers() if "/" in m.name}
    assert {"LICENSE", "CHANGELOG.md", "README.md", "runtime/hybrid_runtime/__init__.py"} <= members
    # only the project's own files: a README.md or LICENSE deeper in the tree (an ignored folder's) is not one
    strays = {m for m in members if m.split("/")[0] not in ("hatch_hybrid", "runtime") and "/" in m}
    assert not strays and {m for m in members if "/" not in m} <= {
        "LICENSE",
        "CHANGELOG.md",
        "README.md",
        "pyproject.toml",
        "PKG-INFO",
        ".gitignore",
    }, sorted(members)[:20]
