"""numba's exception and warning classes, for modules ported from numba-cuda (``from hybrid_runtime import
errors`` in place of ``from numba import errors``).

Kernels are compiled when the wheel is built, so the typing and lowering errors numba raises at a first
launch are build errors here (located, from the build hook): no launch raises :class:`TypingError`. The
classes exist so that a ported module imports, and code that catches them (``except
errors.TypingError:``) keeps its meaning. Two runtime conditions do map onto them: a kernel launched
with argument types it was not compiled for is a :class:`TypingError` as well as the ``TypeError`` it
has always been (numba's "No matching definition" is one too), and the slow path's warning is a
:class:`NumbaPerformanceWarning`.
"""

from __future__ import annotations


class NumbaError(Exception):
    """The base of numba's errors."""


class TypingError(NumbaError, TypeError):
    """A kernel's argument types have no compiled signature (numba: a typing failure)."""


class LoweringError(NumbaError):
    """numba's code-generation failure; a build error here."""


class UnsupportedError(NumbaError):
    """A construct numba does not compile; a build error here."""


class NumbaValueError(NumbaError, ValueError):
    pass


class NumbaTypeError(NumbaError, TypeError):
    pass


class NumbaWarning(Warning):
    """The base of numba's warnings."""


class NumbaPerformanceWarning(NumbaWarning):
    """Something runs slower than it could (here: a launch on the uncompiled slow path)."""


class NumbaDeprecationWarning(NumbaWarning, DeprecationWarning):
    pass


class NumbaPendingDeprecationWarning(NumbaWarning, PendingDeprecationWarning):
    pass
