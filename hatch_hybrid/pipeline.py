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
from .discover import KernelDecl, ModuleIndex
from .emit_ptx import emit_ptx
from .errors import CompileError, debug_enabled
from .lower import ModuleLowerer
from .optimize import data_layout, optimise
from .typecheck import Program, TypedFunction
from .types import ArrayT, Scalar, Type

DEFAULT_ARCHS = ("sm_70", "sm_80", "sm_90")
COMPILER_ID = f"hatch-hybrid {__version__} (llvmlite {llvmlite.__version__})"


@dataclass
class CompiledKernel:
    decl: KernelDecl
    typed: TypedFunction
    llvm_ir: str
    ptx: dict[str, str] = field(default_factory=dict)  # arch -> PTX text
    optimised_ir: dict[str, str] = field(default_factory=dict)
    source_hash: str = ""
    seconds: float = 0.0

    @property
    def symbol(self) -> str:
        return self.typed.symbol

    def params(self) -> list[dict[str, Any]]:
        """The launch ABI, as recorded in the manifest."""
        out = []
        for i, (p, t) in enumerate(zip(self.typed.fn.params, self.typed.arg_types)):
            out.append(_param_entry(p.name, t, i in self.typed.writes))
        return out

    def manifest_entry(self, ptx_files: dict[str, str]) -> dict[str, Any]:
        return {
            "module": self.decl.module,
            "name": self.decl.name,
            "symbol": self.symbol,
            "params": self.params(),
            "writes": [p.name for i, p in enumerate(self.typed.fn.params) if i in self.typed.writes],
            "uses_barrier": self.typed.uses_barrier,
            "source_hash": self.source_hash,
            "ptx": ptx_files,
        }


def _param_entry(name: str, t: Type, written: bool) -> dict[str, Any]:
    if isinstance(t, ArrayT):
        return {"name": name, "kind": "array", "dtype": t.dtype.dtype.name, "ndim": t.ndim, "writes": written}
    assert isinstance(t, Scalar)
    return {"name": name, "kind": "scalar", "dtype": t.dtype.name}


def closure_hash(program: Program, typed: Iterable[TypedFunction]) -> str:
    """Hash of the sources of every module holding a function the kernel reaches, plus the compiler."""
    modules = sorted({tf.fn.module for tf in typed})
    h = hashlib.sha256(COMPILER_ID.encode())
    for name in modules:
        h.update(name.encode() + b"\0" + program.index.module(name).source.encode() + b"\0")
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


def compile_kernel(
    program: Program, decl: KernelDecl, archs: Iterable[str] = DEFAULT_ARCHS, dump_dir: Path | None = None
) -> CompiledKernel:
    """Compile one kernel to PTX for each arch. Raises :class:`CompileError` only."""
    start = time.perf_counter()
    try:
        typed = program.check_kernel(decl)
        lowerer = ModuleLowerer(decl.qualname, data_layout())
        llvm_ir = str(lowerer.lower_kernel(typed))
        result = CompiledKernel(decl, typed, llvm_ir)
        for arch in archs:
            mod = optimise(llvm_ir, typed.symbol, arch, bool(lowerer.libdevice))
            result.optimised_ir[arch] = str(mod)
            result.ptx[arch] = emit_ptx(mod, arch)
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
    result.source_hash = closure_hash(program, _reached(typed))
    result.seconds = time.perf_counter() - start
    if dump_dir is not None:
        dump(result, dump_dir)
    return result


def dump(result: CompiledKernel, directory: Path) -> None:
    """Write every stage's output: typed IR, LLVM IR before/after optimisation, PTX."""
    directory.mkdir(parents=True, exist_ok=True)
    base = directory / result.symbol
    typed = "\n\n".join(tf.dump() for tf in _reached(result.typed))
    Path(f"{base}.typed.txt").write_text(typed + "\n")
    Path(f"{base}.ll").write_text(result.llvm_ir)
    for arch, text in result.optimised_ir.items():
        Path(f"{base}.{arch}.opt.ll").write_text(text)
    for arch, text in result.ptx.items():
        Path(f"{base}.{arch}.ptx").write_text(text)


def index_packages(packages: Iterable[Path]) -> ModuleIndex:
    index = ModuleIndex()
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
    packages: Iterable[Path], archs: Iterable[str] = DEFAULT_ARCHS, dump_dir: Path | None = None
) -> list[CompiledKernel]:
    """Discover and compile every kernel of the packages in these folders."""
    archs = list(archs)
    if dump_dir is None and os.environ.get("HYBRID_DUMP"):
        dump_dir = Path(os.environ["HYBRID_DUMP"])
    index = index_packages(packages)
    program = Program(index)
    return [compile_kernel(program, decl, archs, dump_dir) for decl in index.kernels()]
