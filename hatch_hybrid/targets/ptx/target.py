"""The NVIDIA target: typed IR -> LLVM IR (NVPTX) -> O3 with libdevice -> PTX per arch -> cubin (ptxas).

In: a :class:`~..base.KernelJob`. Out: :class:`PtxCode`, the PTX and cubins per arch and the device-side
check and print sites that the CUDA runtime reads back after a launch.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hybrid_runtime.abi import INDEX32_SUFFIX

from ...errors import CompileError
from ...lower.function import ModuleLowerer
from ...lower.lineinfo import LineInfo
from ...lower.printing import DEFAULT_PRINT_BUFFER
from ...types import ArrayT
from ..base import BuildOptions, Capabilities, Code, KernelJob, Target
from . import libdevice
from .cubin import assemble, find_ptxas, ptxas_version
from .emit import emit_ptx
from .flavour import PtxFlavour, lower_kernel
from .libdevice import LIBDEVICE_PACKAGE
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

    def manifest_fields(self, symbol: str) -> dict[str, Any]:
        fields: dict[str, Any] = {"ptx": {arch: f"{symbol}.{arch}.ptx" for arch in self.ptx}}
        if self.cubin:
            fields["cubin"] = {arch: f"{symbol}.{arch}.cubin" for arch in sorted(self.cubin)}
        if self.checks:
            fields["checks"] = self.checks
        if self.prints:
            fields["prints"] = self.prints
        if self.index32:
            fields["symbol_index32"] = symbol + INDEX32_SUFFIX
        return fields

    def files(self, symbol: str) -> list[tuple[str, bytes]]:
        found = [(f"{symbol}.{arch}.ptx", text.encode()) for arch, text in self.ptx.items()]
        return found + [(f"{symbol}.{arch}.cubin", blob) for arch, blob in sorted(self.cubin.items())]

    def cache_entry(self) -> dict[str, Any]:
        cubin = {arch: base64.b64encode(blob).decode() for arch, blob in self.cubin.items()}
        return {"ptx": self.ptx, "cubin": cubin, "index32": self.index32, "checks": self.checks, "prints": self.prints}

    @classmethod
    def from_cache(cls, entry: dict[str, Any]) -> PtxCode:
        cubin = {arch: base64.b64decode(blob) for arch, blob in entry["cubin"].items()}
        return cls(entry["ptx"], cubin, entry["index32"], entry["checks"], entry["prints"])

    def summary(self) -> str:
        return " + PTX + cubin" if self.cubin else " + PTX"

    def show(self, stage: str, arch: str) -> str | None:
        return {"llvm": self.llvm_ir, "opt": self.optimised_ir.get(arch), "ptx": self.ptx.get(arch)}.get(stage)

    def dump(self, base: Path) -> None:
        Path(f"{base}.ll").write_text(self.llvm_ir)
        for arch, text in self.optimised_ir.items():
            Path(f"{base}.{arch}.opt.ll").write_text(text)
        for arch, text in self.ptx.items():
            Path(f"{base}.{arch}.ptx").write_text(text)


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
    code = PtxCode

    def __init__(self, archs: list[str], ptxas: str | None, lineinfo: bool) -> None:
        self.archs, self.ptxas, self.lineinfo = archs, ptxas, lineinfo

    @classmethod
    def configured(cls, options: BuildOptions) -> PtxTarget:
        """The build's NVIDIA target: its archs, line info, and ptxas where cubins are asked for (``cubin``
        None: when ptxas is found; True: it must be)."""
        ptxas = None
        if options.cubin is not False:
            ptxas = find_ptxas(search_path=bool(options.cubin))
            if ptxas is None and options.cubin:
                raise CompileError(
                    None,
                    "cubin = true, but NVIDIA's ptxas was not found",
                    f"pip install {LIBDEVICE_PACKAGE} where wheels are built, set $HYBRID_PTXAS, or set cubin = false",
                )
        return cls(options.archs, ptxas, options.lineinfo)

    @classmethod
    def build_requirements(cls, jobs: Callable[[], Iterable[KernelJob]]) -> list[str]:
        """CUDA's libdevice (pip package nvidia-cuda-nvcc-cu12) when a kernel calls into it and it is not
        installed (each kernel lowered, no LLVM passes)."""
        if libdevice.find_libdevice() is not None:
            return []
        probe = cls([], None, lineinfo=False)
        return [LIBDEVICE_PACKAGE] if any(probe.lowerer(job).libdevice for job in jobs()) else []

    def cache_key(self) -> list[str]:
        machine_code = [f"ptxas {ptxas_version(self.ptxas)}"] if self.ptxas is not None else []
        return self.archs + ([] if self.lineinfo else ["no-lineinfo"]) + machine_code

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
        lower_kernel(lowerer, job.typed, index32=self.index32(job))
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
