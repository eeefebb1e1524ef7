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
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..frontend.discover import KernelDecl
from ..typecheck.typed import TypedFunction
from ..work import Work

if TYPE_CHECKING:
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


class Code:
    """What a target's code object is to the pipeline: complete after :meth:`finish`."""

    def ready(self) -> bool:
        """Would :meth:`finish` return without waiting?"""
        return True

    def finish(self) -> None:
        """Wait for the work the target handed to the build's workers, and take its results (raises what
        a task raised). Nothing to wait for by default."""


class Target(ABC):
    """One kind of code a wheel carries for its kernels."""

    name: str  # the manifest's field for the target's code ("ptx", "cpu", "wgsl")
    stages: tuple[str, ...]  # typed IR -> ... -> the artifact, as `hatch-hybrid list` shows them
    caps: Capabilities

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

    @abstractmethod
    def build(self, job: KernelJob) -> Any:
        """The kernel's code for this target. Raises CompileError."""
