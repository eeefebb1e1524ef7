"""How ``scripts/fuzz_edges.py`` judges a kernel: its outcome on the Python path (the reference) against each
device's, bit for bit (any NaN equals any NaN) or the same exception and kernel line, each output as its
:class:`~fuzz_classes.Kernel` says (bits, a multiset, or not compared); kernels whose Python path meets a
documented difference (platform-defined casts, complex powers, Python ints past 64 bits) skipped, and
libdevice's last bits allowed on the GPU where the body calls its math."""

from __future__ import annotations

import re
import types
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from fuzz_classes import INTS, Kernel

EDGE = Kernel("edges", "", [])  # how an edge kernel runs: one thread in each of 64 blocks, its output compared


def outcome(kernel, device: str, args: list[np.ndarray], spec: Kernel = EDGE) -> object:  # type: ignore[no-untyped-def]
    """The outputs ``kernel`` leaves (the arrays after the inputs), or the exception's type, the kernel line
    it names, and its message."""
    args = [a.copy() for a in args]
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            kernel.launch(spec.threads, spec.blocks, *args, device=device)
    except Exception as exc:
        where = re.search(r"kern\.py:\d+|m\d+\.py:\d+", str(exc))
        return (type(exc).__name__, where.group(0) if where else str(exc)[:200], str(exc)[:300])
    return args[spec.inputs :]


def python_function(kernel):  # type: ignore[no-untyped-def]
    """The function the Python path runs: the kernel's, with the compiler's types where the build recorded
    conversions (``d = 1`` merged with an i32 is the i32 1), else as written."""
    typed = getattr(kernel, "_cpu_func", None)
    return typed(0) if typed is not None else kernel.py_func


def failing_lines(kernel, args: list[np.ndarray], spec: Kernel = EDGE) -> set[str]:  # type: ignore[no-untyped-def]
    """The kernel lines at which the Python path fails, row by row (a device reports one failing thread's,
    and which fails first is the device's choice): each row runs as its own thread, on copies. (Kernels
    whose threads meet run together: none is named then.)"""
    from hybrid_runtime._cpu_state import BlockBarrier, BlockState, ThreadState, set_current
    from hybrid_runtime.python_math import with_ieee_math

    if spec.threads != 1:
        return set()
    func = with_ieee_math(python_function(kernel))
    file = func.__code__.co_filename
    arrays, lines = [a.copy() for a in args], set()
    state = ThreadState(bdim=(1, 1, 1), gdim=(spec.blocks, 1, 1))
    set_current(state)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            for row in range(spec.blocks):
                state.bid, state.tid, state.block = (row, 0, 0), (0, 0, 0), BlockState(BlockBarrier(1))
                try:
                    func(*arrays)
                except Exception as exc:
                    tb, line = exc.__traceback__, None
                    while tb is not None:
                        line = tb.tb_lineno if tb.tb_frame.f_code.co_filename == file else line
                        tb = tb.tb_next
                    lines.add(f"{Path(file).name}:{line}")
    finally:
        set_current(ThreadState())
    return lines


def last_bits(x: object, y: object, ulps: int = 4) -> bool:
    """Finite floats within ``ulps`` units in the last place (where NaNs and infinities agree exactly)."""
    if not isinstance(x, np.ndarray) or not isinstance(y, np.ndarray) or x.dtype.kind != "f":
        return False
    bits = np.dtype(f"i{x.dtype.itemsize}")
    finite = np.isfinite(x) & np.isfinite(y)
    exact = (np.isnan(x) & np.isnan(y)) | (x == y)
    close = finite & (np.sign(x) == np.sign(y)) & (np.abs(x.view(bits).astype(np.int64) - y.view(bits)) <= ulps)
    return bool(np.all(exact | close))


#: libdevice's functions that may differ from the C library's in the last bits (docs/language.md's table);
#: ``**`` of floats is libdevice's ``pow``
INEXACT = re.compile(
    r"\*\*|math\.(exp|exp2|expm1|log|log2|log10|log1p|sin|cos|tan|asin|acos|atan|atan2|sinh|cosh|tanh|erf|erfc|"
    r"gamma|lgamma|cbrt|pow|hypot)\("
)


def finite_differences(x: object, y: object, relative: float | None = None) -> bool:
    """Results that differ only in rows where both are finite numbers (where last bits of a math function
    can have grown through later arithmetic, ``floor`` or an integer store); NaN against a number, an
    infinity or an exception is never that. ``relative``: float results only, each within that fraction."""
    if not isinstance(x, np.ndarray) or not isinstance(y, np.ndarray):
        return False
    if x.dtype.kind not in "fc":
        return relative is None
    differ = ~((np.isnan(x) & np.isnan(y)) | (x == y))
    a, b = x[differ].astype(np.float64), y[differ].astype(np.float64)
    finite = bool(np.all(np.isfinite(a) & np.isfinite(b)))
    return finite and (relative is None or bool(np.all(np.abs(a - b) <= relative * np.maximum(np.abs(a), np.abs(b)))))


def complex_power(reference: object) -> bool:
    """The Python path's outcome was a complex number where the kernel expects a real one: a negative Python
    float to a non-integral power is complex in Python, NaN on the devices (docs/language.md says so)."""
    return isinstance(reference, tuple) and reference[0] == "TypeError" and "complex" in str(reference[1])


def _pairwise(test, x: object, y: object, *more: Any) -> bool:  # type: ignore[no-untyped-def]
    """``test`` holds for each pair of outputs (False where either raised)."""
    if not isinstance(x, list) or not isinstance(y, list):
        return False
    return all(test(a, b, *more) for a, b in zip(x, y))


def compared(x: list[np.ndarray], compare: list[str]) -> list[np.ndarray]:
    """The outputs as they are compared: sorted where the threads' order is unspecified (``multiset``),
    left out where nothing is compared (``ignore``)."""
    kept = [(a, how) for a, how in zip(x, compare + ["bits"] * len(x)) if how != "ignore"]
    return [np.sort(a) if how == "multiset" else a for a, how in kept]


def same_bits(x: np.ndarray, y: np.ndarray) -> bool:
    """The same bits, except that any NaN equals any NaN."""
    if x.dtype.kind == "f":
        bits = f"u{x.dtype.itemsize}"
        return bool(np.all((np.isnan(x) & np.isnan(y)) | (x.view(bits) == y.view(bits))))
    return bool(np.array_equal(x, y))


def same(x: object, y: object, compare: list[str] | None = None) -> bool:
    if isinstance(x, tuple) or isinstance(y, tuple):
        # the same kernel line; the type can differ where rows fail differently (NaN: ValueError, inf:
        # OverflowError), as the first thread to fail is the device's choice
        return isinstance(x, tuple) and isinstance(y, tuple) and x[1] == y[1]
    assert isinstance(x, list) and isinstance(y, list)
    return all(same_bits(a, b) for a, b in zip(compared(x, compare or []), compared(y, compare or [])))


@dataclass
class Verdict:
    """One kernel on the Python path (the reference) and on devices."""

    skipped: bool = False  # a documented difference: platform-defined casts, complex powers
    raised: bool = False  # the Python path raised
    libdevice: int = 0  # devices whose result is libdevice's last bits off the C library's (documented)
    amplified: int = 0  # devices whose finite results differ after libdevice's last bits went through more math
    numpy_pow: int = 0  # native floats within 1e-13 of NumPy's own `**` (its SIMD pow, on AVX-512 CPUs)
    reference: object = None
    compare: list[str] = field(default_factory=list)  # how each output is compared (Kernel.compare)
    diverged: dict[str, object] = field(default_factory=dict)  # device -> its outcome, where it differs


def judge(kernel, args: list[np.ndarray], body: str, devices: list[str], spec: Kernel = EDGE) -> Verdict:  # type: ignore[no-untyped-def]
    """Run ``kernel`` (whose source is ``body``, launched and compared as ``spec`` says) on the Python path
    and on ``devices``: the same bits, or a failure at a line where some row fails on the Python path too,
    else a divergence."""
    if platform_defined(kernel, args, spec):
        return Verdict(skipped=True)  # a float out of an integer type's range cast to it: the C compiler's result
    reference = outcome(kernel, "cpu-python", args, spec)
    if complex_power(reference):
        return Verdict(skipped=True)  # a negative Python float to a non-integral power: complex in Python, NaN here
    if isinstance(reference, tuple) and reference[0] == "IndexError":
        return Verdict(skipped=True)  # out of bounds: undefined on the devices without @kernel(debug=True)
    verdict = Verdict(raised=isinstance(reference, tuple), reference=reference, compare=spec.compare)
    for device in devices:
        got = outcome(kernel, device, args, spec)
        if same(reference, got, spec.compare):
            continue
        if isinstance(reference, tuple) and isinstance(got, tuple):
            if got[1] in failing_lines(kernel, args, spec):
                continue  # a thread that fails on the Python path too: the device reported another first
        elif device == "cuda" and INEXACT.search(body) and _pairwise(last_bits, reference, got):
            verdict.libdevice += 1  # libdevice's math: last bits may differ from the C library's (documented)
            continue
        elif device == "cpu" and "**" in body and _pairwise(finite_differences, reference, got, 1e-13):
            verdict.numpy_pow += 1  # NumPy's SIMD pow (SVML on AVX-512) on the Python path, C's natively
            continue
        elif device == "cuda" and INEXACT.search(body) and _pairwise(finite_differences, reference, got):
            verdict.amplified += 1  # those last bits, then floored, divided, summed, stored into an integer
            continue
        verdict.diverged[device] = got
    return verdict


class _Watched(np.ndarray):
    """An output array that notes NumPy floats stored out of an unsigned element type's range (NumPy casts
    them as the C compiler does: platform-defined, and not warned about)."""

    cast = False

    def __setitem__(self, key, value):  # type: ignore[no-untyped-def]
        if self.dtype.kind == "u":
            _note_cast(value, np.iinfo(self.dtype))
        super().__setitem__(key, value)


def _note_cast(value: object, info: np.iinfo) -> None:
    """Note a NumPy float that the integer type ``info`` describes cannot hold once truncated (exact
    comparisons: a float32 of 2**64 is out of u64's range)."""
    if isinstance(value, np.floating) and not (np.isfinite(value) and info.min <= float(np.trunc(value)) <= info.max):
        _Watched.cast = True


class _WatchedCast:
    """``i16(x)`` and the like, noting NumPy floats that the integer type cannot hold once truncated (NumPy's
    scalar constructors cast them as the C compiler does, without a warning: ``i16(f64(inf))`` is 0). A
    class, not a function: the Python path rebinds ``int`` and ``math`` in the functions a kernel calls."""

    def __init__(self, convert, info: np.iinfo) -> None:  # type: ignore[no-untyped-def]
        self.convert, self.info = convert, info

    def __call__(self, value):  # type: ignore[no-untyped-def]
        _note_cast(value, self.info)
        return self.convert(value)


def platform_defined(kernel, args: list[np.ndarray], spec: Kernel = EDGE) -> bool:  # type: ignore[no-untyped-def]
    """Whether the Python path converts NaN, inf or an out-of-range NumPy float to an integer: by a cast
    (``u16(x)``, not warned about), in arrays (NumPy warns) or storing into an unsigned array (not warned).
    Runs a copy of the kernel's function whose integer types watch their arguments."""
    from hybrid_runtime import cpu
    from hybrid_runtime.config import LaunchConfig
    from hybrid_runtime.types import SCALAR_DTYPES

    f = python_function(kernel)
    watched = {n: _WatchedCast(f.__globals__[n], np.iinfo(SCALAR_DTYPES[n])) for n in INTS if n in f.__globals__}
    copy = types.FunctionType(f.__code__, {**f.__globals__, **watched}, f.__name__, f.__defaults__, f.__closure__)
    _Watched.cast = False
    arrays = [a.copy() for a in args[: spec.inputs]] + [a.copy().view(_Watched) for a in args[spec.inputs :]]
    with warnings.catch_warnings(record=True) as caught, np.errstate(all="ignore", invalid="warn"):
        warnings.simplefilter("always")
        try:
            cpu.run_grid(copy, LaunchConfig.make(spec.threads, spec.blocks), arrays)
        except Exception:
            pass
    complex_cast = any(issubclass(w.category, np.exceptions.ComplexWarning) for w in caught)  # a complex power
    return _Watched.cast or complex_cast or any("invalid value encountered in cast" in str(w.message) for w in caught)


def divergences(verdict: Verdict, args: list[np.ndarray]) -> list[dict[str, object]]:
    """Each device's divergence from the Python path: its device, the first differing rows of both results
    (each output as it is compared) and the inputs there."""
    found: list[dict[str, object]] = []
    reference = verdict.reference
    for device, got in verdict.diverged.items():
        if isinstance(reference, tuple) or isinstance(got, tuple):
            rows, mine, theirs = list(range(8)), reference, got
        else:
            assert isinstance(reference, list) and isinstance(got, list)
            mine, theirs = compared(reference, verdict.compare), compared(got, verdict.compare)
            differ = {k for a, b in zip(mine, theirs) for k in range(len(a)) if not same_bits(a[k:][:1], b[k:][:1])}
            rows = sorted(differ)[:8]
        found.append({"device": device, "python": _show(mine, rows), device: _show(theirs, rows),
                      "inputs": [_show(a, rows) for a in args[:2]]})  # fmt: skip
    return found


def _show(x: object, rows: list[int]) -> object:
    """``x``'s ``rows`` (of each output; an exception as it is)."""
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return [_show(a, rows) for a in x]
    assert isinstance(x, np.ndarray)
    return {k: x[k].item() for k in rows if k < len(x)}
