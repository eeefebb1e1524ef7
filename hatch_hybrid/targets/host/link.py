"""One shared library per package and CPU target, linked by zig's linker (the `ziglang` package).

Linked without a C library (nor compiler-rt: the f16 conversions LLVM calls on x86-64 come from
:mod:`.half`), so that no target needs zig to build one first: the code needs none but the math
functions, which resolve from the process (Python has libm loaded) on Linux and macOS; on
Windows the DLL imports them from ucrtbase.dll, the C runtime of every Python 3 there. Every
library carries the worker pool that runs a launch's blocks (:mod:`.pool`), whose waits need
kernel32 on Windows and pthreads (from the process) on macOS.
"""

from __future__ import annotations

import hashlib
import importlib.util
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

from ...cache import COMPILER_ID, KernelCache
from ...errors import CompileError
from . import half, pool
from .cpus import TARGETS

ZIG_PACKAGE = "ziglang"


def package_libraries(
    package: str, kernels: list[dict[str, bytes]], libm: bool, cache: KernelCache
) -> dict[str, tuple[str, bytes]]:
    """One native library per CPU target (target -> its file name and bytes) of these kernels' objects
    (``kernels``: each kernel's object per "target", "target/level", "target/__san"); from the cache
    when the same objects were linked before: a no-change rebuild runs no linker."""
    objects: dict[str, list[bytes]] = {}
    for kernel in kernels:
        for key, blob in sorted(kernel.items()):  # every object of a target goes into the target's library
            objects.setdefault(key.split("/")[0], []).append(blob)
    libraries = {}
    for target, blobs in sorted(objects.items()):
        inputs = repr((COMPILER_ID, pool.digest(), target, libm, [hashlib.sha256(o).hexdigest() for o in blobs]))
        digest = hashlib.sha256(inputs.encode()).hexdigest()
        library = cache.load_blob(digest)
        if library is None:
            # the C runtime also for kernels that call no math function: LLVM turns loops of stores
            # (a block's per-thread flags, a zeroed local array) into memset/memcpy calls
            library = link(blobs, target, needs_libc=True)
            cache.save_blob(digest, library)
        libraries[target] = (TARGETS[target].library(package), library)
    return libraries


def have_zig() -> bool:
    return importlib.util.find_spec(ZIG_PACKAGE) is not None


def link(objects: list[bytes], target: str, needs_libc: bool) -> bytes:
    """The shared library of these objects for ``target``."""
    t = TARGETS[target]
    if not have_zig():
        raise CompileError(
            None,
            f"native CPU code for {target} needs zig's linker, and the `{ZIG_PACKAGE}` package is not installed",
            f"pip install {ZIG_PACKAGE} in the build environment, or set cpu = false",
        )
    if t.triple.startswith("x86_64") and half.needed(objects):  # f16 conversions: no compiler-rt here
        objects = [*objects, half.builtins_object(target)]
    objects = [*objects, *pool.runtime_objects(target)]
    with tempfile.TemporaryDirectory(prefix="hatch-hybrid-link-") as tmp:
        paths = []  # relative: nothing of the temporary folder's name may reach the library
        for k, blob in enumerate(objects):
            (Path(tmp) / f"k{k}.o").write_bytes(blob)
            paths.append(f"k{k}.o")
        out = f"out.{t.suffix}"
        flags = [*t.link_flags, "-nostdlib"]
        if t.suffix == "dll":  # no DllMain; math functions from the C runtime every Python 3 uses
            flags += ["-Wl,--no-entry", "-lkernel32"] + (["-lucrtbase"] if needs_libc else [])
        cmd = [sys.executable, "-m", "ziglang", "cc", "-target", t.zig, "-shared", "-s", *flags, *paths, "-o", out]
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp)
        if proc.returncode != 0:
            raise CompileError(None, f"linking the native CPU library for {target} failed:\n{proc.stderr.strip()}")
        data = (Path(tmp) / out).read_bytes()
    return _reproducible_pe(data) if t.suffix == "dll" else data


def _reproducible_pe(data: bytes) -> bytes:
    """lld stamps a DLL with the time of the link (zig passes no /Brepro): put a hash of the image in
    its place, as /Brepro does, so that the same kernels give the same wheel."""
    header = struct.unpack_from("<I", data, 0x3C)[0]  # e_lfanew: the "PE\0\0" signature
    stamp = header + 8  # COFF header: machine (2), sections (2), then the time stamp
    image = bytearray(data)
    image[stamp : stamp + 4] = bytes(4)
    image[stamp : stamp + 4] = hashlib.sha256(image).digest()[:4]
    return bytes(image)
