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
    """Compile the package's kernels again with the options of its last build; rewrite ``_hybrid/``."""
    archs = list(manifest["arch"])
    cubin = any("cubin" in k for k in manifest["kernels"].values())
    options = Options(archs, cubin=cubin, cache=KernelCache(default_cache_dir()))
    kernels = compile_packages([package_dir], options=options)
    shutil.rmtree(package_dir / "_hybrid", ignore_errors=True)
    write_package_artifacts(kernels, archs, package_dir.parent, editable=True)
