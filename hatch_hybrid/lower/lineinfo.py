"""Line information for the PTX: which Python line and column each instruction comes from.

What ``nvcc -lineinfo`` (clang ``-gline-directives-only``) gives: a compile unit whose emission kind is
``DebugDirectivesOnly`` makes the NVPTX backend write ``.file``/``.loc`` directives and no DWARF
sections, so the code itself does not change. Every function gets a subprogram and every instruction
the location of the statement or expression it was lowered from; helpers that LLVM inlines keep their
own lines (``inlined_at``), which Nsight Compute's source view and compute-sanitizer show.

Files are named by their path inside the installed package (``mypkg/kernels.py``), never by the build
folder: a wheel built twice, anywhere, is byte-identical, and a profiler's "source folder" setting
(site-packages or the source checkout) finds the file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext

from llvmlite import ir as llir

from ..errors import Loc
from ..typecheck.typed import TypedFunction
from .parts import LowererParts

_I32 = llir.IntType(32)


class LineInfo:
    """A module's debug metadata: its compile unit, one file per source file, one subprogram per function."""

    def __init__(self, module: llir.Module, source_name: Callable[[str], str], first_module: str) -> None:
        """``source_name``: a module's file as installed (``mypkg/kernels.py``) from its dotted name."""
        self.module = module
        self.source_name = source_name
        self._files: dict[str, llir.DIValue] = {}
        self.unit = module.add_debug_info(
            "DICompileUnit",
            {
                "language": llir.DIToken("DW_LANG_Python"),
                "file": self.file(first_module),
                "producer": "hatch-hybrid",
                "isOptimized": True,
                "emissionKind": llir.DIToken("DebugDirectivesOnly"),
            },
            is_distinct=True,
        )
        module.add_named_metadata("llvm.dbg.cu", self.unit)
        flags = module.add_named_metadata("llvm.module.flags")
        flags.add(module.add_metadata([_I32(2), "Debug Info Version", _I32(3)]))
        flags.add(module.add_metadata([_I32(2), "Dwarf Version", _I32(2)]))
        self._signature = module.add_debug_info("DISubroutineType", {"types": module.add_metadata([])})

    def file(self, module_name: str) -> llir.DIValue:
        found = self._files.get(module_name)
        if found is None:
            found = self.module.add_debug_info("DIFile", {"filename": self.source_name(module_name), "directory": ""})
            self._files[module_name] = found
        return found

    def subprogram(self, fn: llir.Function, tf: TypedFunction) -> llir.DIValue:
        """Attach a subprogram to ``fn`` (one each: the 32-bit-index copies are functions of their own)."""
        file = self.file(tf.fn.module)
        line = tf.fn.loc.line
        sp = self.module.add_debug_info(
            "DISubprogram",
            {
                "name": tf.fn.name,
                "linkageName": fn.name,
                "scope": file,
                "file": file,
                "line": line,
                "scopeLine": line,
                "type": self._signature,
                "spFlags": llir.DIToken("DISPFlagDefinition | DISPFlagOptimized"),
                "unit": self.unit,
            },
            is_distinct=True,
        )
        fn.set_metadata("dbg", sp)
        return sp

    def location(self, loc: Loc, scope: llir.DIValue) -> llir.DIValue:
        return self.module.add_debug_info("DILocation", {"line": loc.line, "column": loc.col + 1, "scope": scope})


class LineInfoLowerer(LowererParts):
    """The function lowerer's part that sets the builder's location as statements and expressions are lowered."""

    scope: llir.DIValue | None = None

    def start_lines(self, lines: LineInfo | None) -> None:
        """Give the function being built its subprogram; its parameters' code gets its ``def`` line."""
        if lines is not None:
            self.scope = lines.subprogram(self.fn, self.tf)
            self.b.debug_metadata = lines.location(self.tf.fn.loc, self.scope)

    def at(self, loc: Loc) -> AbstractContextManager[None]:
        """While lowering the node at ``loc``, its instructions carry that line and column."""
        if self.scope is None:
            return nullcontext()
        return self._at(loc, self.scope)

    @contextmanager
    def _at(self, loc: Loc, scope: llir.DIValue) -> Iterator[None]:
        outer = self.b.debug_metadata
        self.b.debug_metadata = self.parent.lines.location(loc, scope)
        try:
            yield
        finally:
            self.b.debug_metadata = outer
