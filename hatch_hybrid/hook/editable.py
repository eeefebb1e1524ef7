"""Recompiling an editable install's kernels in place (called by the runtime when their source
changed and hatch-hybrid is importable)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from ..cache import KernelCache, default_cache_dir
from ..pipeline import Options, compile_packages
from .artifacts import write_package_artifacts


def rebuild_in_place(package_dir: Path, manifest: dict[str, Any]) -> None:
    """Compile the package's kernels again with the options of its last build (the manifest records them:
    CPU targets, WebGPU, line info, sanitizer entries, signatures...); rewrite ``_hybrid/``."""
    archs = list(manifest["arch"])
    recorded = manifest.get("build_options")
    if recorded is None:  # (an install made before the manifest recorded them: what it says)
        recorded = {
            "cubin": any("cubin" in k for k in manifest["kernels"].values()),
            "cpu": list(manifest.get("cpu", {})),
        }
    options = Options(archs, cache=KernelCache(default_cache_dir()), **recorded)
    kernels = compile_packages([package_dir], options=options)
    shutil.rmtree(package_dir / "_hybrid", ignore_errors=True)
    write_package_artifacts(kernels, archs, package_dir.parent, editable=True, cache=options.cache, options=options)
