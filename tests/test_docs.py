"""The language page matches the compiler: every row of its "Not supported" table, compiled as the
body of the page's kernel, is refused with a located error and a hint; every construct the page's
code examples show compiles."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_errors import assert_located

from hatch_hybrid.errors import CompileError
from hatch_hybrid.pipeline import compile_packages

LANGUAGE = Path(__file__).resolve().parents[1] / "docs" / "language.md"
PLACEHOLDER = "    ...  # the example\n"


def _section(text: str, title: str) -> str:
    start = text.index(f"## {title}")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def _unsupported() -> tuple[str, list[tuple[str, list[str]]]]:
    """The section's kernel module (with its placeholder line) and each row: (what, example lines)."""
    section = _section(LANGUAGE.read_text(), "Not supported")
    module = re.search(r"```python\n(.*?)```", section, re.S)
    assert module and PLACEHOLDER in module[1], "the section shows the kernel its examples go into"
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or cells[0] in ("not supported", "---"):
            continue
        rows.append((cells[0], re.findall(r"`([^`]+)`", cells[1])))
    return module[1], rows


MODULE, ROWS = _unsupported()


def test_the_table_lists_what_the_compiler_refuses() -> None:
    assert len(ROWS) >= 40
    assert all(lines for _, lines in ROWS), "every row has an example"


@pytest.mark.parametrize("lines", [r[1] for r in ROWS], ids=[r[0][:40] for r in ROWS])
def test_each_unsupported_example_is_a_located_error_with_a_hint(tmp_path: Path, lines: list[str]) -> None:
    pkg = tmp_path / "docpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    body = "".join(f"    {line}\n" for line in lines)
    (pkg / "k.py").write_text(MODULE.replace(PLACEHOLDER, body))
    with pytest.raises(CompileError) as info:
        compile_packages([pkg], ["sm_90"])
    err = info.value
    assert err.hint, f"no hint for:\n{err}"
    assert_located(err, pkg / "k.py", marked="", message="", hint=None)


def test_the_module_compiles_with_a_supported_body(tmp_path: Path) -> None:
    """The examples' kernel itself is fine: each refusal above comes from its example."""
    pkg = tmp_path / "docpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    body = "    x[0] = f32(n) + h[0] + z.real + TABLE[n % 3]\n    print(n, z)\n    v = x[1:][::2]\n"
    (pkg / "k.py").write_text(MODULE.replace(PLACEHOLDER, body))
    kernels = compile_packages([pkg], ["sm_90"])
    assert [k.decl.name for k in kernels] == ["k"]
