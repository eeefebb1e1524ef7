"""Build-hook tier: wheels built in-process with hatchling's WheelBuilder."""

from __future__ import annotations

import hashlib
import json
import shutil
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("hatchling")
from conftest import assemble  # noqa: E402
from hatchling.builders.sdist import SdistBuilder  # noqa: E402
from hatchling.builders.wheel import WheelBuilder  # noqa: E402

PACKAGES = Path(__file__).parent / "packages"


@pytest.fixture
def project(tmp_path: Path):
    def _copy(name: str) -> Path:
        dest = tmp_path / name
        shutil.copytree(PACKAGES / name, dest)
        return dest

    return _copy


def build_wheel(root: Path, out: Path) -> Path:
    return Path(next(WheelBuilder(str(root)).build(directory=str(out), versions=["standard"])))


def test_wheel_contents(project, tmp_path):
    root = project("kernlib")
    wheel = build_wheel(root, tmp_path / "dist")
    assert wheel.name == "kernlib-1.0.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as zf:
        names = sorted(n for n in zf.namelist() if not n.startswith("kernlib-1.0.0.dist-info/"))
        assert names == [
            "kernlib/__init__.py",
            "kernlib/_hybrid/kernlib.aarch64-linux.so",
            "kernlib/_hybrid/kernlib.arm64-macos.dylib",
            "kernlib/_hybrid/kernlib.x86_64-linux.so",
            "kernlib/_hybrid/kernlib.x86_64-macos.dylib",
            "kernlib/_hybrid/kernlib.x86_64-windows.dll",
            "kernlib/_hybrid/kernlib__ops__add_one.sm_70.ptx",
            "kernlib/_hybrid/kernlib__ops__add_one.sm_80.ptx",
            "kernlib/_hybrid/kernlib__ops__add_one.wgsl",
            "kernlib/_hybrid/kernlib__ops__scale.sm_70.ptx",
            "kernlib/_hybrid/kernlib__ops__scale.sm_80.ptx",
            "kernlib/_hybrid/kernlib__ops__scale.wgsl",
            "kernlib/_hybrid/manifest.json",
            "kernlib/ops.py",
            "kernlib/util.py",
        ]
        assert "Root-Is-Purelib: true" in zf.read("kernlib-1.0.0.dist-info/WHEEL").decode()
        manifest = json.loads(zf.read("kernlib/_hybrid/manifest.json"))
        for name in names:
            if name.endswith(".ptx"):
                assemble(zf.read(name).decode(), name.rsplit(".", 2)[1], tmp_path)
        # the sha256 of every code file, which the runtime checks
        code = {
            n.rsplit("/", 1)[1]: hashlib.sha256(zf.read(n)).hexdigest()
            for n in names
            if "/_hybrid/" in n and not n.endswith("manifest.json")
        }
    assert manifest["files"] == code
    assert manifest["format"] == 2
    assert manifest["arch"] == ["sm_70", "sm_80"]
    assert manifest["compiler"].startswith("hatch-hybrid ")
    assert len(manifest["source_hash"]) == 64
    scale = manifest["kernels"]["kernlib.ops.scale"]
    assert scale["symbol"] == "kernlib__ops__scale"
    assert scale["params"] == [
        {"name": "x", "kind": "array", "dtype": "float32", "ndim": 1, "writes": True},
        {"name": "factor", "kind": "scalar", "dtype": "float32"},
    ]
    assert scale["writes"] == ["x"]
    assert manifest["kernels"]["kernlib.ops.add_one"]["writes"] == ["dst"]
    assert scale["ptx"] == {"sm_70": "kernlib__ops__scale.sm_70.ptx", "sm_80": "kernlib__ops__scale.sm_80.ptx"}
    # native CPU code by default: one library per target, every kernel in each
    assert manifest["cpu"]["x86_64-linux"] == "kernlib.x86_64-linux.so" and len(manifest["cpu"]) == 5
    sanitized = scale["cpu"].pop("sanitize")  # and each kernel's sanitized entry (docs/sanitizer.md)
    assert scale["cpu"] == {"symbol": "kernlib__ops__scale", "frame_bytes": 0, "shared_bytes": 0, "barriers": False}
    assert sanitized["symbol"] == "kernlib__ops__scale__san" and sanitized["yields"] == []
    assert {site["kind"] for site in sanitized["checks"]} == {"access", "index0"}


def test_builds_are_reproducible(project, tmp_path):
    root = project("kernlib")
    first = build_wheel(root, tmp_path / "a").read_bytes()
    second = build_wheel(root, tmp_path / "b").read_bytes()
    assert first == second
    assert str(tmp_path).encode() not in first


def test_sdist_carries_source_only(project, tmp_path):
    root = project("kernlib")
    sdist = Path(next(SdistBuilder(str(root)).build(directory=str(tmp_path / "dist"))))
    import tarfile

    with tarfile.open(sdist) as tf:
        assert not [n for n in tf.getnames() if "_hybrid" in n]


@pytest.mark.parametrize(
    "option, message",
    [
        ("arch = [70]", "Option `arch` for build hook `hybrid` must be a list of strings"),
        ("arch = []", "Option `arch` for build hook `hybrid` must be a list of strings"),
        ('arch = ["sm_20"]', "Option `arch` for build hook `hybrid` has unknown target 'sm_20'"),
        ('arch = ["compute_90"]', "use targets like"),
        ('arch = ["sm_999"]', "unknown target 'sm_999'; use targets like \"sm_80\": sm_50, sm_52"),
        ('arch = ["sm_91"]', "unknown target 'sm_91'"),
        ('packages = "kernlib"', "Option `packages` for build hook `hybrid` must be a list of strings"),
        ('packages = ["nope"]', "is not a package folder"),
        ("dump = 3", "Option `dump` for build hook `hybrid` must be a string"),
        ('cpu-checks = "yes"', "Option `cpu-checks` for build hook `hybrid` must be a boolean"),
        ('cpu = ["vax-vms"]', "Option `cpu` for build hook `hybrid` has 'vax-vms'; known targets"),
        ('lineinfo = "yes"', "Option `lineinfo` for build hook `hybrid` must be a boolean"),
        ('lints = "loud"', 'Option `lints` for build hook `hybrid` must be "warn", "error" or false'),
        ('lints-ignore = ["nope"]', "Option `lints-ignore` for build hook `hybrid` has unknown lint 'nope'"),
        ('speed = "max"', "Unknown option `speed` for build hook `hybrid`"),
    ],
)
def test_options_are_validated(project, tmp_path, capsys, option, message):
    """A bad option ends the build with one message in hatchling's phrasing, no traceback."""
    root = project("kernlib")
    pyproject = root / "pyproject.toml"
    text = pyproject.read_text().replace('arch = ["sm_80", "sm_70"]', option)
    pyproject.write_text(text)
    with pytest.raises(SystemExit):
        build_wheel(root, tmp_path / "dist")
    out = capsys.readouterr()
    assert message in out.out + out.err
    assert "Traceback" not in out.out + out.err


def test_arch_may_be_one_string(project, tmp_path):
    root = project("kernlib")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('arch = ["sm_80", "sm_70"]', 'arch = "sm_80"'))
    wheel = build_wheel(root, tmp_path / "dist")
    with zipfile.ZipFile(wheel) as zf:
        manifest = json.loads(zf.read("kernlib/_hybrid/manifest.json"))
    assert manifest["arch"] == ["sm_80"]


def test_known_archs_are_the_ones_llvm_recognises():
    """Every arch the hook accepts is a processor of LLVM's NVPTX backend (no "not a recognized
    processor" warning, which would ship PTX no GPU loads)."""
    import subprocess
    import sys

    from hatch_hybrid.hook.options import KNOWN_ARCHS

    script = (
        "import llvmlite.binding as llvm, sys\n"
        "llvm.initialize_all_targets(); llvm.initialize_all_asmprinters()\n"
        "t = llvm.Target.from_triple('nvptx64-nvidia-cuda')\n"
        "for cpu in sys.argv[1:]: t.create_target_machine(cpu=cpu)\n"
    )
    done = subprocess.run([sys.executable, "-c", script, *KNOWN_ARCHS], capture_output=True, text=True, check=True)
    assert "not a recognized processor" not in done.stderr
    bad = subprocess.run([sys.executable, "-c", script, "sm_999"], capture_output=True, text=True, check=True)
    assert "not a recognized processor" in bad.stderr


def test_dump_option_writes_every_stage(project, tmp_path):
    root = project("kernlib")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + 'dump = "stages"\n')
    build_wheel(root, tmp_path / "dist")
    files = sorted(p.name for p in (root / "stages").iterdir())
    assert "kernlib__ops__scale.typed.txt" in files
    assert "kernlib__ops__scale.ll" in files
    assert "kernlib__ops__scale.sm_80.opt.ll" in files
    assert "kernlib__ops__scale.sm_80.ptx" in files
    typed = (root / "stages" / "kernlib__ops__scale.typed.txt").read_text()
    assert "(x : Array[f32])" in typed and "kernlib.util.clamp" in typed


def test_compile_error_fails_the_build_with_the_message(project, tmp_path, capsys):
    root = project("kernlib")
    ops = root / "kernlib" / "ops.py"
    ops.write_text(ops.read_text().replace("dst[i] = src[i] + 1", "dst[i] = [src[i]]"))
    with pytest.raises(SystemExit):
        build_wheel(root, tmp_path / "dist")
    err = capsys.readouterr()
    text = err.out + err.err
    assert "ops.py:17:18: error: kernel code cannot use lists" in text
    assert "dst[i] = [src[i]]" in text and "^" in text
    assert "Traceback" not in text


def test_build_prints_what_it_compiled(project, tmp_path, capsys):
    build_wheel(project("kernlib"), tmp_path / "dist")
    out = capsys.readouterr()
    text = out.out + out.err
    assert (
        "hatch-hybrid: kernlib.ops.scale -> kernlib__ops__scale (PTX + CPU + WGSL, sm_70, sm_80): compiled in" in text
    )
    assert "hatch-hybrid: 2 kernel(s) for sm_70, sm_80: 2 compiled, 0 from cache (" in text


def test_libdevice_is_requested_only_when_kernels_need_it(project, monkeypatch):
    from hatch_hybrid.hook.plugin import HybridBuildHook
    from hatch_hybrid.targets.ptx import libdevice

    monkeypatch.setattr(libdevice, "find_libdevice", lambda: None)
    root = project("kernlib")
    builder = WheelBuilder(str(root))

    def hook_dependencies() -> list[str]:
        config = builder.config.hook_config["hybrid"]
        hook = HybridBuildHook(str(root), config, builder.config, builder.metadata, "", "wheel")
        return hook.dependencies()

    assert hook_dependencies() == []
    ops = root / "kernlib" / "ops.py"
    ops.write_text("import math\n" + ops.read_text().replace("src[i] + 1", "i32(math.exp(f32(src[i])))"))
    assert hook_dependencies() == ["nvidia-cuda-nvcc-cu12"]


def test_editable_build_puts_artifacts_next_to_the_sources(project, tmp_path):
    root = project("kernlib")
    next(WheelBuilder(str(root)).build(directory=str(tmp_path / "dist"), versions=["editable"]))
    manifest = json.loads((root / "kernlib" / "_hybrid" / "manifest.json").read_text())
    assert sorted(manifest["kernels"]) == ["kernlib.ops.add_one", "kernlib.ops.scale"]
    assert (root / "kernlib" / "_hybrid" / "kernlib__ops__scale.sm_80.ptx").is_file()
