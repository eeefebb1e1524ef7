"""Issue 19 item 4: kernels from public sources (numba-cuda's documentation and tests, numba's examples,
NVIDIA's blog code samples, CUDA samples, mini-nbody, Warp examples), ported by changing decorators,
annotations and intrinsic names (C sources translated line for line; each file says which and why),
each checked against its own NumPy reference on the native CPU, the Python path and the GPU.

``tests/packages/published/published_kernels/k*.py`` compile; ``tests/packages/published/refused/*.py``
are ports the compiler refuses, each with the located error it gives (``EXPECTED_ERROR``).
docs/porting-from-numba.md lists both.
"""

from __future__ import annotations

import importlib
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import DEVICES, HOST_TARGETS, TEST_ARCHS, compile_fixture

from hatch_hybrid.cache import KernelCache
from hatch_hybrid.errors import CompileError
from hatch_hybrid.pipeline import Options, compile_packages

CORPUS = Path(__file__).parent / "packages" / "published"
MODULES = sorted(p.stem for p in (CORPUS / "published_kernels").glob("k*.py"))
REFUSED = sorted((CORPUS / "refused").glob("*.py"))


@pytest.fixture(scope="module")
def published(tmp_path_factory):
    """The corpus package compiled (native code for this machine too) and importable."""
    root = tmp_path_factory.mktemp("published")
    shutil.copytree(CORPUS / "published_kernels", root / "published_kernels")
    compile_fixture([root / "published_kernels"], root, cpu=HOST_TARGETS)
    sys.path.insert(0, str(root))
    try:
        yield {name: importlib.import_module(f"published_kernels.{name}") for name in MODULES}
    finally:
        sys.path.remove(str(root))
        for m in [m for m in sys.modules if m.split(".")[0] == "published_kernels"]:
            del sys.modules[m]


def test_the_corpus_is_large_and_mostly_spelling_only():
    """At least 40 published kernels; the share ported by spelling alone is reported in the docs."""
    files = [*(CORPUS / "published_kernels").glob("k*.py"), *REFUSED]
    assert len(files) >= 40
    for f in files:
        text = f.read_text()
        assert "Source" in text and "ORIGINAL" in text, f  # where it comes from, and its published text


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", MODULES)
def test_published_kernel_matches_numpy(published, name, device):
    from hybrid_runtime.kernel import Kernel

    module = published[name]
    kernel = [v for v in vars(module).values() if isinstance(v, Kernel)][-1]
    case = module.CASE
    args = module.make_args(np.random.default_rng(0))
    want = module.reference(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    extra = {"shared_bytes": case["shared_bytes"]} if case.get("shared_bytes") else {}
    kernel.launch(case["threads"], case["blocks"], *args, device=device, **extra)
    got = dict(zip(case["args"], args))
    for out, slots in case.get("any_of", {}).items():  # elements whose value depends on the threads' order
        for i, (low, high) in slots.items():
            assert low <= got[out][i] < high, (out, i, got[out][i])
            want[out][i] = got[out][i]
    for out in case["outputs"]:
        np.testing.assert_allclose(
            got[out], want[out], rtol=case.get("rtol", 0), atol=case.get("atol", 0), equal_nan=True, err_msg=out
        )


@pytest.mark.parametrize("path", REFUSED, ids=lambda p: p.stem)
def test_refused_ports_are_located_errors(tmp_path, path):
    pkg = tmp_path / "refused_port"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    shutil.copy(path, pkg / "kern.py")
    expected = next(line for line in path.read_text().splitlines() if line.startswith("EXPECTED_ERROR = "))
    with pytest.raises(CompileError) as info:
        compile_packages([pkg], options=Options(list(TEST_ARCHS), cubin=False, cache=KernelCache(None), cpu=[]))
    text = str(info.value)
    assert eval(expected.split("=", 1)[1]) in text, text  # noqa: S307 - a string literal of our own file
    assert "kern.py:" in text and "^" in text  # file:line:col and a caret
