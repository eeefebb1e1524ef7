"""The C every native library carries, compiled for a target by zig's C compiler: the worker pool
(``pool.c``) and the sanitizer's checks (``sanitize.c``, called by kernels' sanitized entries).

The runtime launches a grid with one call of the library's ``hybrid_pool1_launch``, which spreads
the blocks over persistent worker threads (see the comment at the top of ``pool.c``). The object is
compiled once per target and process (zig caches it across processes by content), freestanding:
no C library, no compiler runtime, nothing a ``-nostdlib`` link cannot resolve (macOS's pthread
functions resolve from the process, Windows' from kernel32).
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path

from ...errors import CompileError
from .cpus import TARGETS

SOURCES = tuple(Path(__file__).with_name(name) for name in ("pool.c", "sanitize.c"))
#: the functions the runtime and kernels call (hybrid_runtime.native_pool, lowering/sanitize.py); the
#: number changes with their interface
EXPORTS = (
    "hybrid_pool1_launch", "hybrid_pool1_work", "hybrid_pool1_reset", "hybrid_san1_access", "hybrid_san1_sync",
    "hybrid_san1_block", "hybrid_san1_quiet", "hybrid_grid1_init", "hybrid_grid1_wait",
    "hybrid_grid1_leave", "hybrid_grid1_abort",
)  # fmt: skip
#: what the pool leaves for the process to resolve on macOS (Linux: none, its waits are system calls;
#: Windows: kernel32's SRW locks and condition variables, imported by the DLL)
MACOS_IMPORTS = ("pthread_cond_signal", "pthread_cond_wait", "pthread_mutex_lock", "pthread_mutex_unlock")
FLAGS = (
    "-O2",
    "-g0",  # no debug information: nothing of the build's paths in the object
    "-fPIC",
    "-std=c11",
    "-ffreestanding",
    "-fno-builtin",  # no memcpy & co. made up from loops: nothing resolves them on Windows
    "-fno-stack-protector",
    "-fno-sanitize=all",
    "-fvisibility=hidden",
    "-Wall",
    "-Wextra",
)


def digest() -> str:
    """What the compiled objects depend on: their sources and how they are compiled."""
    return hashlib.sha256(b"".join(path.read_bytes() for path in SOURCES) + repr(FLAGS).encode()).hexdigest()


def runtime_objects(target: str) -> list[bytes]:
    """The pool and the sanitizer compiled for ``target``."""
    return [_compile(target, source.name, digest()) for source in SOURCES]


@cache
def _compile(target: str, name: str, _digest: str) -> bytes:
    t = TARGETS[target]
    # atomics inline: never calls into the compiler runtime's outlined ones (-nostdlib has none)
    arch = ["-mno-outline-atomics"] if t.triple.startswith(("aarch64", "arm64")) else []
    with tempfile.TemporaryDirectory(prefix="hatch-hybrid-pool-") as tmp:
        source = Path(__file__).with_name(name)
        (Path(tmp) / name).write_bytes(source.read_bytes())  # relative: no temporary path in the object
        cmd = [sys.executable, "-m", "ziglang", "cc", "-target", t.zig, "-c", *FLAGS, *arch, name, "-o", "out.o"]
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp)
        if proc.returncode != 0:
            raise CompileError(None, f"compiling {name} for {target} failed:\n{proc.stderr.strip()}")
        return (Path(tmp) / "out.o").read_bytes()
