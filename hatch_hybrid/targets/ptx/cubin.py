"""Optional stage 6: machine code (cubin) from PTX with NVIDIA's ``ptxas``.

A cubin loads in microseconds on exactly its GPU; PTX is JIT-compiled by the driver on first use
(milliseconds) but runs on every newer GPU. Builds embed both when ptxas is available.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from functools import lru_cache
from pathlib import Path

from ...errors import CompileError


@lru_cache(maxsize=2)
def find_ptxas(search_path: bool = False) -> str | None:
    """``$HYBRID_PTXAS``, or the ptxas of the pip package nvidia-cuda-nvcc-cu12 when it is importable
    (what ``cubin = "auto"`` uses), or with ``search_path`` also ``ptxas`` on PATH."""
    env = os.environ.get("HYBRID_PTXAS")
    if env:
        return env if Path(env).is_file() else None
    try:
        import nvidia.cuda_nvcc as nvcc

        for base in nvcc.__path__:
            candidate = Path(base) / "bin" / "ptxas"
            if candidate.is_file():
                return str(candidate)
    except ImportError:
        pass
    return shutil.which("ptxas") if search_path else None


@lru_cache(maxsize=4)
def ptxas_version(ptxas: str) -> str:
    """The last line of ``ptxas --version`` (part of the cache key: another ptxas, other cubins)."""
    proc = subprocess.run([ptxas, "--version"], capture_output=True, text=True)
    lines = proc.stdout.strip().splitlines()
    return lines[-1] if lines else ptxas


def assemble(ptx: str, arch: str, kernel: str, ptxas: str, lineinfo: bool = True) -> bytes | None:
    """The cubin for ``arch``, or None when this ptxas does not know the arch. ``lineinfo``: keep the
    PTX's ``.loc`` lines in the cubin (ptxas drops them without ``-lineinfo``; the code is the same)."""
    with tempfile.TemporaryDirectory(prefix="hatch-hybrid-") as tmp:
        src, out = Path(tmp) / "k.ptx", Path(tmp) / "k.cubin"
        src.write_text(ptx, encoding="utf-8")
        flags = ["-lineinfo"] if lineinfo else []
        cmd = [ptxas, f"-arch={arch}", "-O3", *flags, str(src), "-o", str(out)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            if "is not defined for option 'gpu-name'" in proc.stderr:
                return None
            raise CompileError(
                None,
                f"ptxas rejected the PTX of kernel {kernel} for {arch}: {proc.stderr.strip()}",
                "this is a compiler bug; please report it (set cubin = false to build PTX only)",
            )
        return out.read_bytes()
