"""The host CPUs a wheel carries native code for, and how LLVM and the linker name them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CpuTarget:
    name: str  # the name in `cpu = [...]` and in the manifest
    triple: str  # LLVM's
    cpu: str  # the oldest CPU the code must run on
    zig: str  # the linker's target
    suffix: str  # of the shared library
    link_flags: tuple[str, ...] = ()
    # newer CPU levels the library also has each kernel for (entry ``<symbol>__<level>``), chosen at
    # run time when the CPU has their instructions: (level, LLVM CPU name)
    levels: tuple[tuple[str, str], ...] = ()

    def library(self, package: str) -> str:
        return f"{package}.{self.name}.{self.suffix}"

    def cpu_for(self, level: str) -> str:
        return self.cpu if not level else dict(self.levels)[level]


X86_LEVELS = (("v3", "x86-64-v3"), ("v4", "x86-64-v4"))  # AVX2+FMA: Haswell (2013), Zen; AVX-512: Skylake-X, Zen 4
#: LLVM features a level's code is made with beyond its CPU's: x86-64-v4's tuning prefers 256-bit vectors
#: (LLVM's caution for Skylake-X's AVX-512 clock; its Zen 4 tuning does not); with 512-bit ones the
#: suite ran as fast or faster on a Sapphire Rapids host (16 threads: block reduction 1.41 -> 0.90 ms,
#: stencil 0.12 -> 0.10, blur 0.13 -> 0.12) and on Zen 4 (one thread: blur 1.53-1.74 -> 1.48-1.50 ms),
#: as numba's code for those CPUs is. ``HYBRID_CPU_LEVEL=v3`` caps a run at AVX2.
LEVEL_FEATURES = {"v4": "-prefer-256-bit"}


def entry_symbol(symbol: str, level: str) -> str:
    return f"{symbol}__{level}" if level else symbol


TARGETS = {
    t.name: t
    for t in (
        # x86-64-v2 (SSE4.2): every x86-64 CPU since 2009; the baseline of current Linux distributions
        CpuTarget("x86_64-linux", "x86_64-unknown-linux-gnu", "x86-64-v2", "x86_64-linux-gnu", "so", (), X86_LEVELS),
        CpuTarget("aarch64-linux", "aarch64-unknown-linux-gnu", "generic", "aarch64-linux-gnu", "so"),
        # the C library's math functions resolve when the library is loaded into Python
        CpuTarget(
            "arm64-macos",
            "arm64-apple-macosx11.0.0",
            "apple-m1",
            "aarch64-macos.11.0",  # with the oldest macOS it loads on (the minos of LC_BUILD_VERSION)
            "dylib",
            ("-Wl,-undefined,dynamic_lookup",),
        ),
        CpuTarget(
            "x86_64-macos",
            "x86_64-apple-macosx10.12.0",
            "x86-64-v2",
            "x86_64-macos.10.12",  # (LC_VERSION_MIN_MACOSX); without, zig writes its newest macOS
            "dylib",
            ("-Wl,-undefined,dynamic_lookup",),
            X86_LEVELS,
        ),
        CpuTarget("x86_64-windows", "x86_64-pc-windows-gnu", "x86-64-v2", "x86_64-windows-gnu", "dll", (), X86_LEVELS),
    )
}
DEFAULT_TARGETS = tuple(TARGETS)
