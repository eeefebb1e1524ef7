"""The NVIDIA target: typed IR -> LLVM IR (NVPTX) -> O3 with libdevice -> PTX per arch -> cubin (ptxas).

In: a :class:`~..base.KernelJob`. Out: :class:`PtxCode`, the PTX and cubins per arch and the device-side
check and print sites that the CUDA runtime reads back after a launch.
"""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from hybrid_runtime.abi import INDEX32_SUFFIX

from ...errors import CompileError
from ...lower.function import ModuleLowerer
from ...lower.lineinfo import LineInfo
from ...lower.printing import DEFAULT_PRINT_BUFFER
from ...types import ArrayT
from ..base import Capabilities, Code, KernelJob, Target
from .cubin import assemble
from .emit import emit_ptx
from .flavour import PtxFlavour
from .optimize import data_layout, optimise

ArchCode = tuple[str, str, bytes | None]  # one arch's optimised IR, PTX and cubin (None: none)


@dataclass
class PtxCode(Code):
    ptx: dict[str, str] = field(default_factory=dict)  # arch -> PTX text
    cubin: dict[str, bytes] = field(default_factory=dict)  # arch -> machine code
    index32: bool = False  # the PTX also has the 32-bit-index entry point (symbol + "__i32")
    checks: list[dict[str, Any]] = field(default_factory=list)  # device-side check sites (assert, bounds)
    prints: dict[str, Any] = field(default_factory=dict)  # print() sites and buffer bytes (lower.printing)
    llvm_ir: str = ""
    optimised_ir: dict[str, str] = field(default_factory=dict)
    pending: dict[str, Future[ArchCode]] = field(default_factory=dict, repr=False)  # arch -> its work

    def ready(self) -> bool:
        return all(future.done() for future in self.pending.values())

    def finish(self) -> None:
        for arch, future in self.pending.items():
            self.optimised_ir[arch], self.ptx[arch], cubin = future.result()
            if cubin is not None:
                self.cubin[arch] = cubin
        self.pending = {}


def arch_code(
    llvm_ir: str, entries: set[str], arch: str, libdevice: bool, kernel: str, ptxas: str | None, lineinfo: bool
) -> ArchCode:
    """One arch's code (a task of the build's workers): O3 (with libdevice), PTX, and the cubin when
    ptxas is there (None where this ptxas does not know the arch)."""
    mod = optimise(llvm_ir, entries, arch, libdevice)
    ptx = emit_ptx(mod, arch)
    return str(mod), ptx, assemble(ptx, arch, kernel, ptxas, lineinfo) if ptxas is not None else None


class PtxTarget(Target):
    name = "ptx"
    stages = ("typed IR", "LLVM IR (nvptx64)", "O3 + libdevice", "PTX", "cubin (ptxas)")
    caps = Capabilities()

    def __init__(self, archs: list[str], ptxas: str | None, lineinfo: bool) -> None:
        self.archs, self.ptxas, self.lineinfo = archs, ptxas, lineinfo

    def cache_key(self) -> list[str]:
        return self.archs + ([] if self.lineinfo else ["no-lineinfo"])

    def lowerer(self, job: KernelJob) -> ModuleLowerer:
        """The kernel's module lowered for NVPTX (no LLVM passes yet)."""
        decl = job.decl
        lowerer = ModuleLowerer(
            decl.qualname,
            data_layout(),
            decl.options.get("fastmath", False),
            decl.options.get("debug", False),
            print_buffer=decl.options.get("print_buffer", DEFAULT_PRINT_BUFFER),
            flavour=PtxFlavour(),
        )
        if self.lineinfo:
            lowerer.lines = LineInfo(lowerer.module, job.installed_path, decl.module)
        lowerer.lower_kernel(job.typed, index32=self.index32(job))
        return lowerer

    @staticmethod
    def index32(job: KernelJob) -> bool:
        return any(isinstance(t, ArrayT) for t in job.typed.arg_types)

    def build(self, job: KernelJob) -> PtxCode:
        lowerer = self.lowerer(job)
        index32 = self.index32(job)
        code = PtxCode(
            index32=index32,
            checks=[job.site_entry(site) for site in lowerer.checks.sites],
            prints=job.print_entry(lowerer.prints.sites, lowerer.prints.capacity),
            llvm_ir=lowerer.text(),
        )
        symbol = job.typed.symbol
        entries = {symbol, symbol + INDEX32_SUFFIX} if index32 else {symbol}
        for arch in self.archs:
            if int(arch[3:].rstrip("a")) < 70 and "@llvm.nvvm.match.any.sync" in code.llvm_ir:
                raise CompileError(
                    job.decl.loc,
                    f"{job.decl.qualname} matches values across the warp (cuda.match_any_sync/match_all_sync), "
                    f"which needs sm_70 or newer; the build's arch list has {arch}",
                    "drop the older archs from the build hook's `arch` list (the default is sm_70, sm_80, sm_90)",
                )
            code.pending[arch] = job.work.submit(
                arch_code, code.llvm_ir, entries, arch, bool(lowerer.libdevice), job.decl.qualname, self.ptxas,
                self.lineinfo,
            )  # fmt: skip
        return code
