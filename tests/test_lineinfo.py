"""Line information in the PTX: ``.file``/``.loc`` naming the Python source as installed, kept in
cubins, off with ``lineinfo = false``, and free: the code is the same with and without it."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import struct
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import KERNEL_PRELUDE, ROOT, assemble, find_ptxas

from hatch_hybrid.cache import KernelCache
from hatch_hybrid.lint import LintSettings
from hatch_hybrid.pipeline import Options, compile_packages, lint_report
from hatch_hybrid.targets.ptx.cubin import assemble as ptxas_assemble

HELPERS = """
from hybrid_runtime import f32


def axpy1(a: f32, x: f32, y: f32) -> f32:
    return a * x + y
"""
KERNEL = (
    KERNEL_PRELUDE
    + """
from .helpers import axpy1


@kernel
def saxpy(a: f32, x: Array[f32], y: Array[f32]):
    i = gpu.global_tid_x()
    if i < len(y):
        y[i] = axpy1(a, x[i], y[i])
"""
)
#: What only line information adds to the PTX: the directives, the labels they use, the empty
#: .debug_macinfo section LLVM writes for ptxas (and blank lines).
DEBUG_ONLY = re.compile(r"^(\s*(\.loc\b|\.file\b|\.section\s+\.debug_|\$L__(tmp|func_begin|func_end)\d+:).*)?\n", re.M)
#: The numbers of the `// callseq N` comments around calls, which LLVM counts differently with line info
CALLSEQ = re.compile(r"// callseq \d+")


def code_only(ptx: str) -> str:
    return CALLSEQ.sub("// callseq", DEBUG_ONLY.sub("", ptx))


def package(tmp_path: Path) -> Path:
    pkg = tmp_path / "lineinfo_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "kern.py").write_text(KERNEL)
    (pkg / "helpers.py").write_text(HELPERS)
    return pkg


def line_of(source: str, text: str) -> int:
    return next(n for n, line in enumerate(source.splitlines(), 1) if text in line)


def test_ptx_names_python_files_and_lines(tmp_path):
    (kernel,) = compile_packages([package(tmp_path)], options=Options(["sm_70", "sm_90"], cubin=False))
    for arch, ptx in kernel.codes["ptx"].ptx.items():
        assemble(ptx, arch, tmp_path)
        files = dict(re.findall(r'^\s*\.file\s+(\d+)\s+"([^"]*)"', ptx, re.M))
        assert sorted(files.values()) == ["lineinfo_pkg/helpers.py", "lineinfo_pkg/kern.py"]  # as installed
        number = {path: n for n, path in files.items()}
        locs = set(re.findall(r"^\s*\.loc\s+(\d+) (\d+) (\d+)", ptx, re.M))
        store = line_of(KERNEL, "y[i] = axpy1")
        assert (number["lineinfo_pkg/kern.py"], str(store), "9") in locs  # the store, at `y[i]`
        assert (number["lineinfo_pkg/kern.py"], str(line_of(KERNEL, "if i < len(y)")), "8") in locs
        # the inlined helper's multiply-add keeps the helper's line
        assert (number["lineinfo_pkg/helpers.py"], str(line_of(HELPERS, "return a * x + y")), "12") in locs
        assert str(tmp_path) not in ptx and ".debug_info" not in ptx


def test_lineinfo_false_drops_it_and_is_part_of_the_cache_key(tmp_path):
    cache = KernelCache(tmp_path / "cache")
    pkg = package(tmp_path)
    (on,) = compile_packages([pkg], options=Options(["sm_90"], cubin=False, cache=cache))
    (off,) = compile_packages([pkg], options=Options(["sm_90"], cubin=False, cache=cache, lineinfo=False))
    assert not off.cached
    assert (
        ".loc" in on.codes["ptx"].ptx["sm_90"]
        and ".loc" not in off.codes["ptx"].ptx["sm_90"]
        and ".file" not in off.codes["ptx"].ptx["sm_90"]
    )
    (again,) = compile_packages([pkg], options=Options(["sm_90"], cubin=False, cache=cache, lineinfo=False))
    assert again.cached and again.codes["ptx"].ptx == off.codes["ptx"].ptx


def test_cubins_keep_the_lines(tmp_path):
    ptxas = find_ptxas()
    if ptxas is None:
        pytest.skip("ptxas not found (pip install nvidia-cuda-nvcc-cu12)")
    pkg = package(tmp_path)
    (on,) = compile_packages([pkg], options=Options(["sm_90"], cubin=False))
    (off,) = compile_packages([pkg], options=Options(["sm_90"], cubin=False, lineinfo=False))
    with_lines = ptxas_assemble(on.codes["ptx"].ptx["sm_90"], "sm_90", "saxpy", ptxas, lineinfo=True)
    without = ptxas_assemble(off.codes["ptx"].ptx["sm_90"], "sm_90", "saxpy", ptxas, lineinfo=False)
    assert with_lines is not None and without is not None
    # the line table names the folder and the file apart, as LLVM's .file gave them
    assert b".debug_line" in with_lines and b"lineinfo_pkg" in with_lines and b"kern.py" in with_lines
    assert b".debug_line" not in without and b"kern.py" not in without
    # and the machine code is the same, byte for byte
    code, code_without = _elf_sections(with_lines), _elf_sections(without)
    text = sorted(name for name in code if name.startswith(".text."))
    assert text == [".text.lineinfo_pkg__kern__saxpy", ".text.lineinfo_pkg__kern__saxpy__i32"]
    assert all(code[name] == code_without[name] for name in text)


def _elf_sections(blob: bytes) -> dict[str, bytes]:
    """The sections of a 64-bit little-endian ELF file (a cubin), by name."""
    shoff = struct.unpack_from("<Q", blob, 0x28)[0]
    size, count, names_at = struct.unpack_from("<HHH", blob, 0x3A)
    heads = [struct.unpack_from("<IIQQQQIIQQ", blob, shoff + k * size) for k in range(count)]
    names = heads[names_at][4]
    return {blob[names + h[0] : blob.index(b"\0", names + h[0])].decode(): blob[h[4] : h[4] + h[5]] for h in heads}


def _projects():
    spec = importlib.util.spec_from_file_location("ptx_identity", ROOT / "scripts" / "ptx_identity.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: lint warnings on the published corpus's kernels (tests/packages/published), kept as their authors wrote them
PUBLISHED_LINT_FINDINGS = 5


def test_line_info_changes_no_code_and_no_lint_fires_on_the_repository():
    """Every kernel the repository ships (examples, benchmarks, test packages): the PTX without line
    information equals the PTX with it once its directives are removed, and no lint fires on them."""
    tool = _projects()
    search_path = [str(p) for p in tool.PROJECTS if p.is_dir()] + sys.path
    compared = 0
    for project in tool.PROJECTS:
        if not project.is_dir():
            continue
        builds = {}
        for lineinfo in (True, False):
            options = Options(["sm_70", "sm_90"], cubin=False, lineinfo=lineinfo)
            kernels = compile_packages(tool.packages(project), options=options, search_path=search_path)
            builds[lineinfo] = {k.symbol: k for k in kernels}
            warnings = [w.format() for w in lint_report(kernels, LintSettings())]
            if project.name == "published":  # others' kernels as published: the lints' findings are listed in
                assert len(warnings) == PUBLISHED_LINT_FINDINGS, warnings  # docs/porting-from-numba.md
            else:
                assert warnings == [], project.name
        for symbol, kernel in builds[True].items():
            for arch, ptx in kernel.codes["ptx"].ptx.items():
                assert ".loc" in ptx and ".file" in ptx
                without = builds[False][symbol].codes["ptx"].ptx[arch]
                assert code_only(ptx) == code_only(without), f"{symbol} {arch}"
                compared += 1
    assert compared >= 40


# ----------------------------------------------------------------------------------------------- GPU
OOB = (
    KERNEL_PRELUDE
    + """

@kernel
def scatter(x: Array[f32], offset: i64):
    i = gpu.global_tid_x()
    x[i + offset] = f32(1.0)
"""
)
RUN = """
import os, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
from oob_pkg.kern import scatter
import hybrid_runtime as hr
x = hr.device_array(32, np.float32)
scatter[1, 32](x, np.int64(1 << 22))
hr.synchronize()
"""


@pytest.mark.gpu
@pytest.mark.parametrize("code", ["cubin", "ptx"])
def test_compute_sanitizer_names_the_python_line(tmp_path, code):
    """An out-of-bounds write (no debug bounds checks) reported by compute-sanitizer at its Python line,
    from the cubin (ptxas -lineinfo) and from the PTX the driver compiles."""
    sanitizer = shutil.which("compute-sanitizer")
    if sanitizer is None:
        pytest.skip("compute-sanitizer is not on PATH")
    if code == "cubin" and find_ptxas() is None:
        pytest.skip("ptxas not found: no cubin to load")
    from hatch_hybrid.hook.artifacts import write_package_artifacts

    pkg = tmp_path / "src" / "oob_pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "kern.py").write_text(OOB)
    archs = ["sm_70", "sm_80", "sm_90"]
    kernels = compile_packages([pkg], options=Options(archs, cubin=code == "cubin"))
    write_package_artifacts(kernels, archs, tmp_path / "src")
    (tmp_path / "run.py").write_text(textwrap.dedent(RUN))
    env = {**os.environ, "HYBRID_CODE": code} if code == "ptx" else dict(os.environ)
    proc = subprocess.run(
        [sanitizer, "--tool", "memcheck", sys.executable, str(tmp_path / "run.py"), str(tmp_path / "src")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    report = proc.stdout + proc.stderr
    assert "Invalid __global__ write" in report, report
    # the line table holds the folder (oob_pkg) and the file apart; reports show at least the file
    assert f"kern.py:{line_of(OOB, 'x[i + offset] = f32(1.0)')}" in report, report
