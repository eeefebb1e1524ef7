"""What every target is to the pipeline: a :class:`Target` says what it supports
(:class:`Capabilities`), whether a kernel needs something it lacks (:meth:`Target.unsupported`, with
the reason shown by the build and ``python -m hatch_hybrid list``) and builds the kernel's code for
itself from the typed IR (:meth:`Target.build`), through the stages it names.

In: a :class:`KernelJob` (one kernel specialisation, type-checked, with the build's options).
Out: the target's code object (:class:`~.ptx.target.PtxCode`, :class:`~.host.target.HostCode`,
:class:`~.wgsl.target.WgslCode`), which the pipeline keeps in the kernel's result and the hook writes
into the wheel. A target may hand its LLVM work to the build's worker processes (``job.work``, see
:mod:`..work`): its code is complete once :meth:`Code.finish` has returned.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..frontend.discover import KernelDecl
from ..typecheck.typed import TypedFunction
from ..work import Work

if TYPE_CHECKING:
    from ..cache import KernelCache
    from ..typecheck.program import Program


@dataclass(frozen=True)
class Capabilities:
    """What a target's code can do; a kernel that needs more is not built for the target."""

    f64: bool = True
    i64: bool = True
    f16: bool = True
    complex: bool = True
    warp_size: int | None = 32  # None: no fixed warp; warp calls map to the adapter's subgroups
    shared_bytes: int | None = 48 * 1024  # static shared memory per block (None: no limit)
    atomics: frozenset[str] = frozenset({"i32", "u32", "i64", "u64", "f32", "f64"})  # element types
    printing: bool = True
    notes: str = ""  # what the target's code depends on at run time (an adapter feature, a library)


class BuildOptions(Protocol):
    """What the targets read of the build's options (:class:`hatch_hybrid.pipeline.Options`)."""

    archs: list[str]  # NVIDIA: the archs to emit PTX for
    cubin: bool | None  # NVIDIA: machine code too (None: where ptxas is found)
    lineinfo: bool  # NVIDIA: Python lines in the PTX
    cpu: list[str]  # the native CPU targets ([]: none)
    cpu_checks: bool  # bounds checks in native code
    cpu_sanitize: bool  # the native sanitized entries
    wgsl: bool  # the WebGPU shader
    dump_dir: Path | None  # where every stage's output goes


@dataclass
class KernelJob:
    """One kernel specialisation as the targets see it: checked, with everything it reaches."""

    program: Program
    decl: KernelDecl
    typed: TypedFunction
    reached: list[TypedFunction]
    installed_path: Callable[[str], str]  # a module's file as installed (`pkg/kernels.py`): no build paths
    work: Work = field(default_factory=Work)  # where the target's LLVM work runs (the build's processes)

    def site_entry(self, site: dict[str, Any]) -> dict[str, Any]:
        """A check or print site for the manifest: the file relative to its package root."""
        return {**site, "file": self.installed_path(str(site["module"]))}

    def print_entry(self, sites: list[dict[str, Any]], capacity: int) -> dict[str, Any]:
        """The kernel's print() sites and the bytes of its print buffer ({} when it never prints)."""
        return {"sites": [self.site_entry(s) for s in sites], "bytes": capacity} if sites else {}


class Code(ABC):
    """What a target's code object is to the pipeline and the hook: complete after :meth:`finish`; it
    says what it adds to the kernel's manifest entry and which files it writes next to the manifest,
    and how it is kept in the build cache."""

    def ready(self) -> bool:
        """Would :meth:`finish` return without waiting?"""
        return True

    def finish(self) -> None:
        """Wait for the work the target handed to the build's workers, and take its results (raises what
        a task raised). Nothing to wait for by default."""
        return None

    @abstractmethod
    def manifest_fields(self, symbol: str) -> dict[str, Any]:
        """The fields this code adds to its kernel's manifest entry (the layout hybrid_runtime reads)."""

    def files(self, symbol: str) -> list[tuple[str, bytes]]:
        """Files written next to the manifest (name, bytes); none by default."""
        return []

    @abstractmethod
    def cache_entry(self) -> dict[str, Any]:
        """The code as JSON for the build cache (:meth:`from_cache` reads it back)."""

    @classmethod
    @abstractmethod
    def from_cache(cls, entry: dict[str, Any]) -> Code: ...

    def summary(self) -> str:
        """What the build's line for the kernel says of this code, with its joiner (`` + CPU``); "" nothing."""
        return ""

    def show(self, stage: str, arch: str) -> str | None:
        """A stage's text for ``hatch-hybrid show`` and dumps (None: not a stage of this code)."""
        return None

    def dump(self, base: Path) -> None:
        """Write what a dump holds of this code (``base``: the folder and the kernel's symbol)."""
        return None


@dataclass(frozen=True)
class PackageOutput:
    """What a target adds to a package: files next to the manifest, fields of the manifest's top level."""

    files: dict[str, bytes] = field(default_factory=dict)
    manifest: dict[str, Any] = field(default_factory=dict)


class Target(ABC):
    """One kind of code a wheel carries for its kernels."""

    name: str  # the manifest's field for the target's code ("ptx", "cpu", "wgsl")
    stages: tuple[str, ...]  # typed IR -> ... -> the artifact, as `hatch-hybrid list` shows them
    caps: Capabilities
    code: type[Code]  # what build() returns

    def cache_key(self) -> list[str]:
        """What of the build's options changes this target's code (part of the kernel cache's key)."""
        return [self.name]

    def unsupported(self, job: KernelJob) -> str | None:
        """Why the kernel cannot be built for this target (None: it can), checked before building."""
        return None

    def why_not(self, job: KernelJob) -> str | None:
        """Why the kernel has no code of this target, as ``hatch-hybrid list`` says it without building:
        :meth:`unsupported`, and what a target finds only while lowering."""
        return self.unsupported(job)

    @classmethod
    @abstractmethod
    def configured(cls, options: BuildOptions) -> Target | None:
        """The target as the build's options ask for it (None: not asked for). Raises CompileError."""

    @abstractmethod
    def build(self, job: KernelJob) -> Code:
        """The kernel's code for this target. Raises CompileError."""

    @staticmethod
    def not_built_fields(reason: str) -> dict[str, Any]:
        """The manifest entry's fields for a kernel this target did not build ({}: none)."""
        return {}

    @staticmethod
    def not_built_summary(reason: str) -> str:
        """What the build's line says of a kernel this target did not build ("": nothing)."""
        return ""

    @classmethod
    def build_requirements(cls, jobs: Callable[[], Iterable[KernelJob]]) -> list[str]:
        """What the build environment must have installed for this target (pip requirements), looking at
        the package's kernels (``jobs()``: each type-checked, not built) where that depends on them."""
        return []

    @classmethod
    def package(cls, package: str, codes: list[Code], cache: KernelCache) -> PackageOutput:
        """What the target makes of a package's kernels together (the CPU target: one library per CPU
        target, linked), after each kernel's own files."""
        return PackageOutput()
