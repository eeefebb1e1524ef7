"""The manifest a hatch-hybrid build embeds in a package: ``<package>/_hybrid/manifest.json``.

Nothing in it is trusted blindly: its structure is checked when it is read, every code file it
names must be a plain file name inside ``_hybrid/`` whose sha256 matches the one the build recorded
in ``files``, and a malformed manifest is a :class:`ManifestError` naming the file, the kernel and
the field.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from .prints import is_prints
from .structs import dtype_from_json

FORMAT = 2
DIRECTORY = "_hybrid"
FILENAME = "manifest.json"
CODE_FIELDS = ("ptx", "cubin")  # the kernel entry's fields that name code files, per arch
_ARCH = re.compile(r"sm_(\d{2,3})(a?)")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_PARAM_KINDS = ("scalar", "array", "struct", "enum", "tuple")


class ManifestError(RuntimeError):
    """A kernel has no usable compiled code (none built, or the manifest or a code file is not what the build wrote)."""


def arch_number(arch: str) -> int | None:
    """``sm_90`` -> 90 (``sm_90a`` too); None for anything else."""
    m = _ARCH.fullmatch(arch)
    return int(m.group(1)) if m else None


class Manifest:
    """A package's manifest, read and checked (:func:`load`), in the folder of its code files."""

    def __init__(self, directory: Path, data: dict[str, Any]) -> None:
        self.directory, self.data = directory, data

    @property
    def path(self) -> Path:
        return self.directory / FILENAME

    def kernel(self, qualname: str) -> dict[str, Any] | None:
        return self.data["kernels"].get(qualname)  # type: ignore[no-any-return]

    def read_code(self, name: str, kernel: str, field: str) -> bytes:
        """The bytes of the code file ``name`` that field ``field`` of ``kernel``'s entry names, checked
        against the sha256 the build recorded. Anything else is a ManifestError."""
        if not is_plain_name(name):
            raise ManifestError(
                f"{self.path}: kernel {kernel}, field `{field}`: {name!r} is not a plain file name in "
                f"{DIRECTORY}/; refusing to read it. Reinstall the package"
            )
        try:
            code = (self.directory / name).read_bytes()
        except OSError as exc:
            raise ManifestError(
                f"{self.path}: kernel {kernel}, field `{field}`: cannot read {name} ({exc.strerror or exc}). "
                "Reinstall the package"
            ) from None
        import hashlib  # here: importing OpenSSL's bindings is a cost of the first load, not of import

        recorded = self.data["files"].get(name)
        if hashlib.sha256(code).hexdigest() != recorded:
            what = "is not the one" if recorded else "is not among those"
            raise ManifestError(
                f"{self.directory / name} (kernel {kernel}, field `{field}`) was modified after the build: its "
                f"sha256 {what} {FILENAME} records. Reinstall the package"
            )
        return code

    def best_code(self, entry: dict[str, Any], capability: tuple[int, int], kernel: str) -> tuple[str, bytes]:
        """What to load on a device of this compute capability: the cubin built for exactly it, else
        the PTX built for the newest arch it can run. Returns (file name, bytes for cuModuleLoadData)."""
        cc = capability[0] * 10 + capability[1]
        arch = f"sm_{cc}"
        cubin = entry.get("cubin", {}).get(arch) if os.environ.get("HYBRID_CODE") != "ptx" else None
        if cubin is not None:
            return cubin, self.read_code(cubin, kernel, f"cubin.{arch}")
        usable = []
        for key in entry["ptx"]:
            number = arch_number(key)
            if number is not None and (number == cc if key.endswith("a") else number <= cc):
                usable.append((number, key))
        if not usable:
            raise ManifestError(
                f"kernel {kernel} was compiled for {', '.join(sorted(entry['ptx']))}; "
                f"this device is sm_{cc}. Rebuild with an older arch in "
                "[tool.hatch.build.hooks.hybrid] arch"
            )
        key = max(usable)[1]
        name = entry["ptx"][key]
        return name, self.read_code(name, kernel, f"ptx.{key}") + b"\0"

    def verify_kernel(self, qualname: str) -> None:
        """Read and check every code file of one kernel (all its archs and specialisations): what the
        GPU path does with the one file it loads, without a GPU."""
        entry = self.kernel(qualname)
        if entry is None:
            raise ManifestError(f"{self.path}: has no kernel {qualname}. Rebuild the package")
        variants = entry["variants"] if "variants" in entry else [entry]
        for i, variant in enumerate(variants):
            prefix = f"variants[{i}]." if "variants" in entry else ""
            for field in CODE_FIELDS:
                for arch, name in variant.get(field, {}).items():
                    self.read_code(name, qualname, f"{prefix}{field}.{arch}")


def no_shader(entry: dict[str, Any]) -> str | None:
    """Why a kernel's manifest entry has no WebGPU shader: the compiler's reason, or a build without the
    target (None: it has one)."""
    shader = entry.get("wgsl")
    if shader is None:
        return "its package was built without the wgsl target (wgsl = true)"
    reason: str | None = shader.get("unsupported")
    return reason


def is_plain_name(name: str) -> bool:
    """A file name with no directory part: nothing that could leave ``_hybrid/``."""
    return bool(name) and name not in (".", "..") and not any(c in name for c in "/\\\0:") and not os.path.isabs(name)


@cache
def package_manifest(package: str) -> Manifest | None:
    """The manifest of a top-level package, or None when it was not built by hatch-hybrid."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):  # e.g. __main__ without a spec
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        path = Path(location) / DIRECTORY / FILENAME
        if path.is_file():
            return load(path)
    return None


def load(path: Path) -> Manifest:
    """Read and check a manifest file."""
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except (OSError, ValueError) as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise ManifestError(f"{path} is not a readable manifest ({exc}). Reinstall the package") from None
    if not isinstance(data, dict):
        raise ManifestError(f"{path} is not a manifest (not a JSON object). Reinstall the package")
    if data.get("format") != FORMAT:
        raise ManifestError(
            f"{path} has manifest format {data.get('format')}; this hatch-hybrid-runtime "
            f"reads format {FORMAT}. Rebuild the package or upgrade hatch-hybrid-runtime"
        )
    validate(path, data)
    return Manifest(path.parent, data)


# ----------------------------------------------------------------- structure
def _fail(path: Path, kernel: str | None, field: str, problem: str) -> ManifestError:
    where = f"kernel {kernel}, field `{field}`" if kernel else f"field `{field}`"
    return ManifestError(f"{path}: {where} {problem}. Reinstall (or rebuild) the package")


def _is_str(v: Any) -> bool:
    return isinstance(v, str)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_bool(v: Any) -> bool:
    return isinstance(v, bool)


def _is_list(v: Any) -> bool:
    return isinstance(v, list)


def _is_dict(v: Any) -> bool:
    return isinstance(v, dict)


def _is_dtype(v: Any) -> bool:
    """A dtype as the manifest writes it: a NumPy name, or a structured dtype's dict."""
    try:
        dtype_from_json(v)
    except (TypeError, ValueError, KeyError):
        return False
    return True


def _is_dep(v: Any) -> bool:
    return isinstance(v, list) and len(v) == 3 and all(map(_is_str, v))


def _is_site(v: Any) -> bool:
    return isinstance(v, dict) and _is_str(v.get("file")) and _is_int(v.get("line")) and _is_str(v.get("kind"))


def _is_field(v: Any) -> bool:
    wgsl_types = ("i64", "u64", "f64", "i32", "u32", "f32")
    return _is_list(v) and len(v) == 3 and _is_str(v[0]) and v[1] in wgsl_types and _is_int(v[2]) and v[2] >= 0


def _is_binding(v: Any) -> bool:
    return _is_dict(v) and _is_int(v.get("param")) and _is_int(v.get("binding")) and _is_bool(v.get("writes"))


def _require(
    path: Path,
    kernel: str | None,
    obj: dict[str, Any],
    field: str,
    key: str,
    test: Callable[[Any], bool],
    what: str,
    optional: bool = False,
) -> Any:
    if key not in obj:
        if optional:
            return None
        raise _fail(path, kernel, f"{field}{key}", "is missing")
    value = obj[key]
    if not test(value):
        raise _fail(path, kernel, f"{field}{key}", f"should be {what}, not {json.dumps(value)[:80]}")
    return value


def validate(path: Path, data: dict[str, Any]) -> None:
    """Check the manifest's structure (what the runtime reads of it); a ManifestError names the field."""
    files = _require(path, None, data, "", "files", _is_dict, "an object")
    for name, digest in files.items():
        if not is_plain_name(name) or not isinstance(digest, str) or not _SHA256.fullmatch(digest):
            raise _fail(path, None, f"files.{name}", "should map a plain file name to a sha256 hex digest")
    cpu = _require(path, None, data, "", "cpu", _is_dict, "an object", optional=True)
    for target, name in (cpu or {}).items():
        if not isinstance(name, str) or not is_plain_name(name):
            raise _fail(path, None, f"cpu.{target}", "should be a plain file name")
    kernels = _require(path, None, data, "", "kernels", _is_dict, "an object")
    for qualname, entry in kernels.items():
        if not isinstance(entry, dict):
            raise _fail(path, qualname, "", "should be an object")
        variants = _require(path, qualname, entry, "", "variants", _is_list, "a list", optional=True)
        if variants is None:
            _validate_entry(path, qualname, entry, "")
            continue
        for i, variant in enumerate(variants):
            if not isinstance(variant, dict):
                raise _fail(path, qualname, f"variants[{i}]", "should be an object")
            _require(path, qualname, variant, f"variants[{i}].", "types", _is_dict, "an object")
            _validate_entry(path, qualname, variant, f"variants[{i}].")


def _validate_entry(path: Path, kernel: str, entry: dict[str, Any], prefix: str) -> None:
    def need(
        obj: dict[str, Any], field: str, key: str, test: Callable[[Any], bool], what: str, optional: bool = False
    ) -> Any:
        return _require(path, kernel, obj, field, key, test, what, optional)

    need(entry, prefix, "symbol", _is_str, "a string")
    need(entry, prefix, "symbol_index32", _is_str, "a string", optional=True)
    need(entry, prefix, "cooperative", lambda v: v is True, "true (a grid-wide barrier)", optional=True)
    need(entry, prefix, "checks", lambda v: _is_list(v) and all(map(_is_site, v)), "a list of check sites", True)
    need(entry, prefix, "prints", is_prints, "print sites and a buffer size", True)
    need(
        entry, prefix, "deps", lambda v: _is_list(v) and all(map(_is_dep, v)), "a list of [module, name, digest]", True
    )

    def check_params(params: list[Any], at: str) -> None:
        for i, p in enumerate(params):
            field = f"{at}[{i}]."
            if not isinstance(p, dict):
                raise _fail(path, kernel, field[:-1], "should be an object")
            need(p, field, "name", _is_str, "a string")
            kind = need(p, field, "kind", lambda v: v in _PARAM_KINDS, " or ".join(_PARAM_KINDS))
            if kind == "tuple":  # its items, each a parameter
                check_params(need(p, field, "items", _is_list, "a list"), f"{field}items")
                continue
            need(p, field, "dtype", _is_dtype, "a dtype")
            need(p, field, "type", _is_str, "a string", optional=kind in ("scalar", "array"))
            need(p, field, "typevar", _is_str, "a string", optional=True)
            if kind == "array":
                need(p, field, "ndim", lambda v: _is_int(v) and 1 <= v <= 32, "an int from 1 to 32")
                need(p, field, "writes", _is_bool, "true or false")
            if kind == "enum":
                need(p, field, "values", lambda v: _is_list(v) and all(map(_is_int, v)), "a list of ints")

    check_params(need(entry, prefix, "params", _is_list, "a list"), f"{prefix}params")
    native = need(entry, prefix, "cpu", _is_dict, "an object", optional=True)
    if native is not None and "unsupported" not in native:
        field = f"{prefix}cpu."
        need(native, field, "symbol", _is_str, "a string")
        for key in ("frame_bytes", "shared_bytes", "exchange_bytes"):
            need(native, field, key, lambda v: _is_int(v) and v >= 0, "a non-negative int", key == "exchange_bytes")
        need(native, field, "barriers", _is_bool, "true or false")
        need(native, field, "checks", lambda v: _is_list(v) and all(map(_is_site, v)), "a list of check sites", True)
        need(native, field, "prints", is_prints, "print sites and a buffer size", True)
    shader = need(entry, prefix, "wgsl", _is_dict, "an object", optional=True)
    if shader is not None and "unsupported" not in shader:
        field = f"{prefix}wgsl."
        need(shader, field, "file", lambda v: _is_str(v) and is_plain_name(v), "a plain file name")
        need(shader, field, "uniform_bytes", lambda v: _is_int(v) and v >= 16 and v % 16 == 0, "a multiple of 16")
        need(
            shader, field, "fields", lambda v: _is_list(v) and all(map(_is_field, v)), "a list of [name, type, offset]"
        )
        need(shader, field, "arrays", lambda v: _is_list(v) and all(map(_is_binding, v)), "a list of bindings")
        need(shader, field, "checks", lambda v: _is_list(v) and all(map(_is_site, v)), "a list of check sites")
        need(shader, field, "features", lambda v: _is_list(v) and all(map(_is_str, v)), "a list of strings")
    for code in CODE_FIELDS:
        files = need(entry, prefix, code, _is_dict, "an object", optional=code != "ptx")
        if code == "ptx" and not files:
            raise _fail(path, kernel, f"{prefix}ptx", "lists no arch")
        for arch, name in (files or {}).items():
            if arch_number(arch) is None:
                raise _fail(path, kernel, f"{prefix}{code}.{arch}", "is not an arch such as sm_90")
            if not isinstance(name, str):
                raise _fail(path, kernel, f"{prefix}{code}.{arch}", "should be a file name")
