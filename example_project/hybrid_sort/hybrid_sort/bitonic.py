"""Bitonic sort: one generic GPU kernel per pass, and a CPU driver built from the same helpers.

The helpers are ordinary Python: the kernel calls them once per thread with scalars; the CPU driver
calls them once per pass with whole NumPy arrays (they use only operations that work on both).
"""

from __future__ import annotations

import enum
from typing import TypeVar

import numpy as np
from hybrid_runtime import Array, CpuDevice, f32, gpu, i32, i64, kernel, select_device, struct, to_device, u32

K = TypeVar("K")
THREADS = 256


class SortOrder(enum.IntEnum):
    ASCENDING = 0
    DESCENDING = 1


@struct
class Pair:
    """The two positions one compare-and-swap looks at (``lo < hi``)."""

    lo: i64
    hi: i64


def partner(i: i64, j: i64) -> Pair:
    """The ``i``-th compare-and-swap of a pass with stride ``j``: positions ``lo`` and ``lo + j``."""
    lo = 2 * j * (i // j) + i % j
    return Pair(lo, lo + j)


def flip(order: SortOrder) -> SortOrder:
    match order:
        case SortOrder.ASCENDING:
            return SortOrder.DESCENDING
        case _:
            return SortOrder.ASCENDING


def out_of_order(a: K, b: K, order: SortOrder) -> bool:
    """Must ``a`` (at the lower position) and ``b`` swap to be in ``order``?"""
    match order:
        case SortOrder.ASCENDING:
            return a > b
        case SortOrder.DESCENDING:
            return a < b
        case _:
            return False


@kernel(specialize={"K": [f32, u32, i32]})
def bitonic_pass(keys: Array[K], j: i64, k: i64, order: SortOrder):
    """One pass of the bitonic network: merge blocks of size ``k`` with stride ``j``."""
    i = gpu.global_tid_x()
    if i < len(keys) // 2:
        p = partner(i, j)
        block_order = order if (p.lo & k) == 0 else flip(order)  # blocks alternate direction
        a = keys[p.lo]
        b = keys[p.hi]
        if out_of_order(a, b, block_order):
            keys[p.lo] = b
            keys[p.hi] = a


def _passes(n: int) -> list[tuple[int, int]]:
    """(j, k) of every pass for ``n`` keys, in order."""
    out = []
    k = 2
    while k <= n:
        j = k // 2
        while j >= 1:
            out.append((j, k))
            j //= 2
        k *= 2
    return out


def _check(keys: np.ndarray) -> None:
    n = len(keys)
    if keys.ndim != 1 or n & (n - 1):
        raise ValueError(f"bitonic sort needs a 1-D array whose length is a power of two, got shape {keys.shape}")


def sort_cpu(keys: np.ndarray, order: SortOrder = SortOrder.ASCENDING) -> np.ndarray:
    """Sort ``keys`` in place on the CPU: every pass applies :func:`partner` and :func:`out_of_order`
    to all of its compare-and-swaps at once, as NumPy arrays."""
    _check(keys)
    i = np.arange(len(keys) // 2, dtype=np.int64)
    for j, k in _passes(len(keys)):
        p = partner(i, np.int64(j))
        ascending = (p.lo & k) == 0
        for blocks, block_order in ((ascending, order), (~ascending, flip(order))):
            lo, hi = p.lo[blocks], p.hi[blocks]
            a, b = keys[lo], keys[hi]
            swap = out_of_order(a, b, block_order)
            keys[lo[swap]], keys[hi[swap]] = b[swap], a[swap]
    return keys


def sort(keys: np.ndarray, order: SortOrder = SortOrder.ASCENDING, device: str | None = None) -> np.ndarray:
    """Sort ``keys`` (f32, u32 or i32; length a power of two) in place: one :func:`bitonic_pass` launch per
    pass, on the GPU or natively on the CPU; on a machine the wheel has no native code for, with
    :func:`sort_cpu`."""
    _check(keys)
    if isinstance(select_device(device), CpuDevice) and bitonic_pass.native_code() is None:
        return sort_cpu(keys, order)
    return sort_kernel(keys, order, device)


def sort_kernel(keys: np.ndarray, order: SortOrder, device: str | None) -> np.ndarray:
    """Every pass through the kernel (``device="cpu-python"``: its own Python, for small inputs only)."""
    on_cpu = isinstance(select_device(device), CpuDevice)
    data = keys if on_cpu else to_device(keys, device)
    blocks = max(1, -(-(len(keys) // 2) // THREADS))
    for j, k in _passes(len(keys)):
        bitonic_pass.launch(THREADS, blocks, data, j, k, order, device=device)
    if not on_cpu:
        data.copy_to_host(out=keys)
    return keys
