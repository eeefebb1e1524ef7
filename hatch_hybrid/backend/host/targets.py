"""The host CPUs a wheel carries native code for, and how LLVM and the linker name them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class HostTarget:
    name: str  # the name in `cpu = [...]` and in the manifest
    triple: str  # LLVM's
    cpu: str  # the oldest CPU the code must run on
    zig: str  # the linker's target
    suffix: str  # of the shared library
    link_flags: tuple[str, ...] = ()

    def library(self, package: str) -> str:
        return f"{package}.{self.name}.{self.suffix}"


TARGETS = {
    t.name: t
    for t in (
        # x86-64-v2 (SSE4.2): every x86-64 CPU since 2009; the baseline of current Linux distributions
        HostTarget("x86_64-linux", "x86_64-unknown-linux-gnu", "x86-64-v2", "x86_64-linux-gnu", "so"),
        HostTarget("aarch64-linux", "aarch64-unknown-linux-gnu", "generic", "aarch64-linux-gnu", "so"),
        # the C library's math functions resolve when the library is loaded into Python
        HostTarget(
            "arm64-macos", "arm64-apple-macosx11.0.0", "apple-m1", "aarch64-macos", "dylib",
            ("-Wl,-undefined,dynamic_lookup",),
        ),
        HostTarget(
            "x86_64-macos", "x86_64-apple-macosx10.12.0", "x86-64-v2", "x86_64-macos", "dylib",
            ("-Wl,-undefined,dynamic_lookup",),
        ),
        HostTarget("x86_64-windows", "x86_64-pc-windows-gnu", "x86-64-v2", "x86_64-windows-gnu", "dll"),
    )
}
DEFAULT_TARGETS = tuple(TARGETS)
