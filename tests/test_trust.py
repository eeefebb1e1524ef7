"""Artifacts the runtime can trust: a catalogue of tampered manifests and code files, each refused with a
ManifestError naming the file, the kernel and the field (checked without a GPU: ``Kernel.verify`` and
``Manifest.best_code`` read and check the code exactly as the first CUDA launch does)."""

from __future__ import annotations

import hashlib
import importlib
import json
import linecache
import shutil
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from conftest import SAXPY_SOURCE, built_package
from hybrid_runtime import ManifestError
from hybrid_runtime.manifest import FORMAT, Manifest, is_plain_name, load
from hybrid_runtime.trust import stored_params

kernel_module = importlib.import_module("hybrid_runtime.kernel")  # the package's `kernel` is the decorator
PACKAGE = "trustpkg"
SOURCE = (
    SAXPY_SOURCE  # the SPEC's saxpy: y[i] = axpy1(a, x[i], y[i])
    + """
import enum
from typing import TypeVar
from hybrid_runtime import struct

T = TypeVar("T")


class Mode(enum.IntEnum):
    ADD = 0
    MUL = 1


@struct
class Pair:
    a: f32
    b: f64


@kernel
def pairs(p: Pair, xs: Array[Pair], mode: Mode, out: Array[f64, 2]):
    i = gpu.global_tid_x()
    if i < len(xs):
        xs[i] = Pair(xs[i].a + p.a, xs[i].b)
        out[i, 0] = xs[i].b * p.b if mode == Mode.MUL else xs[i].b + p.b


@kernel
def count(x: Array[i32], hist: Array[i32]):
    i = gpu.global_tid_x()
    if i < len(x):
        gpu.atomic_add(hist, x[i], 1)


@kernel(specialize={"T": [f32, i32]})
def fill(out: Array[T], v: T):
    i = gpu.global_tid_x()
    if i < len(out):
        out[i] = v
"""
)


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ModuleType, Path]]:
    """The package built once, as its wheel would be, and imported."""
    root = tmp_path_factory.mktemp("trust")
    with built_package(root, PACKAGE, SOURCE) as module:
        yield module, root / PACKAGE / "_hybrid"


@pytest.fixture
def tampered(package, tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    """``tampered(change)``: a copy of the package's ``_hybrid/`` changed by ``change(folder, manifest_data)``
    (which may edit files and the manifest dict), used by the runtime from then on."""
    module, built = package

    def _make(change: Callable[[Path, dict[str, Any]], None]) -> ModuleType:
        folder = tmp_path / "_hybrid"
        shutil.copytree(built, folder)
        path = folder / "manifest.json"
        data = json.loads(path.read_text())
        change(folder, data)
        if data:  # an empty dict: the change wrote the manifest file itself
            path.write_text(json.dumps(data, indent=2))
        monkeypatch.setattr(kernel_module, "package_manifest", lambda package: load(path))
        return module

    return _make


def _qualname(kernel: str) -> str:
    return f"{PACKAGE}.kern.{kernel}"


def _symbol(kernel: str) -> str:
    return f"{PACKAGE}__kern__{kernel}"


def _flip_byte(path: Path) -> None:
    blob = bytearray(path.read_bytes())
    blob[len(blob) // 2] ^= 0x01
    path.write_bytes(bytes(blob))


def _param(data: dict[str, Any], kernel: str, index: int, variant: int | None = None) -> dict[str, Any]:
    entry = data["kernels"][_qualname(kernel)]
    if variant is not None:
        entry = entry["variants"][variant]
    return entry["params"][index]  # type: ignore[no-any-return]


def _write_raw(text: str) -> Callable[[Path, dict[str, Any]], None]:
    def change(folder: Path, data: dict[str, Any]) -> None:
        data.clear()
        (folder / "manifest.json").write_text(text)

    return change


def _set_ptx_name(name: str) -> Callable[[Path, dict[str, Any]], None]:
    def change(folder: Path, data: dict[str, Any]) -> None:
        data["kernels"][_qualname("saxpy")]["ptx"]["sm_90"] = name

    return change


def _truncate(folder: Path, data: dict[str, Any]) -> None:
    path = folder / "manifest.json"
    text = path.read_text()
    data.clear()
    path.write_text(text[: len(text) // 2])


SAXPY_PTX = f"{_symbol('saxpy')}.sm_90.ptx"

#: (case, change to _hybrid/, kernel verified, the message's parts: file, kernel, field, what)
CATALOGUE: list[tuple[str, Callable[[Path, dict[str, Any]], None], str, list[str]]] = [
    (
        "flipped PTX byte",
        lambda folder, data: _flip_byte(folder / SAXPY_PTX),
        "saxpy",
        [SAXPY_PTX, _qualname("saxpy"), "`ptx.sm_90`", "modified after the build", "Reinstall"],
    ),
    (
        "PTX digest missing from files",
        lambda folder, data: data["files"].pop(SAXPY_PTX),
        "saxpy",
        [SAXPY_PTX, _qualname("saxpy"), "`ptx.sm_90`", "modified after the build", "not among those"],
    ),
    (
        "deleted PTX",
        lambda folder, data: (folder / SAXPY_PTX).unlink(),
        "saxpy",
        ["manifest.json", SAXPY_PTX, _qualname("saxpy"), "`ptx.sm_90`", "cannot read", "No such file"],
    ),
    (
        "traversal name",
        _set_ptx_name("../../../../etc/passwd"),
        "saxpy",
        ["manifest.json", _qualname("saxpy"), "`ptx.sm_90`", "'../../../../etc/passwd' is not a plain file name"],
    ),
    (
        "absolute name",
        _set_ptx_name("/etc/passwd"),
        "saxpy",
        ["manifest.json", _qualname("saxpy"), "`ptx.sm_90`", "not a plain file name"],
    ),
    (
        "backslash name",
        _set_ptx_name("..\\..\\x.ptx"),
        "saxpy",
        ["manifest.json", _qualname("saxpy"), "`ptx.sm_90`", "not a plain file name"],
    ),
    (
        "dtype f32 -> f64",
        lambda folder, data: _param(data, "saxpy", 0).update(dtype="float64"),
        "saxpy",
        ["manifest.json", _qualname("saxpy"), "`params[0].dtype`", "parameter `a`", "float64", "float32"],
    ),
    (
        "array dtype f32 -> f64",
        lambda folder, data: _param(data, "saxpy", 1).update(dtype="float64"),
        "saxpy",
        ["manifest.json", _qualname("saxpy"), "`params[1].dtype`", "parameter `x`"],
    ),
    (
        "writes false",
        lambda folder, data: _param(data, "saxpy", 2).update(writes=False),
        "saxpy",
        ["manifest.json", _qualname("saxpy"), "`params[2].writes`", "parameter `y`", "body writes `y`"],
    ),
    (
        "writes false, struct array",
        lambda folder, data: _param(data, "pairs", 1).update(writes=False),
        "pairs",
        ["manifest.json", _qualname("pairs"), "`params[1].writes`", "parameter `xs`"],
    ),
    (
        "writes false, atomic",
        lambda folder, data: _param(data, "count", 1).update(writes=False),
        "count",
        ["manifest.json", _qualname("count"), "`params[1].writes`", "parameter `hist`"],
    ),
    (
        "ndim changed",
        lambda folder, data: _param(data, "pairs", 3).update(ndim=1),
        "pairs",
        ["manifest.json", _qualname("pairs"), "`params[3].ndim`", "parameter `out`"],
    ),
    (
        "kind changed",
        lambda folder, data: _param(data, "saxpy", 1).update(kind="scalar"),
        "saxpy",
        ["manifest.json", _qualname("saxpy"), "`params[1].kind`", "parameter `x`"],
    ),
    (
        "struct layout changed",
        lambda folder, data: _param(data, "pairs", 0)["dtype"].update(names=["b", "a"]),
        "pairs",
        ["manifest.json", _qualname("pairs"), "`params[0].dtype`", "parameter `p`"],
    ),
    (
        "enum values changed",
        lambda folder, data: _param(data, "pairs", 2).update(values=[0, 2]),
        "pairs",
        ["manifest.json", _qualname("pairs"), "`params[2].values`", "parameter `mode`", "Mode"],
    ),
    (
        "parameter renamed",
        lambda folder, data: _param(data, "saxpy", 0).update(name="alpha"),
        "saxpy",
        ["manifest.json", _qualname("saxpy"), "`params`", "(alpha, x, y)", "(a, x, y)"],
    ),
    (
        "parameter dropped",
        lambda folder, data: data["kernels"][_qualname("saxpy")]["params"].pop(),
        "saxpy",
        ["manifest.json", _qualname("saxpy"), "`params`", "(a, x)"],
    ),
    (
        "variant dtype changed",
        lambda folder, data: _param(data, "fill", 1, variant=1).update(dtype="int64"),
        "fill",
        ["manifest.json", _qualname("fill"), "`variants[1].params[1].dtype`", "parameter `v`"],
    ),
    (
        "variant PTX flipped",
        lambda folder, data: _flip_byte(folder / f"{_symbol('fill')}__i32.sm_70.ptx"),
        "fill",
        [f"{_symbol('fill')}__i32.sm_70.ptx", _qualname("fill"), "`variants[1].ptx.sm_70`", "modified"],
    ),
    (
        "truncated manifest",
        lambda folder, data: _truncate(folder, data),
        "saxpy",
        ["manifest.json", "is not a readable manifest"],
    ),
    ("manifest not JSON", _write_raw("\x00\xff garbage"), "saxpy", ["manifest.json", "is not a readable manifest"]),
    ("manifest a list", _write_raw("[1, 2]"), "saxpy", ["manifest.json", "not a JSON object"]),
    (
        "format 1",
        lambda folder, data: data.update(format=1),
        "saxpy",
        ["manifest.json", "has manifest format 1", f"reads format {FORMAT}", "Rebuild the package or upgrade"],
    ),
    (
        "missing ptx key",
        lambda folder, data: data["kernels"][_qualname("saxpy")].pop("ptx"),
        "saxpy",
        ["manifest.json", _qualname("saxpy"), "field `ptx` is missing"],
    ),
    (
        "empty ptx",
        lambda folder, data: data["kernels"][_qualname("saxpy")].update(ptx={}),
        "saxpy",
        ["manifest.json", _qualname("saxpy"), "field `ptx` lists no arch"],
    ),
    (
        "bogus arch key",
        lambda folder, data: data["kernels"][_qualname("saxpy")]["ptx"].update(sm_x9=SAXPY_PTX),
        "saxpy",
        ["manifest.json", _qualname("saxpy"), "field `ptx.sm_x9`", "is not an arch"],
    ),
    (
        "missing symbol",
        lambda folder, data: data["kernels"][_qualname("saxpy")].pop("symbol"),
        "saxpy",
        ["manifest.json", _qualname("saxpy"), "field `symbol` is missing"],
    ),
    (
        "params not a list",
        lambda folder, data: data["kernels"][_qualname("saxpy")].update(params={"a": 1}),
        "saxpy",
        ["manifest.json", _qualname("saxpy"), "field `params` should be a list"],
    ),
    (
        "param kind unknown",
        lambda folder, data: _param(data, "saxpy", 0).update(kind="pointer"),
        "saxpy",
        ["manifest.json", _qualname("saxpy"), "field `params[0].kind` should be"],
    ),
    (
        "param dtype unknown",
        lambda folder, data: _param(data, "saxpy", 0).update(dtype="float99"),
        "saxpy",
        ["manifest.json", _qualname("saxpy"), "field `params[0].dtype` should be a dtype"],
    ),
    (
        "array writes missing",
        lambda folder, data: _param(data, "saxpy", 2).pop("writes"),
        "saxpy",
        ["manifest.json", _qualname("saxpy"), "field `params[2].writes` is missing"],
    ),
    (
        "variant types missing",
        lambda folder, data: data["kernels"][_qualname("fill")]["variants"][0].pop("types"),
        "fill",
        ["manifest.json", _qualname("fill"), "field `variants[0].types` is missing"],
    ),
    (
        "files missing",
        lambda folder, data: data.pop("files"),
        "saxpy",
        ["manifest.json", "field `files` is missing"],
    ),
    (
        "files digest not hex",
        lambda folder, data: data["files"].update({SAXPY_PTX: "abc"}),
        "saxpy",
        ["manifest.json", f"field `files.{SAXPY_PTX}`", "sha256"],
    ),
    (
        "kernel missing",
        lambda folder, data: data["kernels"].pop(_qualname("saxpy")),
        "saxpy",
        ["manifest.json has no kernel", _qualname("saxpy"), "Rebuild"],
    ),
]


@pytest.mark.parametrize(("change", "kernel", "expected"), [c[1:] for c in CATALOGUE], ids=[c[0] for c in CATALOGUE])
def test_tampering_is_refused_naming_file_kernel_and_field(tampered, change, kernel, expected) -> None:  # type: ignore[no-untyped-def]
    module = tampered(change)
    with pytest.raises(ManifestError) as info:
        getattr(module, kernel).verify()
    for part in expected:
        assert part in str(info.value), (part, str(info.value))


def test_untampered_kernels_verify(package) -> None:  # type: ignore[no-untyped-def]
    module, folder = package
    for name in ("saxpy", "pairs", "count", "fill"):
        getattr(module, name).verify()
    data = json.loads((folder / "manifest.json").read_text())
    code = sorted(p.name for p in folder.iterdir() if p.suffix in (".ptx", ".cubin", ".wgsl"))
    assert sorted(data["files"]) == code  # every code file has a digest, and only those
    for name, digest in data["files"].items():
        assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == digest


def _manifest(folder: Path) -> Manifest:
    return load(folder / "manifest.json")


def test_gpu_load_path_checks_the_file_it_loads(tampered, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """``best_code`` (what the CUDA path loads) reads through the same check."""
    tampered(lambda folder, data: _flip_byte(folder / SAXPY_PTX))
    manifest = _manifest(tmp_path / "_hybrid")
    entry = manifest.kernel(_qualname("saxpy"))
    assert entry is not None
    name, code = manifest.best_code(entry, (8, 0), "saxpy")  # sm_70's PTX is intact
    assert name.endswith(".sm_70.ptx") and code.endswith(b"\0")
    with pytest.raises(ManifestError, match=r"sm_90\.ptx \(kernel saxpy, field `ptx\.sm_90`\) was modified"):
        manifest.best_code(entry, (9, 0), "saxpy")


def test_cubin_is_checked_too(tampered, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("HYBRID_CODE", raising=False)
    blob = b"\x7fELF pretend cubin"
    cubin = f"{_symbol('saxpy')}.sm_90.cubin"

    def add_cubin(folder: Path, data: dict[str, Any]) -> None:
        (folder / cubin).write_bytes(blob)
        data["files"][cubin] = hashlib.sha256(blob).hexdigest()
        data["kernels"][_qualname("saxpy")]["cubin"] = {"sm_90": cubin}

    tampered(add_cubin)
    folder = tmp_path / "_hybrid"
    entry = _manifest(folder).kernel(_qualname("saxpy"))
    assert entry is not None
    assert _manifest(folder).best_code(entry, (9, 0), "saxpy") == (cubin, blob)
    _flip_byte(folder / cubin)
    with pytest.raises(ManifestError, match=r"field `cubin\.sm_90`\) was modified after the build"):
        _manifest(folder).best_code(entry, (9, 0), "saxpy")


def test_arch_suffix_a_runs_only_on_its_own_gpu(package) -> None:  # type: ignore[no-untyped-def]
    _, folder = package
    manifest = _manifest(folder)
    entry = dict(manifest.kernel(_qualname("saxpy")) or {})
    entry["ptx"] = {"sm_70": entry["ptx"]["sm_70"], "sm_90a": entry["ptx"]["sm_90"]}
    assert manifest.best_code(entry, (9, 0), "saxpy")[0].endswith(".sm_90.ptx")
    assert manifest.best_code(entry, (10, 0), "saxpy")[0].endswith(".sm_70.ptx")


@pytest.mark.parametrize(
    ("name", "plain"),
    [
        ("k.sm_90.ptx", True),
        ("..", False),
        (".", False),
        ("", False),
        ("a/b.ptx", False),
        ("a\\b.ptx", False),
        ("/etc/passwd", False),
        ("C:x.ptx", False),
        ("k\0.ptx", False),
        ("..k.ptx", True),
    ],
)
def test_plain_file_names(name: str, plain: bool) -> None:
    assert is_plain_name(name) is plain


# ------------------------------------------------------- writes seen in the source
def _stored(source: str) -> frozenset[str]:
    namespace: dict[str, Any] = {}
    code = textwrap.dedent(source)
    filename = f"<trust-probe-{abs(hash(code))}>"
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
    exec(compile(code, filename, "exec"), namespace)  # noqa: S102 - inspect.getsource reads it from linecache
    return stored_params(namespace["k"])


@pytest.mark.parametrize(
    ("body", "written"),
    [
        ("x[i] = 1", {"x"}),
        ("t = 0\n    y[i] = (\n        t +\n        1\n    )", {"y"}),  # the last statement spans lines
        ("x[i] += 1", {"x"}),
        ("x[i, j] = y[i]", {"x"}),
        ("x[i].re = 1.0", {"x"}),
        ("x[i], y[i] = y[i], x[i]", {"x", "y"}),
        ("gpu.atomic_add(y, i, 1)", {"y"}),
        ("atomic_max(x, i, 1)", {"x"}),
        ("t = x[i] + y[i]", set()),
        ("z = x\n    z[i] = 1", set()),  # aliases: not visible (the build knows)
        ("s.re = 1.0", set()),  # a struct by value: no subscript
    ],
)
def test_stored_params(body: str, written: set[str]) -> None:
    assert _stored(f"def k(x, y, s, i, j):\n    {body}\n") == written


# ------------------------------------------------------- editable staleness imports nothing
def test_staleness_check_imports_no_user_package(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """``changed_sources`` finds ``top.sub.mod``'s file without importing ``top`` or ``top.sub`` (whose
    ``__init__`` would run user code: here one raises, the other leaves a mark)."""
    import ast

    from hybrid_runtime.staleness import changed_sources, function_digest, module_source

    top = tmp_path / "stale_top"
    (top / "sub").mkdir(parents=True)
    (top / "__init__.py").write_text("import pathlib\npathlib.Path(__file__).with_name('imported').touch()\n")
    (top / "sub" / "__init__.py").write_text("raise RuntimeError('imported stale_top.sub')\n")
    (top / "sub" / "mod.py").write_text("def f(x):\n    return x + 1\n")
    (top / "sub" / "pkg").mkdir()
    (top / "sub" / "pkg" / "__init__.py").write_text("def g():\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    digest = function_digest(ast.parse((top / "sub" / "mod.py").read_text()), "f")
    assert module_source("stale_top.sub.mod") == top / "sub" / "mod.py"
    assert module_source("stale_top.sub.pkg") == top / "sub" / "pkg" / "__init__.py"
    assert module_source("stale_top") == top / "__init__.py"
    assert module_source("stale_top.missing") is None
    assert module_source("stale_top.sub.../x") is None
    assert changed_sources([("stale_top.sub.mod", "f", digest)]) == []
    assert changed_sources([("stale_top.sub.mod", "f", "0" * 64)]) == ["stale_top.sub.mod.f"]
    assert not (top / "imported").exists()
    assert not any(m.startswith("stale_top") for m in sys.modules)


def test_a_function_defined_in_module_level_branches_has_one_digest() -> None:
    """A function defined in the branches of a module-level ``if``/``try`` (a version gate) is digested as
    every definition of that name there, so the build and the runtime agree whichever branch the build took;
    changing any of them is a change."""
    import ast

    from hybrid_runtime.staleness import function_digest

    source = (
        "if A:\n    def f(x):\n        return x\n"
        "else:\n    try:\n        def f(x):\n            return 2 * x\n    except ImportError:\n        pass\n"
    )
    digest = function_digest(ast.parse(source), "f")
    assert digest is not None and digest == function_digest(ast.parse(source.replace("if A", "if B")), "f")
    assert digest != function_digest(ast.parse(source.replace("2 * x", "3 * x")), "f")
    assert function_digest(ast.parse(source), "g") is None
