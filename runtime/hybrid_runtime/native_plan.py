"""Native CPU launch plans: what launching one kernel in one configuration from one thread needs,
worked out once (the CPU's counterpart of :mod:`.plan`).

A plan is one buffer holding the pool's job (``hybrid_job`` in ``hatch_hybrid/targets/host/pool.c``),
the launch's error slot, the template of the launch words, the flattened parameters (8 bytes each)
and a pointer to each (CUDA's ``kernelParams``); and the block memory of every thread that may take
part, ``stride`` bytes each: its launch words, static then dynamic shared memory (16-byte aligned),
the frames of its block's threads and their warp-exchange buffers (64-byte aligned). A launch packs
the arguments into the buffer and makes one foreign call, which returns when every block has run.

:func:`fast_launcher` generates, for one ``kernel[blocks, threads]``, a launch whose checks are a few
type and dtype identities per argument; anything else goes to the general path, which checks every
argument and names the one that is wrong.
"""

from __future__ import annotations

import ctypes
import struct
import threading
from collections.abc import Callable
from functools import cache
from typing import Any, Protocol

import numpy as np

from . import abi, native_pool
from .checks import ErrorSlot
from .config import LaunchConfig
from .prints import HEADER, read_host_buffer
from .signature import Param
from .targets import ENV_GET, ENV_KEY


class NativeKernel(Protocol):
    """What a launch plan reads of a kernel's native code (:class:`.native.NativeKernel`, which
    imports this module)."""

    qualname: str
    function: Any  # the ctypes function of the entry
    entry: int  # its address
    frame_bytes: int
    exchange_bytes: int
    shared_bytes: int
    sites: list[dict[str, Any]]
    prints: dict[str, Any]
    packer: struct.Struct
    lib: Any  # the package's library (ctypes)
    cooperative: bool  # a grid-wide barrier: every block at once


WORD, LAUNCH_WORDS = abi.LAUNCH, abi.LAUNCH_WORDS  # the launch words
#: the words the pool turns into addresses in each participant's own memory
RELATIVE = sum(1 << WORD[name] for name in ("shared", "dynamic", "frames", "exchange"))
OWN_WORDS = 128  # a participant's launch words, at the start of its memory (pool.c: at most 16)
MAX_PARTICIPANTS = 0xFFFF
JOB = struct.Struct("<10q")  # entry, params, words, nwords, relative, blocks, chunk, participants, memory, stride
ERROR_AT = JOB.size  # the launch's error slot: i64[4] (site, two values)
TEMPLATE_AT = ERROR_AT + 32
VALUES_AT = TEMPLATE_AT + 8 * LAUNCH_WORDS
# $HYBRID_CPU_THREADS as targets.ENV_GET reads it (the same object while it is unchanged)
THREADS_KEY: Any = b"HYBRID_CPU_THREADS" if isinstance(ENV_KEY, bytes) else "HYBRID_CPU_THREADS"
# $HYBRID_SANITIZE: set, every CPU launch goes the general way (which runs it sanitized, see .sanitizer)
SANITIZE_KEY: Any = b"HYBRID_SANITIZE" if isinstance(ENV_KEY, bytes) else "HYBRID_SANITIZE"


def threads_env() -> Any:
    """The raw value of $HYBRID_CPU_THREADS."""
    return ENV_GET(THREADS_KEY)


def _round_up(n: int, to: int) -> int:
    return -(-n // to) * to


_memory = threading.local()  # each OS thread's block memory, shared by its plans


def thread_memory(size: int) -> np.ndarray:
    """At least ``size`` bytes of this thread's block memory, 64-byte aligned. It grows by doubling; a
    plan keeps the block it was made with, so a plan made before the thread's memory grew still
    has its own (launches from one thread run one at a time)."""
    block: np.ndarray | None = getattr(_memory, "block", None)
    if block is None or block.nbytes < size:
        size = max(size, 2 * block.nbytes if block is not None else 0)
        raw = np.zeros(size + 64, np.uint8)
        start = -raw.ctypes.data % 64
        block = _memory.block = raw[start : start + size]
    return block


class CpuLaunch:
    """One kernel's launches in one configuration, from the thread that made it."""

    def __init__(self, kernel: NativeKernel, config: LaunchConfig, threads: int, own_bytes: int = 0) -> None:
        """``own_bytes``: room at ``self.own_at`` in each participant's memory for the sanitizer's state,
        to which the ``sanitizer`` launch word then points (each participant's own)."""
        self.kernel = kernel
        pool = native_pool.current()
        grid, block = config.grid, config.block
        blocks = grid[0] * grid[1] * grid[2]
        participants = max(1, min(threads, blocks, MAX_PARTICIPANTS)) if pool is not None else 1
        if kernel.cooperative:  # a grid-wide barrier: every block on a thread of its own, at once
            if blocks > MAX_COOPERATIVE_BLOCKS:
                raise ValueError(
                    f"kernel {kernel.qualname} waits at a grid-wide barrier (cuda.cg.this_grid().sync()), so its "
                    f"blocks run at once, each on a thread of its own: at most {MAX_COOPERATIVE_BLOCKS} blocks on "
                    f"the CPU, not {blocks}. Launch fewer blocks (loop over the work in each thread)"
                )
            participants = blocks
        # a thread's blocks are its own part of the grid first (the pool's static split), then what others
        # leave, in chunks of at most a thirty-second of a thread's share (the pool halves them towards a
        # part's end, down to single blocks), so that no thread waits long for another at the end. A
        # launch wakes a thread per 1024 of its threads at most (a small launch is not worth waking the
        # pool for). Mandelbrot 256^2 (256 blocks) at 16 threads: 0.417 ms with chunks of at least 1024
        # threads (4 blocks), 0.357 ms with single blocks, C + OpenMP's dynamic rows 0.30-0.33 ms.
        if not kernel.cooperative:
            participants = max(1, min(participants, -(-blocks * config.threads_per_block // 1024)))
        chunk = max(1, min(blocks // (participants * 32), blocks // participants)) if not kernel.cooperative else 1
        self.workers = participants - 1  # the caller is one of them
        # a participant's memory: its launch words, shared memory, its threads' frames and exchange buffers
        n = config.threads_per_block
        self.dynamic_at = dynamic_at = OWN_WORDS + _round_up(kernel.shared_bytes, 16)
        frames_at = _round_up(dynamic_at + config.shared_bytes, 64)
        exchange_at = _round_up(frames_at + n * kernel.frame_bytes, 64)
        self.own_at = _round_up(exchange_at + n * kernel.exchange_bytes, 64)
        stride = self.stride = _round_up(self.own_at + own_bytes, 128)
        self.participants = participants
        self.memory = thread_memory(participants * stride)
        slots = kernel.packer.size // 8
        self.buffer = ctypes.create_string_buffer(VALUES_AT + 16 * slots)
        base = ctypes.addressof(self.buffer)
        params = base + VALUES_AT + 8 * slots
        self.printed = np.zeros(HEADER + kernel.prints["bytes"], np.uint8) if kernel.prints else None
        memory = self.memory.ctypes.data
        words: tuple[int, ...] = (
            *grid,
            *block,
            OWN_WORDS,
            dynamic_at,
            config.shared_bytes,
            base + ERROR_AT,
            frames_at,
            exchange_at,
            self.printed.ctypes.data if self.printed is not None else 0,
            self.own_at if own_bytes else 0,  # sanitized launches: the sanitizer's state
            0,  # cooperative launches: the grid barrier (below)
        )
        self.grid: np.ndarray | None = None
        if kernel.cooperative:
            self.grid = np.zeros(abi.GRID_BARRIER_WORDS + 8, np.int64)
            grid_at = self.grid.ctypes.data + (-self.grid.ctypes.data % 64)
            words = (*words[: WORD["grid_barrier"]], grid_at, *words[WORD["grid_barrier"] + 1 :])
        relative = RELATIVE | (1 << WORD["sanitizer"] if own_bytes else 0)
        job = (kernel.entry, params, base + TEMPLATE_AT, LAUNCH_WORDS, relative, blocks, chunk, participants)
        JOB.pack_into(self.buffer, 0, *job, memory, stride)
        struct.pack_into(f"<{LAUNCH_WORDS}q", self.buffer, TEMPLATE_AT, *words)
        struct.pack_into(f"<{slots}Q", self.buffer, VALUES_AT + 8 * slots, *range(base + VALUES_AT, params, 8))
        self.job = base
        self.pool = pool
        self.call: Callable[[int], int]
        if kernel.cooperative:
            self.workers = 0
            own_words = [
                (ctypes.c_int64 * LAUNCH_WORDS)(
                    *(w + (memory + k * stride) * (relative >> i & 1) for i, w in enumerate(words))
                )
                for k in range(blocks)
            ]
            self.cooperative_words = own_words
            self.call = _cooperative(kernel, params, own_words, words[WORD["grid_barrier"]])
        elif pool is not None:
            self.call = pool.launch
        else:  # a library without the pool, and none loaded that has one: all blocks on this thread
            own = (ctypes.c_int64 * LAUNCH_WORDS)(*(w + memory * (relative >> k & 1) for k, w in enumerate(words)))
            self.own_words = own
            entry, address = kernel.function, ctypes.addressof(own)
            self.call = lambda job: int(entry(params, address, 0, blocks))

    def start_workers(self) -> None:
        """Have the pool's workers this plan's launches share their blocks with."""
        if self.workers and self.pool is not None and self.pool.started < self.workers:
            self.pool.start(self.workers)

    def pack(self, flat: list[Any]) -> None:
        self.kernel.packer.pack_into(self.buffer, VALUES_AT, *flat)

    def run(self) -> None:
        """Run the grid on the parameters packed last; returns when every block has run (or raises what
        a failed check reports, after printing what the kernel printed before)."""
        self.start_workers()
        if self.call(self.job):
            self.fail()
        if self.printed is not None:
            self.print_records()

    def print_records(self) -> None:
        """Print what the launch's records say, and empty the buffer for the next launch."""
        assert self.printed is not None
        try:
            read_host_buffer(self.kernel.qualname, self.printed, self.kernel.prints)
        finally:
            self.printed[:HEADER] = 0

    def fail(self) -> None:
        """After a launch that failed a check: clear the error slot, print what was printed before, raise."""
        site, a, b = struct.unpack_from("<3q", self.buffer, ERROR_AT)
        struct.pack_into("<4q", self.buffer, ERROR_AT, 0, 0, 0, 0)
        if self.printed is not None:
            self.print_records()
        if site:
            raise ErrorSlot(self.kernel.qualname, 0, self.kernel.sites).exception(site, a, b)


#: the most blocks of a cooperative launch natively (each runs on an OS thread of its own)
MAX_COOPERATIVE_BLOCKS = 1024


def _cooperative(kernel: NativeKernel, params: int, own_words: list[Any], grid: int) -> Callable[[int], int]:
    """A cooperative launch's call: every block on a thread of its own at once (the caller runs block 0),
    meeting at the grid barrier ``grid`` (pool.c's ``hybrid_grid``, reset at each launch). A block that has
    returned leaves it (the others no longer wait for it, as on the Python path); one that fails a check
    gives up on the barrier, so that the others stop waiting; the launch returns the first failure."""
    lib = kernel.lib
    init, leave, abort = (getattr(lib, name) for name in (abi.GRID_INIT, abi.GRID_LEAVE, abi.GRID_ABORT))
    init.argtypes, init.restype = [ctypes.c_void_p, ctypes.c_int64], None
    for f in (leave, abort):
        f.argtypes, f.restype = [ctypes.c_void_p], None
    entry, blocks = kernel.function, len(own_words)

    def call(job: int) -> int:
        init(grid, blocks)
        status = [0] * blocks

        def run(k: int) -> None:
            status[k] = int(entry(params, ctypes.addressof(own_words[k]), k, k + 1))
            (abort if status[k] else leave)(grid)  # (a block that returned no longer takes part)

        threads = [threading.Thread(target=run, args=(k,), daemon=True) for k in range(1, blocks)]
        for t in threads:
            t.start()
        run(0)
        for t in threads:
            t.join()
        return next((s for s in status if s), 0)

    return call


@cache
def _data_offset() -> int | None:
    """Where a NumPy array object keeps the address of its data (the field NumPy's C API reads, in its
    stable ABI), checked against ``__array_interface__``; None if it is not there."""
    offset = object.__basicsize__
    whole = np.zeros(8, np.uint8)
    for a in (whole, whole[3:]):
        if ctypes.c_void_p.from_address(id(a) + offset).value != a.__array_interface__["data"][0]:
            return None
    return offset


def data_address(a: np.ndarray) -> int:
    """The address of an array's data (its first element)."""
    offset = _data_offset()
    if offset is not None and type(a) is np.ndarray:
        return int(ctypes.c_void_p.from_address(id(a) + offset).value or 0)
    return int(a.__array_interface__["data"][0])


_PY_TYPES = {"b": (bool,), "i": (int,), "u": (int,), "f": (float, int), "c": (complex, float, int)}


def fast_launcher(
    kernel: NativeKernel,
    config: LaunchConfig,
    params: list[Param],
    slow: Callable[[tuple[Any, ...]], None],
    env: Any,
    threads: int,
) -> Callable[[tuple[Any, ...]], None] | None:
    """``launch(args)`` for one configuration, made for the calling thread: plain scalars and NumPy arrays
    (of the parameter's dtype and dimensions, native byte order, writable where the kernel writes)
    are checked by type and packed; anything else, another thread, a changed $HYBRID_CPU_THREADS
    (or $HYBRID_DEVICE, unless ``env`` is None: device="cpu") or $HYBRID_SANITIZE set goes to
    ``slow(args)``. ``threads``: what $HYBRID_CPU_THREADS asks for now. None for kernels with struct
    parameters (the general path packs those)."""
    if any(p.kind in ("struct", "tuple") for p in params):
        return None
    plan = CpuLaunch(kernel, config, threads)
    offset = _data_offset()
    names = [f"a{i}" for i in range(len(params))]
    namespace: dict[str, Any] = {
        "slow": slow,
        "env_get": ENV_GET,
        "ENV_KEY": ENV_KEY,
        "THREADS_KEY": THREADS_KEY,
        "SANITIZE_KEY": SANITIZE_KEY,
        "env_value": env,
        "threads_value": threads_env(),
        "get_ident": threading.get_ident,
        "owner": threading.get_ident(),
        "ndarray": np.ndarray,
        "data_at": ctypes.c_void_p.from_address,
        "pack": kernel.packer.pack_into,
        "buf": plan.buffer,
        "struct_error": struct.error,
        "plan": plan,
        "pool": plan.pool,
        "call": plan.call,
        "job": plan.job,
    }
    body = []
    if env is not None:
        body += ["if env_get(ENV_KEY) is not env_value:", "    return slow(args)"]
    body += [
        "if env_get(THREADS_KEY) is not threads_value or get_ident() != owner:",
        "    return slow(args)",
        "if env_get(SANITIZE_KEY) is not None:",
        "    return slow(args)",
        f"if len(args) != {len(params)}:",
        "    return slow(args)",
    ]
    if names:
        body.append(f"{', '.join(names)}{',' if len(names) == 1 else ''} = args")
    values: list[str] = []
    for i, (p, a) in enumerate(zip(params, names)):
        if p.kind == "enum":
            namespace[f"cls{i}"] = p.cls
            body += [f"if type({a}) is not cls{i}:", "    return slow(args)"]
            values.append(a)
        elif p.kind == "scalar":
            namespace[f"np{i}"] = p.dtype.type
            accepted = [f"type({a}) is {t.__name__}" for t in _PY_TYPES[p.dtype.kind]] + [f"type({a}) is np{i}"]
            body += [f"if not ({' or '.join(accepted)}):", "    return slow(args)"]
            values.append(f"{a}.real, {a}.imag" if p.dtype.kind == "c" else a)
        else:
            namespace[f"dt{i}"] = p.dtype
            item = p.dtype.itemsize
            shape, strides = [f"n{i}_{d}" for d in range(p.ndim)], [f"s{i}_{d}" for d in range(p.ndim)]
            body += [f"if type({a}) is not ndarray or {a}.dtype is not dt{i}:", "    return slow(args)"]
            if p.ndim:
                body += [f"sh, st = {a}.shape, {a}.strides", f"if len(sh) != {p.ndim}:", "    return slow(args)"]
                body += [f"{', '.join(shape)}, = sh", f"{', '.join(strides)}, = st"]
                if item > 1:  # strides must be multiples of the item size (in elements for the kernel)
                    test = f"({' | '.join(strides)}) & {item - 1}" if item & (item - 1) == 0 else None
                    if test is None:
                        test = " or ".join(f"{s} % {item}" for s in strides)
                    body += [f"if {test}:", "    return slow(args)"]
            else:
                body += [f"if {a}.ndim:", "    return slow(args)"]
            if p.writes:
                body += [f"if not {a}.flags.writeable:", "    return slow(args)"]
            data = f"data_at(id({a}) + {offset}).value" if offset is not None else f"{a}.__array_interface__['data'][0]"
            values += [data, *shape, *(s if item == 1 else f"{s} // {item}" for s in strides)]
    body += [
        "try:",
        f"    pack(buf, {VALUES_AT}, {', '.join(values)})" if values else "    pass",
        "except (struct_error, OverflowError, TypeError):",
        "    return slow(args)",
    ]
    if plan.workers and plan.pool is not None:
        body += [f"if pool.started < {plan.workers}:", f"    pool.start({plan.workers})"]
    body += ["if call(job):", "    plan.fail()"]
    if plan.printed is not None:
        body.append("plan.print_records()")
    source = "def launch(args):\n" + "".join(f"    {line}\n" for line in body)
    exec(source, namespace)  # noqa: S102 - generated from the kernel's own signature
    launch: Callable[[tuple[Any, ...]], None] = namespace["launch"]
    return launch
