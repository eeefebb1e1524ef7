"""The native CPU path: the kernels' machine code for this CPU, from the shared library in the wheel.

Each package built with CPU targets carries ``_hybrid/<package>.<target>.<so|dylib|dll>`` with one
exported entry per kernel, ``int32 entry(void **params, int64 *launch, int64 first, int64 end)``,
which runs blocks ``[first, end)`` (its threads as loops inside the call). Parameters are passed as
CUDA passes them (one pointer per flattened value) and host arrays in place. Blocks are spread over
a pool of OS threads (``$HYBRID_CPU_THREADS``, default: every core); ctypes releases the GIL for
the call. A failed check (assert, bounds) records itself in the launch's error slot, the threads
stop, and the launch raises what the GPU and the Python path raise.
"""

from __future__ import annotations

import ctypes
import hashlib
import itertools
import os
import platform
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from .checks import ErrorSlot
from .config import LaunchConfig
from .manifest import Manifest, ManifestError
from .signature import Param

CTX_WORDS = 24  # hatch_hybrid.lower.host_context.CTX_WORDS: one thread's context
EXCHANGE_BYTES = 2 * 4 * 8  # two buffers of four words per thread (warp shuffles and votes)
LAUNCH_WORDS = 12


def host_target() -> str | None:
    """This machine's name among the CPU targets a wheel can carry (None: none fits)."""
    machine = platform.machine().lower()
    if sys.platform.startswith("linux"):
        return {
            "x86_64": "x86_64-linux",
            "amd64": "x86_64-linux",
            "aarch64": "aarch64-linux",
            "arm64": "aarch64-linux",
        }.get(machine)
    if sys.platform == "darwin":
        return {"arm64": "arm64-macos", "x86_64": "x86_64-macos"}.get(machine)
    if sys.platform == "win32":
        return "x86_64-windows" if machine in ("amd64", "x86_64") else None
    return None


# x86-64-v3 adds these to the baseline (x86-64-v2); Linux's /proc/cpuinfo names
_V3_FLAGS = {"avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "movbe", "xsave"}


@cache
def cpu_levels() -> frozenset[str]:
    """The newer CPU levels this machine runs (see hatch_hybrid.backend.host.targets)."""
    found: set[str] = set()
    try:
        if sys.platform.startswith("linux"):
            with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
                for line in f:
                    if line.startswith("flags"):
                        flags = set(line.split(":", 1)[1].split())
                        if _V3_FLAGS <= flags and ("abm" in flags or "lzcnt" in flags):
                            found.add("v3")
                        break
        elif sys.platform == "darwin" and platform.machine() == "x86_64":
            import subprocess

            out = subprocess.run(
                ["sysctl", "-n", "machdep.cpu.features", "machdep.cpu.leaf7_features"], capture_output=True, text=True
            ).stdout.upper()
            if all(f in out for f in ("AVX2", "FMA", "BMI2", "MOVBE", "F16C")):
                found.add("v3")
        elif sys.platform == "win32":
            kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined]
            if kernel32.IsProcessorFeaturePresent(40):  # PF_AVX2_INSTRUCTIONS_AVAILABLE
                found.add("v3")
    except OSError:
        pass
    if os.environ.get("HYBRID_CPU_LEVEL", "").strip().lower() == "baseline":
        found.clear()
    return frozenset(found)


def cpu_threads() -> int:
    env = os.environ.get("HYBRID_CPU_THREADS", "").strip()
    if env:
        try:
            n = int(env)
        except ValueError:
            raise ValueError(f"$HYBRID_CPU_THREADS must be a positive integer, got {env!r}") from None
        if n < 1:
            raise ValueError(f"$HYBRID_CPU_THREADS must be a positive integer, got {env!r}")
        return n
    return os.cpu_count() or 1


_pool_lock = threading.Lock()
_pools: dict[int, ThreadPoolExecutor] = {}


def _pool(n: int) -> ThreadPoolExecutor:
    with _pool_lock:
        pool = _pools.get(n)
        if pool is None:
            pool = _pools[n] = ThreadPoolExecutor(max_workers=n, thread_name_prefix="hybrid-cpu")
        return pool


_libraries: dict[str, ctypes.CDLL] = {}
_libraries_lock = threading.Lock()


def load_library(manifest: Manifest, target: str) -> ctypes.CDLL | None:
    """The package's library for ``target`` (None when the wheel has none), checked against the
    manifest's digest before it is loaded."""
    name = manifest.data.get("cpu", {}).get(target)
    if name is None:
        return None
    path = manifest.directory / _plain(manifest, str(name))
    with _libraries_lock:
        lib = _libraries.get(str(path))
        if lib is None:
            _verify(manifest, path)
            try:
                lib = ctypes.CDLL(str(path))
            except OSError as exc:
                raise ManifestError(
                    f"{path}: the native CPU library cannot be loaded ({exc}); reinstall the package"
                ) from None
            _libraries[str(path)] = lib
    return lib


def _plain(manifest: Manifest, name: str) -> str:
    if not name or name != os.path.basename(name) or name in (".", "..") or "\\" in name or "\0" in name:
        raise ManifestError(
            f"{manifest.directory}/manifest.json: field `cpu` names {name!r}, which is not a plain file name"
        )
    return name


def _verify(manifest: Manifest, path: Path) -> None:
    digests = manifest.data.get("files")
    try:
        data = path.read_bytes()
    except OSError:
        raise ManifestError(f"{path} is missing: reinstall the package") from None
    if isinstance(digests, dict):
        want = digests.get(path.name)
        if want != hashlib.sha256(data).hexdigest():
            raise ManifestError(
                f"{path} was modified after the build (its sha256 does not match the manifest); reinstall the package"
            )


@dataclass
class NativeKernel:
    """One kernel's entry in the package's library, and what its launches need."""

    qualname: str
    function: Any  # the ctypes function
    params: list[Param]
    frame_bytes: int
    shared_bytes: int
    barriers: bool
    sites: list[dict[str, Any]]

    @classmethod
    def load(
        cls, qualname: str, lib: ctypes.CDLL, entry: dict[str, Any], params: list[Param], levels: list[str]
    ) -> NativeKernel:
        """``levels``: the library's newer CPU levels, best last; the best this CPU runs is used."""
        cpu = entry["cpu"]
        symbol = str(cpu["symbol"])
        usable = [level for level in levels if level in cpu_levels()]
        if usable:
            symbol = f"{symbol}__{usable[-1]}"
        try:
            fn = getattr(lib, symbol)
        except AttributeError:
            raise ManifestError(
                f"kernel {qualname}: the native library has no entry {symbol}; reinstall the package"
            ) from None
        fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64]
        fn.restype = ctypes.c_int32
        return cls(
            qualname,
            fn,
            params,
            int(cpu.get("frame_bytes", 0)),
            int(cpu.get("shared_bytes", 0)),
            bool(cpu.get("barriers", False)),
            list(cpu.get("checks", [])),
        )

    def run(self, config: LaunchConfig, values: list[Any]) -> None:
        slots, keep = _pack(self.params, values)
        pointers = (ctypes.c_void_p * max(1, len(slots) // 8))()
        base = slots.ctypes.data
        for k in range(len(slots) // 8):
            pointers[k] = base + 8 * k
        error = np.zeros(4, np.int64)
        blocks = config.grid[0] * config.grid[1] * config.grid[2]
        threads = config.threads_per_block
        workers = min(cpu_threads(), blocks)
        shared = (self.shared_bytes + 15) // 16 * 16
        per_block = shared + config.shared_bytes
        frames = threads * (CTX_WORDS * 8 + self.frame_bytes) if self.barriers else 0
        exchange = threads * EXCHANGE_BYTES if self.barriers else 0

        def launch_words() -> tuple[np.ndarray, list[np.ndarray]]:
            words = np.zeros(LAUNCH_WORDS, np.int64)
            words[0:3] = config.grid
            words[3:6] = config.block
            memory = [
                np.zeros(max(per_block, 16) // 8 + 2, np.int64),
                np.zeros(frames // 8 + 1, np.int64),
                np.zeros(exchange // 8 + 1, np.int64),
            ]
            words[6] = memory[0].ctypes.data
            words[7] = memory[0].ctypes.data + shared
            words[8] = config.shared_bytes
            words[9] = error.ctypes.data
            words[10] = memory[1].ctypes.data
            words[11] = memory[2].ctypes.data
            return words, memory

        fn = self.function
        if workers <= 1:
            words, _memory = launch_words()
            fn(ctypes.addressof(pointers), words.ctypes.data, 0, blocks)
        else:
            chunk = max(1, blocks // (workers * 8))
            starts = itertools.count(0, chunk)
            stop = threading.Event()

            def work() -> None:
                words, _memory = launch_words()
                address = words.ctypes.data
                while not stop.is_set():
                    first = next(starts)
                    if first >= blocks:
                        return
                    if fn(ctypes.addressof(pointers), address, first, min(first + chunk, blocks)):
                        stop.set()

            futures = [_pool(cpu_threads()).submit(work) for _ in range(workers)]
            for f in futures:
                f.result()
        del keep
        if error[0]:
            raise ErrorSlot(self.qualname, 0, self.sites).exception(int(error[0]), int(error[1]), int(error[2]))


def _pack(params: list[Param], values: list[Any]) -> tuple[np.ndarray, list[Any]]:
    """Every flattened parameter value in an 8-byte slot (as the kernel ABI lays them out), and the
    objects whose memory the slots point into."""
    words: list[tuple[np.dtype[Any], Any]] = []
    keep: list[Any] = []
    for p, v in zip(params, values):
        if p.kind == "array":
            arr = v if isinstance(v, np.ndarray) else getattr(v, "array", v)
            keep.append(arr)
            item = arr.dtype.itemsize
            words.append((np.dtype(np.int64), arr.ctypes.data))
            words += [(np.dtype(np.int64), n) for n in arr.shape]
            words += [(np.dtype(np.int64), s // item) for s in arr.strides]
        elif p.kind == "enum":
            words.append((np.dtype(np.int64), int(v)))
        elif p.kind == "struct":
            words += _struct_words(p.dtype, v)
        else:
            words.append((_abi_dtype(p.dtype), v))
    slots = np.zeros(max(1, len(words)), np.int64)
    raw = slots.view(np.uint8)
    for k, (dtype, value) in enumerate(words):
        raw[8 * k : 8 * k + dtype.itemsize] = np.array([value], dtype=dtype).view(np.uint8)
    return raw, keep


def _abi_dtype(dtype: np.dtype[Any]) -> np.dtype[Any]:
    return np.dtype(np.uint8) if dtype.kind == "b" else dtype


def _struct_words(dtype: np.dtype[Any], value: Any) -> list[tuple[np.dtype[Any], Any]]:
    out: list[tuple[np.dtype[Any], Any]] = []
    assert dtype.names is not None
    for name in dtype.names:
        field_dtype = dtype.fields[name][0]  # type: ignore[index]
        field = getattr(value, name)
        if field_dtype.names is not None:
            out += _struct_words(field_dtype, field)
        else:
            out.append((_abi_dtype(field_dtype), field))
    return out


@cache
def _notice_once(message: str) -> None:
    import warnings

    warnings.warn(message, RuntimeWarning, stacklevel=4)


def native_kernel(
    qualname: str, manifest: Manifest | None, entry: dict[str, Any] | None, params: list[Param]
) -> NativeKernel | None:
    """The native code of a kernel on this machine, or None (the Python path runs it; a wheel without
    code for this machine says so once)."""
    if manifest is None or entry is None:
        return None  # a source tree: the Python path is the way to run it
    target = host_target()
    cpu = entry.get("cpu")
    if isinstance(cpu, dict) and "unsupported" in cpu:
        _notice_once(
            f"hatch-hybrid: kernel {qualname} runs through its Python function on the CPU: {cpu['unsupported']}"
        )
        return None
    if not isinstance(cpu, dict) or "cpu" not in manifest.data:
        return None  # built with cpu = false
    if target is None or target not in manifest.data["cpu"]:
        _notice_once(
            f"hatch-hybrid: {manifest.directory.parent.name} has no native CPU code for this machine "
            f"({platform.machine()} {sys.platform}; the wheel has {', '.join(sorted(manifest.data['cpu']))}); "
            "kernels run through their Python functions"
        )
        return None
    lib = load_library(manifest, target)
    if lib is None:
        return None
    levels = manifest.data.get("cpu_levels", {}).get(target, [])
    return NativeKernel.load(qualname, lib, entry, params, list(levels))
