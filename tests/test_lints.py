"""GPU lints at build time: each fires at the right place (and not on correct kernels), is rendered
like an error, and the options make them errors, skip them by name, or a comment silences one site."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest
from conftest import KERNEL_PRELUDE

from hatch_hybrid.cache import KernelCache
from hatch_hybrid.cli import main as cli_main
from hatch_hybrid.errors import CompileError, LintWarning
from hatch_hybrid.hook.options import OptionError, lint_settings
from hatch_hybrid.lint import LintSettings
from hatch_hybrid.pipeline import Options, compile_packages, lint_report

PRELUDE = KERNEL_PRELUDE + "from hybrid_runtime import cuda\n"


def lints(tmp_path: Path, source: str, settings: LintSettings | None = None, **options: object) -> list[LintWarning]:
    pkg = tmp_path / "lintpkg"
    pkg.mkdir(exist_ok=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "kern.py").write_text(PRELUDE + textwrap.dedent(source))
    opts = Options(["sm_90"], cubin=False, lints=settings or LintSettings(), **options)  # type: ignore[arg-type]
    return lint_report(compile_packages([pkg], options=opts), opts.lints)


def where(found: list[LintWarning]) -> list[tuple[str, str, int]]:
    """(lint, source text of the reported line, column from 1) for each finding."""
    return [(w.name, w.loc.source_line().strip(), w.loc.col + 1) for w in found]


# --------------------------------------------------------------------------------------------- barriers
def test_barrier_under_thread_condition(tmp_path):
    found = lints(
        tmp_path,
        """
        @kernel
        def k(x: Array[f32]):
            t = gpu.thread_idx_x()
            if t % 2 == 0:
                gpu.syncthreads()
            if cuda.threadIdx.x < 64:
                cuda.syncthreads()
        """,
    )
    assert where(found) == [
        ("divergent-barrier", "gpu.syncthreads()", 9),
        ("divergent-barrier", "cuda.syncthreads()", 9),
    ]
    text = found[0].format()
    assert "kern.py:11:9: warning: barrier under a condition that differs between the threads" in text
    assert "[divergent-barrier]" in text and "        ^^^^^^^^^^^^^^^^^" in text and "hint: every thread" in text


def test_barrier_reached_through_data_helpers_and_loops(tmp_path):
    found = lints(
        tmp_path,
        """
        def sync_all(flag: bool):
            if flag:
                gpu.syncthreads()

        def half(v: i64) -> i64:
            return v // 2

        @kernel
        def k(x: Array[f32], n: i64):
            i = gpu.global_tid_x()
            if x[i] > 0:
                gpu.syncthreads()
            if half(i) > 3:
                sync_all(True)
            sync_all(i > 4)
            for j in range(n):
                if x[j + i] < 0:
                    break
                gpu.syncthreads()
        """,
    )
    assert [(w.loc.line, w.loc.source_line().strip()) for w in found] == [
        (9, "gpu.syncthreads()"),  # in sync_all, called with a flag that differs per thread
        (18, "gpu.syncthreads()"),  # under a load at a thread's own index
        (20, "sync_all(True)"),  # a helper that reaches a barrier, under half(i) > 3
        (25, "gpu.syncthreads()"),  # after a thread-dependent break
    ]
    assert {w.name for w in found} == {"divergent-barrier"} and {w.loc.col for w in found} == {8}
    assert found[2].notes is not None and found[2].notes[0].loc.line == 9  # the helper's barrier


def test_uniform_conditions_and_early_return_are_not_flagged(tmp_path):
    found = lints(
        tmp_path,
        """
        @kernel
        def k(x: Array[f32], n: i64, flag: bool):
            if gpu.global_tid_x() >= n:
                return  # threads that returned count as arrived
            tile = gpu.shared_array(f32, 32)
            if gpu.thread_idx_x() == 0:
                tile[0] = x[gpu.block_idx_x()]
            gpu.syncthreads()
            if flag and gpu.block_idx_x() < n // gpu.block_dim_x() and tile[0] > 0:
                gpu.syncthreads()
            for s in range(gpu.block_dim_x() // 2):
                gpu.syncthreads()
        """,
    )
    assert found == []


# ------------------------------------------------------------------------------------------- warp calls
def test_warp_calls_under_lane_conditions(tmp_path):
    found = lints(
        tmp_path,
        """
        def reduce(v: f32) -> f32:
            k = 16
            while k > 0:
                v += gpu.shfl_down(v, k)
                k //= 2
            return v

        @kernel
        def k(x: Array[f32], n: i64):
            i = cuda.grid(1)
            v = x[i]
            if gpu.lane_id() < 16:
                v = gpu.shfl_xor(v, 1)
            if i < n:
                v = cuda.shfl_down_sync(0xFFFFFFFF, v, 1)
                v = reduce(v)
            w = gpu.ballot(v > 0) if gpu.thread_idx_x() % 3 == 0 else 0
            if gpu.thread_idx_x() < 32:  # whole warps: not flagged
                v = reduce(v)
            if gpu.thread_idx_x() // 32 == 1 and gpu.all_(v > 0):
                x[i] = v
            x[i] = v + w
        """,
    )
    assert where(found) == [
        ("divergent-warp-call", "v = gpu.shfl_xor(v, 1)", 13),
        ("divergent-warp-call", "v = cuda.shfl_down_sync(0xFFFFFFFF, v, 1)", 13),
        ("divergent-warp-call", "v = reduce(v)", 13),
        ("divergent-warp-call", "w = gpu.ballot(v > 0) if gpu.thread_idx_x() % 3 == 0 else 0", 9),
    ]
    assert "warp shuffle or vote under a condition that differs between the lanes" in found[0].message


# ------------------------------------------------------------------------------------------ f64 in f32
F64_SOURCE = """
@kernel
def k(x: Array[f32], y: Array[f32], n: i64, idx: Array[i32]):
    i = gpu.global_tid_x()
    a = x[i] * math.sqrt(2.0)
    b = x[i] * math.sqrt(x[i])
    c = f32(math.sqrt(x[i]))
    e = x[i] * 2.5 + f32(idx[i])
    d = x[i] / n
    f = f32(math.exp(x[i]))
    y[i] = a + b + c + e + f32(d) + f

@kernel
def doubles(x: Array[f64], n: i64):
    x[0] = x[0] / n
"""


def test_f64_in_f32_kernel(tmp_path):
    found = lints(tmp_path, F64_SOURCE)
    assert where(found) == [
        ("f64-in-f32-kernel", "d = x[i] / n", 9),
        ("f64-in-f32-kernel", "f = f32(math.exp(x[i]))", 13),
    ]
    assert "`/` of f32 and i64 computes in f64 in a kernel whose float arrays are all f32" in found[0].message
    assert "math.exp computes in f64" in found[1].message and "fastmath" in (found[1].hint or "")


def test_f64_lint_knows_fastmath(tmp_path):
    found = lints(tmp_path, F64_SOURCE.replace("@kernel\ndef k(", "@kernel(fastmath=True)\ndef k("))
    assert where(found) == [("f64-in-f32-kernel", "d = x[i] / n", 9)]


# ------------------------------------------------------------------------------------------ shared memory
def test_shared_memory_over_the_limit(tmp_path):
    found = lints(
        tmp_path,
        """
        def scratch(x: Array[f32]) -> f32:
            s = gpu.shared_array(f32, (96, 64))
            s[0, 0] = x[0]
            return s[0, 0]

        @kernel
        def k(x: Array[f32]):
            t = gpu.shared_array(f64, 4096)
            t[0] = scratch(x)
            x[0] = f32(t[0])

        @kernel
        def fits(x: Array[f32]):
            t = gpu.shared_array(f64, 2048)
            t[0] = x[0]
        """,
    )
    assert [(w.name, w.loc.line) for w in found] == [("shared-memory-limit", 13)]
    assert "kernel `k` takes 57344 bytes of static shared memory; a block has at most 49152" in found[0].message
    assert sorted(n.message for n in found[0].notes or []) == ["24576 bytes", "32768 bytes"]


# ---------------------------------------------------------------------------------------------- options
DIVERGENT = """
@kernel
def k(x: Array[f32], n: i64):
    if gpu.thread_idx_x() < 5:
        gpu.syncthreads()
    x[0] = x[0] / n{comment}
"""


def test_error_mode_fails_with_the_located_message(tmp_path):
    with pytest.raises(CompileError) as info:
        lints(tmp_path, DIVERGENT.format(comment=""), LintSettings("error"))
    text = str(info.value)
    assert "kern.py:10:9: error: barrier under a condition that differs" in text and "[divergent-barrier]" in text
    assert "note: also: `/` of f32 and i64 computes in f64" in text and "[f64-in-f32-kernel]" in text


def test_ignore_by_name_by_comment_and_off(tmp_path):
    assert [w.name for w in lints(tmp_path, DIVERGENT.format(comment=""))] == ["divergent-barrier", "f64-in-f32-kernel"]
    kept = lints(tmp_path, DIVERGENT.format(comment=""), LintSettings("warn", frozenset({"divergent-barrier"})))
    assert [w.name for w in kept] == ["f64-in-f32-kernel"]
    kept = lints(tmp_path, DIVERGENT.format(comment="  # hybrid: ignore[f64-in-f32-kernel]"))
    assert [w.name for w in kept] == ["divergent-barrier"]
    kept = lints(tmp_path, DIVERGENT.format(comment="  # hybrid: ignore[divergent-barrier, shared-memory-limit]"))
    assert [w.name for w in kept] == ["divergent-barrier", "f64-in-f32-kernel"]  # other lints, not this line's
    kept = lints(tmp_path, DIVERGENT.format(comment="  # hybrid: ignore"))
    assert [w.name for w in kept] == ["divergent-barrier"]
    assert lints(tmp_path, DIVERGENT.format(comment=""), LintSettings("off")) == []


def test_lints_are_shown_again_from_the_cache(tmp_path):
    cache = KernelCache(tmp_path / "cache")
    first = lints(tmp_path, DIVERGENT.format(comment=""), cache=cache)
    again = lints(tmp_path, DIVERGENT.format(comment=""), cache=cache)
    assert [w.format() for w in again] == [w.format() for w in first] and len(first) == 2


@pytest.mark.parametrize(
    "config, message",
    [
        ({"lints": "loud"}, 'must be "warn", "error" or false'),
        ({"lints-ignore": "divergent-barrier"}, "must be a list of lint names"),
        ({"lints-ignore": ["no-such-lint"]}, "unknown lint 'no-such-lint'; lints: divergent-barrier"),
    ],
)
def test_lint_options_are_validated(config, message):
    with pytest.raises(OptionError, match=message):
        lint_settings(config)
    assert lint_settings({"lints": False}).mode == "off"
    assert lint_settings({"lints-ignore": ["shared-memory-limit"]}).ignore == {"shared-memory-limit"}


def test_cli_check_shows_lints(tmp_path, capsys):
    root = tmp_path / "proj"
    (root / "lintproj").mkdir(parents=True)
    (root / "lintproj" / "__init__.py").write_text("")
    (root / "lintproj" / "kern.py").write_text(PRELUDE + DIVERGENT.format(comment=""))
    toml = (
        '[project]\nname = "lintproj"\nversion = "1"\ndependencies = ["hatch-hybrid-runtime"]\n'
        "[tool.hatch.build.hooks.hybrid]\ncpu = false\n"
    )
    (root / "pyproject.toml").write_text(toml)
    assert cli_main(["check", str(root)]) == 0
    err = capsys.readouterr().err
    assert "kern.py:10:9: warning: barrier under a condition" in err and "[divergent-barrier]" in err
    (root / "pyproject.toml").write_text(toml + 'lints = "error"\n')
    assert cli_main(["check", str(root)]) == 1
    assert "kern.py:10:9: error: barrier under a condition" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------- the build
def _kernlib(tmp_path: Path, options: str) -> Path:
    """The kernlib test package with a barrier under a thread condition, and these hook options."""
    root = tmp_path / "kernlib"
    shutil.copytree(Path(__file__).parent / "packages" / "kernlib", root)
    ops = root / "kernlib" / "ops.py"
    ops.write_text(
        ops.read_text().replace("    if i < len(dst):\n", "    if i < len(dst):\n        gpu.syncthreads()\n")
    )
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + "cpu = false\n" + options)
    return root


def _build(root: Path, out: Path) -> None:
    from hatchling.builders.wheel import WheelBuilder

    next(WheelBuilder(str(root)).build(directory=str(out), versions=["standard"]))


def test_build_shows_lints_as_warnings(tmp_path, capsys):
    pytest.importorskip("hatchling")
    _build(_kernlib(tmp_path, ""), tmp_path / "dist")
    out = capsys.readouterr()
    text = out.out + out.err
    assert "hatch-hybrid: " in text and "ops.py:17:9: warning: barrier under a condition" in text
    assert "[divergent-barrier]" in text and "gpu.syncthreads()" in text and "^^^" in text


def test_build_fails_on_lints_as_errors(tmp_path, capsys):
    pytest.importorskip("hatchling")
    with pytest.raises(SystemExit):
        _build(_kernlib(tmp_path, 'lints = "error"\n'), tmp_path / "dist")
    out = capsys.readouterr()
    text = out.out + out.err
    assert "ops.py:17:9: error: barrier under a condition" in text and "Traceback" not in text


def test_build_skips_ignored_lints(tmp_path, capsys):
    pytest.importorskip("hatchling")
    _build(_kernlib(tmp_path, 'lints-ignore = ["divergent-barrier"]\n'), tmp_path / "dist")
    out = capsys.readouterr()
    assert "warning" not in out.out + out.err
