"""Where a target whose block's threads are not the hardware's joins the shared lowering.

On a GPU each thread of a block is a hardware thread, and :class:`~.function.FunctionLowerer` lowers a
function as it reads. A host CPU runs a block's threads as loops on one core
(:mod:`hatch_hybrid.targets.host.lowering`): every function takes the thread's context first, a kernel
whose threads meet keeps its locals per thread, helpers that meet other threads are lowered inline, and
sanitized code reports each array access. The shared lowering calls the hooks below at those points;
here they have the GPU's meaning (nothing to add), and the host's function lowerer overrides them.
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir as llir

from ..errors import Loc
from .parts import LowererParts
from .values import ArrayValue, Value

# how an element is accessed, as the sanitizer's site word records it (its low two bits)
READ, WRITE, ATOMIC = 0, 1, 2
SHARED = -1  # ArrayValue.root of the block's shared memory (a kernel parameter's: its index)


class ThreadHooks(LowererParts):
    def call_prefix(self) -> list[llir.Value]:
        """The arguments every call of a helper passes before the helper's own (host: the thread context)."""
        return []

    def after_call(self) -> None:
        """After a call of a helper (host: leave too if the helper failed a check)."""

    def access(self, ptr: llir.Value, nbytes: int, how: int, loc: Loc) -> None:
        """An element of ``nbytes`` at ``ptr`` is read, written or updated atomically (``how``) at ``loc``
        (host, sanitized code: the sanitizer checks it)."""

    def element_root(self, ptr: llir.Value, arr: ArrayValue) -> None:
        """``ptr`` is an element of ``arr`` (sanitized code: where the element lies)."""

    def root_of_local(self, name: str, value: Value) -> None:
        """``value`` is stored in local ``name`` (sanitized code: which array a local holds)."""

    def local_root(self, name: str, value: Value) -> Value:
        """``value`` loaded from local ``name``, with what :meth:`root_of_local` knew of it."""
        return value

    def planned_slots(self, name: str, types: list[llir.Type] | None = None) -> list[Any] | None:
        """Where local ``name`` lives instead of its own allocas (host: a slot per thread); None: allocas."""
        return None

    def known_link(self, nid: int, k: int) -> bool | None:
        """The value of link ``k`` of the comparison ``nid``, where the target knows it without testing
        (host: a link of a kernel's guard that its driver's loops over threads make true); None: test it."""
        return None
