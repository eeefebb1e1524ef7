"""The compiler's stages in order: discover -> parse -> typecheck -> lower -> optimise -> PTX.

Knows nothing of hatchling: :func:`compile_packages` takes package folders and returns compiled
kernels, which :mod:`.plugin` turns into wheel contents.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import llvmlite

from . import __version__
from .cache import Dependency, KernelCache, dependencies
from .cubin import assemble, find_ptxas, ptxas_version
from .discover import KernelDecl, ModuleIndex
from .emit_ptx import emit_ptx
from .errors import CompileError, debug_enabled
from .lower import ModuleLowerer
from .optimize import data_layout, optimise
from .typecheck import Program, TypedFunction
from .types import ArrayT, Scalar, Type

DEFAULT_ARCHS = ("sm_70", "sm_80", "sm_90")


def _compiler_fingerprint() -> str:
    """A hash of the compiler's own source: a changed compiler never reuses cached kernels."""
    h = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:12]


COMPILER_ID = f"hatch-hybrid {__version__}+{_compiler_fingerprint()} (llvmlite {llvmlite.__version__})"


@dataclass
class CompiledKernel:
    """A kernel's compiled artifacts and launch ABI (from a compilation or from the cache)."""

    decl: KernelDecl
    symbol: str
    params: list[dict[str, Any]]  # the launch ABI, as recorded in the manifest
    uses_barrier: bool
    ptx: dict[str, str] = field(default_factory=dict)  # arch -> PTX text
    cubin: dict[str, bytes] = field(default_factory=dict)  # arch -> machine code
    deps: list[Dependency] = field(default_factory=list)  # the source it was compiled from
    source_hash: str = ""
    seconds: float = 0.0
    cached: bool = False
    typed: TypedFunction | None = None  # these three only when compiled in this process
    llvm_ir: str = ""
    optimised_ir: dict[str, str] = field(default_factory=dict)

    @property
    def writes(self) -> list[str]:
        return [p["name"] for p in self.params if p.get("writes")]

    def manifest_entry(self, ptx_files: dict[str, str], cubin_files: dict[str, str]) -> dict[str, Any]:
        entry = {
            "module": self.decl.module,
            "name": self.decl.name,
            "symbol": self.symbol,
            "params": self.params,
            "writes": self.writes,
            "uses_barrier": self.uses_barrier,
            "source_hash": self.source_hash,
            "ptx": ptx_files,
        }
        if cubin_files:
            entry["cubin"] = cubin_files
        return entry

    def cache_entry(self) -> dict[str, Any]:
        return {
            "symbol": self.symbol,
            "params": self.params,
            "uses_barrier": self.uses_barrier,
            "ptx": self.ptx,
            "cubin": self.cubin,
            "deps": self.deps,
            "source_hash": self.source_hash,
        }

    @classmethod
    def from_cache(cls, decl: KernelDecl, entry: dict[str, Any]) -> CompiledKernel:
        return cls(
            decl,
            entry["symbol"],
            entry["params"],
            entry["uses_barrier"],
            entry["ptx"],
            entry["cubin"],
            [tuple(d) for d in entry["deps"]],
            entry["source_hash"],
            cached=True,
        )


def _param_entry(name: str, t: Type, written: bool) -> dict[str, Any]:
    if isinstance(t, ArrayT):
        return {"name": name, "kind": "array", "dtype": t.dtype.dtype.name, "ndim": t.ndim, "writes": written}
    assert isinstance(t, Scalar)
    return {"name": name, "kind": "scalar", "dtype": t.dtype.name}


def source_hash(deps: list[Dependency]) -> str:
    """One hash of the source a kernel was compiled from, plus the compiler that compiled it."""
    h = hashlib.sha256(COMPILER_ID.encode())
    for dep in deps:
        h.update("\0".join(dep).encode() + b"\n")
    return h.hexdigest()


def _reached(root: TypedFunction) -> list[TypedFunction]:
    seen: dict[int, TypedFunction] = {}
    stack = [root]
    while stack:
        tf = stack.pop()
        if id(tf) in seen:
            continue
        seen[id(tf)] = tf
        stack += [c.target for c in tf.callees.values() if c.target is not None]
    return list(seen.values())


@dataclass
class Options:
    """What to build: target archs, machine code too (None: when ptxas is available), cache, dumps."""

    archs: list[str] = field(default_factory=lambda: list(DEFAULT_ARCHS))
    cubin: bool | None = None
    cache: KernelCache = field(default_factory=lambda: KernelCache(None))
    dump_dir: Path | None = None

    def ptxas(self) -> str | None:
        if self.cubin is False:
            return None
        found = find_ptxas(search_path=bool(self.cubin))
        if found is None and self.cubin:
            raise CompileError(
                None,
                "cubin = true, but NVIDIA's ptxas was not found",
                "pip install nvidia-cuda-nvcc-cu12 in the build environment, set $HYBRID_PTXAS, or set cubin = false",
            )
        return found


def compile_kernel(program: Program, decl: KernelDecl, options: Options) -> CompiledKernel:
    """One kernel: from the cache when its source is unchanged, else compiled. Raises only CompileError."""
    start = time.perf_counter()
    ptxas = options.ptxas()
    machine_code = ptxas_version(ptxas) if ptxas is not None else ""
    key = options.cache.key(decl.qualname, decl.options, options.archs, machine_code, COMPILER_ID)
    entry = options.cache.load(key, program.index)
    if entry is not None:
        result = CompiledKernel.from_cache(decl, entry)
        result.seconds = time.perf_counter() - start
        return result
    try:
        result = _compile(program, decl, options.archs, ptxas)
    except CompileError as exc:
        if exc.loc is None:  # e.g. libdevice missing: say which kernel needed it
            raise CompileError(decl.loc, f"kernel `{decl.name}`: {exc.message}", exc.hint) from None
        raise
    except Exception as exc:  # an internal failure: still point at the kernel, no compiler frames
        if debug_enabled():
            raise
        raise CompileError(
            decl.loc,
            f"internal compiler error while compiling kernel `{decl.name}`: {type(exc).__name__}: {exc}",
            "set HYBRID_DEBUG=1 to see the compiler traceback, and please report it",
        ) from None
    result.seconds = time.perf_counter() - start
    options.cache.save(key, result.cache_entry())
    if options.dump_dir is not None:
        dump(result, options.dump_dir)
    return result


def _compile(program: Program, decl: KernelDecl, archs: list[str], ptxas: str | None) -> CompiledKernel:
    typed = program.check_kernel(decl)
    reached = _reached(typed)
    deps = dependencies(
        program.index, {(tf.fn.module, tf.fn.name) for tf in reached}, set().union(*(tf.consulted for tf in reached))
    )
    params = [
        _param_entry(p.name, t, i in typed.writes) for i, (p, t) in enumerate(zip(typed.fn.params, typed.arg_types))
    ]
    fastmath = decl.options.get("fastmath", False)
    if not isinstance(fastmath, bool):
        raise CompileError(decl.loc, "@kernel(fastmath=...) takes True or False")
    lowerer = ModuleLowerer(decl.qualname, data_layout(), fastmath)
    lowerer.lower_kernel(typed)
    llvm_ir = lowerer.text()
    result = CompiledKernel(
        decl,
        typed.symbol,
        params,
        typed.uses_barrier,
        deps=deps,
        source_hash=source_hash(deps),
        typed=typed,
        llvm_ir=llvm_ir,
    )
    for arch in archs:
        mod = optimise(llvm_ir, typed.symbol, arch, bool(lowerer.libdevice))
        result.optimised_ir[arch] = str(mod)
        result.ptx[arch] = emit_ptx(mod, arch)
        if ptxas is not None:
            cubin = assemble(result.ptx[arch], arch, decl.qualname, ptxas)
            if cubin is not None:
                result.cubin[arch] = cubin
    return result


def dump(result: CompiledKernel, directory: Path) -> None:
    """Write every stage's output: typed IR, LLVM IR before/after optimisation, PTX."""
    directory.mkdir(parents=True, exist_ok=True)
    base = directory / result.symbol
    if result.typed is not None:
        typed = "\n\n".join(tf.dump() for tf in _reached(result.typed))
        Path(f"{base}.typed.txt").write_text(typed + "\n")
    Path(f"{base}.ll").write_text(result.llvm_ir)
    for arch, text in result.optimised_ir.items():
        Path(f"{base}.{arch}.opt.ll").write_text(text)
    for arch, text in result.ptx.items():
        Path(f"{base}.{arch}.ptx").write_text(text)


def index_packages(packages: Iterable[Path], search_path: list[str] | None = None) -> ModuleIndex:
    index = ModuleIndex(search_path)
    for path in packages:
        index.add_package(Path(path))
    return index


def needs_libdevice(packages: Iterable[Path]) -> bool:
    """Does any kernel of these packages call into libdevice? (Type-checks and lowers, no LLVM passes.)"""
    index = index_packages(packages)
    program = Program(index)
    for decl in index.kernels():
        lowerer = ModuleLowerer(decl.qualname, data_layout())
        lowerer.lower_kernel(program.check_kernel(decl))
        if lowerer.libdevice:
            return True
    return False


def compile_packages(
    packages: Iterable[Path],
    archs: Iterable[str] = DEFAULT_ARCHS,
    dump_dir: Path | None = None,
    *,
    options: Options | None = None,
    search_path: list[str] | None = None,
) -> list[CompiledKernel]:
    """Discover and compile every kernel of the packages in these folders."""
    if options is None:
        options = Options(list(archs), cubin=False, dump_dir=dump_dir)
    if options.dump_dir is None and os.environ.get("HYBRID_DUMP"):
        options.dump_dir = Path(os.environ["HYBRID_DUMP"])
    index = index_packages(packages, search_path)
    program = Program(index)
    return [compile_kernel(program, decl, options) for decl in index.kernels()]
