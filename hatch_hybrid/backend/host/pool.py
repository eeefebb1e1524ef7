"""The worker pool every native library carries: ``pool.c``, compiled for a target by zig's C compiler.

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
from .targets import TARGETS

SOURCE = Path(__file__).with_name("pool.c")
#: the functions the runtime calls (hybrid_runtime.native_pool); the number changes with their interface
EXPORTS = ("hybrid_pool1_launch", "hybrid_pool1_work", "hybrid_pool1_reset")
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
    """What the compiled pool depends on: its source and how it is compiled."""
    return hashlib.sha256(SOURCE.read_bytes() + repr(FLAGS).encode()).hexdigest()


def pool_object(target: str) -> bytes:
    """The pool compiled for ``target``."""
    return _compile(target, digest())


@cache
def _compile(target: str, _digest: str) -> bytes:
    t = TARGETS[target]
    # atomics inline: never calls into the compiler runtime's outlined ones (-nostdlib has none)
    arch = ["-mno-outline-atomics"] if t.triple.startswith(("aarch64", "arm64")) else []
    with tempfile.TemporaryDirectory(prefix="hatch-hybrid-pool-") as tmp:
        (Path(tmp) / "pool.c").write_bytes(SOURCE.read_bytes())  # relative: no temporary path in the object
        cmd = [sys.executable, "-m", "ziglang", "cc", "-target", t.zig, "-c", *FLAGS, *arch, "pool.c", "-o", "pool.o"]
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp)
        if proc.returncode != 0:
            raise CompileError(None, f"compiling the CPU worker pool for {target} failed:\n{proc.stderr.strip()}")
        return (Path(tmp) / "pool.o").read_bytes()
