"""The native CPU path: the kernels' machine code for this CPU, from the shared library in the wheel.

Each package built with CPU targets carries ``_hybrid/<package>.<target>.<so|dylib|dll>`` with one
exported entry per kernel, ``int32 entry(void **params, int64 *launch, int64 first, int64 end)``,
which runs blocks ``[first, end)`` (its threads as loops inside the call), and the worker pool
(:mod:`.native_pool`). Parameters are passed as CUDA passes them (one pointer per flattened value)
and host arrays in place. A launch is one call into the pool, which spreads the blocks over the
calling thread and persistent worker threads (``$HYBRID_CPU_THREADS`` in all, default: every core
this process may run on); ctypes releases the GIL for the call. A failed check (assert, bounds)
records itself in the launch's error slot, the threads stop taking blocks, and the launch raises
what the GPU and the Python path raise. What a launch needs is worked out once per configuration
(:mod:`.native_plan`).
"""

from __future__ import annotations

import ctypes
import os
import platform
import struct
import sys
import threading
from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np

from . import native_pool, slowpath
from .abi import SANITIZER_LAYOUT
from .config import LaunchConfig
from .manifest import Manifest, ManifestError
from .native_plan import CpuLaunch, data_address, fast_launcher
from .sanitizer import SanitizedCode
from .signature import Param, leaf_params
from .structs import leaf_dtypes, leaves


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
_V4_FLAGS = {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"}  # x86-64-v4 adds AVX-512


@cache
def cpu_levels() -> frozenset[str]:
    """The newer CPU levels this machine runs (see hatch_hybrid.targets.host.cpus)."""
    found: set[str] = set()
    try:
        if sys.platform.startswith("linux"):
            with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
                for line in f:
                    if line.startswith("flags"):
                        flags = set(line.split(":", 1)[1].split())
                        if _V3_FLAGS <= flags and ("abm" in flags or "lzcnt" in flags):
                            found.add("v3")
                            if _V4_FLAGS <= flags:
                                found.add("v4")
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
    cap = os.environ.get("HYBRID_CPU_LEVEL", "").strip().lower()  # "baseline" or "v3": no newer level than that
    if cap in ("baseline", "v3"):
        found -= {"v3", "v4"} if cap == "baseline" else {"v4"}
    return frozenset(found)


def cpu_threads() -> int:
    """OS threads a launch spreads its blocks over: $HYBRID_CPU_THREADS, else every core this process
    may run on."""
    env = os.environ.get("HYBRID_CPU_THREADS", "")
    try:
        return _threads_for[env]
    except KeyError:
        pass
    if env.strip():
        try:
            n = int(env)
        except ValueError:
            raise ValueError(f"$HYBRID_CPU_THREADS must be a positive integer, got {env!r}") from None
        if n < 1:
            raise ValueError(f"$HYBRID_CPU_THREADS must be a positive integer, got {env!r}")
    else:
        affinity = getattr(os, "sched_getaffinity", None)
        n = len(affinity(0)) if affinity is not None else os.cpu_count() or 1
    _threads_for[env] = n
    return n


_threads_for: dict[str, int] = {}


_libraries: dict[str, ctypes.CDLL] = {}
_libraries_lock = threading.Lock()


def load_library(manifest: Manifest, target: str, kernel: str) -> ctypes.CDLL | None:
    """The package's library for ``target`` (None when the wheel has none), checked against the
    manifest's digest before it is loaded."""
    name = manifest.data.get("cpu", {}).get(target)
    if name is None:
        return None
    path = manifest.directory / name
    with _libraries_lock:
        lib = _libraries.get(str(path))
        if lib is None:
            manifest.read_code(name, kernel, f"cpu.{target}")  # a plain name, the bytes the build wrote
            try:
                lib = ctypes.CDLL(str(path))
            except OSError as exc:
                raise ManifestError(
                    f"{path}: the native CPU library cannot be loaded ({exc}); reinstall the package"
                ) from None
            _libraries[str(path)] = lib
            native_pool.adopt(lib)
    return lib


class NativeKernel:
    """One kernel's entry in the package's library, and what its launches need."""

    def __init__(
        self,
        qualname: str,
        function: Any,
        params: list[Param],
        frame_bytes: int,
        exchange_bytes: int,
        shared_bytes: int,
        sites: list[dict[str, Any]],
        prints: dict[str, Any],
        entry: int = 0,
        lib: Any = None,
        sanitize: dict[str, Any] | None = None,
        cooperative: bool = False,
    ) -> None:
        self.qualname = qualname
        self.function = function  # the ctypes function
        self.params = params
        self.frame_bytes = frame_bytes  # per thread: its context and locals (kernels whose threads meet at barriers)
        self.exchange_bytes = exchange_bytes  # per thread: the warp exchange buffers (kernels with warp calls)
        self.shared_bytes = shared_bytes
        self.sites = sites
        self.prints = prints  # print() sites and the bytes of records a launch keeps ({}: it never prints)
        self.entry = entry  # the entry's address
        self.lib = lib  # the package's library (ctypes)
        self.sanitize = sanitize if sanitize is not None else {}  # the sanitized entry's manifest entry ({}: none)
        self.cooperative = cooperative  # a grid-wide barrier: every block at once (native_plan._cooperative)
        self.packer = struct.Struct("<" + "".join(_slot_format(p) for p in params))  # 8 bytes per flattened parameter
        self._sanitized: SanitizedCode | None = None
        self._local = threading.local()  # plans

    def __repr__(self) -> str:
        return f"NativeKernel({self.qualname!r}, entry={self.entry:#x})"

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
            int(cpu.get("exchange_bytes", 0)),
            int(cpu.get("shared_bytes", 0)),
            list(cpu.get("checks", [])),
            dict(cpu.get("prints", {})),
            int(ctypes.cast(fn, ctypes.c_void_p).value or 0),
            lib,
            dict(cpu.get("sanitize", {})),
            bool(entry.get("cooperative")),
        )

    def sanitized(self) -> SanitizedCode | None:
        """The kernel's sanitized entry (None: the package was built without it)."""
        found = self._sanitized
        if found is None and self.sanitize and self.sanitize.get("layout") == SANITIZER_LAYOUT:
            kernel = NativeKernel.load(
                self.qualname, self.lib, {"cpu": self.sanitize, "cooperative": self.cooperative}, self.params, []
            )
            found = self._sanitized = SanitizedCode(kernel, self.sanitize)
        return found

    def run(self, config: LaunchConfig, values: list[Any]) -> None:
        """Run the grid on checked arguments; returns when every block has run (or raises what a failed
        check reports)."""
        plan = self.plan(config)
        plan.pack(flatten(self.params, values))
        plan.run()
        del values  # the arrays the buffer points into stay alive until here

    def plan(self, config: LaunchConfig) -> CpuLaunch:
        """This thread's plan for ``config`` (at the current $HYBRID_CPU_THREADS)."""
        plans: dict[tuple[LaunchConfig, int], CpuLaunch] | None = getattr(self._local, "plans", None)
        if plans is None:
            plans = self._local.plans = {}
        key = (config, cpu_threads())
        plan = plans.get(key)
        if plan is None:
            if len(plans) >= 64:
                plans.clear()
            plan = plans[key] = CpuLaunch(self, config, key[1])
        return plan

    def launcher(
        self, config: LaunchConfig, params: list[Param], slow: Callable[[tuple[Any, ...]], None], env: Any
    ) -> Callable[[tuple[Any, ...]], None] | None:
        """A launch for ``config`` made for this thread, with fast checks of plain arguments (see
        :func:`.native_plan.fast_launcher`); ``params`` say which arrays the kernel writes."""
        return fast_launcher(self, config, params, slow, env, cpu_threads())


_CHARS = {
    "b": "?",
    "i1": "b",
    "u1": "B",
    "i2": "h",
    "u2": "H",
    "i4": "i",
    "u4": "I",
    "i8": "q",
    "u8": "Q",
    "f2": "e",
    "f4": "f",
    "f8": "d",
}


def _slot_format(p: Param) -> str:
    """struct format of a parameter's flattened values, each in an 8-byte slot (little-endian)."""
    if p.kind == "tuple":
        return "".join(_slot_format(item) for item in p.items)
    if p.kind == "array":
        return "q" * (1 + 2 * p.ndim)
    if p.kind == "enum":
        return "q"
    dtypes = leaf_dtypes(p.dtype)
    out = ""
    for d in dtypes:
        out += _CHARS["b" if d.kind == "b" else f"{d.kind}{d.itemsize}"] + (
            f"{8 - d.itemsize}x" if d.itemsize < 8 else ""
        )
    return out


def flatten(params: list[Param], values: list[Any]) -> list[Any]:
    """The flattened parameter values as the kernel ABI lists them (arrays: data, shape, strides in
    elements; structs: their scalar fields, depth first)."""
    out: list[Any] = []
    params, values = leaf_params(params, values)  # a tuple's items, each a parameter of its own
    for p, v in zip(params, values):
        if p.kind == "array":
            arr = v if isinstance(v, np.ndarray) else getattr(v, "array", v)
            item = arr.dtype.itemsize
            out.append(data_address(arr))
            out += arr.shape
            out += [st // item for st in arr.strides]
        elif p.kind == "enum":
            out.append(int(v))
        elif p.kind == "struct":
            out += leaves(v)
        elif p.dtype.kind == "c":
            out += (v.real, v.imag)
        else:
            out.append(v)
    return out


def native_kernel(qualname: str, manifest: Manifest, entry: dict[str, Any], params: list[Param]) -> NativeKernel | None:
    """The native code of a kernel on this machine, or None (the Python path runs it, and a package
    without code for this machine says why once)."""
    package = manifest.directory.parent.name
    target = host_target()
    cpu = entry.get("cpu")
    if isinstance(cpu, dict) and "unsupported" in cpu:
        slowpath.warn_once(package, qualname, f"kernel {qualname} has no native CPU code: {cpu['unsupported']}")
        return None
    if not isinstance(cpu, dict) or "cpu" not in manifest.data:
        slowpath.warn_once(
            package, "cpu = false",
            f"package `{package}` has no native CPU code: its wheel was built with cpu = false. Remove that option "
            f"from {slowpath.TABLE} (or list this machine's target) and rebuild the wheel",
        )  # fmt: skip
        return None
    if target is None or target not in manifest.data["cpu"]:
        slowpath.warn_once(
            package, "target",
            f"package `{package}` has no native CPU code for this machine ({platform.machine()} {sys.platform}; "
            f"its wheel has {', '.join(sorted(manifest.data['cpu']))})",
        )  # fmt: skip
        return None
    lib = load_library(manifest, target, qualname)
    if lib is None:
        return None
    levels = manifest.data.get("cpu_levels", {}).get(target, [])
    return NativeKernel.load(qualname, lib, entry, params, list(levels))
