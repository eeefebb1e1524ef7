"""A content-addressed cache of compiled kernels, so unchanged kernels are not compiled again.

An entry is found by a key made of everything that is not source: the kernel's name and options,
the arch list, whether cubins are made, and the compiler and LLVM versions. It stays valid while
every piece of source the kernel's compilation read is unchanged: each function it reached (in
any package) and the top-level statements (imports, constants) of each module it consulted.
Those are compared as ASTs, so comments and formatting do not count. Editing one helper therefore
recompiles exactly the kernels that reach it, in whichever package they are.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import llvmlite
import llvmlite.binding as llvm
from hybrid_runtime import staleness

from . import __version__
from .frontend.discover import ModuleIndex, ModuleInfo

FORMAT = 2  # 2: each target's code in its own field (codes), cubins inside the PTX target's
TOP_LEVEL = staleness.TOP_LEVEL  # the "function name" of a module's top-level statements


def default_cache_dir() -> Path:
    env = os.environ.get("HYBRID_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "hatch-hybrid"


def function_digest(info: ModuleInfo, name: str) -> str | None:
    return staleness.function_digest(info.tree, name)


def top_level_digest(info: ModuleInfo) -> str:
    return staleness.top_level_digest(info.tree)


Dependency = tuple[str, str, str]  # (module, function name or TOP_LEVEL, digest)


def dependencies(index: ModuleIndex, functions: set[tuple[str, str]], modules: set[str]) -> list[Dependency]:
    """The source a compilation read: functions reached and modules consulted."""
    modules, functions = set(modules), set(functions)
    for scope in {m for m in modules | {m for m, _ in functions} if index.scope_call(m)}:
        # a kernel factory call's scope: the call's module (its arguments) and the factory's source
        call = index.scope_call(scope)
        assert call is not None
        modules |= {call.module, call.factory.module, *index.module(scope).consulted}
        functions.add((call.factory.module, call.factory.name))
    modules = {m for m in modules if not index.scope_call(m)}
    functions = {(m, n) for m, n in functions if not index.scope_call(m)}
    deps = [(m, TOP_LEVEL, top_level_digest(index.module(m))) for m in modules]
    for module, name in functions:
        digest = function_digest(index.module(module), name)
        assert digest is not None
        deps.append((module, name, digest))
    return sorted(deps)


def still_valid(index: ModuleIndex, deps: list[Dependency]) -> bool:
    for module, name, digest in deps:
        info = index.find_module(module)
        if info is None:
            return False
        current = top_level_digest(info) if name == TOP_LEVEL else function_digest(info, name)
        if current != digest:
            return False
    return True


def _compiler_fingerprint() -> str:
    """A hash of the compiler's own source, every module of every stage package: a changed compiler
    never reuses cached kernels."""
    root = Path(__file__).parent
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:12]


#: The compiler that made a kernel (its version, its source, LLVM's): part of every cache key, and of
#: the manifest
COMPILER_ID = f"hatch-hybrid {__version__}+{_compiler_fingerprint()} (llvmlite {llvmlite.__version__})"


@dataclass
class KernelCache:
    """Entries under ``directory`` (``None``: caching off)."""

    directory: Path | None

    def key(self, qualname: str, options: dict[str, Any], targets: list[str], compiler: str = COMPILER_ID) -> str:
        """``targets``: what of the build's options changes each target's code (Target.cache_key)."""
        # non-literal options (types in specialize=) are syntax trees: their source text identifies them
        opts = repr(sorted((k, ast.unparse(v) if isinstance(v, ast.AST) else v) for k, v in options.items()))
        material = json.dumps([FORMAT, compiler, llvm.llvm_version_info, qualname, opts, targets])
        return hashlib.sha256(material.encode()).hexdigest()

    def _path(self, key: str) -> Path:
        assert self.directory is not None
        return self.directory / key[:2] / f"{key}.json"

    def load(self, key: str, index: ModuleIndex) -> dict[str, Any] | None:
        if self.directory is None:
            return None
        try:
            entry: dict[str, Any] = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        deps = [tuple(d) for d in entry.get("deps", [])]
        if entry.get("format") != FORMAT or not still_valid(index, deps):
            return None
        return entry

    def save(self, key: str, entry: dict[str, Any]) -> None:
        if self.directory is None:
            return
        data = dict(entry, format=FORMAT)
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f, sort_keys=True)
            os.replace(tmp, path)  # atomic: concurrent builds never see half an entry
        except OSError:
            pass  # a read-only or full cache must not fail the build

    def load_blob(self, key: str) -> bytes | None:
        """A linked library stored under ``key`` (a digest of everything it was linked from)."""
        if self.directory is None:
            return None
        try:
            return (self.directory / "linked" / key[:2] / key).read_bytes()
        except OSError:
            return None

    def save_blob(self, key: str, blob: bytes) -> None:
        if self.directory is None:
            return
        path = self.directory / "linked" / key[:2] / key
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            with os.fdopen(fd, "wb") as f:
                f.write(blob)
            os.replace(tmp, path)
        except OSError:
            pass
