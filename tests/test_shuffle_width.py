"""Warp shuffles in segments of ``width`` lanes (CUDA's ``__shfl_*_sync(mask, v, d, width)``): each
segment is a warp of its own; a source lane outside this lane's segment (for ``shfl_xor``, in a later
one) gives this lane's own value. The same on the native CPU, the Python path and the GPU, against a
reference written from CUDA's documentation."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import DEVICES, KERNEL_PRELUDE

from hatch_hybrid.errors import CompileError

SOURCE = (
    KERNEL_PRELUDE
    + """
SEGMENT = 8


@kernel
def segments(out: Array[i32, 2], d: i32):
    t = gpu.thread_idx_x()
    v = i32(t * 3 + 1)
    out[0, t] = gpu.shfl_up(v, d, SEGMENT)
    out[1, t] = gpu.shfl_down(v, d, 16)
    out[2, t] = gpu.shfl_xor(v, d, SEGMENT)
    out[3, t] = gpu.shfl_idx(v, d, 16)
    out[4, t] = gpu.shfl_down(v, d, 32)
"""
)


def reference(d: int, threads: int = 64) -> np.ndarray:
    lanes = np.arange(threads) % 32
    base = np.arange(threads) - lanes  # the warp's first thread
    value = np.arange(threads) * 3 + 1
    out = np.zeros((5, threads), np.int32)
    for t, lane in enumerate(lanes):
        up = lane - d if lane % 8 >= d else lane
        down = lane + d if lane % 16 + d < 16 else lane
        xor = lane ^ d if (lane ^ d) < (lane // 8 + 1) * 8 else lane
        idx = (lane // 16) * 16 + d % 16
        down32 = lane + d if lane + d < 32 else lane
        for row, src in enumerate((up, down, xor, idx, down32)):
            out[row, t] = value[base[t] + src]
    return out


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("d", [1, 3, 8, 13])
def test_shuffles_in_segments_match_cuda(build, device, d):
    module = build(SOURCE).module
    out = np.zeros((5, 64), np.int32)
    module.segments.launch(64, 1, out, np.int32(d), device=device)
    np.testing.assert_array_equal(out, reference(d))


def test_the_width_must_be_a_power_of_two_known_at_build_time(build):
    with pytest.raises(CompileError, match="width of gpu.shfl_down must be a power of two from 1 to 32"):
        build(KERNEL_PRELUDE + "@kernel\ndef k(out: Array[i32], w: i32):\n    out[0] = gpu.shfl_down(out[0], 1, w)\n")
    with pytest.raises(CompileError, match="power of two"):
        build(KERNEL_PRELUDE + "@kernel\ndef k(out: Array[i32]):\n    out[0] = gpu.shfl_xor(out[0], 1, 12)\n")
