"""What a build embeds in a package: each kernel's files of each target (PTX and cubins per arch, WGSL
shaders), what each target makes of the package's kernels together (a native library per CPU target),
and ``_hybrid/manifest.json``.

The manifest format is read by :mod:`hybrid_runtime.manifest`; its layout is versioned there.
Output is deterministic: no paths, no timestamps, sorted keys.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import llvmlite.binding as llvm
from hybrid_runtime.manifest import DIRECTORY, FILENAME, FORMAT

from ..cache import COMPILER_ID, KernelCache
from ..pipeline import CompiledKernel, Options
from ..targets.base import PackageOutput
from ..targets.registry import targets


def manifest(
    kernels: Iterable[CompiledKernel],
    archs: list[str],
    editable: bool = False,
    files: dict[str, str] | None = None,
    packaged: dict[str, Any] | None = None,
    options: Options | None = None,
) -> dict[str, Any]:
    """``files``: the sha256 of each code file written next to the manifest, which the runtime checks;
    ``packaged``: the fields the targets' package steps add (the native library per CPU target);
    ``options``: the build's (an editable install records them, so that recompiling it after an edit
    builds what the install built)."""
    entries: dict[str, Any] = {}
    combined = hashlib.sha256()
    for k in sorted(kernels, key=lambda k: k.decl.qualname):  # stable: variants keep their listed order
        entry = k.manifest_entry()
        if editable:  # lets the runtime notice source edits after an editable install
            entry["deps"] = [list(d) for d in k.deps]
        if k.variant:  # a generic kernel: one entry holding its specialisations
            group = entries.setdefault(
                k.decl.qualname, {key: entry[key] for key in ("module", "name", "factory") if key in entry}
            )
            group.setdefault("variants", []).append(entry)
        else:
            entries[k.decl.qualname] = entry
        combined.update(k.source_hash.encode())
    data: dict[str, Any] = {
        "format": FORMAT,
        "compiler": COMPILER_ID,
        "llvm": ".".join(map(str, llvm.llvm_version_info)),
        "arch": list(archs),
        "source_hash": combined.hexdigest(),
        "kernels": entries,
        "files": dict(sorted((files or {}).items())),
        **(packaged or {}),
    }
    if editable:
        data["editable"] = True
        if options is not None:
            data["build_options"] = editable_options(options)
    return data


def editable_options(options: Options) -> dict[str, Any]:
    """What an editable install's recompilation needs of the build's options (JSON)."""
    return {
        "cubin": options.cubin,
        "cpu": list(options.cpu),
        "cpu_checks": options.cpu_checks,
        "cpu_sanitize": options.cpu_sanitize,
        "wgsl": options.wgsl,
        "lineinfo": options.lineinfo,
        "signatures": options.signatures,
    }


def write_package_artifacts(
    kernels: list[CompiledKernel],
    archs: list[str],
    out: Path,
    editable: bool = False,
    cache: KernelCache | None = None,
    options: Options | None = None,
) -> dict[str, list[Path]]:
    """Write ``<out>/<package>/_hybrid/...`` for each top-level package; returns the files per package."""
    by_package: dict[str, list[CompiledKernel]] = {}
    for k in kernels:
        by_package.setdefault(k.decl.module.split(".")[0], []).append(k)
    written: dict[str, list[Path]] = {}
    for package, items in sorted(by_package.items()):
        directory = out / package / DIRECTORY
        directory.mkdir(parents=True, exist_ok=True)
        files = []
        digests: dict[str, str] = {}  # every code file, by name: the runtime refuses one that differs

        def write(name: str, blob: bytes) -> None:
            path = directory / name
            path.write_bytes(blob)
            digests[name] = hashlib.sha256(blob).hexdigest()
            files.append(path)

        for k in items:
            for code in k.codes.values():
                for name, blob in code.files(k.symbol):
                    write(name, blob)
        packaged: dict[str, Any] = {}
        for target in targets():  # what each target makes of the package's kernels together (libraries)
            codes = [k.codes[target.name] for k in items if target.name in k.codes]
            made = target.package(package, codes, cache or KernelCache(None)) if codes else PackageOutput()
            for name, blob in made.files.items():
                write(name, blob)
            packaged.update(made.manifest)
        data = manifest(items, archs, editable, digests, packaged, options)
        path = directory / FILENAME
        path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        files.append(path)
        written[package] = files
    return written
