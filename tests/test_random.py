"""hybrid_runtime.random: numba.cuda.random's xoroshiro128+ generators under the same names. The host
makes numba's states for a seed; the device functions are kernel code the build compiles into the
kernels that call them, and they draw the same numbers natively, on the Python path and on the GPU."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import DEVICES, KERNEL_PRELUDE
from hybrid_runtime.random import _jump, _next, _splitmix, create_xoroshiro128p_states

SOURCE = (
    KERNEL_PRELUDE
    + """
from hybrid_runtime.random import (
    Xoroshiro128pState,
    xoroshiro128p_jump,
    xoroshiro128p_next,
    xoroshiro128p_normal_float32,
    xoroshiro128p_normal_float64,
    xoroshiro128p_uniform_float32,
    xoroshiro128p_uniform_float64,
)


@kernel
def draw(
    states: Array[Xoroshiro128pState], bits: Array[u64], u32s: Array[f32], u64s: Array[f64], normals: Array[f64],
    normals32: Array[f32],
):
    i = gpu.grid(1)
    if i < bits.size:
        bits[i] = xoroshiro128p_next(states, i)
        u32s[i] = xoroshiro128p_uniform_float32(states, i)
        u64s[i] = xoroshiro128p_uniform_float64(states, i)
        normals[i] = xoroshiro128p_normal_float64(states, i)
        normals32[i] = xoroshiro128p_normal_float32(states, i)
        xoroshiro128p_jump(states, i)
"""
)


def test_states_are_numbas_for_a_seed():
    """The first state is SplitMix64 of the seed, each next one a jump (2**64 draws) further, as numba's
    init_xoroshiro128p_states makes them; made in log2(n) vectorised steps."""
    states = create_xoroshiro128p_states(1000, seed=42, subsequence_start=2)
    expect = _jump(*_jump(*_splitmix(42)))
    for i in range(1000):
        if i in (0, 1, 2, 511, 512, 513, 999):
            assert (int(states["s0"][i]), int(states["s1"][i])) == expect, i
        expect = _jump(*expect) if i < 999 else expect
    numba_random = pytest.importorskip("numba.cuda.random")
    ref = np.zeros(1000, dtype=numba_random.xoroshiro128p_dtype)
    numba_random.init_xoroshiro128p_states_cpu(ref, 42, 2)
    np.testing.assert_array_equal(ref["s0"], states["s0"])
    np.testing.assert_array_equal(ref["s1"], states["s1"])


@pytest.mark.parametrize("device", DEVICES)
def test_every_device_draws_the_same_numbers(build, device):
    module = build(SOURCE).module
    n = 200
    states = create_xoroshiro128p_states(n, seed=7)
    start = [(int(a), int(b)) for a, b in zip(states["s0"], states["s1"])]
    bits, u32s = np.zeros(n, np.uint64), np.zeros(n, np.float32)
    u64s, normals, normals32 = np.zeros(n), np.zeros(n), np.zeros(n, np.float32)
    module.draw.launch(64, 4, states, bits, u32s, u64s, normals, normals32, device=device)
    for i, state in enumerate(start):
        drawn = []
        for _ in range(7):
            drawn.append((state[0] + state[1]) & ((1 << 64) - 1))
            state = _next(*state)
        assert int(bits[i]) == drawn[0]
        assert u32s[i] == np.float32((drawn[1] >> 11) / 2.0**53)  # numba's rounding of the f64
        assert u64s[i] == (drawn[2] >> 11) / 2.0**53
        # numba's Box-Muller: two f32 uniform draws, the log in f32, the rest in f64
        u1, u2 = np.float32((drawn[3] >> 11) / 2.0**53), np.float32((drawn[4] >> 11) / 2.0**53)
        normal = math.sqrt(np.float64(-2.0) * np.log(u1)) * math.cos(np.float64(2 * math.pi) * u2)
        assert normals[i] == pytest.approx(normal, rel=1e-6, abs=1e-6)
        u1, u2 = np.float32((drawn[5] >> 11) / 2.0**53), np.float32((drawn[6] >> 11) / 2.0**53)
        normal32 = np.sqrt(np.float32(-2.0) * np.log(u1)) * np.cos(np.float32(2 * math.pi) * u2)
        assert normals32[i] == pytest.approx(normal32, rel=1e-5, abs=1e-5)
        assert (int(states["s0"][i]), int(states["s1"][i])) == _jump(*state)
    assert 0.4 < u64s.mean() < 0.6 and abs(normals.mean()) < 0.3
