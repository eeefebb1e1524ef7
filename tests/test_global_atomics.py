"""Atomics on one global element, which native code combines per call of its entry (lowering/aggregate.py):
every path gives the same integers, float sums agree within their rounding, and only the sites whose
combination nobody can observe are combined (the build says which)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from conftest import DEVICES, HOST_TARGETS, KERNEL_PRELUDE, built_package

SOURCE = (
    KERNEL_PRELUDE
    + """

@kernel
def total(x: Array[f32], out: Array[f32]):
    i = gpu.global_tid_x()
    if i < len(x):
        gpu.atomic_add(out, 0, x[i])


@kernel
def stats(x: Array[i32], out: Array[i64], small: Array[u32], k: i32):
    # one array, several sites at indices every thread shares: constants, a parameter, shapes, a local
    last = out.shape[0] - 1
    i = gpu.global_tid_x()
    while i < len(x):
        v = x[i]
        if v > k:
            gpu.atomic_add(out, k - k, i64(1))
        gpu.atomic_max(out, 1, i64(v))
        gpu.atomic_min(out, 2, i64(v))
        gpu.atomic_xor(out, 3, i64(v))
        gpu.atomic_sub(out, last, i64(v))
        gpu.atomic_and(small, 0, u32(v))
        gpu.atomic_or(small, len(small) - 1, u32(v) & u32(0xFFFF))
        gpu.atomic_max(small, 1, u32(v))
        i += gpu.block_dim_x() * gpu.grid_dim_x()


@kernel
def tickets(x: Array[i32], counter: Array[i32], order: Array[i32]):
    # the old value is used: each thread's ticket is its own, so the atomics stay atomics
    i = gpu.global_tid_x()
    if i < len(x):
        order[gpu.atomic_add(counter, 0, 1)] = x[i]


@kernel
def read_back(x: Array[i32], out: Array[i32]):
    # the element is read in the kernel too: what a thread reads may depend on the others' atomics
    i = gpu.global_tid_x()
    if i < len(x):
        gpu.atomic_add(out, 0, x[i])
        if out[0] < 0:
            out[1] = 1


@kernel
def per_block(x: Array[i32], out: Array[i32]):
    # an index each block has its own of, and one each thread has: not one element for the whole launch
    i = gpu.global_tid_x()
    if i < len(x):
        gpu.atomic_add(out, gpu.block_idx_x(), x[i])
        gpu.atomic_add(out, gpu.grid_dim_x() + i % 3, x[i])
"""
)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    with built_package(tmp_path_factory.mktemp("global_atomics"), "gatomics", SOURCE, native=True) as module:
        yield module


def combined(module: ModuleType, name: str) -> list[str]:
    path = Path(module.__file__).parent / "_hybrid" / "manifest.json"  # type: ignore[arg-type]
    entry = json.loads(path.read_text())["kernels"][f"{module.__name__}.{name}"]["cpu"]
    return entry.get("combined_atomics", [])  # type: ignore[no-any-return]


def test_only_sites_nobody_can_observe_are_combined(built) -> None:  # type: ignore[no-untyped-def]
    if not HOST_TARGETS:
        pytest.skip("no native CPU target on this machine (zig missing)")
    assert combined(built, "total") == ["11:9"]
    assert len(combined(built, "stats")) == 8
    assert combined(built, "tickets") == combined(built, "read_back") == combined(built, "per_block") == []


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("blocks", [1, 7, 64])
def test_combined_integer_atomics_are_exact(built, device: str, blocks: int) -> None:  # type: ignore[no-untyped-def]
    x = np.random.default_rng(blocks).integers(-(2**31), 2**31, 20_000, dtype=np.int64).astype(np.int32)
    out = np.array([5, -(2**62), 2**62, 12345, 777], np.int64)
    small = np.array([0xFFFFFFFF, 3, 0, 0], np.uint32)
    built.stats.launch(128, blocks, x, out, small, np.int32(1000), device=device)
    wide = x.astype(np.int64)
    assert out[0] == 5 + np.count_nonzero(x > 1000)
    assert out[1] == wide.max() and out[2] == wide.min()
    assert out[3] == 12345 ^ np.bitwise_xor.reduce(wide)
    assert out[4] == 777 - wide.sum()
    as_u32 = x.view(np.uint32)
    assert small[0] == np.bitwise_and.reduce(as_u32) and small[1] == max(3, as_u32.max())
    assert small[3] == np.bitwise_or.reduce(as_u32 & 0xFFFF) and small[2] == 0


@pytest.mark.parametrize("device", DEVICES)
def test_an_all_threads_float_sum_is_the_sum(built, device: str) -> None:  # type: ignore[no-untyped-def]
    """The order of a float sum's terms is unspecified, on a GPU as natively: each path's sum of 2**20
    values in [0, 1) is within float32 rounding of the exact one (f32 carries 24 bits; 2**20 roundings of
    at most 2**-24 relative each, far less in practice, as the sums' partial sums grow). WebGPU has no
    float atomics: each is a compare-and-swap loop, which a million threads on one address keep retrying
    for minutes on a GPU (NVIDIA's Vulkan driver), so it sums 2**12."""
    x = np.random.default_rng(7).random(1 << (12 if device == "wgpu" else 20)).astype(np.float32)
    out = np.array([0.5], np.float32)
    built.total.launch(256, (x.size + 255) // 256, x, out, device=device)
    exact = 0.5 + x.astype(np.float64).sum()
    assert abs(float(out[0]) - exact) <= 1e-4 * exact


@pytest.mark.parametrize("device", ["cpu", "cpu-python"])
def test_sites_left_atomic_keep_their_meaning(built, device: str) -> None:  # type: ignore[no-untyped-def]
    x = np.arange(1, 3001, dtype=np.int32)
    counter, order = np.zeros(1, np.int32), np.zeros(3000, np.int32)
    built.tickets.launch(64, 47, x, counter, order, device=device)
    assert counter[0] == 3000 and sorted(order) == list(x)  # every ticket taken once
    out = np.zeros(2, np.int32)
    built.read_back.launch(64, 47, x, out, device=device)
    assert out[0] == x.sum() and out[1] == 0
    per = np.zeros(47 + 3, np.int32)
    built.per_block.launch(64, 47, x, per, device=device)
    np.testing.assert_array_equal(per[:47], np.pad(x, (0, 47 * 64 - 3000)).reshape(47, 64).sum(axis=1))
    np.testing.assert_array_equal(per[47:], [x[k::3].sum() for k in range(3)])
