"""The compiler's stages in order: discover -> parse -> typecheck -> lower -> optimise -> each target's code
(PTX and cubins for CUDA, native libraries for the CPUs, WGSL for WebGPU, the Python path's conversions).

Knows nothing of hatchling: :func:`compile_packages` takes package folders and returns compiled
kernels, which :mod:`.hook.plugin` turns into wheel contents.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from hybrid_runtime.numba_signatures import SignatureError, parse_signatures
from hybrid_runtime.structs import dtype_to_json

from . import ir
from .cache import COMPILER_ID, Dependency, KernelCache, dependencies
from .errors import CompileError, LintWarning, debug_enabled
from .frontend import factories
from .frontend.discover import EnumSym, FunctionSym, KernelDecl, ModuleIndex, ModuleSym
from .lint import LintSettings, from_json, lint_kernel, select, to_json
from .targets.base import Code, KernelJob, Target
from .targets.registry import configured_targets, registered, targets
from .typecheck.program import Program
from .typecheck.typed import TypedFunction
from .typecheck.user_types import annotation_typevar
from .types import ArrayT, EnumT, Scalar, StructT, TupleT, Type
from .work import Work, build_jobs

DEFAULT_ARCHS = ("sm_70", "sm_80", "sm_90")


@dataclass
class CompiledKernel:
    """A kernel's compiled code, one code object per target that built it, and its launch ABI (from a
    compilation or from the cache)."""

    decl: KernelDecl
    symbol: str
    params: list[dict[str, Any]]  # the launch ABI, as recorded in the manifest
    uses_barrier: bool
    variant: dict[str, str] = field(default_factory=dict)  # generic kernels: TypeVar name -> type name
    codes: dict[str, Code] = field(default_factory=dict)  # target name -> its code, in the targets' order
    not_built: dict[str, str] = field(default_factory=dict)  # target -> why the kernel is not built for it
    deps: list[Dependency] = field(default_factory=list)  # the source it was compiled from
    source_hash: str = ""
    seconds: float = 0.0
    cached: bool = False
    lints: list[LintWarning] = field(default_factory=list)  # every lint's findings (see .lint)
    lint_entries: list[dict[str, Any]] = field(default_factory=list)  # the same, as cached
    typed: TypedFunction | None = None  # only when compiled in this process
    factory: dict[str, Any] | None = None  # a kernel factory's call: its site and closure (frontend.factories)
    cooperative: bool = False  # a grid-wide barrier: every block must be resident at once (a cooperative launch)

    @property
    def writes(self) -> list[str]:
        return [p["name"] for p in self.params if p.get("writes")]

    def manifest_entry(self) -> dict[str, Any]:
        """The kernel's manifest entry: its ABI, then what each target's code adds (and each target that
        did not build it, why, where the runtime reads that)."""
        module, _, name = self.decl.qualname.rpartition(".")
        entry: dict[str, Any] = {
            "module": module,
            "name": name,
            "symbol": self.symbol,
            "params": self.params,
            "writes": self.writes,
            "uses_barrier": self.uses_barrier,
            "source_hash": self.source_hash,
        }
        if self.variant:
            entry["types"] = self.variant
        if self.cooperative:
            entry["cooperative"] = True
        if self.factory is not None:
            entry["factory"] = self.factory
        for code in self.codes.values():
            entry.update(code.manifest_fields(self.symbol))
        for target, reason in self.not_built.items():
            entry.update(registered(target).not_built_fields(reason))
        return entry

    def summary(self) -> str:
        """What the build's line says the kernel was built for ("PTX + CPU + WGSL")."""
        parts = [code.summary() for code in self.codes.values()]
        parts += [registered(target).not_built_summary(reason) for target, reason in self.not_built.items()]
        return "".join(parts).removeprefix(" + ")

    def cache_entry(self) -> dict[str, Any]:
        return {
            "symbol": self.symbol,
            "params": self.params,
            "uses_barrier": self.uses_barrier,
            "variant": self.variant,
            "codes": {name: code.cache_entry() for name, code in self.codes.items()},
            "deps": self.deps,
            "source_hash": self.source_hash,
            "not_built": self.not_built,
            "lints": self.lint_entries,
            "cooperative": self.cooperative,
        }

    @classmethod
    def from_cache(cls, decl: KernelDecl, entry: dict[str, Any]) -> CompiledKernel:
        return cls(
            decl,
            entry["symbol"],
            entry["params"],
            entry["uses_barrier"],
            entry["variant"],
            {t.name: t.code.from_cache(entry["codes"][t.name]) for t in targets() if t.name in entry["codes"]},
            entry["not_built"],
            [tuple(d) for d in entry["deps"]],
            entry["source_hash"],
            cooperative=entry["cooperative"],
            cached=True,
        )


def _param_entry(program: Program, p: ir.Param, t: Type, written: bool, module: str) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": p.name}
    found = annotation_typevar(program, module, p.annotation) if p.annotation is not None else None
    if found is not None:
        entry["typevar"] = found[0].name
    if isinstance(t, TupleT):  # numba's UniTuple/Tuple: its items (arrays in it may be written)
        names = [f"{p.name}.{n}" for n in t.names] or [f"{p.name}[{k}]" for k in range(len(t.items))]
        items = [_param_entry(program, ir.Param(name, None, loc=p.loc), item, True, module)
                 for name, item in zip(names, t.items)]  # fmt: skip
        entry.update(kind="tuple", items=items)
        if t.names:
            entry["type"] = "namedtuple"
    elif isinstance(t, ArrayT):
        entry.update(kind="array", dtype=dtype_to_json(t.dtype.dtype), ndim=t.ndim, writes=written)
        if isinstance(t.dtype, StructT):
            entry["type"] = t.dtype.name
    elif isinstance(t, StructT):
        entry.update(kind="struct", dtype=dtype_to_json(t.dtype), type=t.name)
    elif isinstance(t, EnumT):
        sym = program.index.resolve_member(ModuleSym(t.qualname.rsplit(".", 1)[0]), t.qualname.rsplit(".", 1)[1])
        assert isinstance(sym, EnumSym)
        entry.update(kind="enum", dtype="int64", type=sym.name, values=[v for _, v in sym.members])
    else:
        assert isinstance(t, Scalar)
        entry.update(kind="scalar", dtype=t.dtype.name)
    return entry


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
    cpu: list[str] = field(default_factory=list)  # host targets to compile native CPU code for
    cpu_checks: bool = False  # bounds checks on every array access of native CPU code
    cpu_sanitize: bool = True  # native CPU code: each kernel's sanitized entry too (launch(sanitize=True))
    wgsl: bool = False  # the WebGPU shader too (device="wgpu": Vulkan, Metal, Direct3D 12)
    lineinfo: bool = True  # .file/.loc directives in the PTX (and cubins): Python lines in profilers
    lints: LintSettings = field(default_factory=LintSettings)  # how lint findings are reported
    cache: KernelCache = field(default_factory=lambda: KernelCache(None))
    dump_dir: Path | None = None
    # numba's signatures of kernels typed at launch, by qualified name (the hook's `signatures`, recorded ones)
    signatures: dict[str, list[str]] = field(default_factory=dict)
    untyped: list[str] = field(default_factory=list)  # out: kernels typed at launch with none declared
    jobs: int | None = None  # worker processes for the LLVM work (None: $HYBRID_BUILD_JOBS, else every core)

    def targets(self) -> list[Target]:
        """The targets to build, in the registry's order (NVIDIA first: its lowering's sites are the
        kernel's), each as these options ask for it. Raises CompileError (cubin = true without ptxas)."""
        return configured_targets(self)


KERNEL_OPTIONS = {
    "fastmath": bool, "debug": bool, "specialize": dict, "print_buffer": int, "signatures": list, "lazy": bool,
}  # fmt: skip


def _check_options(decl: KernelDecl) -> None:
    for name, value in decl.options.items():
        kind = KERNEL_OPTIONS.get(name)
        if kind is None:
            raise CompileError(
                decl.loc, f"@kernel has no option `{name}`", "options: " + ", ".join(sorted(KERNEL_OPTIONS))
            )
        if kind is bool and not isinstance(value, bool):
            raise CompileError(decl.loc, f"@kernel({name}=...) takes True or False")
        if kind is int and (not isinstance(value, int) or isinstance(value, bool) or value < 8):
            raise CompileError(decl.loc, f"@kernel({name}=...) takes a number of bytes (8 or more)")


def compile_kernel(
    program: Program, decl: KernelDecl, options: Options, work: Work | None = None
) -> list[CompiledKernel]:
    """One kernel (one result per specialisation of a generic kernel): from the cache when its source is
    unchanged, else compiled. Raises only CompileError."""
    return [pending.result() for pending in start_kernel(program, decl, options, work or Work())]


def start_kernel(program: Program, decl: KernelDecl, options: Options, work: Work) -> list[PendingKernel]:
    """One kernel's specialisations, type-checked and lowered here, their targets' LLVM work handed to
    ``work``: each result is complete after :meth:`PendingKernel.result`."""
    _check_options(decl)
    if decl.options.get("lazy"):
        typed = _declared_signatures(program, decl, options)
        if typed is None:
            return []
        decl = typed
    started = [_start_variant(program, decl, options, typevars, work) for typevars in program.variants(decl)]
    if decl.factory is not None:  # (after the kernel's own errors, which point into its body)
        site = factories.manifest_entry(program.index, decl.factory)
        for pending in started:
            pending.compiled.factory = site
    return started


def _declared_signatures(program: Program, decl: KernelDecl, options: Options) -> KernelDecl | None:
    """A kernel typed at launch (numba's ``@cuda.jit`` without a signature or annotations) with the numba
    signatures the project declares for it (None: none, so it is not compiled and runs as written on
    the Python path; the hook says so)."""
    declared = options.signatures.get(decl.qualname)
    if not declared:
        options.untyped.append(decl.qualname)
        return None
    params = len(program.parsed(FunctionSym(decl.module, decl.name)).params)
    try:
        signatures = parse_signatures(declared, params)
    except SignatureError as exc:
        raise CompileError(
            decl.loc, f"the signatures declared for kernel `{decl.label}`: {exc.message}", exc.hint
        ) from None
    return dataclasses.replace(decl, options={**decl.options, "signatures": signatures})


def untyped_message(qualname: str) -> str:
    """What the build says of a kernel typed at launch that has no signature declared."""
    return (
        f"kernel {qualname} is typed at launch (numba's @cuda.jit without a signature or annotations) and no "
        "signature is declared for it: it is not compiled, and runs as written on the Python path on the CPU. "
        f'Declare its signatures in the hook\'s `signatures` table ({{"{qualname}" = ["void(float32[:], int32)"]}}), '
        "record those your tests launch (hatch-hybrid record -- pytest), or annotate its parameters"
    )


@dataclass
class PendingKernel:
    """A kernel specialisation whose targets' work may still be running in the build's workers."""

    decl: KernelDecl
    compiled: CompiledKernel
    finished: bool  # its codes' work taken, its cache entry saved (or it came from the cache)
    key: str  # its cache key
    options: Options
    start: float

    def done(self) -> bool:
        """Could :meth:`result` return without waiting?"""
        return self.finished or all(code.ready() for code in self.compiled.codes.values())

    def result(self) -> CompiledKernel:
        """The compiled kernel, once its targets' work is done (saved in the cache, dumped when asked).
        Raises only CompileError."""
        if not self.finished:
            self.finished = True
            _located(self.decl, lambda: _finish(list(self.compiled.codes.values())))
            self.compiled.seconds = time.perf_counter() - self.start
            self.options.cache.save(self.key, self.compiled.cache_entry())
            if self.options.dump_dir is not None:
                dump(self.compiled, self.options.dump_dir)
        return self.compiled


def _finish(codes: list[Code]) -> None:
    for code in codes:
        code.finish()


def _start_variant(
    program: Program,
    decl: KernelDecl,
    options: Options,
    typevars: dict[str, Type],
    work: Work,
) -> PendingKernel:
    start = time.perf_counter()
    targets = options.targets()
    variant = {name.rsplit(".", 1)[-1]: str(t) for name, t in typevars.items()}
    key_options = {**decl.options, "variant": variant} if variant else decl.options
    key = options.cache.key(decl.qualname, key_options, [part for target in targets for part in target.cache_key()])
    entry = options.cache.load(key, program.index)
    if entry is not None:
        result = CompiledKernel.from_cache(decl, entry)
        result.lints = [from_json(e, lambda m: str(program.index.module(m).path)) for e in entry.get("lints", [])]
        result.seconds = time.perf_counter() - start
        return PendingKernel(decl, result, True, key, options, start)
    result = _located(decl, lambda: _compile(program, decl, targets, typevars, work))
    return PendingKernel(decl, result, False, key, options, start)


T = TypeVar("T")


def _located(decl: KernelDecl, step: Callable[[], T]) -> T:
    """``step()``, its errors located at the kernel: a CompileError without a place (libdevice missing)
    says which kernel needed it; an internal failure becomes an internal compiler error there, with no
    compiler frames (HYBRID_DEBUG=1 shows them)."""
    try:
        return step()
    except CompileError as exc:
        if exc.loc is None:
            raise CompileError(decl.loc, f"kernel `{decl.label}`: {exc.message}", exc.hint) from None
        raise
    except Exception as exc:
        if debug_enabled():
            raise
        raise CompileError(
            decl.loc,
            f"internal compiler error while compiling kernel `{decl.label}`: {type(exc).__name__}: {exc}",
            "set HYBRID_DEBUG=1 to see the compiler traceback, and please report it",
        ) from None


def _compile(
    program: Program, decl: KernelDecl, targets: list[Target], typevars: dict[str, Type], work: Work
) -> CompiledKernel:
    """Type-check the kernel once, then build it for every target that supports what it uses (the
    targets' code is complete after each code's finish())."""
    typed = program.check_kernel(decl, typevars)
    reached = _reached(typed)
    deps = dependencies(
        program.index, {(tf.fn.module, tf.fn.name) for tf in reached}, set().union(*(tf.consulted for tf in reached))
    )
    params = [
        _param_entry(program, p, t, i in typed.writes, decl.module)
        for i, (p, t) in enumerate(zip(typed.fn.params, typed.arg_types))
    ]
    try:
        lints = lint_kernel(typed, reached, decl.options.get("fastmath", False))
    except Exception:  # lints advise; a failure of theirs must not fail a build that compiles
        if debug_enabled():
            raise
        lints = []
    result = CompiledKernel(
        decl,
        typed.symbol,
        params,
        typed.uses_barrier,
        variant={name.rsplit(".", 1)[-1]: str(t) for name, t in typevars.items()},
        cooperative=typed.grid_sync,
        deps=deps,
        source_hash=source_hash(deps),
        typed=typed,
        lints=lints,
        lint_entries=[to_json(w, {tf.fn.loc.file: tf.fn.module for tf in reached}) for w in lints],
    )
    job = KernelJob(program, decl, typed, reached, lambda module: installed_path(program, module), work)
    for target in targets:
        reason = target.unsupported(job)
        if reason is not None:
            result.not_built[target.name] = reason
            continue
        result.codes[target.name] = target.build(job)
    return result


def installed_path(program: Program, module: str) -> str:
    """A module's file as installed, relative to site-packages (``mypkg/kernels.py``): no build paths."""
    info = program.index.module(module)
    return "/".join(info.file_module.split(".")) + ("/__init__.py" if info.is_package else ".py")


def dump(result: CompiledKernel, directory: Path) -> None:
    """Write every stage's output: typed IR, then each target's (LLVM IR before and after optimisation,
    PTX, ...)."""
    directory.mkdir(parents=True, exist_ok=True)
    base = directory / result.symbol
    if result.typed is not None:
        typed = "\n\n".join(tf.dump() for tf in _reached(result.typed))
        Path(f"{base}.typed.txt").write_text(typed + "\n")
    for code in result.codes.values():
        code.dump(base)


def index_packages(packages: Iterable[Path], search_path: list[str] | None = None) -> ModuleIndex:
    index = ModuleIndex(search_path)
    for path in packages:
        index.add_package(Path(path))
    return index


def build_requirements(index: ModuleIndex, options: Options) -> list[str]:
    """What the build environment needs installed for the kernels of these packages (``index_packages``),
    beyond hatch-hybrid: each target's (CUDA's libdevice where a kernel calls into it, zig to link the CPU
    libraries); a target that cannot tell (a kernel that does not compile yet) asks for nothing."""
    program = Program(index)

    def jobs() -> Iterable[KernelJob]:
        for decl in index.kernels():
            for typevars in program.variants(decl):
                typed = program.check_kernel(decl, typevars)
                yield KernelJob(program, decl, typed, [typed], lambda module: installed_path(program, module))

    needed = []
    for cls in targets():
        try:
            if cls.configured(options) is not None:
                needed += cls.build_requirements(jobs)
        except Exception:  # a dependency not installed yet, a compile error: the build says; ask for nothing
            continue
    return needed


def compile_packages(
    packages: Iterable[Path],
    archs: Iterable[str] = DEFAULT_ARCHS,
    dump_dir: Path | None = None,
    *,
    options: Options | None = None,
    search_path: list[str] | None = None,
    progress: Callable[[CompiledKernel], None] | None = None,
) -> list[CompiledKernel]:
    """Discover and compile every kernel of the packages in these folders, the LLVM work in ``options.jobs``
    processes; ``progress`` is called with each kernel as it is done, in order."""
    if options is None:
        options = Options(list(archs), cubin=False, dump_dir=dump_dir)
    if options.dump_dir is None and os.environ.get("HYBRID_DUMP"):
        options.dump_dir = Path(os.environ["HYBRID_DUMP"])
    index = index_packages(packages, search_path)
    program = Program(index)
    kernels: list[CompiledKernel] = []
    waiting: list[PendingKernel] = []

    def finished(block: bool) -> None:  # in the kernels' order: as soon as each is done
        while waiting and (block or waiting[0].done()):
            kernels.append(waiting.pop(0).result())
            if progress is not None:
                progress(kernels[-1])

    with Work(build_jobs(options.jobs)) as work:
        for decl in index.kernels():
            waiting += start_kernel(program, decl, options, work)
            finished(block=False)
        finished(block=True)
    check_symbols(kernels)
    found = lint_report(kernels, options.lints)
    if found and options.lints.mode == "error":
        raise found[0].error(found[1:])
    return kernels


def lint_report(kernels: list[CompiledKernel], settings: LintSettings) -> list[LintWarning]:
    """The kernels' lint findings to show, as ``settings`` asks (a helper's once, however many kernels call it)."""
    return select([w for k in kernels for w in k.lints], settings)


def check_symbols(kernels: list[CompiledKernel]) -> None:
    """Two kernels whose names map to one symbol (``a.b_c`` and ``a_b.c``) cannot share a wheel."""
    symbols: dict[str, str] = {}
    for k in kernels:
        other = symbols.setdefault(k.symbol, k.decl.qualname)
        if other != k.decl.qualname:
            raise CompileError(
                k.decl.loc,
                f"kernels {other} and {k.decl.qualname} map to the same symbol {k.symbol}",
                "rename one of them",
            )
