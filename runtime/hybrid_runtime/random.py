# mypy: disable-error-code="no-untyped-def,no-untyped-call"
# (the device functions are kernel code: their parameters take the types of each call)
"""Random numbers in kernels: numba.cuda.random's xoroshiro128+ generators, under the same names.

Each thread owns one generator state in an array made on the host::

    from hybrid_runtime.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32

    @kernel
    def compute_pi(rng_states: Array[Xoroshiro128pState], iterations: i64, out: Array[f32]):
        i = gpu.global_tid_x()
        x = xoroshiro128p_uniform_float32(rng_states, i)
        ...

    states = create_xoroshiro128p_states(threads * blocks, seed=1)

The device functions below are kernel code: the build compiles them into the kernels that call them,
as helpers of any installed package, and the Python path runs them as written, so both draw the same
numbers. States are made as numba makes them: the first from the seed by SplitMix64, each next one
2**64 steps further along the generator's sequence (the jump polynomial of xoroshiro128+), so the
generators never overlap for 2**64 draws and give numba's numbers for the same seed.

xoroshiro128+ is by David Blackman and Sebastiano Vigna (public domain; https://prng.di.unimi.it/).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .structs import StructArray, struct
from .types import f32, f64, u64

__all__ = [
    "Xoroshiro128pState",
    "create_xoroshiro128p_states",
    "init_xoroshiro128p_states",
    "xoroshiro128p_jump",
    "xoroshiro128p_next",
    "xoroshiro128p_normal_float32",
    "xoroshiro128p_normal_float64",
    "xoroshiro128p_uniform_float32",
    "xoroshiro128p_uniform_float64",
    "xoroshiro128p_dtype",
]

_MASK = (1 << 64) - 1
#: The jump polynomial of xoroshiro128+: applying it advances a state by 2**64 draws.
JUMP = (0xBEAC0467EBA5FACB, 0xD86B048B86AA9922)
TWO_PI_FLOAT32 = np.float32(2 * math.pi)
TWO_PI_FLOAT64 = np.float64(2 * math.pi)


@struct
class Xoroshiro128pState:
    """One generator: numba's ``xoroshiro128p_dtype`` record (``s0``, ``s1``)."""

    s0: u64
    s1: u64


xoroshiro128p_dtype = Xoroshiro128pState.dtype  # type: ignore[attr-defined]


# --------------------------------------------------------------------- device functions
def rotl(x, k):
    """``x`` rotated left by ``k`` bits (0 < k < 64)."""
    return (x << k) | (x >> (64 - k))


def xoroshiro128p_next(states, index):
    """The next 64 random bits of generator ``index``; its state moves one step."""
    state = states[index]
    s0 = state.s0
    s1 = state.s1
    result = s0 + s1
    s1 = s1 ^ s0
    state.s0 = rotl(s0, 55) ^ s1 ^ (s1 << 14)
    state.s1 = rotl(s1, 36)
    return result


def xoroshiro128p_jump(states, index):
    """Move generator ``index`` 2**64 steps ahead."""
    s0 = u64(0)
    s1 = u64(0)
    for word in range(2):
        poly = u64(0xBEAC0467EBA5FACB) if word == 0 else u64(0xD86B048B86AA9922)
        for bit in range(64):
            if (poly >> bit) & u64(1):
                s0 = s0 ^ states[index].s0
                s1 = s1 ^ states[index].s1
            xoroshiro128p_next(states, index)
    states[index].s0 = s0
    states[index].s1 = s1


def uint64_to_unit_float64(x):
    """53 random bits as an f64 in [0, 1)."""
    return (x >> 11) * (1.0 / 9007199254740992.0)


def uint64_to_unit_float32(x):
    """As numba: the f64 in [0, 1) rounded to f32 (which may round up to 1.0)."""
    return f32(uint64_to_unit_float64(x))


def xoroshiro128p_uniform_float64(states, index):
    """A uniform f64 in [0, 1) from generator ``index``."""
    return uint64_to_unit_float64(xoroshiro128p_next(states, index))


def xoroshiro128p_uniform_float32(states, index):
    """A uniform f32 in [0, 1] from generator ``index`` (numba's rounding)."""
    return uint64_to_unit_float32(xoroshiro128p_next(states, index))


def xoroshiro128p_normal_float32(states, index):
    """A standard normal f32 from generator ``index``: Box-Muller of two f32 uniform draws, in f32, as
    numba computes it (a first draw of 0.0 gives inf there too)."""
    u1 = xoroshiro128p_uniform_float32(states, index)
    u2 = xoroshiro128p_uniform_float32(states, index)
    return np.sqrt(f32(-2.0) * np.log(u1)) * np.cos(TWO_PI_FLOAT32 * u2)


def xoroshiro128p_normal_float64(states, index):
    """A standard normal f64 from generator ``index``: as numba, from two f32 uniform draws (the log
    taken in f32), the rest in f64."""
    u1 = xoroshiro128p_uniform_float32(states, index)
    u2 = xoroshiro128p_uniform_float32(states, index)
    return math.sqrt(f64(-2.0) * np.log(u1)) * math.cos(TWO_PI_FLOAT64 * u2)


# ------------------------------------------------------------------------------- host
def create_xoroshiro128p_states(n: int, seed: int, subsequence_start: int = 0, stream: Any = 0) -> np.ndarray:
    """``n`` generator states for ``n`` threads (a NumPy array of :class:`Xoroshiro128pState` records),
    as numba's function of the same name makes them. Host memory: a launch copies it to the device and
    back; ``hybrid_runtime.to_device(states)`` keeps it there between launches (``stream``, numba's
    stream for that copy, is accepted and not needed)."""
    states = np.zeros(n, dtype=xoroshiro128p_dtype)
    init_xoroshiro128p_states(states, seed, subsequence_start)
    return states


def init_xoroshiro128p_states(states: Any, seed: int, subsequence_start: int = 0) -> None:
    """Fill ``states``: the first from ``seed`` (SplitMix64) moved ``subsequence_start`` jumps ahead,
    each next one a jump (2**64 draws) after the one before."""
    data = states.array if isinstance(states, StructArray) else states
    n = len(data)
    if n == 0:
        return
    first = _advance(_splitmix(int(seed) & _MASK), int(subsequence_start))
    s0 = np.empty(n, dtype=np.uint64)
    s1 = np.empty(n, dtype=np.uint64)
    s0[0], s1[0] = first
    power = _jump_matrix()  # the jump, J**(2**k) as k grows
    done = 1
    while done < n:  # states [done, 2*done) are J**done applied to states [0, done)
        take = min(done, n - done)
        s0[done : done + take], s1[done : done + take] = _apply(power, s0[:take], s1[:take])
        done += take
        if done < n:
            power = _square(power)
    data["s0"], data["s1"] = s0, s1


def _splitmix(seed: int) -> tuple[int, int]:
    z = (seed + 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    z ^= z >> 31
    return z, z


def _next(s0: int, s1: int) -> tuple[int, int]:
    s1 ^= s0
    rot55 = ((s0 << 55) | (s0 >> 9)) & _MASK
    return rot55 ^ s1 ^ ((s1 << 14) & _MASK), ((s1 << 36) | (s1 >> 28)) & _MASK


def _jump(s0: int, s1: int) -> tuple[int, int]:
    a0 = a1 = 0
    for poly in JUMP:
        for bit in range(64):
            if poly >> bit & 1:
                a0 ^= s0
                a1 ^= s1
            s0, s1 = _next(s0, s1)
    return a0, a1


def _advance(state: tuple[int, int], jumps: int) -> tuple[int, int]:
    for _ in range(jumps):
        state = _jump(*state)
    return state


# The generator is linear over GF(2): a jump is a 128 x 128 bit matrix, held as its 128 columns
# (the images of the unit states), each a pair of u64 words. Applying it to many states at once and
# squaring it are NumPy operations, so n states take log2(n) vectorised steps, not n jumps.
Matrix = tuple[np.ndarray, np.ndarray]


def _jump_matrix() -> Matrix:
    columns = [_jump(1 << j, 0) for j in range(64)] + [_jump(0, 1 << j) for j in range(64)]
    return np.array([c[0] for c in columns], np.uint64), np.array([c[1] for c in columns], np.uint64)


def _apply(m: Matrix, v0: np.ndarray, v1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r0 = np.zeros_like(v0)
    r1 = np.zeros_like(v1)
    one = np.uint64(1)
    for j in range(128):
        word = v0 if j < 64 else v1
        mask = np.uint64(0) - ((word >> np.uint64(j % 64)) & one)  # all ones where bit j is set
        r0 ^= m[0][j] & mask
        r1 ^= m[1][j] & mask
    return r0, r1


def _square(m: Matrix) -> Matrix:
    return _apply(m, m[0], m[1])
