"""A target is a plugin: a Target and its Code, registered, and the pipeline, the cache, the hook and the
wheel carry its code with no other file changed (hatch_hybrid/targets/registry.py says how).

The target here writes each kernel's typed IR as text, and an index of the package's kernels: a code file
per kernel, a field in each kernel's manifest entry, a package-wide file and manifest field."""

from __future__ import annotations

import json
import shutil
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("hatchling")
from hatchling.builders.wheel import WheelBuilder  # noqa: E402

from hatch_hybrid.targets import registry  # noqa: E402
from hatch_hybrid.targets.base import BuildOptions, Capabilities, Code, KernelJob, PackageOutput, Target  # noqa: E402

PACKAGES = Path(__file__).parent / "packages"


@dataclass
class TypedText(Code):
    text: str = ""
    functions: list[str] = field(default_factory=list)

    def manifest_fields(self, symbol: str) -> dict[str, Any]:
        return {"typed_text": {"file": f"{symbol}.typed.txt", "functions": self.functions}}

    def files(self, symbol: str) -> list[tuple[str, bytes]]:
        return [(f"{symbol}.typed.txt", self.text.encode())]

    def cache_entry(self) -> dict[str, Any]:
        return {"text": self.text, "functions": self.functions}

    @classmethod
    def from_cache(cls, entry: dict[str, Any]) -> TypedText:
        return cls(entry["text"], entry["functions"])

    def summary(self) -> str:
        return " + typed IR"

    def show(self, stage: str, arch: str) -> str | None:
        return self.text if stage == "typed-text" else None


class TypedTextTarget(Target):
    name = "typed_text"
    stages = ("typed IR", "text")
    caps = Capabilities()
    code = TypedText

    @classmethod
    def configured(cls, options: BuildOptions) -> TypedTextTarget:
        return cls()

    def unsupported(self, job: KernelJob) -> str | None:
        return "no helpers, please" if len(job.reached) > 1 else None

    @staticmethod
    def not_built_fields(reason: str) -> dict[str, Any]:
        return {"typed_text": {"unsupported": reason}}

    @staticmethod
    def not_built_summary(reason: str) -> str:
        return f" (no typed IR: {reason})"

    def build(self, job: KernelJob) -> TypedText:
        return TypedText("\n\n".join(tf.dump() for tf in job.reached), [tf.fn.qualname for tf in job.reached])

    @classmethod
    def package(cls, package: str, codes: list[Code], cache: Any) -> PackageOutput:
        names = sorted(f for code in codes if isinstance(code, TypedText) for f in code.functions)
        index = f"{package}.typed-index.txt"
        return PackageOutput({index: "\n".join(names).encode()}, {"typed_text": {"index": index}})


@pytest.fixture
def with_target(monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(registry, "_TARGETS", list(registry.targets()))
    registry.register(TypedTextTarget)
    return TypedTextTarget


def _build(root: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> tuple[dict[str, bytes], str]:
    wheel = next(WheelBuilder(str(root)).build(directory=str(out), versions=["standard"]))
    captured = capsys.readouterr()
    with zipfile.ZipFile(wheel) as zf:
        return {
            n.rsplit("/", 1)[-1]: zf.read(n) for n in zf.namelist() if "/_hybrid/" in n
        }, captured.out + captured.err


def _kernlib(tmp_path: Path) -> Path:
    root = tmp_path / "kernlib"
    shutil.copytree(PACKAGES / "kernlib", root)
    with (root / "pyproject.toml").open("a") as f:  # (one CPU target is enough here)
        f.write('cpu = ["x86_64-linux"]\n')
    return root


def test_a_registered_target_reaches_the_wheel_the_manifest_and_the_cache(with_target, tmp_path, capsys):
    root = _kernlib(tmp_path)
    files, log = _build(root, tmp_path / "a", capsys)
    scale, add_one = "kernlib__ops__scale", "kernlib__ops__add_one"
    # scale calls a helper: the target refuses it, and says why in the build line and the manifest
    assert f"{add_one}.typed.txt" in files and f"{scale}.typed.txt" not in files
    assert b"def add_one" in files[f"{add_one}.typed.txt"] or b"add_one" in files[f"{add_one}.typed.txt"]
    assert files["kernlib.typed-index.txt"] == b"kernlib.ops.add_one"
    manifest = json.loads(files["manifest.json"])
    entries = manifest["kernels"]
    assert entries["kernlib.ops.add_one"]["typed_text"] == {
        "file": f"{add_one}.typed.txt",
        "functions": ["kernlib.ops.add_one"],
    }
    assert entries["kernlib.ops.scale"]["typed_text"] == {"unsupported": "no helpers, please"}
    assert manifest["typed_text"] == {"index": "kernlib.typed-index.txt"} and "cpu" in manifest  # (the others' too)
    assert f"{add_one}.typed.txt" in manifest["files"]  # (its digest, which the runtime checks)
    assert "(PTX + CPU + WGSL + typed IR, sm_70, sm_80): compiled in" in log
    assert "(PTX + CPU + WGSL (no typed IR: no helpers, please), sm_70, sm_80): compiled in" in log
    again, log = _build(root, tmp_path / "b", capsys)  # every kernel from the cache, the target's code too
    assert "0 compiled, 2 from cache" in log and again == files


def test_the_runtime_reads_a_manifest_with_another_targets_fields(with_target, tmp_path, capsys):
    """Fields the runtime does not know are left to the device that knows them."""
    from hybrid_runtime.manifest import load

    root = _kernlib(tmp_path)
    next(WheelBuilder(str(root)).build(directory=str(tmp_path / "dist"), versions=["editable"]))
    manifest = load(root / "kernlib" / "_hybrid" / "manifest.json")
    assert manifest.kernel("kernlib.ops.add_one")["typed_text"]["functions"] == ["kernlib.ops.add_one"]


def test_registering_a_name_twice_is_refused(with_target):
    with pytest.raises(ValueError, match="a target named 'typed_text' is registered already"):
        registry.register(TypedTextTarget)
    assert registry.registered("typed_text") is TypedTextTarget
    with pytest.raises(KeyError, match="no target named 'nope'"):
        registry.registered("nope")
