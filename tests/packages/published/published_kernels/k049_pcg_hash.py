# =============================================================================
# 049_pcg_hash.py -- hatch-hybrid kernel corpus candidate
# Source : taichi-dev/taichi, tests/python/test_literal.py, kernel `pcg_hash` inside
#          test_literal_u32 (text as stored at commit 09dc6306316728ade7231a77ab793200e7128fd5)
#          https://github.com/taichi-dev/taichi/blob/09dc6306316728ade7231a77ab793200e7128fd5/tests/python/test_literal.py
# License: Apache-2.0 (Taichi)
# What   : PCG integer hash (Jarzynski & Olano) in explicit uint32 arithmetic -- the building
#          block of a deterministic, stateless per-thread GPU RNG (seed = thread index).
# Port   : spelling only -- NO
# NEEDS MORE THAN SPELLING: the original is a scalar @ti.kernel that RETURNS a u32 (Taichi
#   kernels may return values); the port makes it elementwise over an input array
#   (out[i] = hash(inp[i])). The arithmetic lines are unchanged apart from ti.u32 -> u32.
# =============================================================================

ORIGINAL = r'''
@ti.kernel
def pcg_hash(inp: ti.u32) -> ti.u32:
    state: ti.u32 = inp * ti.u32(747796405) + ti.u32(2891336453)
    word: ti.u32 = ((state >> (
        (state >> ti.u32(28)) + ti.u32(4))) ^ state) * ti.u32(277803737)
    return (word >> ti.u32(22)) ^ word

assert pcg_hash(12345678) == 119515934
assert pcg_hash(98765432) == 4244201195
'''

# ---- PORT (elementwise) ------------------------------------------------------------
import numpy as np
from hybrid_runtime import kernel, gpu, Array, u32


@kernel
def pcg_hash(inp: Array[u32], out: Array[u32]):
    i = gpu.global_tid_x()
    if i < inp.size:
        state: u32 = inp[i] * u32(747796405) + u32(2891336453)
        word: u32 = ((state >> (
            (state >> u32(28)) + u32(4))) ^ state) * u32(277803737)
        out[i] = (word >> u32(22)) ^ word


# ---- REFERENCE ---------------------------------------------------------------
N = 4096


def make_args(rng):
    inp = rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
    inp[0], inp[1] = 12345678, 98765432            # the two values asserted by the test
    inp[2:N // 2] = np.arange(2, N // 2, dtype=np.uint32)   # thread-index-style seeds
    return [inp, np.zeros(N, dtype=np.uint32)]


def reference(inp, out):
    state = inp.astype(np.uint32) * np.uint32(747796405) + np.uint32(2891336453)
    word = ((state >> ((state >> np.uint32(28)) + np.uint32(4))) ^ state) * np.uint32(277803737)
    return {"out": ((word >> np.uint32(22)) ^ word).astype(np.uint32)}


CASE = dict(
    threads=256, blocks=N // 256, shared_bytes=0,
    args=["inp", "out"], outputs=["out"],
    rtol=0.0, atol=0.0,
    known_values={12345678: 119515934, 98765432: 4244201195},
    note="Probes u32 wrap-around multiply and variable (data-dependent) right shifts.",
)
