"""``print()`` in kernels: the records that the GPU and the native CPU code write, formatted here.

Compiled kernel code does not format text. Each ``print()`` call appends a record, its site's id and
the bits of its values (8 bytes each), to a print buffer; after the launch (when it synchronises)
the runtime rebuilds each value as the Python object the kernel's Python function would hold (a
``np.float32``, a Python ``float`` or ``int``, an enum member ...) and formats it with Python, by
the site's template from the manifest, then writes the text to ``sys.stdout``. So every device
prints exactly what the Python path prints, format specs included, and the output goes where
Python's own output goes (pytest's capsys, ``contextlib.redirect_stdout``, notebooks), which text
written by the GPU's ``printf`` does not.

A template is a list of pieces: literal text, or ``{"type", "conv", "spec"}`` for a value, shown as
``format(conv(value), spec)``. The buffer is ``{u64 cursor; u64 dropped; u8 records[bytes]}``;
records that did not fit are counted, and reported with a ``RuntimeWarning``.
"""

from __future__ import annotations

import enum
import struct
import sys
import warnings
from functools import cache
from typing import Any

import numpy as np

from . import abi
from .checks import ErrorSlot
from .driver import check, initialise
from .types import SCALAR_DTYPES

PRINT_BUFFER = abi.PRINT_BUFFER.encode()  # the GPU module's global
HEADER = abi.PRINT_HEADER  # cursor, dropped


def is_prints(value: Any) -> bool:
    """Is this a manifest's ``prints`` entry: ``{"sites": [...], "bytes": n}``?"""
    if not isinstance(value, dict) or not isinstance(value.get("bytes"), int) or value["bytes"] < 8:
        return False
    sites = value.get("sites")
    return isinstance(sites, list) and all(_is_site(s) for s in sites)


def _is_site(site: Any) -> bool:
    if not isinstance(site, dict) or not isinstance(site.get("pieces"), list):
        return False
    return all(
        isinstance(p, str)
        or (isinstance(p, dict) and isinstance(p.get("spec"), str) and p.get("conv") in ("", "s", "r", "a"))
        for p in site["pieces"]
    )


COMPLEX = ("complex", "c64", "c128")  # Python complex, np.complex64, np.complex128


def format_records(data: bytes, sites: list[dict[str, Any]]) -> str:
    """The text of the records in ``data`` (up to a 0 site id or the end)."""
    out: list[str] = []
    pos, size = 0, len(data)
    while pos + 8 <= size:
        (site_id,) = struct.unpack_from("<Q", data, pos)
        if not 0 < site_id <= len(sites):
            break
        pieces = sites[site_id - 1]["pieces"]
        count = sum(slots(p) for p in pieces if not isinstance(p, str))
        if pos + 8 * (1 + count) > size:
            break
        k = pos + 8
        for piece in pieces:
            if isinstance(piece, str):
                out.append(piece)
                continue
            end = k + 8 * slots(piece)
            out.append(format_piece(piece, data[k:end]))
            k = end
        pos = k
    return "".join(out)


def slots(piece: dict[str, Any]) -> int:
    """The 8-byte slots a value takes in a record: two for a complex number (real, imaginary)."""
    return 2 if piece["type"] in COMPLEX else 1


def format_piece(piece: dict[str, Any], raw: bytes) -> str:
    """One value from its 8 bytes (16 for a complex number), as the Python path shows it:
    ``format(conv(value), spec)``."""
    value = python_value(piece, raw)
    conv = piece["conv"]
    shown = str(value) if conv == "s" else repr(value) if conv == "r" else ascii(value) if conv == "a" else value
    return format(shown, piece["spec"])


def python_value(piece: dict[str, Any], raw: bytes) -> object:
    """The object the kernel's Python function holds for a value of this type, from its bits."""
    t = piece["type"]
    if t == "int":
        return int.from_bytes(raw, "little", signed=True)
    if t == "float":
        return float(struct.unpack("<d", raw)[0])
    if t in ("boolean", "bool"):  # a NumPy bool (shown only by str() and format(): the same text) or a Python bool
        return raw[0] != 0
    if t == "complex":
        return complex(*struct.unpack("<dd", raw))
    if t in COMPLEX:  # each part in its own slot, as the part's type
        part = np.dtype(np.float32 if t == "c64" else np.float64)
        real, imag = (np.frombuffer(raw[k : k + part.itemsize], part.newbyteorder("<"))[0] for k in (0, 8))
        return np.array([real, imag], part).view(SCALAR_DTYPES[t])[0]
    if t == "enum":
        members = tuple((str(n), int(v)) for n, v in piece["members"])
        return _enum(str(piece["enum"]), members)(int.from_bytes(raw, "little", signed=True))
    dtype = SCALAR_DTYPES[t].newbyteorder("<")
    return np.frombuffer(raw, dtype, count=1).astype(dtype.newbyteorder("="))[0]


@cache
def _enum(name: str, members: tuple[tuple[str, int], ...]) -> type[enum.IntEnum]:
    """An IntEnum with the kernel's enum's name and members: its members print as the user's do."""
    return enum.IntEnum(name, list(members))  # type: ignore[return-value]


def emit(kernel: str, data: bytes, dropped: int, prints: dict[str, Any]) -> None:
    """Write the records' text to sys.stdout; warn about records that did not fit."""
    text = format_records(data, prints["sites"])
    if text and sys.stdout is not None:
        sys.stdout.write(text)
    if dropped:
        warnings.warn(
            f"kernel {kernel}: {dropped} print() call(s) did not fit in the kernel's {prints['bytes']}-byte print "
            "buffer and printed nothing; print less per launch or raise @kernel(print_buffer=...)",
            RuntimeWarning,
            stacklevel=4,
        )


def read_host_buffer(kernel: str, buffer: np.ndarray, prints: dict[str, Any]) -> None:
    """Native CPU code: print the records of a launch's buffer (``HEADER`` + ``bytes``)."""
    cursor, dropped = (int(x) for x in buffer[:HEADER].view(np.uint64))
    if cursor:
        emit(kernel, buffer[HEADER : HEADER + min(cursor, prints["bytes"])].tobytes(), dropped, prints)


class PrintingSlot(ErrorSlot):
    """A GPU module's error slot (when it has checks) and print buffer: at each synchronisation, the
    records are printed first, then a failed check raises."""

    def __init__(
        self, kernel: str, address: int, sites: list[dict[str, Any]], print_address: int, prints: dict[str, Any]
    ) -> None:
        super().__init__(kernel, address, sites)
        self.print_address = print_address
        self.prints = prints

    def take(self) -> None:
        self.print_records()
        if self.sites:
            super().take()

    def print_records(self) -> None:
        cu = initialise()
        header = np.zeros(2, np.uint64)
        check(cu.cuMemcpyDtoH(header.ctypes.data, self.print_address, HEADER), "cuMemcpyDtoH", self.kernel)
        cursor, dropped = int(header[0]), int(header[1])
        if not cursor:
            return
        used = min(cursor, int(self.prints["bytes"]))
        data = np.empty(used, np.uint8)
        check(cu.cuMemcpyDtoH(data.ctypes.data, self.print_address + HEADER, used), "cuMemcpyDtoH", self.kernel)
        check(cu.cuMemsetD8(self.print_address, 0, HEADER), "cuMemsetD8", self.kernel)
        emit(self.kernel, data.tobytes(), dropped, self.prints)
