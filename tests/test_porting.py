"""docs/porting-from-numba.md's worked example: the ported numba.cuda reduction (tests/packages/numba_port)
builds into a wheel, runs on the CPU path and agrees with NumPy; the page shows that very source."""

from __future__ import annotations

import shutil
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("hatchling")
from hatchling.builders.wheel import WheelBuilder  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "tests" / "packages" / "numba_port"
SOURCE = PACKAGE / "numba_port" / "reduce.py"
DOC = ROOT / "docs" / "porting-from-numba.md"


@pytest.fixture
def numba_port(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """The package built into a wheel with hatchling (the hook compiles the kernel, ptxas checks it),
    unpacked and imported as an installed wheel would be."""
    shutil.copytree(PACKAGE, tmp_path / "src")
    wheel = next(iter(WheelBuilder(str(tmp_path / "src")).build(directory=str(tmp_path), versions=["standard"])))
    names = zipfile.ZipFile(wheel).namelist()
    assert "numba_port/_hybrid/numba_port__reduce__sum_kernel.sm_90.ptx" in names
    zipfile.ZipFile(wheel).extractall(tmp_path / "site")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    try:
        import numba_port.reduce as module

        yield module
    finally:
        for name in [m for m in sys.modules if m.split(".")[0] == "numba_port"]:
            del sys.modules[name]


@pytest.mark.parametrize(("n", "blocks"), [(1, 1), (5000, 4), (3 * 256 + 17, 2)])
def test_ported_reduction_agrees_with_numpy_on_the_cpu(numba_port, n: int, blocks: int) -> None:  # type: ignore[no-untyped-def]
    x = np.random.default_rng(n).random(n).astype(np.float32)
    got = numba_port.array_sum(x, blocks=blocks, device="cpu")
    assert isinstance(got, np.float32)
    # float atomics add the blocks' sums in whatever order they come: equal up to rounding
    assert got == pytest.approx(x.astype(np.float64).sum(), rel=1e-5)


def test_the_page_shows_the_tested_source() -> None:
    text = DOC.read_text()
    marker = "<!-- tests/packages/numba_port/numba_port/reduce.py -->\n```python\n"
    assert marker in text
    listing = text.split(marker, 1)[1].split("```", 1)[0]
    assert listing == SOURCE.read_text()
    for page in (ROOT / "README.md", ROOT / "docs" / "index.md"):
        assert "porting-from-numba.md)" in page.read_text(), f"{page.name} links the page"
