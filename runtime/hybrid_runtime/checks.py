"""Device-side checks (``assert``, bounds checks of ``@kernel(debug=True)``, Python numbers divided by
zero, slice steps of zero found at run time) reported on the host.

A failed check on the GPU records its site and up to two values in the module's ``hybrid_error``
slot and ends the thread (never a trap, which would leave the CUDA context unusable). The host
reads the slot when the launch synchronises, or at the next synchronisation for asynchronous
launches, clears it, and raises the same exception the CPU path raises (``AssertionError``,
``IndexError``, ``ZeroDivisionError``, ``ValueError``), naming the kernel, the file and the line.
"""

from __future__ import annotations

import math
import os
import struct
import sys
import traceback
from types import TracebackType
from typing import Any

import numpy as np

from . import abi
from .driver import check, initialise
from .python_math import int64_overflow

ERROR_SLOT = abi.ERROR_SLOT.encode()
NONE_USED = abi.NONE_USED
_RUNTIME_DIR = os.path.dirname(__file__)


_FAILURES: dict[str, type[BaseException]] = {
    "assert": AssertionError,
    "zerodiv": ZeroDivisionError,
    "slicestep": ValueError,
    "overflow": OverflowError,
    "value": ValueError,
    "type": TypeError,
}
ZERODIV = "division by zero (of Python numbers; NumPy scalars give inf or 0)"
SLICESTEP = "slice step cannot be zero"  # NumPy's message
NAN_TO_INT = "cannot convert float NaN to integer"  # Python's and NumPy's messages
NEGATIVE_POWER = "Integers to negative integer powers are not allowed."
NEGATIVE_SHIFT = "negative shift count"
INF_TO_INT = "cannot convert float infinity to integer"
RANGE_STEP_ZERO = "range() arg 3 must not be zero"  # CPython's
UNPACK = ("too many values to unpack", "not enough values to unpack")  # CPython's, for `a, b = arr`


#: what NumPy raises (OverflowError) for an index given as a u64 of 2**63 or more
U64_INDEX = "Python int too large to convert to C long"


def failure(kernel: str, kind: str, what: str, where: str) -> BaseException:
    """The exception for a failed check: ``AssertionError``, ``IndexError``, ``ZeroDivisionError`` or
    ``ValueError`` (a slice step of zero), one format on every path."""
    return _FAILURES.get(kind, IndexError)(f"kernel {kernel}: {what} ({where})")


def conversion_failure(kernel: str, dtype: str, value: int, how: int, where: str) -> BaseException:
    """A value NumPy refuses to convert to ``dtype`` ("int": a Python int), as NumPy and Python word it:
    ``how`` says what ``value`` holds (0: a signed integer, 1: an unsigned one, 2: a float's bits)."""
    if how == 2:
        x = struct.unpack("<d", struct.pack("<q", value))[0]
        if math.isnan(x):
            return ValueError(f"kernel {kernel}: {NAN_TO_INT} ({where})")
        if math.isinf(x):
            return OverflowError(f"kernel {kernel}: {INF_TO_INT} ({where})")
        value = int(x)
    elif how == 1:
        value &= (1 << 64) - 1
    if dtype == "int":  # int(x), math.floor(x), ...: a Python int, held in 64 bits
        return OverflowError(f"kernel {kernel}: {int64_overflow(value)} ({where})")
    if not -(2**63) <= value < 2**64:
        return OverflowError(f"kernel {kernel}: Python int too large to convert to C long ({where})")
    return OverflowError(f"kernel {kernel}: Python integer {value} out of bounds for {dtype} ({where})")


def _assert_what(msg: str | None) -> str:
    return f"assertion failed: {msg}" if msg else "assertion failed"


class ErrorSlot:
    """One loaded module's error slot: its device address and the check sites it can report."""

    def __init__(self, kernel: str, address: int, sites: list[dict[str, Any]]) -> None:
        self.kernel = kernel
        self.address = address
        self.sites = sites

    def take(self) -> None:
        """Read the slot (after the work that may have written it has finished); clear and raise if set."""
        cu = initialise()
        data = np.zeros(4, np.int64)
        check(cu.cuMemcpyDtoH(data.ctypes.data, self.address, data.nbytes), "cuMemcpyDtoH", self.kernel)
        if not data[0]:
            return
        check(cu.cuMemsetD8(self.address, 0, data.nbytes), "cuMemsetD8", self.kernel)
        raise self.exception(int(data[0]), int(data[1]), int(data[2]))

    def exception(self, site_id: int, a: int, b: int) -> BaseException:
        return site_exception(self.kernel, self.sites, site_id, a, b)


def site_exception(kernel: str, sites: list[dict[str, Any]], site_id: int, a: int, b: int) -> BaseException:
    """The exception for a failed device-side check: site ``site_id`` (from 1) of ``sites``, and the two
    values it recorded (CUDA's error slot and WebGPU's error buffer hold the same record)."""
    site = sites[site_id - 1]
    where = f"{site['file']}:{site['line']}" + (f": {site['source']}" if site.get("source") else "")
    kind = str(site["kind"])
    if kind == "assert":
        return failure(kernel, kind, _assert_what(site.get("msg")), where)
    if kind == "zerodiv":
        return failure(kernel, kind, ZERODIV, where)
    if kind == "slicestep":
        return failure(kernel, kind, SLICESTEP, where)
    if kind in ("overflow", "value", "type"):  # ({a}: the value the check recorded, as in Python's message)
        return failure(kernel, kind, str(site.get("msg")).replace("{a}", str(a)), where)
    if kind == "convert":
        return conversion_failure(kernel, str(site.get("msg")), a, b, where)
    if kind.startswith("uindex"):  # a u64 index: 2**63 and more (negative as i64) make no index in NumPy
        if a < 0:
            return failure(kernel, "overflow", U64_INDEX, where)
        kind = kind[1:]
    axis = int(kind[len("index") :])
    return failure(kernel, "index", f"index {a} is out of bounds for axis {axis} with size {b}", where)


#: The exceptions the CPU path raises where the device's checks fail (ValueError: a slice step of zero, or
#: NaN converted to an integer; OverflowError: a value an integer type cannot hold; TypeError: a helper's
#: None used as a number).
CHECKED = (AssertionError, IndexError, ZeroDivisionError, ValueError, OverflowError, TypeError)


def cpu_failure(kernel: str, exc: BaseException, tb: TracebackType | None) -> BaseException | None:
    """The CPU path's version of a failed check: the same exception type and message format, pointing at
    the kernel-code line that raised (None for exceptions that are not checks)."""
    values = (SLICESTEP, NAN_TO_INT, NEGATIVE_POWER, NEGATIVE_SHIFT, RANGE_STEP_ZERO)  # the ValueErrors of checks
    unpack = isinstance(exc, ValueError) and str(exc).startswith(UNPACK)  # `a, b = arr` of another length
    if not isinstance(exc, CHECKED) or (isinstance(exc, ValueError) and str(exc) not in values and not unpack):
        return None
    if isinstance(exc, TypeError) and str(exc) != NONE_USED:
        return None
    frames = [f for f in traceback.extract_tb(tb) if not f.filename.startswith(_RUNTIME_DIR)]
    if not frames:
        return None
    frame = frames[-1]
    where = f"{_package_relative(frame.filename)}:{frame.lineno}" + (f": {frame.line}" if frame.line else "")
    if isinstance(exc, AssertionError):
        return failure(kernel, "assert", _assert_what(str(exc) or None), where)
    if isinstance(exc, ZeroDivisionError):
        return failure(kernel, "zerodiv", ZERODIV, where)
    if isinstance(exc, OverflowError):
        return OverflowError(f"kernel {kernel}: {exc} ({where})")
    if isinstance(exc, ValueError):
        return ValueError(f"kernel {kernel}: {exc} ({where})")
    if isinstance(exc, TypeError):
        return failure(kernel, "type", NONE_USED, where)
    return failure(kernel, "index", str(exc), where)


def _package_relative(filename: str) -> str:
    """``/site-packages/pkg/mod.py`` -> ``pkg/mod.py``: the file as the manifest names it."""
    best = filename
    for entry in sys.path:
        if entry and filename.startswith(os.path.join(entry, "")):
            rel = os.path.relpath(filename, entry)
            if len(rel) < len(best):
                best = rel
    return best.replace(os.sep, "/")
