"""The CPU sanitizer: GPU bugs found by running a kernel's sanitized native code on the CPU.

``k.launch(..., device="cpu", sanitize=True)``, or any CPU launch while ``$HYBRID_SANITIZE`` is set
(to anything but ``0``), runs the kernel's sanitized entry from its package's library (built beside
the fast one, see ``hatch_hybrid/targets/host/lowering/sanitize.py``): its blocks shared among the worker pool as
in a plain launch, bounds checks on, and every array access checked against shadow memory by the
library's ``sanitize.c``. It raises :class:`SanitizerError` for

* **initcheck**: shared memory read (or updated atomically) that no thread of the block wrote in this
  launch, which holds garbage on a GPU;
* **racecheck**: two threads' accesses of one element of shared memory or of an array argument, one of
  them a write (an atomic and a plain access count too), with no ``syncthreads()`` between them (or
  from different blocks, which a GPU runs in any order and at the same time);
* **synccheck**: threads of a block that wait at a barrier another skipped and ran past to the
  kernel's end (a thread that leaves by ``return`` holds up no barrier, as on a GPU), or at
  different barriers;

plus what a failed bounds check or assert raises. The message names the kernel, each access's file,
line and source, and the threads. A shadow cell keeps the last write and two reads of each element,
so a race with an earlier read that two later ones replaced can go unseen.
"""

from __future__ import annotations

import math
import struct
from typing import Any

import numpy as np

from .abi import SANITIZER_CELL_BYTES as CELL_BYTES
from .abi import SANITIZER_REGION_WORDS, SANITIZER_REGIONS, SANITIZER_REPORT
from .config import LaunchConfig
from .native_plan import ERROR_AT, OWN_WORDS, SANITIZE_KEY, CpuLaunch, data_address
from .signature import Param
from .targets import ENV_GET

_OFF = ("", "0", "false", "no", "off")

# the sanitizer's state (sanitize.c, laid out in .abi): the report, a pending initcheck, the error slot's
# address, the site it records there, threads per block, the parameters' regions, the map of the block's
# shared memory, the number of regions, then per region: lo, hi, shadow, shift, what; then the table of the
# parameters' regions
REPORT = ("found", "site", "tid", "how", "other_site", "other_tid", "other_how", "what", "offset")
assert len(REPORT) == SANITIZER_REPORT
HEADER_WORDS = SANITIZER_REGIONS
REGION_WORDS = SANITIZER_REGION_WORDS
UNINITIALISED, RACE, BARRIER_EXIT, BARRIER_SITES = 1, 2, 3, 4
READ, WRITE, ATOMIC = 0, 1, 2
MAX_THREADS = 2**32 - 2  # a cell holds a grid thread's index (plus one) in 32 bits
MAX_SITE = 0x7FFF  # and its site in 15 bits


class SanitizerError(RuntimeError):
    """A hazard the CPU sanitizer found: ``check`` is "initcheck", "racecheck" or "synccheck";
    ``accesses`` lists (what, thread, block, "file:line: source") of each access involved."""

    def __init__(self, message: str, check: str, accesses: list[tuple[str, tuple[int, ...], tuple[int, ...], str]]):
        super().__init__(message)
        self.check = check
        self.accesses = accesses


def enabled() -> bool:
    """Is $HYBRID_SANITIZE set (to anything but 0, false, no, off or nothing)?"""
    value = ENV_GET(SANITIZE_KEY)
    if value is None:
        return False
    text = value.decode(errors="replace") if isinstance(value, bytes) else value
    return text.strip().lower() not in _OFF


class SanitizedCode:
    """A kernel's sanitized entry: its launch plans' kernel, and what its reports need."""

    def __init__(self, kernel: Any, entry: dict[str, Any]) -> None:
        self.kernel = kernel  # a native.NativeKernel of the sanitized symbol
        self.yields = [int(k) for k in entry.get("yields", [])]  # site ids of the places threads stop
        self.shared = list(entry.get("shared", []))  # the block's shared arrays: offset, bytes, dtype, shape, site
        self.granule = int(entry.get("shared_granule", 1))
        # array parameters each of whose elements one thread alone accesses, where the launch tells the
        # threads' indices apart (hatch_hybrid/targets/host/lowering/sanitize_owned.py): position -> the
        # index's coordinates
        self.owned = {int(k): [(str(a), how) for a, how in coords] for k, coords in entry.get("owned", [])}

    def run(self, config: LaunchConfig, params: list[Param], values: list[Any], flat: list[Any], threads: int) -> None:
        """One sanitized launch on checked arguments (``flat``: flattened as the kernel ABI lists them),
        its blocks shared by ``threads`` threads."""
        total = config.threads_per_block * math.prod(config.grid)
        if total > MAX_THREADS:
            raise ValueError(f"kernel {self.kernel.qualname}: a sanitized launch runs at most {MAX_THREADS} threads")
        given = [(k, p, v) for k, (p, v) in enumerate(zip(params, values)) if p.kind == "array"]
        own = {
            k
            for k, _, v in given
            if k in self.owned and _owned(self.owned[k], config, v, [w for j, _, w in given if j != k])
        }
        arrays = _tracked([(p, v) for k, p, v in given if k not in own])
        regions = _array_regions(arrays)
        at = _param_regions(params, arrays, regions)
        words = HEADER_WORDS + REGION_WORDS * (1 + len(regions)) + len(params)
        plan = CpuLaunch(self.kernel, config, threads, 8 * words)
        plan.pack(flat)
        keep = self._states(plan, config, regions, at)
        plan.start_workers()
        status = plan.call(plan.job)
        del keep  # the shadows live until the launch returned
        if status:
            (site,) = struct.unpack_from("<q", plan.buffer, ERROR_AT)
            if site == len(self.kernel.sites) + 1:  # the sanitizer's own site: a finding
                struct.pack_into("<4q", plan.buffer, ERROR_AT, 0, 0, 0, 0)
                if plan.printed is not None:
                    plan.print_records()
                raise self._error(config, arrays, plan, self._first_report(plan))
            plan.fail()
        if plan.printed is not None:
            plan.print_records()

    @staticmethod
    def _words(plan: CpuLaunch, k: int, n: int = HEADER_WORDS) -> np.ndarray:
        """The first ``n`` words of participant ``k``'s state, in its memory."""
        at = k * plan.stride + plan.own_at
        return plan.memory[at : at + 8 * n].view(np.int64)

    def _states(
        self, plan: CpuLaunch, config: LaunchConfig, regions: list[tuple[int, int, int, int]], at: list[int]
    ) -> list[Any]:
        """Each participant's state for one launch (its shared memory's region, then the arrays', then each
        parameter's region: ``at``, its index among the arrays', -1: none), and the shadow memory they
        point into (the arrays' is shared)."""
        shadows = [np.zeros(max(1, -(-(hi - lo) >> shift)) * CELL_BYTES, np.uint8) for lo, hi, shift, _ in regions]
        arrays = [(lo, hi, shadow.ctypes.data, shift, what) for (lo, hi, shift, what), shadow in zip(regions, shadows)]
        keep: list[Any] = list(shadows)
        shared_bytes = plan.dynamic_at + config.shared_bytes - OWN_WORDS
        shift = int(self.granule).bit_length() - 1
        marks = self._marks(plan, shared_bytes, shift)
        for k in range(plan.participants):
            base = plan.memory.ctypes.data + k * plan.stride
            own = []
            written = 0
            if shared_bytes > 0:
                shadow = np.zeros(-(-shared_bytes >> shift) * CELL_BYTES, np.uint8)
                mine = marks.copy()
                keep += [shadow, mine]
                written = mine.ctypes.data
                own.append((base + OWN_WORDS, base + OWN_WORDS + shared_bytes, shadow.ctypes.data, shift, -1))
            nregions = len(own) + len(arrays)
            words = self._words(plan, k, HEADER_WORDS + REGION_WORDS * nregions + len(at))
            table = base + plan.own_at + 8 * (HEADER_WORDS + REGION_WORDS * nregions)
            region_at = [
                base + plan.own_at + 8 * (HEADER_WORDS + REGION_WORDS * (len(own) + j)) for j in range(len(arrays))
            ]
            words[: 2 * len(REPORT)] = 0
            words[2 * len(REPORT) : HEADER_WORDS] = (
                plan.job + ERROR_AT,
                len(self.kernel.sites) + 1,
                config.threads_per_block,
                table,
                written,
                nregions,
            )
            words[HEADER_WORDS : HEADER_WORDS + REGION_WORDS * nregions] = np.array(
                [w for region in own + arrays for w in region], np.int64
            )
            words[HEADER_WORDS + REGION_WORDS * nregions :] = [region_at[j] if j >= 0 else 0 for j in at]
        return keep

    def _marks(self, plan: CpuLaunch, shared_bytes: int, shift: int) -> np.ndarray:
        """The block's map of its shared memory before any mark (sanitize.c's ``hybrid_san1_quiet``): 2 for a
        granule in no shared array (alignment between them), 0 for the others."""
        marks = np.full(max(0, -(-shared_bytes >> shift)), 2, np.uint8)
        dynamic = plan.dynamic_at - OWN_WORDS
        for lo, hi in [(s["offset"], s["offset"] + s["bytes"]) for s in self.shared] + [(dynamic, shared_bytes)]:
            marks[lo >> shift : -(-hi >> shift)] = 0
        return marks

    def _first_report(self, plan: CpuLaunch) -> list[int]:
        """The report of the participant whose finding is in the earliest grid thread (the launch stops at
        the first finding, so others may have found one at the same time)."""
        found = [self._words(plan, k)[: len(REPORT)] for k in range(plan.participants)]
        found = [r for r in found if r[0]]
        return [int(w) for w in min(found, key=lambda r: int(r[2]))]

    # ---------------------------------------------------------------- reports
    def _error(
        self, config: LaunchConfig, arrays: list[tuple[Param, Any]], plan: CpuLaunch, words: list[int]
    ) -> SanitizerError:
        r = dict(zip(REPORT, words))
        name = self.kernel.qualname
        sites = self.kernel.sites
        me = _thread(config, r["tid"])
        other = _thread(config, r["other_tid"])
        if r["found"] in (BARRIER_EXIT, BARRIER_SITES):
            here = _where(sites[self.yields[r["site"] - 1] - 1])
            if r["found"] == BARRIER_EXIT:
                message = (
                    f"kernel {name}: synccheck: {_name(me)} waits at syncthreads() ({here}), which "
                    f"{_name(other, me)} skipped: it ran on to the kernel's end. Every thread of a block that "
                    "goes on must reach each barrier (on a GPU the block hangs or reads what others have not "
                    "written yet): move the barrier out of code that only some threads run, or have the "
                    "others `return` before it"
                )
                accesses = [("waits", *me, here), ("ran past", *other, "")]
            else:
                there = _where(sites[self.yields[r["other_site"] - 1] - 1])
                message = (
                    f"kernel {name}: synccheck: {_name(me)} waits at syncthreads() ({here}) while "
                    f"{_name(other, me)} waits at another ({there}). The threads of a block must meet at the same "
                    "barrier: move it out of code that only some threads run"
                )
                accesses = [("waits", *me, here), ("waits", *other, there)]
            return SanitizerError(message, "synccheck", accesses)
        element = self._element(r["what"], r["offset"], arrays, plan)
        here = _site(sites, r["site"])
        verb = ("reads", "writes", "updates atomically")[r["how"]]
        if r["found"] == UNINITIALISED:
            message = (
                f"kernel {name}: initcheck: {_name(me)} {verb} {element}, which no thread of its block has written "
                f"in this launch (on a GPU it holds garbage)\n  {_short(verb)} by {_name(me)} at {here}"
            )
            return SanitizerError(message, "initcheck", [(verb, *me, here)])
        there = _site(sites, r["other_site"], len(sites) > MAX_SITE)
        done = ("read", "wrote", "updated atomically")[r["other_how"]]
        apart = (
            "in another block (blocks run in any order, at the same time)"
            if me[1] != other[1]
            else "with no syncthreads() between them"
        )
        message = (
            f"kernel {name}: racecheck: {_name(me)} {verb} {element}, which {_name(other, me)} {done} {apart}"
            f"\n  {_short(verb)} by {_name(me)} at {here}\n  {_short(done)} by {_name(other, me)} at {there}"
        )
        return SanitizerError(message, "racecheck", [(verb, *me, here), (done, *other, there)])

    def _element(self, what: int, offset: int, arrays: list[tuple[Param, Any]], plan: CpuLaunch) -> str:
        """Which element a report's byte is: ``name[i, j]`` of an array argument or a shared array."""
        if what < 0:
            for s in self.shared:
                if s["offset"] <= offset < s["offset"] + s["bytes"]:
                    index = _unravel((offset - s["offset"]) // s["itemsize"], s["shape"])
                    return f"element [{index}] of the shared array made at {s['file']}:{s['line']} ({s['source']})"
            dynamic = offset - (plan.dynamic_at - OWN_WORDS)
            if dynamic >= 0:
                return f"byte {dynamic} of the block's dynamic shared memory"
            return f"byte {offset} of the block's shared memory"
        address = _array_regions(arrays)[what][0] + offset
        for p, v in arrays:
            a = v if isinstance(v, np.ndarray) else np.asarray(v)
            found = _index_at(a, address)
            if found is not None:
                return f"{p.name}[{found}]"
        return f"byte {offset} of an array argument"


def _span(v: Any) -> tuple[int, int]:
    """The bytes an array's elements lie in."""
    a = v if isinstance(v, np.ndarray) else np.asarray(v)
    start = data_address(a)
    low = start + sum(s * (n - 1) for s, n in zip(a.strides, a.shape) if s < 0)
    return low, start + sum(s * (n - 1) for s, n in zip(a.strides, a.shape) if s > 0) + a.itemsize


def _tracked(arrays: list[tuple[Param, Any]]) -> list[tuple[Param, Any]]:
    """The array arguments whose elements need shadow cells: those the kernel writes, and those it only
    reads that overlap one it writes (an array nobody writes in the launch cannot race)."""
    written = [_span(v) for p, v in arrays if p.writes and np.asarray(v).size]
    out = []
    for p, v in arrays:
        if not np.asarray(v).size:
            continue
        low, high = _span(v)
        if p.writes or any(low < end and start < high for start, end in written):
            out.append((p, v))
    return out


def _owned(coords: list[tuple[str, Any]], config: LaunchConfig, v: Any, others: list[Any]) -> bool:
    """Does no other thread of this launch access the elements of array ``v`` that a thread accesses, every
    access's index being ``coords``? Yes when the coordinates tell all the launch's threads apart, ``v``'s
    elements lie apart from each other and ``v`` overlaps no other array argument."""
    for axis, blocks, threads in zip("xyz", config.grid, config.block):
        tells_block = tells_thread = False
        for a, how in coords:
            if a == axis:
                both = how == "global" or (isinstance(how, int) and threads <= how)
                tells_block = tells_block or both or how == "block"
                tells_thread = tells_thread or both or how == "thread"
        if (blocks > 1 and not tells_block) or (threads > 1 and not tells_thread):
            return False
    arr = v if isinstance(v, np.ndarray) else np.asarray(v)
    reach = arr.itemsize
    for stride, n in sorted((abs(s), n) for s, n in zip(arr.strides, arr.shape) if n > 1):
        if stride < reach:
            return False  # two indices, one element (a broadcast, an overlapping stride)
        reach += stride * (n - 1)
    lo, hi = _span(arr)
    return not any(start < hi and lo < end for start, end in (_span(w) for w in others if np.asarray(w).size))


def _param_regions(
    params: list[Param], arrays: list[tuple[Param, Any]], regions: list[tuple[int, int, int, int]]
) -> list[int]:
    """Each parameter's index among ``regions`` (-1: none, as for a scalar or an array nobody writes)."""
    first = {id(p): _span(v)[0] for p, v in arrays}
    return [
        next((k for k, (lo, hi, _, _) in enumerate(regions) if lo <= first[id(p)] < hi), -1) if id(p) in first else -1
        for p in params
    ]


def _array_regions(arrays: list[tuple[Param, Any]]) -> list[tuple[int, int, int, int]]:
    """The bytes the array arguments span, overlapping ones merged: (lo, hi, shift, what) with ``what`` the
    region's position among them and ``1 << shift`` bytes the granule of its shadow cells."""
    spans = []
    for _, v in arrays:
        a = v if isinstance(v, np.ndarray) else np.asarray(v)
        start = data_address(a)
        low, high = _span(a)
        item = _granule(a.dtype)
        grain = math.gcd(item, *(abs(s) for s in a.strides if s), start) if a.ndim else math.gcd(item, start)
        spans.append([low, high, grain])
    spans.sort()
    merged: list[list[int]] = []
    for low, high, grain in spans:
        if merged and low < merged[-1][1]:
            last = merged[-1]
            last[2] = math.gcd(last[2], grain, low - last[0])
            last[1] = max(last[1], high)
        else:
            merged.append([low, high, grain])
    out = []
    for k, (low, high, grain) in enumerate(merged):
        shift = (grain & -grain).bit_length() - 1  # the largest power of two dividing every element's place
        low -= low % (1 << shift)
        out.append((low, high, shift, k))
    return out


def _granule(dtype: np.dtype) -> int:
    """The smallest scalar an element of ``dtype`` holds (a struct's fields may be smaller than it)."""
    if dtype.fields:
        return math.gcd(*(_granule(f[0]) for f in dtype.fields.values()), *(f[1] for f in dtype.fields.values()))
    return dtype.itemsize


def _index_at(a: np.ndarray, address: int) -> str | None:
    """The index of ``a``'s element at ``address`` (None: not one of its elements)."""
    offset = address - data_address(a)
    if a.ndim == 0:
        return "()" if 0 <= offset < a.itemsize else None
    index = []
    rest = offset
    for axis in sorted(range(a.ndim), key=lambda d: -abs(a.strides[d])):
        stride = a.strides[axis]
        k = rest // stride if stride else 0
        k = max(0, min(a.shape[axis] - 1, k))
        index.append((axis, k))
        rest -= k * stride
    if not 0 <= rest < a.itemsize:
        return None
    return ", ".join(str(k) for _, k in sorted(index))


def _unravel(k: int, shape: list[int]) -> str:
    return ", ".join(str(int(i)) for i in np.unravel_index(k, tuple(shape))) if shape else str(k)


Thread = tuple[tuple[int, ...], tuple[int, ...]]  # (thread index, block index), each x, y, z


def _thread(config: LaunchConfig, tid: int) -> Thread:
    """A grid thread's (thread index, block index), each as x, y, z."""
    per = config.threads_per_block
    block, linear = divmod(tid, per)
    bx, by, bz = config.block
    gx, gy, _ = config.grid
    return (linear % bx, linear // bx % by, linear // (bx * by)), (block % gx, block // gx % gy, block // (gx * gy))


def _name(
    t: tuple[tuple[int, ...], tuple[int, ...]], other: tuple[tuple[int, ...], tuple[int, ...]] | None = None
) -> str:
    """``thread 3 of block 0`` (``thread (3, 1, 0)`` for launches in more dimensions); a thread of the same
    block as ``other`` says so."""
    thread, block = (_dims(x) for x in t)
    if other is not None and other[1] == t[1]:
        return f"thread {thread} of the same block"
    return f"thread {thread} of block {block}"


def _dims(x: tuple[int, ...]) -> str:
    return str(x[0]) if x[1:] == (0, 0) else f"({x[0]}, {x[1]}, {x[2]})"


def _short(verb: str) -> str:
    return {"reads": "read", "writes": "write", "updates atomically": "atomic", "wrote": "write",
            "read": "read", "updated atomically": "atomic"}[verb]  # fmt: skip


def _site(sites: list[dict[str, Any]], k: int, masked: bool = False) -> str:
    """Where check site ``k`` (from 1) is; ``masked``: a shadow cell kept only its low 15 bits."""
    if masked or not 1 <= k <= len(sites):
        return "a line not recorded (the kernel has more than 32767 check sites)"
    return _where(sites[k - 1])


def _where(site: dict[str, Any]) -> str:
    return f"{site['file']}:{site['line']}" + (f": {site['source']}" if site.get("source") else "")


_warned: set[str] = set()


def warn_unsanitized(kernel: str, why: str) -> None:
    """$HYBRID_SANITIZE is set, but this kernel runs unsanitized: say so once per kernel."""
    if kernel in _warned:
        return
    _warned.add(kernel)
    import warnings

    from .slowpath import _outside

    warnings.warn(
        f"$HYBRID_SANITIZE is set, but kernel {kernel} runs unsanitized: {why}", RuntimeWarning, stacklevel=_outside()
    )
