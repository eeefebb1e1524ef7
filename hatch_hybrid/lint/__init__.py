"""Build-time GPU lints on the typed IR: code that compiles and runs, but hangs, is undefined, or is
slow on a GPU. Each finding is a :class:`~hatch_hybrid.errors.LintWarning` (``file:line:col``, the
line, a caret, a hint); the ``lints`` hook option shows them as warnings (default), makes them errors,
or turns them off, ``lints-ignore`` skips lints by name, and a ``# hybrid: ignore[name]`` comment (or
a bare ``# hybrid: ignore``) on the reported line silences that one site.
"""

from __future__ import annotations

import linecache
import math
import re
from dataclasses import dataclass, field
from typing import Any

from .. import ir
from ..errors import LintWarning, Loc, Note
from ..typecheck.gpu_calls import SHARED_MEMORY_LIMIT
from ..typecheck.typed import TypedFunction
from .divergence import Divergence
from .precision import f32_kernel, f64_sites

#: Every lint, by name.
LINTS = {
    "divergent-barrier": "syncthreads() (or a helper that reaches one) under a thread-dependent condition",
    "divergent-warp-call": "a warp shuffle or vote (or a helper that calls one) under a lane-dependent condition",
    "f64-in-f32-kernel": "f64 arithmetic in a kernel whose float arrays are all f32",
    "shared-memory-limit": "a block's static shared memory (all its arrays, helpers' too) over 48 KiB",
}
_IGNORE = re.compile(r"#\s*hybrid:\s*ignore(?:\[([^\]]*)\])?")


@dataclass(frozen=True)
class LintSettings:
    """The ``lints`` option ("warn", "error" or "off") and the lint names ``lints-ignore`` skips."""

    mode: str = "warn"
    ignore: frozenset[str] = field(default_factory=frozenset)


def lint_kernel(kernel: TypedFunction, reached: list[TypedFunction], fastmath: bool) -> list[LintWarning]:
    """Every lint's findings for one kernel (``reached``: it and the helpers it calls)."""
    found = Divergence().kernel(kernel)
    if f32_kernel(kernel):
        for tf in reached:
            found += f64_sites(tf, fastmath)
    found += shared_memory(kernel, reached)
    return found


def shared_memory(kernel: TypedFunction, reached: list[TypedFunction]) -> list[LintWarning]:
    """The kernel's static shared arrays (one per call site of each function) against the 48 KiB limit."""
    sites: list[tuple[Loc, int]] = []
    for tf in reached:
        for node in ir.walk(tf.fn):
            callee = tf.callees.get(node.nid)
            if callee is not None and callee.kind == "gpu" and callee.name == "shared_array":
                itemsize = callee.arg_types[0].dtype.itemsize  # type: ignore[attr-defined]
                sites.append((node.loc, itemsize * math.prod(tf.consts[node.nid])))
    total = sum(size for _, size in sites)
    if total <= SHARED_MEMORY_LIMIT:
        return []
    return [
        LintWarning(
            "shared-memory-limit",
            kernel.fn.loc,
            f"kernel `{kernel.fn.name}` takes {total} bytes of static shared memory; a block has at most "
            f"{SHARED_MEMORY_LIMIT} (48 KiB) on every GPU, so it cannot launch on one",
            "use smaller tiles, or one gpu.dynamic_shared_array with launch(..., shared_bytes=n)",
            [Note(loc, f"{size} bytes") for loc, size in sites],
        )
    ]


def select(found: list[LintWarning], settings: LintSettings) -> list[LintWarning]:
    """The findings to report: not ignored by name or by a comment on their line, each site once."""
    if settings.mode == "off":
        return []
    kept: dict[tuple[str, str], LintWarning] = {}
    for w in found:
        linecache.checkcache(w.loc.file)  # the source as it is now, not as a previous build read it
        match = _IGNORE.search(w.loc.source_line())
        above = linecache.getline(w.loc.file, w.loc.line - 1).strip()
        if match is None and above.startswith("#"):  # a comment line of its own, above a long line
            match = _IGNORE.search(above)
        names = None if match is None else match.group(1)
        if w.name in settings.ignore or (match is not None and (names is None or w.name in _names(names))):
            continue
        kept.setdefault((w.name, str(w.loc)), w)
    return list(kept.values())


def _names(text: str) -> set[str]:
    return {n.strip() for n in text.split(",")}


def to_json(w: LintWarning, module_of: dict[str, str]) -> dict[str, Any]:
    """A finding for the kernel cache: files by module name (the cache outlives build folders)."""

    def where(loc: Loc) -> list[Any]:
        return [module_of[loc.file], loc.line, loc.col, loc.end_col]

    notes = [[*where(n.loc), n.message] for n in w.notes or []]
    return {"name": w.name, "loc": where(w.loc), "message": w.message, "hint": w.hint, "notes": notes}


def from_json(entry: dict[str, Any], path_of: Any) -> LintWarning:
    """A cached finding, its files found again (``path_of``: module name -> file path)."""

    def loc(module: str, line: int, col: int, end_col: int | None) -> Loc:
        return Loc(path_of(module), line, col, end_col)

    notes = [Note(loc(*n[:4]), n[4]) for n in entry["notes"]]
    return LintWarning(entry["name"], loc(*entry["loc"]), entry["message"], entry["hint"], notes or None)
