"""numba.cuda's spelling of the ``gpu`` intrinsics, so that a numba kernel ports by changing its
decorator, its annotations and one import (``from hybrid_runtime import cuda``). The compiler
translates each name to its ``gpu`` intrinsic; on the CPU path these functions run.

Warp-level functions take the full mask (0xFFFFFFFF, or ``activemask()``) only: all lanes take part.
numba's host API (``cuda.to_device``, ``cuda.stream()``, ``cuda.event()``...) is here too
(:mod:`.numba_host`): on the CUDA device, or on the CPU where there is none.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from . import gpu
from ._cpu_state import current
from .libdevice import fp16, libdevice  # noqa: E402, F401 - numba.cuda's libdevice and fp16 math, NumPy's functions
from .numba_host import (  # noqa: F401 - numba's host API: on the CUDA device, or on the CPU without one
    close,
    default_stream,
    device_array,
    device_array_like,
    event,
    event_elapsed_time,
    get_current_device,
    gpus,
    is_available,
    pinned,
    pinned_array,
    select_device,
    stream,
    synchronize,
    to_device,
)
from .python_math import ieee_math
from .types import (  # noqa: F401 - numba.cuda's type names (`from numba.cuda import float32, void`)
    b1,
    boolean,
    byte,
    c8,
    c16,
    complex64,
    complex128,
    double,
    f4,
    f8,
    float16,
    float32,
    float64,
    float_,
    i1,
    i2,
    i4,
    int8,
    int16,
    int32,
    int64,
    intp,
    u1,
    u2,
    u4,
    uint8,
    uint16,
    uint32,
    uint64,
    uintp,
    void,
)

i8, u8 = int64, uint64  # numba's meaning (hybrid_runtime.i8 and u8 are the 8-bit types)
#: numba.cuda's submodules that kernels import from: `from numba.cuda.random import ...`, `numba.cuda.types`
_SUBMODULES = {"random": "hybrid_runtime.random", "types": "hybrid_runtime.types"}


def _submodules() -> None:
    import importlib
    import sys
    import types as pytypes

    for name, target in _SUBMODULES.items():
        module = importlib.import_module(target)
        sys.modules[f"{__name__}.{name}"] = module
        globals()[name] = module
    core = pytypes.ModuleType(f"{__name__}.core", "numba.cuda.core: its config flags (hybrid_runtime.numba_config)")
    core.config = importlib.import_module("hybrid_runtime.numba_config")  # type: ignore[attr-defined]
    sys.modules[core.__name__] = core
    sys.modules[f"{core.__name__}.config"] = core.config
    globals()["core"] = core


warpsize = 32
grid = gpu.grid
gridsize = gpu.gridsize
syncthreads = gpu.syncthreads
syncthreads_count = gpu.syncthreads_count
syncthreads_and = gpu.syncthreads_and
syncthreads_or = gpu.syncthreads_or
threadfence = gpu.threadfence
threadfence_block = gpu.threadfence
threadfence_system = gpu.threadfence
lanemask_lt = gpu.lanemask_lt
popc = gpu.popc
clz = gpu.clz
ffs = gpu.ffs
brev = gpu.brev


def fma(a: Any, b: Any, c: Any) -> float:
    """``a * b + c`` rounded once (numba's ``cuda.fma``; kernels compile it as ``math.fma``)."""
    x, y, z = float(a), float(b), float(c)
    if hasattr(math, "fma"):  # Python 3.13+
        return float(ieee_math.fma(x, y, z))
    if all(map(math.isfinite, (x, y, z))):
        exact = Fraction(x) * Fraction(y) + Fraction(z)
        try:
            return float(exact) if exact != 0 else (x * y) + z  # (the sign of an exact zero as IEEE's)
        except OverflowError:
            return math.copysign(math.inf, exact)
    return x * y + z  # infinities and NaN: what the fused operation gives too


def cbrt(a: Any) -> float:
    """The cube root (numba's ``cuda.cbrt``; kernels compile it as ``math.cbrt``: the C library's, as
    native code calls it)."""
    return float(ieee_math.cbrt(float(a))) if hasattr(math, "cbrt") else float(np.cbrt(np.float64(a)))


class _Dim3:
    """``threadIdx``, ``blockIdx``, ``blockDim``, ``gridDim``: read the simulated thread's position."""

    __slots__ = ("_field",)

    def __init__(self, field: str) -> None:
        self._field = field

    @property
    def x(self) -> int:
        return int(getattr(current(), self._field)[0])

    @property
    def y(self) -> int:
        return int(getattr(current(), self._field)[1])

    @property
    def z(self) -> int:
        return int(getattr(current(), self._field)[2])


threadIdx = _Dim3("tid")  # noqa: N816 - numba's names
blockIdx = _Dim3("bid")  # noqa: N816
blockDim = _Dim3("bdim")  # noqa: N816
gridDim = _Dim3("gdim")  # noqa: N816


def __getattr__(name: str) -> Any:
    if name == "laneid":  # read as a value, per thread
        return gpu.lane_id()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class shared:  # noqa: N801 - numba's names
    @staticmethod
    def array(shape: Any, dtype: Any) -> Any:
        """``cuda.shared.array(shape, dtype)``: ``gpu.shared_array(dtype, shape)``; a shape of 0 is numba's
        dynamic shared memory (``gpu.dynamic_shared_array(dtype)``: the launch's ``shared_bytes``)."""
        if isinstance(shape, int) and shape == 0:
            return gpu.dynamic_shared_array(dtype)
        return gpu.shared_array(dtype, shape, _depth=2)


class local:  # noqa: N801
    @staticmethod
    def array(shape: Any, dtype: Any) -> Any:
        """``cuda.local.array(shape, dtype)``: ``gpu.local_array(dtype, shape)``."""
        return gpu.local_array(dtype, shape)


class const:  # noqa: N801
    @staticmethod
    def array_like(table: Any) -> Any:
        """``cuda.const.array_like(TABLE)``: the module constant ``TABLE`` itself."""
        return table


class _GridGroup:
    """numba's grid group (``cuda.cg.this_grid()``): ``sync()`` is the grid-wide barrier."""

    @staticmethod
    def sync() -> None:
        gpu.grid_sync()


class cg:  # noqa: N801 - numba's cooperative groups
    @staticmethod
    def this_grid() -> _GridGroup:
        return _GridGroup()


class atomic:  # noqa: N801
    add = staticmethod(gpu.atomic_add)
    max = staticmethod(gpu.atomic_max_ordered)  # numba's: a NaN stored stays, a NaN value changes nothing
    min = staticmethod(gpu.atomic_min_ordered)
    nanmax = staticmethod(gpu.atomic_max)  # the language's float max and min ignore NaN, as numba's nan* do
    nanmin = staticmethod(gpu.atomic_min)
    exch = staticmethod(gpu.atomic_exch)
    cas = staticmethod(gpu.atomic_cas)

    @staticmethod
    def compare_and_swap(array: Any, old: Any, value: Any) -> Any:
        """numba's ``compare_and_swap``: ``atomic.cas`` at the array's first element."""
        return gpu.atomic_cas(array, 0, old, value)

    sub = staticmethod(gpu.atomic_sub)
    and_ = staticmethod(gpu.atomic_and)
    or_ = staticmethod(gpu.atomic_or)
    xor = staticmethod(gpu.atomic_xor)
    inc = staticmethod(gpu.atomic_inc)
    dec = staticmethod(gpu.atomic_dec)


_NO_OPS = ("lineinfo", "opt", "cache", "max_registers", "inline", "link", "boundscheck")


def jit(func: Any = None, *, device: bool = False, **options: Any) -> Any:
    """numba's ``@cuda.jit``: a kernel (its parameters' types from numba's eager signature, a string or a
    list of them, else from annotations), or with ``device=True`` a helper, which stays the plain
    function. numba's options that change nothing here (``lineinfo``, ``opt``, ``cache``,
    ``max_registers``, ``inline``, ``link``, ``boundscheck``) are accepted; ``fastmath`` and ``debug``
    are the kernel's."""
    from .kernel import Kernel

    kept = {k: v for k, v in options.items() if k not in _NO_OPS}
    if func is not None and not callable(func):  # numba's eager signature(s): the parameters' types
        if device:  # a helper: typed where it is called, as the build reads it
            return lambda f: f
        return lambda f: Kernel(f, {**kept, "signatures": _signatures(f, func)})
    if func is None:
        return lambda f: f if device else _kernel(f, kept)
    return func if device else _kernel(func, kept)


def _kernel(func: Any, options: dict[str, Any]) -> Any:
    """A kernel, typed by its annotations, or at its launches (numba's lazy typing: see :mod:`.lazy`)."""
    from .kernel import Kernel
    from .lazy import LazyKernel, unannotated

    return LazyKernel(func, options) if unannotated(func) else Kernel(func, options)


def _signatures(func: Any, given: Any) -> list[Any]:
    """The eager signature(s) ``@cuda.jit(given)`` names: strings read as they are; types written as Python
    (``void(float32[:])``, ``(float32[:], int32)``: numba's objects) read from the decorator's source, as
    the build reads them."""
    from .numba_signatures import SignatureError, decorator_argument, parse_signatures

    if isinstance(given, tuple):  # (float32[:], int32): one signature, its parameters' types
        given = decorator_argument(func) or "(" + "".join(f"{g}, " for g in given) + ")"
    if not (isinstance(given, str) or (isinstance(given, list) and all(isinstance(g, str) for g in given))):
        given = decorator_argument(func) or given
    try:
        return parse_signatures(given, func.__code__.co_argcount)
    except SignatureError as exc:
        raise TypeError(f"@cuda.jit({given!r}) on {func.__qualname__}: {exc.message} ({exc.hint})") from None


def activemask() -> int:
    """The mask of this warp's lanes (all 32 in a full warp): warp functions run with the warp converged."""
    return gpu.ballot(True)


def syncwarp(mask: int = 0xFFFFFFFF) -> None:
    """CUDA's ``__syncwarp(mask)``: the lanes of ``mask`` meet."""
    gpu.all_(True, _mask=mask)


# numba's warp functions: ``mask`` names the lanes that take part (CUDA's meaning; every device computes the
# same: a shuffle whose source lane is not in the mask keeps this lane's value, a vote counts the mask's lanes)
def shfl_down_sync(mask: int, value: Any, delta: int) -> Any:
    return gpu.shfl_down(value, delta, _mask=mask)


def shfl_up_sync(mask: int, value: Any, delta: int) -> Any:
    return gpu.shfl_up(value, delta, _mask=mask)


def shfl_xor_sync(mask: int, value: Any, lane_mask: int) -> Any:
    return gpu.shfl_xor(value, lane_mask, _mask=mask)


def shfl_sync(mask: int, value: Any, src_lane: int) -> Any:
    return gpu.shfl_idx(value, src_lane, _mask=mask)


def ballot_sync(mask: int, predicate: Any) -> int:
    return gpu.ballot(predicate, _mask=mask)


def match_any_sync(mask: int, value: Any) -> int:
    """The lanes of ``mask`` whose ``value`` has this lane's bits (CUDA's ``__match_any_sync``)."""
    return gpu.match_any(value, _mask=mask)


def match_all_sync(mask: int, value: Any) -> tuple[int, bool]:
    """(the lanes of ``mask``, True) where each of them has the same bits of ``value``, else (0, False)
    (CUDA's ``__match_all_sync``; the whole warp's mask: its lanes)."""
    lanes = gpu.match_any(value, _mask=mask)
    active = gpu.ballot(True) if int(mask) & 0xFFFFFFFF == 0xFFFFFFFF else int(mask) & 0xFFFFFFFF
    return active * (lanes == active), lanes == active


def all_sync(mask: int, predicate: Any) -> bool:
    return gpu.all_(predicate, _mask=mask)


def any_sync(mask: int, predicate: Any) -> bool:
    return gpu.any_(predicate, _mask=mask)


def eq_sync(mask: int, predicate: Any) -> bool:
    """numba's ``eq_sync``: whether ``predicate`` is the same in every lane of ``mask`` (all true, or all
    false)."""
    return gpu.all_(predicate, _mask=mask) or not gpu.any_(predicate, _mask=mask)


_submodules()
