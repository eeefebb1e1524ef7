"""``gpu`` intrinsics. Compiled kernels get device instructions; on the CPU path these functions
read the simulated thread's position, so the same Python function runs in both places."""

from __future__ import annotations

import sys
import threading
from typing import Any

import numpy as np

from ._cpu_state import current
from .structs import StructArray, is_struct

_atomic_lock = threading.Lock()


def thread_idx_x() -> int:
    return current().tid[0]


def thread_idx_y() -> int:
    return current().tid[1]


def thread_idx_z() -> int:
    return current().tid[2]


def block_idx_x() -> int:
    return current().bid[0]


def block_idx_y() -> int:
    return current().bid[1]


def block_idx_z() -> int:
    return current().bid[2]


def block_dim_x() -> int:
    return current().bdim[0]


def block_dim_y() -> int:
    return current().bdim[1]


def block_dim_z() -> int:
    return current().bdim[2]


def grid_dim_x() -> int:
    return current().gdim[0]


def grid_dim_y() -> int:
    return current().gdim[1]


def grid_dim_z() -> int:
    return current().gdim[2]


def global_tid_x() -> int:
    s = current()
    return s.bid[0] * s.bdim[0] + s.tid[0]


def global_tid_y() -> int:
    s = current()
    return s.bid[1] * s.bdim[1] + s.tid[1]


def global_tid_z() -> int:
    s = current()
    return s.bid[2] * s.bdim[2] + s.tid[2]


def global_size_x() -> int:
    s = current()
    return s.gdim[0] * s.bdim[0]


def global_size_y() -> int:
    s = current()
    return s.gdim[1] * s.bdim[1]


def global_size_z() -> int:
    s = current()
    return s.gdim[2] * s.bdim[2]


def lane_id() -> int:
    return current().linear % 32


def lanemask_lt() -> int:
    """The lanes below this one, as a mask (CUDA's ``%lanemask_lt``)."""
    return (1 << lane_id()) - 1


def threadfence() -> None:
    """Order this thread's memory writes before later ones, device-wide (a no-op on the CPU path)."""


def _exchange(value: Any) -> list[Any]:
    """Every lane of this warp posts a value; all get the values of the lanes that posted from the same
    place in the kernel (None for the others, and for lanes that do not exist). Lanes that diverged meet
    at different calls, as a GPU's warp runs each side of a branch with its own lanes: in ``if i % 2:
    m = cuda.activemask() else: m = cuda.activemask()`` each side sees its own half of the warp."""
    state = current()
    warp = state.block.warps[state.linear // 32]
    site = _call_site()
    warp.values[state.linear % 32] = (site, value)
    warp.barrier.wait()
    values = [v[1] if v is not None and v[0] == site else None for v in warp.values]
    warp.barrier.wait()
    return values


def _call_site() -> tuple[Any, int]:
    """The kernel's instruction that called a warp function (the first frame outside this package)."""
    frame = sys._getframe(2)
    while frame.f_back is not None and frame.f_globals.get("__name__", "").startswith("hybrid_runtime."):
        frame = frame.f_back
    return frame.f_code, frame.f_lasti


FULL = 0xFFFFFFFF


def _in(mask: int, lane: int) -> bool:
    """Whether ``lane`` is one of the lanes ``mask`` names (CUDA's masks of the lanes that take part)."""
    return bool((int(mask) >> lane) & 1)


def _shuffle(value: Any, source: int, mask: int = FULL) -> Any:
    """The value of lane ``source`` (this lane's own where there is none, it did not take part, or it is not
    in ``mask``: CUDA's partial mask, the lanes that take part)."""
    values = _exchange(value)
    source = int(source)  # (a NumPy integer would take the mask's Python int into its own type)
    got = values[source] if 0 <= source < 32 and _in(mask, source) else None
    return value if got is None else got


def shfl_down(value: Any, delta: int, width: int | None = None, _mask: int = FULL) -> Any:
    """The value of lane ``lane_id() + delta`` (this lane's own past the end of the warp, or of its
    segment of ``width`` lanes)."""
    lane = lane_id()
    if width is not None:
        return _shuffle(value, _segment_lane("down", lane, delta, width), _mask)
    return _shuffle(value, lane + delta if lane + delta < 32 else lane, _mask)


def shfl_up(value: Any, delta: int, width: int | None = None, _mask: int = FULL) -> Any:
    """The value of lane ``lane_id() - delta`` (this lane's own before the start of the warp, or of its
    segment of ``width`` lanes)."""
    lane = lane_id()
    if width is not None:
        return _shuffle(value, _segment_lane("up", lane, delta, width), _mask)
    return _shuffle(value, lane - delta if lane - delta >= 0 else lane, _mask)


def shfl_xor(value: Any, mask: int, width: int | None = None, _mask: int = FULL) -> Any:
    """The value of lane ``lane_id() ^ mask`` (with ``width``: this lane's own where that lane is in a
    later segment)."""
    if width is not None:
        return _shuffle(value, _segment_lane("xor", lane_id(), mask, width), _mask)
    return _shuffle(value, (lane_id() ^ mask) & 31, _mask)


def shfl_idx(value: Any, lane: int, width: int | None = None, _mask: int = FULL) -> Any:
    """The value of lane ``lane`` (with ``width``: lane ``lane % width`` of this lane's segment)."""
    if width is not None:
        return _shuffle(value, _segment_lane("idx", lane_id(), lane, width), _mask)
    return _shuffle(value, lane & 31, _mask)


def _segment_lane(mode: str, lane: int, b: int, width: int) -> int:
    """The lane CUDA's ``__shfl_*_sync(mask, v, b, width)`` reads (PTX ``shfl.sync`` with segments of
    ``width`` lanes): this lane's own where the source is outside the segment."""
    if width not in (1, 2, 4, 8, 16, 32):
        raise ValueError(f"a shuffle's width must be a power of two from 1 to 32, not {width}")
    b = int(b) & 0xFFFFFFFF  # PTX reads it as a u32
    low = lane & ~(width - 1)
    high = low | (width - 1)
    if mode == "up":
        j = lane - b
        return j if j >= low else lane
    if mode == "down":
        j = lane + b
    elif mode == "xor":
        j = lane ^ b
    else:
        j = low | (b & (width - 1))
    return j if j <= high else lane


def ballot(predicate: Any, _mask: int = FULL) -> int:
    """A 32-bit mask with bit k set when lane k's predicate is true (and lane k is in ``_mask``)."""
    values = _exchange(bool(predicate))
    return sum(1 << k for k, v in enumerate(values) if v and _in(_mask, k))


def match_any(value: Any, _mask: int = FULL) -> int:
    """A 32-bit mask of the lanes whose ``value`` has this lane's bits (CUDA's ``__match_any_sync``: bits,
    so 0.0 and -0.0 differ and a NaN matches the same NaN)."""
    values = _exchange(_bit_key(value))
    mine = values[lane_id()]
    return sum(1 << k for k, v in enumerate(values) if v is not None and v == mine and _in(_mask, k))


def _bit_key(value: Any) -> tuple[Any, ...]:
    """A number's bits, as the devices compare them (Python numbers as kernels hold them: i64, f64)."""
    if isinstance(value, np.generic):
        return (value.dtype.str, value.tobytes())
    if isinstance(value, float):
        return ("<f8", np.float64(value).tobytes())
    return ("<i8", int(value) & ((1 << 64) - 1))


def all_(predicate: Any, _mask: int = FULL) -> bool:
    return all(v for k, v in enumerate(_exchange(bool(predicate))) if v is not None and _in(_mask, k))


def any_(predicate: Any, _mask: int = FULL) -> bool:
    return any(v for k, v in enumerate(_exchange(bool(predicate))) if v is not None and _in(_mask, k))


def _bits(x: Any) -> tuple[int, int, Any]:
    """An integer's value as unsigned bits, its width, and what makes a result of its type (Python ints:
    64 bits, as kernels hold them, and a Python int back)."""
    if isinstance(x, np.integer):
        width = x.dtype.itemsize * 8
        return int(x) & ((1 << width) - 1), width, lambda v: np.array(v).astype(x.dtype)[()]
    return int(x) & ((1 << 64) - 1), 64, lambda v: v - (1 << 64) if v >= 1 << 63 else v


def popc(x: Any) -> Any:
    """The number of bits set in ``x`` (CUDA's ``__popc``), of ``x``'s type."""
    v, _, make = _bits(x)
    return make(bin(v).count("1"))


def clz(x: Any) -> Any:
    """The number of leading zero bits of ``x`` in its width (CUDA's ``__clz``), of ``x``'s type."""
    v, width, make = _bits(x)
    return make(width - v.bit_length())


def ffs(x: Any) -> Any:
    """The 1-based position of the lowest bit set in ``x``, 0 for 0 (CUDA's ``__ffs``), of ``x``'s type."""
    v, _, make = _bits(x)
    return make((v & -v).bit_length())


def brev(x: Any) -> Any:
    """``x``'s bits in reverse order, in its width (CUDA's ``__brev``), of ``x``'s type."""
    v, width, make = _bits(x)
    return make(int(format(v, f"0{width}b")[::-1], 2))


def _block_vote(predicate: Any) -> list[bool]:
    """Every thread of the block posts a predicate at a barrier; all get the block's predicates."""
    state = current()
    block = state.block
    state.votes += 1
    key = ("vote", state.votes)  # each thread's k-th vote is the block's k-th
    with block.lock:
        block.shared.setdefault(key, {})[state.linear] = bool(predicate)
    block.barrier.wait()
    votes = list(block.shared[key].values())
    block.barrier.wait()
    return votes


def syncthreads_count(predicate: Any) -> int:
    """A barrier that counts the threads of the block whose predicate is true (CUDA's ``__syncthreads_count``)."""
    return sum(_block_vote(predicate))


def syncthreads_and(predicate: Any) -> int:
    """A barrier: 1 if every thread's predicate is true, else 0 (CUDA's ``__syncthreads_and``)."""
    return int(all(_block_vote(predicate)))


def syncthreads_or(predicate: Any) -> int:
    """A barrier: 1 if any thread's predicate is true, else 0 (CUDA's ``__syncthreads_or``)."""
    return int(any(_block_vote(predicate)))


def grid_sync() -> None:
    """A barrier of every thread of the grid (numba's ``cuda.cg.this_grid().sync()``): the launch runs all
    its blocks at once (a cooperative launch; on the Python path every thread of the grid takes turns)."""
    grid = current().block.grid
    if grid is None:  # pragma: no cover - run_grid makes every launch of such a kernel cooperative
        raise RuntimeError("grid_sync(): this launch does not run its blocks at once")
    grid.wait()


def syncthreads() -> None:
    """Wait until every thread of the block has arrived (threads that have returned count as arrived)."""
    current().block.barrier.wait()


def grid(ndim: int) -> Any:
    """``global_tid_x()`` for ``ndim`` 1, else the tuple of the global thread indices along x, y(, z)."""
    s = current()
    index = tuple(s.bid[k] * s.bdim[k] + s.tid[k] for k in range(ndim))
    return index[0] if ndim == 1 else index


def gridsize(ndim: int) -> Any:
    """``global_size_x()`` for ``ndim`` 1, else the tuple of the grid's sizes in threads along x, y(, z)."""
    s = current()
    sizes = tuple(s.gdim[k] * s.bdim[k] for k in range(ndim))
    return sizes[0] if ndim == 1 else sizes


def local_array(dtype: Any, shape: int | tuple[int, ...]) -> Any:
    """The calling thread's own array of a compile-time shape, zero-filled (a new one at each call).
    ``dtype`` is a scalar type or a :func:`~hybrid_runtime.struct` class."""
    if is_struct(dtype):
        return StructArray(np.zeros(shape, dtype=dtype.dtype), dtype)
    return np.zeros(shape, dtype=dtype)


def shared_array(dtype: Any, shape: int | tuple[int, ...], _depth: int = 1) -> Any:
    """An array shared by the threads of a block; its shape must be a compile-time constant. ``dtype``
    is a scalar type or a :func:`~hybrid_runtime.struct` class."""
    caller = sys._getframe(_depth)
    key = (caller.f_code, caller.f_lasti)
    block = current().block
    with block.lock:
        arr = block.shared.get(key)
        if arr is None:
            if is_struct(dtype):
                arr = StructArray(np.zeros(shape, dtype=dtype.dtype), dtype)
            else:
                arr = np.zeros(shape, dtype=dtype)
            block.shared[key] = arr
    return arr


def dynamic_shared_array(dtype: Any) -> Any:
    """The block's dynamic shared memory (``shared_bytes=`` at launch) as a 1-D array of ``dtype``. Every
    call returns a view of the same memory, as in CUDA."""
    buffer = current().block.dynamic
    np_dtype = dtype.dtype if is_struct(dtype) else np.dtype(dtype)
    arr = np.frombuffer(buffer, dtype=np_dtype, count=len(buffer) // np_dtype.itemsize)
    return StructArray(arr, dtype) if is_struct(dtype) else arr


def _rmw(array: np.ndarray, index: Any, op: Any, value: Any) -> Any:
    with _atomic_lock:
        old = array[index]
        array[index] = op(old, array.dtype.type(value))
    return old


def atomic_add(array: np.ndarray, index: Any, value: Any) -> Any:
    """``array[index] += value`` atomically; returns the old value."""
    return _rmw(array, index, lambda old, v: old + v, value)


def atomic_min(array: np.ndarray, index: Any, value: Any) -> Any:
    return _rmw(array, index, lambda old, v: np.fmin(old, v), value)


def atomic_max(array: np.ndarray, index: Any, value: Any) -> Any:
    return _rmw(array, index, lambda old, v: np.fmax(old, v), value)


def atomic_max_ordered(array: np.ndarray, index: Any, value: Any) -> Any:
    """numba's ``cuda.atomic.max``: ``value`` is stored where it compares larger (so a NaN already stored
    stays, and a NaN value changes nothing); returns the old value."""
    return _rmw(array, index, lambda old, v: v if old < v else old, value)


def atomic_min_ordered(array: np.ndarray, index: Any, value: Any) -> Any:
    """numba's ``cuda.atomic.min``: ``value`` is stored where it compares smaller."""
    return _rmw(array, index, lambda old, v: v if old > v else old, value)


def atomic_exch(array: np.ndarray, index: Any, value: Any) -> Any:
    return _rmw(array, index, lambda old, v: v, value)


def atomic_sub(array: np.ndarray, index: Any, value: Any) -> Any:
    """``array[index] -= value`` atomically; returns the old value."""
    return _rmw(array, index, lambda old, v: old - v, value)


def atomic_and(array: np.ndarray, index: Any, value: Any) -> Any:
    """``array[index] &= value`` atomically (integer arrays); returns the old value."""
    return _rmw(array, index, lambda old, v: old & v, value)


def atomic_or(array: np.ndarray, index: Any, value: Any) -> Any:
    return _rmw(array, index, lambda old, v: old | v, value)


def atomic_xor(array: np.ndarray, index: Any, value: Any) -> Any:
    return _rmw(array, index, lambda old, v: old ^ v, value)


def atomic_inc(array: np.ndarray, index: Any, value: Any) -> Any:
    """CUDA's ``atomicInc`` (u32, u64 arrays): ``old + 1``, or 0 once ``old >= value``; returns the old value."""
    return _rmw(array, index, lambda old, v: old.dtype.type(0) if old >= v else old + old.dtype.type(1), value)


def atomic_dec(array: np.ndarray, index: Any, value: Any) -> Any:
    """CUDA's ``atomicDec`` (u32, u64 arrays): ``old - 1``, or ``value`` when ``old`` is 0 or above
    ``value``; returns the old value."""
    return _rmw(array, index, lambda old, v: v if old == 0 or old > v else old - old.dtype.type(1), value)


def atomic_cas(array: np.ndarray, index: Any, expected: Any, value: Any) -> Any:
    """Store ``value`` if the element equals ``expected``; returns the old value."""
    with _atomic_lock:
        old = array[index]
        if old == array.dtype.type(expected):
            array[index] = array.dtype.type(value)
    return old
