"""Compile errors as product output: ``file:line:col``, the source line, a caret, a hint.

Every IR node carries a :class:`Loc`. Compiler stages raise :class:`CompileError` with the
location of the offending node; :func:`format_error` renders it the way users see it. Set
``HYBRID_DEBUG=1`` to see the raw traceback of an internal failure instead.
"""

from __future__ import annotations

import linecache
import os
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Loc:
    """A source position: file path, 1-based line, 0-based column (as :mod:`ast` gives them)."""

    file: str
    line: int
    col: int
    end_col: int | None = None

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col + 1}"

    @property
    def synthetic(self) -> bool:
        """Whether this is the place of IR a statement was rewritten into, not of an expression written
        there (``end_col`` -1: see ``frontend.parse``'s ``zip``/``enumerate`` loops)."""
        return self.end_col == -1

    def rewritten(self) -> Loc:
        """This place, as the place of IR a construct written here is rewritten into (:attr:`synthetic`)."""
        return Loc(self.file, self.line, self.col, -1)

    def source_line(self) -> str:
        """The text of this line of the source file ("" if it cannot be read)."""
        return linecache.getline(self.file, self.line).rstrip("\n")


@dataclass
class Note:
    loc: Loc
    message: str


class CompileError(Exception):
    """A kernel cannot be compiled. ``str()`` is the full, formatted message."""

    def __init__(self, loc: Loc | None, message: str, hint: str | None = None, notes: list[Note] | None = None) -> None:
        self.loc = loc
        self.message = message
        self.hint = hint
        self.notes = notes or []
        super().__init__(self.format())

    def __reduce__(self) -> tuple[type[CompileError], tuple[Any, ...]]:  # from a build's worker process
        return CompileError, (self.loc, self.message, self.hint, self.notes)

    def format(self) -> str:
        parts = [_render(self.loc, f"error: {self.message}")]
        for note in self.notes:
            parts.append(_render(note.loc, f"note: {note.message}"))
        if self.hint:
            parts.append(f"  hint: {self.hint}")
        return "\n".join(parts)


@dataclass
class LintWarning:
    """A build-time lint: rendered like an error, ``warning:`` and the lint's name in brackets."""

    name: str
    loc: Loc
    message: str
    hint: str | None = None
    notes: list[Note] | None = None

    def format(self, severity: str = "warning") -> str:
        parts = [_render(self.loc, f"{severity}: {self.message} [{self.name}]")]
        parts += [_render(note.loc, f"note: {note.message}") for note in self.notes or []]
        if self.hint:
            parts.append(f"  hint: {self.hint}")
        return "\n".join(parts)

    def error(self, also: list[LintWarning]) -> CompileError:
        """This lint as an error (``lints = "error"``), the others found with it as notes."""
        notes = list(self.notes or []) + [Note(w.loc, f"also: {w.message} [{w.name}]") for w in also]
        return CompileError(self.loc, f"{self.message} [{self.name}]", self.hint, notes)


def _render(loc: Loc | None, headline: str) -> str:
    if loc is None:
        return headline
    text = loc.source_line()
    out = [f"{loc}: {headline}"]
    if text:
        stripped = text.expandtabs(4)
        width = 1
        if loc.end_col is not None and loc.end_col > loc.col:
            width = loc.end_col - loc.col
        out.append(f"    {stripped}")
        out.append("    " + " " * loc.col + "^" * min(width, max(1, len(stripped) - loc.col)))
    return "\n".join(out)


def debug_enabled() -> bool:
    return os.environ.get("HYBRID_DEBUG", "") not in ("", "0")
