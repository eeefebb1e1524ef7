"""The build's LLVM work in worker processes (hatch_hybrid/work.py): the same bytes as one process, each
kernel reported as it is done, errors located at their kernel, and the targets of one CPU sharing one
optimised module only where that cannot change which C library functions the code calls."""

from __future__ import annotations

import pickle
import shutil
import zipfile
from pathlib import Path
from typing import Any

import llvmlite.binding as llvm
import pytest

pytest.importorskip("hatchling")
from hatchling.builders.wheel import WheelBuilder  # noqa: E402

from hatch_hybrid.errors import CompileError, Loc  # noqa: E402
from hatch_hybrid.hook.options import OptionError  # noqa: E402
from hatch_hybrid.hook.options import options as hook_options  # noqa: E402
from hatch_hybrid.pipeline import Options, compile_packages  # noqa: E402
from hatch_hybrid.targets.host import emit as host_emit  # noqa: E402
from hatch_hybrid.work import build_jobs  # noqa: E402

PACKAGES = Path(__file__).parent / "packages"
X86 = ["x86_64-linux", "x86_64-macos", "x86_64-windows"]


def _wheel_files(root: Path, out: Path) -> dict[str, bytes]:
    wheel = next(WheelBuilder(str(root)).build(directory=str(out), versions=["standard"]))
    with zipfile.ZipFile(wheel) as zf:
        return {n: zf.read(n) for n in zf.namelist() if "/_hybrid/" in n}


def test_worker_processes_build_the_bytes_one_process_builds(tmp_path, monkeypatch, capsys):
    """Every file of the wheel's _hybrid/ (PTX, WGSL, the CPU libraries, the manifest) is the same
    whether the LLVM work ran in the build's process or in two workers; each kernel has its line."""
    root = tmp_path / "kernlib"
    shutil.copytree(PACKAGES / "kernlib", root)
    with (root / "pyproject.toml").open("a") as f:  # (two systems of one CPU: their shared O3 run too)
        f.write('cpu = ["x86_64-linux", "x86_64-windows"]\n')
    built = {}
    for jobs in ("1", "2"):
        monkeypatch.setenv("HYBRID_BUILD_JOBS", jobs)
        monkeypatch.setenv("HYBRID_CACHE_DIR", str(tmp_path / f"cache{jobs}"))  # compiled, not from a cache
        built[jobs] = _wheel_files(root, tmp_path / f"dist{jobs}")
        captured = capsys.readouterr()
        out = captured.out + captured.err
        assert out.count("compiled in") == 2 and "2 compiled, 0 from cache" in out, out
    assert sorted(built["1"]) == sorted(built["2"]) and any(n.endswith(".dll") for n in built["1"])
    assert [n for n in built["1"] if built["1"][n] != built["2"][n]] == []


def test_each_kernel_is_reported_when_done_in_order(monkeypatch):
    """``progress`` sees each kernel complete (its objects made), in the order compile_packages returns."""
    seen = []

    def progress(k):  # type: ignore[no-untyped-def]
        assert (
            k.codes.get("cpu") is not None
            and k.codes.get("cpu").objects
            and all(k.codes.get("cpu").objects.values())
            and not k.codes.get("cpu").pending
        )
        assert set(k.codes["ptx"].ptx) == {"sm_70"} and all(k.codes["ptx"].ptx.values())
        seen.append(k.decl.qualname)

    options = Options(["sm_70"], cubin=False, cpu=["x86_64-linux"], jobs=2)
    kernels = compile_packages([PACKAGES / "kernlib" / "kernlib"], options=options, progress=progress)
    assert seen == [k.decl.qualname for k in kernels] and len(seen) == 2


def _broken(*args):  # type: ignore[no-untyped-def]
    raise RuntimeError("LLVM said no")


def test_a_failure_in_a_worker_is_located_at_its_kernel(monkeypatch):
    """An internal error raised in a worker process is the build's located internal compiler error."""
    monkeypatch.setattr(host_emit, "object_files", _broken)
    options = Options(["sm_70"], cubin=False, cpu=["x86_64-linux"], jobs=2)
    with pytest.raises(CompileError) as info:
        compile_packages([PACKAGES / "kernlib" / "kernlib"], options=options)
    message = info.value.message
    assert "internal compiler error while compiling kernel" in message and "RuntimeError: LLVM said no" in message
    assert info.value.loc is not None and info.value.loc.file.endswith("ops.py")


def test_compile_errors_cross_process_boundaries_whole():
    """A CompileError a worker raises (ptxas rejecting PTX) arrives with its place, message and hint."""
    error = CompileError(Loc("k.py", 3, 4), "ptxas rejected", "report it")
    again = pickle.loads(pickle.dumps(error))
    assert (again.loc, again.message, again.hint, str(again)) == (error.loc, error.message, error.hint, str(error))


@pytest.mark.parametrize("value", ["0", "-1", "two", "1.5"])
def test_bad_job_counts_are_refused(monkeypatch, value):
    monkeypatch.setenv("HYBRID_BUILD_JOBS", value)
    with pytest.raises(ValueError, match=r"\$HYBRID_BUILD_JOBS must be a positive integer"):
        build_jobs()
    monkeypatch.setenv("HYBRID_BUILD_JOBS", "3")
    assert build_jobs() == 3 and build_jobs(5) == 5


@pytest.mark.parametrize("value", [0, True, "4"])
def test_the_jobs_option_is_checked(tmp_path, value):
    with pytest.raises(OptionError, match=r"Option `jobs` for build hook `hybrid` must be a positive integer"):
        hook_options({"jobs": value}, tmp_path)
    assert hook_options({"jobs": 3, "signatures": {}}, tmp_path).jobs == 3


def test_a_bad_job_count_in_the_environment_ends_the_build_with_one_message(tmp_path, monkeypatch, capsys):
    root = tmp_path / "kernlib"
    shutil.copytree(PACKAGES / "kernlib", root)
    monkeypatch.setenv("HYBRID_BUILD_JOBS", "many")
    with pytest.raises(SystemExit):
        _wheel_files(root, tmp_path / "dist")
    out = capsys.readouterr()
    assert "$HYBRID_BUILD_JOBS must be a positive integer" in out.out + out.err
    assert "Traceback" not in out.out + out.err


PLAIN = """
define void @k(ptr %p, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %j, %loop ]
  %a = getelementptr float, ptr %p, i64 %i
  %x = load float, ptr %a
  %y = fmul float %x, 2.0
  store float %y, ptr %a
  %j = add i64 %i, 1
  %c = icmp slt i64 %j, %n
  br i1 %c, label %loop, label %done
done:
  ret void
}
"""
# printf of a constant line: LLVM's library-call simplifier turns it into puts, a function the lowered IR
# did not declare
FORMED = """
@line = private constant [4 x i8] c"hi\\0A\\00"
declare i32 @printf(ptr, ...)
define void @k() {
  %r = call i32 (ptr, ...) @printf(ptr @line)
  ret void
}
"""


def test_targets_of_one_cpu_share_the_optimised_module(monkeypatch):
    """x86-64 Linux, macOS and Windows are one group; their objects come from one O3 run (Windows' IR is
    Linux's with its own triple, layout and exported entry), each an object of its own format."""
    assert host_emit.same_cpu(["x86_64-linux", "aarch64-linux", "x86_64-windows", "arm64-macos", "x86_64-macos"]) == [
        X86[::2] + ["x86_64-macos"], ["aarch64-linux"], ["arm64-macos"]
    ]  # fmt: skip
    runs = []
    optimise = host_emit._optimised  # (each O3 run)
    monkeypatch.setattr(host_emit, "_optimised", lambda *a: runs.append(a[2]) or optimise(*a))
    found = host_emit.object_files(PLAIN, "k", X86, "v3", True)
    assert runs == ["x86_64-linux"] and len(found) == 3
    (linux, linux_ir), (macos, _), (windows, windows_ir) = found
    assert linux[:4] == b"\x7fELF" and macos[:4] == b"\xcf\xfa\xed\xfe" and windows[:2] == b"\x64\x86"

    def body(ir: str) -> list[str]:  # (a parsed module lists a block's predecessors in another order)
        return [line.split(";")[0] for line in ir.splitlines() if not line.startswith(("target ", "define"))]

    assert body(windows_ir) == body(linux_ir)
    assert "define dllexport" in windows_ir and 'target triple = "x86_64-pc-windows-gnu"' in windows_ir


def test_a_library_call_formed_by_the_optimiser_is_not_shared(monkeypatch):
    """Where O3 for Linux declared a new C library function, each system's module is optimised for it."""
    mod = host_emit.optimise(FORMED, {"k"}, "x86_64-linux")

    def new_calls(ir: str, mod: Any) -> set[str]:  # declared by O3, not by the lowered IR
        return host_emit._declared(mod) - host_emit._declared(llvm.parse_assembly(ir))

    assert new_calls(FORMED, mod) == {"puts"}
    assert new_calls(PLAIN, host_emit.optimise(PLAIN, {"k"}, "x86_64-linux")) == set()
    runs = []
    optimise = host_emit._optimised  # (each O3 run)
    monkeypatch.setattr(host_emit, "_optimised", lambda *a: runs.append(a[2]) or optimise(*a))
    assert len(host_emit.object_files(FORMED, "k", X86, "", False)) == 3
    assert runs == X86
