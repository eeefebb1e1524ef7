"""Locating and linking CUDA's libdevice (math functions as LLVM bitcode)."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from ...errors import CompileError

_ENV = "HYBRID_LIBDEVICE"
LIBDEVICE_PACKAGE = "nvidia-cuda-nvcc-cu12"
MISSING_HINT = (
    "install the pip package `nvidia-cuda-nvcc-cu12` in the build environment (add it to "
    "[build-system] requires), or point the HYBRID_LIBDEVICE environment variable at libdevice.10.bc"
)


def find_libdevice() -> Path | None:
    """libdevice.10.bc from $HYBRID_LIBDEVICE, the nvidia-cuda-nvcc pip package, or a CUDA toolkit."""
    env = os.environ.get(_ENV)
    if env:
        return Path(env) if Path(env).is_file() else None
    candidates: list[Path] = []
    try:
        import nvidia.cuda_nvcc as nvcc

        for base in getattr(nvcc, "__path__", []):
            candidates.append(Path(base) / "nvvm" / "libdevice" / "libdevice.10.bc")
    except ImportError:
        pass
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root:
            candidates.append(Path(root) / "nvvm" / "libdevice" / "libdevice.10.bc")
    return next((c for c in candidates if c.is_file()), None)


@lru_cache(maxsize=1)
def libdevice_bitcode() -> bytes:
    path = find_libdevice()
    if path is None:
        raise CompileError(
            None,
            "this kernel uses math functions from CUDA's libdevice, which was not found at build time",
            MISSING_HINT,
        )
    return path.read_bytes()
