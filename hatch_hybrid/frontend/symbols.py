"""What names mean to the compiler: the symbols of modules read from source, the modules themselves,
the kernels found in them and the calls of kernel factories (see discover.py and factories.py)."""

from __future__ import annotations

import ast
import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import Loc
from .constants import Value


@dataclass(frozen=True)
class ModuleSym:
    """A module of an indexed package."""

    name: str


@dataclass(frozen=True)
class ExternalSym:
    """A name in a module the compiler knows (``hybrid_runtime.gpu.syncthreads``, ``math.sqrt``)."""

    qualname: str


@dataclass(frozen=True)
class _Defined:
    """Something defined at the top level of a module of an indexed package."""

    module: str
    name: str

    @property
    def qualname(self) -> str:
        return f"{self.module}.{self.name}"


@dataclass(frozen=True)
class FunctionSym(_Defined):
    """A module-level function."""


@dataclass(frozen=True)
class ConstSym:
    """A module-level constant: a Python number, a NumPy scalar or a tuple of these (see constants.py)."""

    value: Value
    loc: Loc


@dataclass(frozen=True)
class NonConstSym:
    """A module-level name bound to a value the compiler cannot compute (``reason`` says what it is)."""

    qualname: str
    reason: str
    loc: Loc
    where: str = "module-level"  # or "kernel factory's": whose name it is, for messages


@dataclass(frozen=True)
class UnknownSym:
    """A name whose source the compiler cannot read (another package, or not a function)."""

    qualname: str
    reason: str


@dataclass(frozen=True)
class StructSym(_Defined):
    """A class decorated with ``hybrid_runtime.struct``."""


@dataclass(frozen=True)
class EnumSym(_Defined):
    """An ``enum.IntEnum`` class and its members' values."""

    members: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class TypeVarSym(_Defined):
    """``T = typing.TypeVar("T")`` at module level."""


@dataclass(frozen=True)
class _Class:
    """A module-level class, classified when first looked up (its decorators name other modules)."""

    name: str


@dataclass(frozen=True)
class _PendingConst:
    """A module-level assignment, computed when a kernel first reads the name."""

    name: str
    value: ast.expr


Symbol = ModuleSym | ExternalSym | FunctionSym | ConstSym | NonConstSym | UnknownSym | StructSym | EnumSym | TypeVarSym


@dataclass(frozen=True)
class _ImportFrom:
    module: str
    name: str


@dataclass
class KernelDecl:
    """A ``@kernel`` function: at module level, or defined by a kernel factory for one call site (then
    ``module`` is the call's scope, see :mod:`.factories`, and the kernel is named after the call)."""

    module: str
    name: str
    options: dict[str, Any]
    loc: Loc
    factory: FactoryCall | None = None

    @property
    def qualname(self) -> str:
        return self.factory.scope if self.factory is not None else f"{self.module}.{self.name}"

    @property
    def label(self) -> str:
        """The name users know the kernel by."""
        return self.factory.target if self.factory is not None else self.name


@dataclass
class ModuleInfo:
    name: str
    path: Path
    is_package: bool
    source: str
    tree: ast.Module
    names: dict[str, Symbol | _ImportFrom | _Class | _PendingConst | None] = field(default_factory=dict)
    bindings: dict[str, list[Loc]] = field(default_factory=dict)  # every assignment in module scope
    star_imports: list[Symbol] = field(default_factory=list)
    functions: dict[str, ast.FunctionDef] = field(default_factory=dict)
    classes: dict[str, ast.ClassDef] = field(default_factory=dict)
    parent: str | None = None  # a kernel factory call's scope: the factory's module, for other names
    origin: str | None = None  # ... and whose source file it is
    consulted: set[str] = field(default_factory=set)  # ... and the modules its call's arguments read
    # module-level `if` (on a build-time constant) and `try` (around imports) statements -> the statements
    # Python runs in them: the branch the condition takes, the imports when they resolve (else the handler)
    static: dict[int, list[ast.stmt]] = field(default_factory=dict)

    @property
    def body(self) -> list[ast.stmt]:
        """The module's top-level statements as its import runs them: those of the branches in ``static``
        in place of their ``if``/``try``."""
        out: list[ast.stmt] = []

        def add(stmts: list[ast.stmt]) -> None:
            for s in stmts:
                taken = self.static.get(id(s))
                if taken is None:
                    out.append(s)
                else:
                    add(taken)

        add(self.tree.body)
        return out

    @property
    def file_module(self) -> str:
        """The module whose source file this is."""
        return self.origin or self.name

    @property
    def source_hash(self) -> str:
        return hashlib.sha256(self.source.encode()).hexdigest()


@dataclass(frozen=True)
class FactoryCall:
    """``NAME = factory(...)`` at the top level of ``module``: one kernel, named ``module.NAME``."""

    module: str
    target: str
    factory: FunctionSym
    kernel: str  # the name of the @kernel the factory defines and returns
    call: ast.Call
    loc: Loc

    @property
    def scope(self) -> str:
        """The call's scope, as a module name: the kernel's name too."""
        return f"{self.module}.{self.target}"

    @property
    def function(self) -> str:
        """The kernel's function as Python names it at run time."""
        return f"{self.factory.module}.{self.factory.name}.<locals>.{self.kernel}"
