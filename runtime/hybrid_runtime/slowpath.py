"""Saying, once, why a kernel runs as Python on the CPU when native code was expected, and the fix.

The Python path (``device="cpu-python"``) is a debugging tool: it runs every GPU thread as Python,
1,000 to 10,000 times slower than the native code a wheel built by the hook carries. Falling back to it
silently would make a library look broken-slow on every machine without a GPU, so each reason is
warned about once per package (:class:`SlowPathWarning`, a ``RuntimeWarning`` users may filter).
"""

from __future__ import annotations

import re
import sys
import warnings
from pathlib import Path

from .errors import NumbaPerformanceWarning

SLOWER = "the Python path runs every GPU thread as Python, 1,000 to 10,000 times slower than native code"
TABLE = "[tool.hatch.build.hooks.hybrid]"
_TABLE = re.compile(r"^\s*\[\s*tool\.hatch\.build\.(targets\.wheel\.)?hooks\.hybrid\s*\]", re.MULTILINE)
_HERE = str(Path(__file__).resolve().parent)
_said: set[tuple[str, str]] = set()


class SlowPathWarning(RuntimeWarning, NumbaPerformanceWarning):
    """A kernel launched on the CPU runs through its Python function: its package has no native code
    for this machine. The message says why and how to fix it."""


def warn_once(package: str, reason: str, message: str) -> None:
    """Warn ``message`` (plus how much slower the Python path is) once per package and reason, attributed
    to the caller's line outside the runtime."""
    if (package, reason) in _said:
        return
    _said.add((package, reason))
    warnings.warn(f"{message}; {SLOWER}", SlowPathWarning, stacklevel=_outside())


def _outside() -> int:
    """The stack level of the first frame outside hybrid_runtime (warn_once's caller's caller's ...)."""
    frame, level = sys._getframe(2), 2
    while frame is not None and frame.f_code.co_filename.startswith(_HERE):
        frame, level = frame.f_back, level + 1  # type: ignore[assignment]
    return level


def no_compiled_code(module: str, filename: str) -> str:
    """Why the package of ``module`` (defined in ``filename``) has no ``_hybrid/manifest.json``, from where
    it is imported."""
    parts, file = module.split("."), Path(filename).resolve()
    package = parts[0]
    if len(parts) == 1 and file.name != "__init__.py":
        return (
            f"module `{module}` is not part of a package, and kernels are compiled when their package's wheel is "
            "built. Move the kernel into a package whose pyproject.toml has the " + TABLE + " table"
        )
    folder = file.parents[len(parts) - (1 if file.name == "__init__.py" else 2)]  # the top-level package's
    for project in (folder.parent, folder.parent.parent):  # <project>/<pkg> or <project>/src/<pkg>
        pyproject = project / "pyproject.toml"
        if not pyproject.is_file():
            continue
        try:
            text = pyproject.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if not _TABLE.search(text):
            return (
                f"package `{package}` has no compiled code: {pyproject} has no {TABLE} table, so hatch-hybrid's "
                f"build hook never ran. Add the table and build the wheel (pip install {project})"
            )
        return (
            f"package `{package}` has no compiled code: it is imported from its source tree ({folder}), where "
            f"nothing is compiled. Install it (pip install {project}; pip install -e {project} compiles in place)"
        )
    return (
        f"package `{package}` has no compiled code (no _hybrid/manifest.json): its wheel was built without "
        f"hatch-hybrid's build hook. Add the {TABLE} table to its pyproject.toml and rebuild the wheel"
    )
