"""What a build embeds in a package: PTX per kernel and arch, and ``_hybrid/manifest.json``.

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

from .errors import CompileError
from .pipeline import COMPILER_ID, CompiledKernel


def manifest(
    kernels: Iterable[CompiledKernel], archs: list[str], editable: bool = False, files: dict[str, str] | None = None
) -> dict[str, Any]:
    """``files``: the sha256 of each code file written next to the manifest, which the runtime checks."""
    entries: dict[str, Any] = {}
    combined = hashlib.sha256()
    for k in sorted(kernels, key=lambda k: k.decl.qualname):  # stable: variants keep their listed order
        ptx = {arch: f"{k.symbol}.{arch}.ptx" for arch in archs}
        cubin = {arch: f"{k.symbol}.{arch}.cubin" for arch in sorted(k.cubin)}
        entry = k.manifest_entry(ptx, cubin)
        if editable:  # lets the runtime notice source edits after an editable install
            entry["deps"] = [list(d) for d in k.deps]
        if k.variant:  # a generic kernel: one entry holding its specialisations
            group = entries.setdefault(k.decl.qualname, {"module": k.decl.module, "name": k.decl.name, "variants": []})
            group["variants"].append(entry)
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
    }
    if editable:
        data["editable"] = True
    return data


def write_package_artifacts(
    kernels: list[CompiledKernel], archs: list[str], out: Path, editable: bool = False
) -> dict[str, list[Path]]:
    """Write ``<out>/<package>/_hybrid/...`` for each top-level package; returns the files per package."""
    by_package: dict[str, list[CompiledKernel]] = {}
    symbols: dict[str, str] = {}
    for k in kernels:
        other = symbols.setdefault(k.symbol, k.decl.qualname)
        if other != k.decl.qualname:
            raise CompileError(
                k.decl.loc,
                f"kernels {other} and {k.decl.qualname} map to the same symbol {k.symbol}",
                "rename one of them",
            )
        by_package.setdefault(k.decl.module.split(".")[0], []).append(k)
    written: dict[str, list[Path]] = {}
    for package, items in sorted(by_package.items()):
        directory = out / package / DIRECTORY
        directory.mkdir(parents=True, exist_ok=True)
        files = []
        digests: dict[str, str] = {}  # every code file, by name: the runtime refuses one that differs
        for k in items:
            code = [(f"{k.symbol}.{arch}.ptx", k.ptx[arch].encode()) for arch in archs]
            code += [(f"{k.symbol}.{arch}.cubin", blob) for arch, blob in sorted(k.cubin.items())]
            for name, blob in code:
                path = directory / name
                path.write_bytes(blob)
                digests[name] = hashlib.sha256(blob).hexdigest()
                files.append(path)
        path = directory / FILENAME
        text = json.dumps(manifest(items, archs, editable, digests), indent=2, sort_keys=True) + "\n"
        path.write_text(text, encoding="utf-8")
        files.append(path)
        written[package] = files
    return written
