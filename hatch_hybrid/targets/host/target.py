"""The native CPU target: typed IR -> LLVM IR for the host -> O3 and vectorisers per CPU target and
level -> an object file each (linked per package by the hook, :mod:`.link`); with the sanitizer on, each
kernel's sanitized entry too (:mod:`.lowering.sanitize`).

In: a :class:`~..base.KernelJob`. Out: :class:`HostCode`, or why the kernel runs on the CPU through its
Python function instead (``HostCode.unsupported``).
"""

from __future__ import annotations

import base64
import dataclasses
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hybrid_runtime.abi import SANITIZER_LAYOUT

from ...cache import KernelCache
from ...lower.function import ModuleLowerer
from ...lower.printing import DEFAULT_PRINT_BUFFER
from ...typecheck.typed import TypedFunction
from ..base import BuildOptions, Capabilities, Code, KernelJob, PackageOutput, Target
from . import driver as host_driver
from . import emit as host_emit
from .cpus import TARGETS, entry_symbol
from .flavour import HostFlavour
from .link import ZIG_PACKAGE, have_zig, package_libraries
from .lowering.context import CTX_WORDS, EXCHANGE_BYTES
from .lowering.function import lower_forward_function, lower_host_kernel, lower_range_function
from .lowering.record import host_record
from .lowering.sanitize_owned import owned_params
from .lowering.thread_range import RANGE_SUFFIX
from .lowering.threads import NativeUnsupported
from .lowering.tile_forward import FORWARD_SUFFIX, INNER_SUFFIX

# objects the build's workers are making: their keys, the work (object and optimised IR each), their dump files
Pending = tuple[list[str], Future[list[tuple[bytes, str]]], list[Path | None]]


@dataclass
class HostCode(Code):
    """A kernel's native CPU code: an object file per target (linked per package by the hook), or
    why the kernel cannot run natively (it then runs through its Python function)."""

    objects: dict[str, bytes] = field(default_factory=dict)  # target (or "target/level") -> object file
    frame_bytes: int = 0  # per thread, for kernels whose threads meet at barriers: context and locals
    exchange_bytes: int = 0  # per thread, for kernels with warp calls: the warp exchange buffers
    shared_bytes: int = 0  # static shared memory per block
    barriers: bool = False  # threads meet (barriers, warp calls)
    state_machine: str = ""  # threads meet where loops over threads cannot run them: why (lowering.fission_plan)
    libm: list[str] = field(default_factory=list)  # C library functions called
    checks: list[dict[str, Any]] = field(default_factory=list)  # sites of failed checks (assert, bounds)
    prints: dict[str, Any] = field(default_factory=dict)  # print() sites and buffer bytes (lower.printing)
    unsupported: str = ""
    sanitize: dict[str, Any] = field(default_factory=dict)  # the sanitized entry's manifest entry ({}: none)
    lane_loops: list[str] = field(default_factory=list)  # grid-stride loops run with the threads as lanes: where
    forwarded: list[int] = field(default_factory=list)  # the block shape (x, y) whose launches read no tile ([]: none)
    combined: list[str] = field(default_factory=list)  # atomics the entry combines (lowering/aggregate.py): where
    # objects still being made by the build's workers: (their keys, the work, where to dump their optimised IR)
    pending: list[Pending] = field(default_factory=list, repr=False)

    def ready(self) -> bool:
        return all(future.done() for _, future, _ in self.pending)

    def finish(self) -> None:
        for keys, future, dumps in self.pending:
            for key, (blob, optimised), dump in zip(keys, future.result(), dumps):
                self.objects[key] = blob
                if dump is not None:
                    dump.write_text(optimised)
        self.pending = []

    def manifest_fields(self, symbol: str) -> dict[str, Any]:
        return {"cpu": self.manifest_entry(symbol)}

    def summary(self) -> str:
        if self.unsupported:
            return " (CPU: Python path)"
        what = " + CPU"
        if self.state_machine:  # threads meet where they cannot run as loops: slower natively
            what += f" (CPU threads as a state machine: {self.state_machine})"
        if self.forwarded:  # the shared tile is read from the global array (lowering/tile_forward.py)
            what += f" (CPU: tile forwarded for {'x'.join(map(str, self.forwarded))} blocks)"
        if self.combined:  # lowering/aggregate.py
            what += f" (CPU: atomics combined at {', '.join(self.combined)})"
        return what

    def manifest_entry(self, symbol: str) -> dict[str, Any]:
        if self.unsupported:
            return {"unsupported": self.unsupported}
        entry: dict[str, Any] = {
            "symbol": symbol,
            "frame_bytes": self.frame_bytes,
            "shared_bytes": self.shared_bytes,
            "barriers": self.barriers,
        }
        if self.state_machine:
            entry["state_machine"] = self.state_machine
        if self.forwarded:
            entry["forwarded"] = self.forwarded
        if self.combined:
            entry["combined_atomics"] = self.combined
        if self.exchange_bytes:
            entry["exchange_bytes"] = self.exchange_bytes
        if self.checks:
            entry["checks"] = self.checks
        if self.prints:
            entry["prints"] = self.prints
        if self.sanitize:
            entry["sanitize"] = self.sanitize
        return entry

    def cache_entry(self) -> dict[str, Any]:
        objects = {t: base64.b64encode(blob).decode() for t, blob in self.objects.items()}
        entry = dataclasses.asdict(dataclasses.replace(self, objects={}, pending=[]))
        del entry["pending"]
        return {**entry, "objects": objects}

    @classmethod
    def from_cache(cls, entry: dict[str, Any]) -> HostCode:
        objects = {t: base64.b64decode(blob) for t, blob in entry["objects"].items()}
        return cls(**{**entry, "objects": objects})


class HostTarget(Target):
    name = "cpu"
    stages = ("typed IR", "LLVM IR (host)", "O3 + vectorisers per CPU level", "object file", "library (zig)")
    caps = Capabilities(shared_bytes=None)
    code = HostCode

    def __init__(self, cpus: list[str], checks: bool, sanitize: bool, dump_dir: Path | None) -> None:
        self.cpus, self.checks, self.sanitize, self.dump_dir = cpus, checks, sanitize, dump_dir

    @classmethod
    def configured(cls, options: BuildOptions) -> HostTarget | None:
        if not options.cpu:
            return None
        return cls(options.cpu, options.cpu_checks, options.cpu_sanitize, options.dump_dir)

    @classmethod
    def build_requirements(cls, jobs: Callable[[], Iterable[KernelJob]]) -> list[str]:
        return [] if have_zig() else [ZIG_PACKAGE]  # (links the libraries)

    @classmethod
    def package(cls, package: str, codes: list[Code], cache: KernelCache) -> PackageOutput:
        """One library per CPU target of every kernel with native code (the manifest's ``cpu``: target ->
        library; ``cpu_levels``: target -> its newer CPU levels)."""
        native = [code for code in codes if isinstance(code, HostCode) and not code.unsupported]
        libraries = package_libraries(package, [code.objects for code in native], any(c.libm for c in native), cache)
        manifest: dict[str, Any] = {"cpu": {target: name for target, (name, _) in libraries.items()}}
        levels = {t: [level for level, _ in TARGETS[t].levels] for t in libraries if TARGETS[t].levels}
        if levels:
            manifest["cpu_levels"] = levels
        return PackageOutput({name: blob for name, blob in libraries.values()}, manifest)

    def cache_key(self) -> list[str]:
        key = [f"cpu:{t}" for t in self.cpus] + (["cpu-checks"] if self.checks else [])
        return key + ([] if self.sanitize else ["no-cpu-sanitize"])

    def why_not(self, job: KernelJob) -> str | None:
        try:
            self._lower(job, sanitize=False)
        except NativeUnsupported as exc:
            return f"runs through its Python function on the CPU: {exc}"
        return None

    def build(self, job: KernelJob) -> HostCode:
        """Native CPU code for each CPU target: the typed IR lowered once for the host, then optimised and
        emitted per target (and per CPU level); with ``sanitize`` also the kernel's sanitized entry,
        baseline level only."""
        typed = job.typed
        try:
            code, lowerer = self._lower(job, sanitize=False)
        except NativeUnsupported as exc:
            return HostCode(unsupported=str(exc))
        levels = sorted({level for t in self.cpus for level, _ in TARGETS[t].levels})
        symbols = {level: entry_symbol(typed.symbol, level) for level in ["", *levels]}
        for symbol in symbols.values():
            _add_entry(lowerer, typed, symbol, code.frame_bytes, sanitize=False)
        sanitized: ModuleLowerer | None = None
        if self.sanitize:
            san, sanitized = self._lower(job, sanitize=True)
            code.sanitize = san.manifest_entry(typed.symbol + SANITIZED_SUFFIX)
            record = host_record(sanitized.flavour)
            code.sanitize.update(
                yields=list(record.yield_sites),
                shared=[job.site_entry(site) for _, site in sorted(record.shared_arrays.items())],
                shared_granule=_granule(record.shared_items),
                layout=SANITIZER_LAYOUT,
                owned=owned_params(typed),
            )
            _add_entry(sanitized, typed, typed.symbol + SANITIZED_SUFFIX, san.frame_bytes, sanitize=True)
        text = lowerer.text()
        dump = self.dump_dir
        if dump is not None:
            dump.mkdir(parents=True, exist_ok=True)
            (dump / f"{typed.symbol}.host.ll").write_text(text)

        def submit(keys: list[str], ir: str, symbol: str, group: list[str], level: str, dumps: list[str]) -> None:
            work = job.work.submit(host_emit.object_files, ir, symbol, group, level, dump is not None)
            paths = [dump / f"{typed.symbol}.{name}.opt.ll" if dump is not None else None for name in dumps]
            code.pending.append((keys, work, paths))

        san_text = sanitized.text() if sanitized is not None else ""
        for group in host_emit.same_cpu(self.cpus):  # one O3 run for the targets of one CPU
            for level in ["", *(level for level, _ in TARGETS[group[0]].levels)]:
                keys = [_object_key(target, level) for target in group]
                submit(keys, text, symbols[level], group, level, [key.replace("/", ".") for key in keys])
            if sanitized is not None:
                entry = typed.symbol + SANITIZED_SUFFIX
                keys = [_object_key(target, SANITIZED_SUFFIX) for target in group]
                submit(keys, san_text, entry, group, "", [f"{target}.san" for target in group])
        return code

    def _lower(self, job: KernelJob, sanitize: bool) -> tuple[HostCode, ModuleLowerer]:
        """The kernel lowered for the host (raises NativeUnsupported), and what its manifest entry says."""
        decl, typed = job.decl, job.typed
        lowerer = ModuleLowerer(
            decl.qualname,
            host_emit.data_layout(self.cpus[0]),
            decl.options.get("fastmath", False),
            decl.options.get("debug", False) or self.checks or sanitize,
            print_buffer=decl.options.get("print_buffer", DEFAULT_PRINT_BUFFER),
            flavour=HostFlavour(TARGETS[self.cpus[0]].triple, sanitize),
        )
        lower_host_kernel(lowerer, typed)
        lower_range_function(lowerer, typed)
        lower_forward_function(lowerer, typed)
        record = host_record(lowerer.flavour)
        # a thread's context, then its locals (kernels whose threads meet at barriers)
        if record.fission:  # per thread: the slots of the locals that cross meeting points
            frame_bytes = record.frame_bytes
        else:
            frame_bytes = CTX_WORDS * 8 + record.frame_bytes if typed.uses_barrier else 0
        code = HostCode(
            frame_bytes=frame_bytes,
            exchange_bytes=EXCHANGE_BYTES if record.warp_calls else 0,
            shared_bytes=record.shared_bytes,
            barriers=typed.uses_barrier,
            state_machine=record.fission_reason if typed.uses_barrier and not record.fission else "",
            lane_loops=record.lane_loops,
            forwarded=_forwarded_shape(record.forward.block) if record.forward is not None else [],
            combined=[site.where for site in record.aggregated],
            libm=sorted(lowerer.libdevice),
            checks=[job.site_entry(site) for site in lowerer.checks.sites],
            prints=job.print_entry(lowerer.prints.sites, lowerer.prints.capacity),
        )
        return code, lowerer


SANITIZED_SUFFIX = "__san"  # a kernel's sanitized entry: its symbol and this (its object: "target/__san")


def _object_key(target: str, level: str) -> str:
    """An object's key in HostCode.objects: "target", "target/level" or "target/__san" (the link puts each
    into its target's library)."""
    return f"{target}/{level}" if level else target


def _add_entry(lowerer: ModuleLowerer, typed: TypedFunction, symbol: str, frame_bytes: int, sanitize: bool) -> None:
    kernel = lowerer.functions[typed.symbol]
    record = host_record(lowerer.flavour)
    host_driver.add_entry(
        lowerer.module,
        typed,
        kernel,
        symbol,
        frame_bytes,
        record.ctx_reads,
        record.warp_calls,
        record.fission,
        sanitize,
        lowerer.functions.get(typed.symbol + RANGE_SUFFIX),
        _forward_entry(lowerer, typed) if not sanitize else None,
        tuple(record.aggregated),
    )


def _forward_entry(lowerer: ModuleLowerer, typed: TypedFunction) -> host_driver.Forward | None:
    """The forwarded function of the kernel (lowering/tile_forward.py), for the driver, if it has one."""
    record = host_record(lowerer.flavour)
    if record.forward is None:
        return None
    params = [p.name for p in typed.fn.params]
    fn = lowerer.functions[typed.symbol + FORWARD_SUFFIX]
    ranged = lowerer.functions.get(typed.symbol + FORWARD_SUFFIX + RANGE_SUFFIX)
    sources = [params.index(name) for name in record.forward.sources]
    inner = lowerer.functions.get(typed.symbol + FORWARD_SUFFIX + INNER_SUFFIX)
    return host_driver.Forward(fn, record.forward.block, sources, ranged, record.forward.per_block, inner)


def _forwarded_shape(block: tuple[int, int, int]) -> list[int]:
    """The manifest's and the build output's forwarded block shape: x and y, and z where it is not 1."""
    return list(block) if block[2] != 1 else list(block[:2])


def _granule(items: set[int]) -> int:
    """The bytes of the sanitizer's shadow cells of shared memory: the smallest item of a shared array
    (1 for struct items, whose fields may be smaller)."""
    small = min(items, default=16)
    return small if small & (small - 1) == 0 else 1
