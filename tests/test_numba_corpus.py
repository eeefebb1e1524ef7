"""Published numba-cuda code, changed only in its import line (issue 45): ``tests/packages/numba_corpus``.

Each module holds the published text (``ORIGINAL``), the port (that text with ``numba`` replaced by
``hybrid_runtime`` in its import lines, checked here line by line) and an independent NumPy reference.
Kernels typed at launch get their signatures from the corpus's ``hybrid-signatures.json``, recorded by
``python scripts/numba_corpus.py record``. ``expected.json`` (written by ``scripts/numba_corpus.py
expect``) says which modules build and match their reference, and for every other one why not; each of
those is a line in docs/porting-from-numba.md. Here: every module that is expected to pass builds in one
package (native code too) and matches NumPy natively, on the Python path and on a GPU; every refusal is a
located error; and the share that passes is at least the one the docs report.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import sys
from pathlib import Path

import pytest
from conftest import DEVICES, HOST_TARGETS, TEST_ARCHS, compile_fixture

_TOOL = Path(__file__).parent.parent / "scripts" / "numba_corpus.py"
_spec = importlib.util.spec_from_file_location("numba_corpus_tool", _TOOL)  # (the package is numba_corpus)
assert _spec is not None and _spec.loader is not None
corpus = importlib.util.module_from_spec(_spec)
sys.modules["numba_corpus_tool"] = corpus
_spec.loader.exec_module(corpus)

EXPECTED: dict[str, str] = json.loads((corpus.CORPUS / "expected.json").read_text())
MODULES = [p.stem for p in corpus.modules()]
PASSING = [m for m in MODULES if EXPECTED.get(m) == "passes"]
REFUSED = [m for m in MODULES if EXPECTED.get(m, "").startswith("refused")]


def test_every_module_has_an_expectation_and_the_docs_report_the_share():
    assert sorted(EXPECTED) == sorted(MODULES), "run: python scripts/numba_corpus.py expect"
    assert len(MODULES) >= 150
    docs = (Path(__file__).parent.parent / "docs" / "porting-from-numba.md").read_text()
    share = re.search(r"(\d+) of (\d+) published numba-cuda modules", docs)
    assert share is not None and (int(share.group(1)), int(share.group(2))) == (len(PASSING), len(MODULES))
    for name in MODULES:
        if name not in PASSING:
            assert name in docs, f"{name} needs more than the import line: say why in docs/porting-from-numba.md"


@pytest.mark.parametrize("name", MODULES)
def test_the_port_changes_only_the_import_line(name):
    path = corpus.CORPUS / corpus.PACKAGE / f"{name}.py"
    ok, why = corpus.import_only(path)
    assert ok, why
    for field in ("Source", "License", "Project"):
        assert corpus.header(path, field), f"{name}: no `# {field}:` line"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The passing modules as one package, compiled as its wheel would be (native code too), importable."""
    from hatch_hybrid.record import read

    root = tmp_path_factory.mktemp("numba_corpus")
    (root / corpus.PACKAGE).mkdir()
    shutil.copy(corpus.CORPUS / corpus.PACKAGE / "__init__.py", root / corpus.PACKAGE)
    for name in PASSING:
        shutil.copy(corpus.CORPUS / corpus.PACKAGE / f"{name}.py", root / corpus.PACKAGE)
    untyped: list[str] = []
    compile_fixture(
        [root / corpus.PACKAGE], root, cpu=HOST_TARGETS, signatures=read(corpus.SIGNATURES), untyped=untyped
    )
    assert not untyped, untyped  # every kernel the checks launch has its recorded signature
    return root


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", PASSING)
def test_published_module_matches_numpy(built, name, device):
    import warnings

    from hybrid_runtime import SlowPathWarning

    with warnings.catch_warnings():
        warnings.simplefilter("error", SlowPathWarning)  # compiled, not run as written
        with corpus.imported(built, name) as module:
            try:
                corpus.run_check(module, device)
            except corpus.TooSlowForPython as why:
                pytest.skip(f"the published sizes on the Python path: {why}")


@pytest.mark.parametrize("name", REFUSED)
def test_a_refused_module_gets_a_located_error(name):
    from hatch_hybrid.cache import KernelCache
    from hatch_hybrid.errors import CompileError
    from hatch_hybrid.pipeline import Options, compile_packages
    from hatch_hybrid.record import read

    path = corpus.CORPUS / corpus.PACKAGE / f"{name}.py"
    with corpus.staged([path]) as root:
        options = Options(list(TEST_ARCHS), cubin=False, cache=KernelCache(None), signatures=read(corpus.SIGNATURES))
        with pytest.raises(CompileError) as info:
            compile_packages([root / corpus.PACKAGE], options=options)
    text = str(info.value)
    assert f"{name}.py:" in text and "^" in text and "internal compiler error" not in text, text
