"""What a build embeds in a package: PTX (and cubins) per kernel and arch, each CPU target's native library,
WGSL shaders, and ``_hybrid/manifest.json``.

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

from ..cache import KernelCache
from ..pipeline import COMPILER_ID, CompiledKernel, Options
from ..targets.host import pool
from ..targets.host.cpus import TARGETS
from ..targets.host.link import link


def manifest(
    kernels: Iterable[CompiledKernel],
    archs: list[str],
    editable: bool = False,
    files: dict[str, str] | None = None,
    cpu: dict[str, str] | None = None,
    options: Options | None = None,
) -> dict[str, Any]:
    """``files``: the sha256 of each code file written next to the manifest, which the runtime checks;
    ``cpu``: the package's native library per CPU target; ``options``: the build's (an editable install
    records them, so that recompiling it after an edit builds what the install built)."""
    entries: dict[str, Any] = {}
    combined = hashlib.sha256()
    for k in sorted(kernels, key=lambda k: k.decl.qualname):  # stable: variants keep their listed order
        ptx = {arch: f"{k.symbol}.{arch}.ptx" for arch in archs}
        cubin = {arch: f"{k.symbol}.{arch}.cubin" for arch in sorted(k.cubin)}
        entry = k.manifest_entry(ptx, cubin)
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
    }
    if cpu is not None:
        data["cpu"] = cpu
        levels = {t: [level for level, _ in TARGETS[t].levels] for t in cpu if TARGETS[t].levels}
        if levels:
            data["cpu_levels"] = levels
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
        for k in items:
            code = [(f"{k.symbol}.{arch}.ptx", k.ptx[arch].encode()) for arch in archs]
            code += [(f"{k.symbol}.{arch}.cubin", blob) for arch, blob in sorted(k.cubin.items())]
            if k.wgsl is not None:
                code.append((f"{k.symbol}.wgsl", k.wgsl.source.encode()))
            for name, blob in code:
                path = directory / name
                path.write_bytes(blob)
                digests[name] = hashlib.sha256(blob).hexdigest()
                files.append(path)
        libraries = _link_libraries(package, items, directory, cache or KernelCache(None))
        for name in libraries.values():
            files.append(directory / name)
            digests[name] = hashlib.sha256((directory / name).read_bytes()).hexdigest()
        cpu = libraries if any(k.cpu is not None for k in items) else None
        data = manifest(items, archs, editable, digests, cpu, options)
        path = directory / FILENAME
        path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        files.append(path)
        written[package] = files
    return written


def _link_libraries(package: str, kernels: list[CompiledKernel], directory: Path, cache: KernelCache) -> dict[str, str]:
    """One native library per CPU target holding every kernel of the package that has native code (from
    the cache when the same objects were linked before: a no-change rebuild runs no linker)."""
    objects: dict[str, list[bytes]] = {}
    libm = False
    for k in kernels:
        if k.cpu is None or k.cpu.unsupported:
            continue
        libm |= bool(k.cpu.libm)
        for key, blob in sorted(k.cpu.objects.items()):  # "target", "target/level", "target/__san": a library a target
            objects.setdefault(key.split("/")[0], []).append(blob)
    written = {}
    for target, blobs in sorted(objects.items()):
        name = TARGETS[target].library(package)
        inputs = repr((COMPILER_ID, pool.digest(), target, libm, [hashlib.sha256(o).hexdigest() for o in blobs]))
        digest = hashlib.sha256(inputs.encode()).hexdigest()
        library = cache.load_blob(digest)
        if library is None:
            # the C runtime also for kernels that call no math function: LLVM turns loops of stores
            # (a block's per-thread flags, a zeroed local array) into memset/memcpy calls
            library = link(blobs, target, needs_libc=True)
            cache.save_blob(digest, library)
        (directory / name).write_bytes(library)
        written[target] = name
    return written
