"""numba-cuda code as it is written: tuple indices held in variables for atomics, loops over constant
tuples, tables and arrays, warp masks held in locals and ``cuda.activemask()``, the inverse hyperbolic
``math`` functions. Each kernel runs natively, on the Python path and on the GPU, against NumPy."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from conftest import DEVICES, KERNEL_PRELUDE

SOURCE = (
    KERNEL_PRELUDE
    + """
from hybrid_runtime import cuda, f16, f32, float64, int32, uint32
from hybrid_runtime.cuda import libdevice

WEIGHTS = (0.25, 0.5, 0.25)
CUBE = np.arange(27, dtype=np.complex128).reshape(3, 3, 3)
PLANE = np.zeros((2, 3), dtype=np.float32) + 1.5
STEPS = np.full(4, 7, dtype=np.int32).cumsum()


@kernel
def histogram2d(xs: Array[i32], ys: Array[i32], hist: Array[i32, 2]):
    i = cuda.grid(1)
    if i < xs.shape[0]:
        at = (xs[i], ys[i])
        cuda.atomic.add(hist, at, 1)
        cuda.atomic.max(hist, at, 0)


@kernel
def mark_grid(a: Array[i32, 2]):
    g = cuda.grid(2)
    old = cuda.atomic.cas(a, g, 0, g[0] * 10 + g[1])
    cuda.atomic.add(a, g, old)


@kernel
def warp_sums(x: Array[f32], out: Array[f32]):
    i = cuda.grid(1)
    v = x[i]
    mask = 0xFFFFFFFF
    for offset in (16, 8, 4, 2, 1):
        v += cuda.shfl_down_sync(mask, v, offset)
    if cuda.laneid == 0:
        out[i // 32] = v


@kernel
def active_votes(x: Array[f32], out: Array[u32]):
    i = cuda.grid(1)
    active = cuda.activemask()
    positive = cuda.ballot_sync(active, x[i] > 0)
    out[i] = positive + cuda.any_sync(cuda.activemask(), x[i] > 100)


@kernel
def smooth(x: Array[f32], out: Array[f32]):
    i = cuda.grid(1)
    if i < len(x):
        acc = f32(0)
        k = -1
        for w in WEIGHTS:
            acc += w * x[min(max(i + k, 0), len(x) - 1)]
            k += 1
        for v in x:
            if v > 6:
                break
            acc += v
        out[i] = acc


@kernel
def bit_ops(a: Array[u32], b: Array[i64], c: Array[u8], out: Array[i64, 2]):
    i = cuda.grid(1)
    if i < len(a):
        out[0, i] = cuda.popc(a[i]) + cuda.clz(a[i]) * 100 + cuda.ffs(a[i]) * 10000
        out[1, i] = cuda.brev(a[i])
        out[2, i] = cuda.popc(b[i]) + cuda.clz(b[i]) * 100 + cuda.ffs(b[i]) * 10000
        out[3, i] = cuda.brev(b[i])
        out[4, i] = i64(cuda.popc(c[i])) + i64(cuda.clz(c[i])) * 100 + i64(cuda.ffs(c[i])) * 10000
        out[5, i] = cuda.brev(c[i])


@kernel
def block_votes(x: Array[f32], out: Array[i64, 2]):
    t = cuda.threadIdx.x + cuda.blockDim.x * cuda.threadIdx.y
    i = cuda.blockIdx.x * cuda.blockDim.x * cuda.blockDim.y + t
    n = cuda.syncthreads_count(x[i] > 0)
    out[0, i] = n
    out[1, i] = cuda.syncthreads_and(x[i] > -2) + 10 * cuda.syncthreads_or(x[i] > 2)
    if gpu.syncthreads_or(x[i] > 1):
        out[2, i] = gpu.syncthreads_count(t % 3 == 0)


@kernel
def convolve(inp: Array[f32], taps: Array[f32], out: Array[f32]):
    # cuSignal's convolution: the accumulator annotated with the output's dtype
    i = cuda.grid(1)
    temp: out.dtype = 0
    if i < out.size:
        for j in range(taps.size):
            if 0 <= i - j < inp.size:
                temp += inp[i - j] * taps[j]
        out[i] = temp


@kernel
def tables(out: Array[f64], z: Array[np.complex128]):
    i = cuda.grid(1)
    cube = cuda.const.array_like(CUBE)
    z[i] = cube[i % 3, 1, 2] * 2
    out[i] = PLANE[1, i % 3] + STEPS[i % 4]


@kernel
def warp_synchronous(x: Array[f32], sums: Array[f32], masks: Array[u32], acc: Array[f64], f: Array[f64]):
    # a warp's shared-memory reduction ordered by __syncwarp, numba-cuda's other intrinsics beside it
    s = cuda.shared.array(64, np.float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i]
    cuda.syncwarp()
    step = 16
    while step > 0:
        if t % 32 < step:
            s[t] += s[t + step]
        cuda.syncwarp(0xFFFFFFFF)
        step //= 2
    if t % 32 == 0:
        sums[i // 32] = s[t]
    masks[i] = cuda.lanemask_lt()
    cuda.atomic.nanmax(acc, 0, x[i])
    cuda.atomic.nanmin(acc, 1, x[i])
    cuda.threadfence_block()
    f[i] = cuda.fma(x[i], 3.0, 1.0) + cuda.cbrt(float(i))


# numba-cuda's atomic tests: one helper given the atomic, the dtype, the shared array's size and a cast
@cuda.jit(device=True)
def atomic_cast_none(num):
    return num


@cuda.jit(device=True)
def atomic_cast_to_int(num):
    return int(num)


@cuda.jit(device=True)
def atomic_binary_1dim_shared(ary, idx, op2, ary_dtype, ary_nelements, binop_func, cast_func, initializer, neg_idx):
    tid = cuda.threadIdx.x
    sm = cuda.shared.array(ary_nelements, ary_dtype)
    sm[tid] = initializer
    cuda.syncthreads()
    bin = cast_func(idx[tid] % ary_nelements)
    if neg_idx:
        bin = bin - ary_nelements
    binop_func(sm, bin, op2)
    cuda.syncthreads()
    ary[tid] = sm[tid]


@cuda.jit("void(uint32[:], uint32[:])")
def atomic_add_u32(ary, idx):
    atomic_binary_1dim_shared(ary, idx, 1, uint32, 32, cuda.atomic.add, atomic_cast_none, 0, False)


@cuda.jit("void(float64[:], float64[:])")
def atomic_add_f64(ary, idx):
    atomic_binary_1dim_shared(ary, idx, 2.0, float64, 16, cuda.atomic.add, atomic_cast_to_int, 0.0, True)


@cuda.jit("void(int32[:], int32[:])")
def atomic_max_i32(ary, idx):
    atomic_binary_1dim_shared(ary, idx, 7, int32, 32, cuda.atomic.max, atomic_cast_none, -5, False)


@kernel
def shape_at_run_time(x: Array[f32, 3], axis: i64, out: Array[i64]):
    # cuSignal's upfirdn: out.shape[i] in a loop, x.shape[axis] of a parameter (negative from the end)
    n = 1
    for i in range(x.ndim):
        n *= x.shape[i]
    out[0] = n
    out[1] = x.shape[axis]
    sizes = (3, 5, 7)
    out[2] = sizes[axis] + sizes[cuda.threadIdx.x]


# numba-cuda's tests compile plain functions where they launch them: cuda.jit(signature)(function)
def plain_scale(ary, factor):
    i = cuda.grid(1)
    if i < ary.size:
        ary[i] *= factor


def plain_twice(ary):
    i = cuda.grid(1)
    if i < ary.size:
        ary[i] = 2 * ary[i]


scale_f32 = cuda.jit("void(float32[:], float32)")(plain_scale)


def launch_twice(ary):
    compiled = cuda.jit("void(int64[:])", fastmath=False)(plain_twice)
    compiled[1, ary.size](ary)
    cuda.jit(plain_twice)[1, ary.size](ary)  # typed at launch: the same signature


@kernel
def inverse_hyperbolic(x: Array[f64], out: Array[f64, 2]):
    i = cuda.grid(1)
    if i < len(x):
        out[0, i] = math.asinh(x[i])
        out[1, i] = math.acosh(x[i])
        out[2, i] = math.atanh(x[i])


MASK_BITS = np.dtype(np.int32).itemsize * 8  # cudf's mask_bitsize


@kernel
def dtype_and_truth(x: Array[f32], mask: Array[i32], out: Array[f32]):
    i = cuda.grid(1)
    dtype = x.dtype
    tmp = cuda.local.array(2, dtype=dtype)
    tmp[0] = dtype.type(0.1)
    tmp[1] = x.dtype.type(2)
    if i < x.shape[0] and mask[i]:
        out[i] = x[i] * tmp[1] + tmp[0] + MASK_BITS
    elif i < x.shape[0] and not (mask[i] or i < 0):
        out[i] = -1.0


@kernel
def zipped(x: Array[f64], y: Array[f64], out: Array[f64]):
    i = cuda.grid(1)
    if i < out.shape[0]:
        acc = 0.0
        for k, (a, b) in enumerate(zip(x, y)):
            if k > i:
                break
            acc += a * b
        for j, w in enumerate(WEIGHTS, 1):
            acc += j * w
        for lo, hi in zip(range(i, -1, -2), range(0, 100, 3)):
            if hi == 9:
                continue
            acc += lo - hi
        for v in enumerate(zip(range(3), x)):
            acc += v[0] + v[1][0] * v[1][1]
        out[i] = acc


@kernel
def promoted(m: Array[i64], small: Array[i32], out: Array[f64], idx: Array[i64]):
    i = cuda.grid(1)
    if i < out.shape[0]:
        if m[i] < 0:
            D = np.inf
        elif m[i] % 3 == 0:
            D = m[i]
        else:
            D = abs(2 * m[i] * 0.5)
        out[i] = D / 3
        j = m[i]
        if i % 2 == 1:
            j = small[i]
        idx[i] = j * 3_000_000_000


import operator


@kernel
def parts_and_operators(z: Array[np.complex128, 2], bits: Array[i64], out: Array[i64, 2]):
    i = cuda.grid(1)
    if i < bits.shape[0]:
        n = bits[i]
        for k in range(4):
            out[i, k] = operator.mod(n, 2)
            n = operator.rshift(n, 1)
        if operator.lt(i, z.shape[0]) and operator.not_(operator.eq(i, 3)):
            cuda.atomic.add(z.real, (i, 1), 1.5)
            z.imag[i, 0] = -z.real[i, 0].real + z.real[i, 0].imag + bits[i].imag  # a real number's parts


@kernel
def uniform_votes(x: Array[i32], out: Array[i32]):
    i = cuda.grid(1)
    same = cuda.eq_sync(0xFFFFFFFF, x[i] > 0)
    out[i] = 1 if same else 0


@kernel
def warp_matches(x: Array[f32], y: Array[i64], any_x: Array[i64], any_y: Array[i64], all_y: Array[i64]):
    i = cuda.grid(1)
    any_x[i] = cuda.match_any_sync(0xFFFFFFFF, x[i])
    any_y[i] = cuda.match_any_sync(0xFFFFFFFF, y[i])
    lanes, same = cuda.match_all_sync(0xFFFFFFFF, y[i])
    all_y[i] = lanes if same else -1


def counted(calls, v):
    cuda.atomic.add(calls, 0, 1)
    return v


@kernel
def match_all_evaluates_once(y: Array[i64], calls: Array[i64], out: Array[i64]):
    i = cuda.grid(1)
    lanes, same = cuda.match_all_sync(0xFFFFFFFF, counted(calls, y[i]))
    out[i] = lanes if same else -1


@kernel
def matches_in_a_loop_of_thread_bounds(y: Array[i64], out: Array[i64]):
    i = cuda.grid(1)
    for k in range(y[i] - y[i], 2):  # bounds that differ between threads for the compiler: the state machine
        out[i] += cuda.match_any_sync(0xFFFFFFFF, y[i] + k * (i % 2))


@kernel
def libdevice_math(x: Array[f32], out32: Array[f32], out64: Array[f64], h: Array[f16], out16: Array[f16]):
    i = cuda.grid(1)
    out32[i] = libdevice.sinf(x[i]) + libdevice.fast_expf(x[i]) * libdevice.exp10f(x[i])
    out64[i] = libdevice.pow(x[i], 1.5) + libdevice.atan2(x[i], 2.0)
    out16[i] = cuda.fp16.hexp10(h[i]) + cuda.fp16.hsqrt(h[i])


@kernel
def libdevice_operations(
    a: Array[i32], b: Array[i32], u: Array[u32], w: Array[u32], la: Array[i64], lb: Array[i64], ul: Array[u64],
    f: Array[f32], g: Array[f32], d: Array[f64], e: Array[f64],
    ints: Array[i32, 2], uints: Array[u32, 2], longs: Array[i64, 2], floats: Array[f32, 2], doubles: Array[f64, 2],
    maths: Array[f64, 2],
):
    i = cuda.grid(1)
    if i < a.size:
        ints[i, 0] = libdevice.popc(a[i])
        ints[i, 1] = libdevice.popcll(la[i])
        ints[i, 2] = libdevice.clz(a[i])
        ints[i, 3] = libdevice.clzll(la[i])
        ints[i, 4] = libdevice.ffs(a[i])
        ints[i, 5] = libdevice.ffsll(la[i])
        ints[i, 6] = libdevice.min(a[i], b[i])
        ints[i, 7] = libdevice.max(a[i], b[i])
        ints[i, 8] = libdevice.abs(a[i])
        ints[i, 9] = libdevice.mulhi(a[i], b[i])
        ints[i, 10] = libdevice.hadd(a[i], b[i])
        ints[i, 11] = libdevice.rhadd(a[i], b[i])
        ints[i, 12] = libdevice.isnanf(f[i]) + 2 * libdevice.isinff(f[i]) + 4 * libdevice.finitef(f[i])
        ints[i, 13] = libdevice.isnand(d[i]) + 2 * libdevice.isinfd(d[i]) + 4 * libdevice.isfinited(d[i])
        ints[i, 14] = libdevice.signbitf(f[i]) + 2 * libdevice.signbitd(d[i])
        ints[i, 15] = libdevice.float_as_int(f[i])
        ints[i, 16] = libdevice.double2hiint(d[i])
        ints[i, 17] = libdevice.double2loint(d[i])
        ints[i, 18] = g[i].view(np.int32) ^ libdevice.float_as_uint(g[i]).view(i32)
        uints[i, 0] = libdevice.brev(u[i])
        uints[i, 1] = libdevice.umin(u[i], w[i])
        uints[i, 2] = libdevice.umax(u[i], w[i])
        uints[i, 3] = libdevice.umulhi(u[i], w[i])
        uints[i, 4] = libdevice.uhadd(u[i], w[i])
        uints[i, 5] = libdevice.urhadd(u[i], w[i])
        uints[i, 6] = libdevice.int_as_float(a[i]).view(u32) + libdevice.uint_as_float(u[i]).view(u32)
        longs[i, 0] = libdevice.llmin(la[i], lb[i])
        longs[i, 1] = libdevice.llmax(la[i], lb[i])
        longs[i, 2] = libdevice.llabs(la[i])
        longs[i, 3] = i64(libdevice.brevll(ul[i]) >> u64(1))
        longs[i, 4] = i64(libdevice.ullmin(ul[i], u64(u[i])) >> u64(1))
        longs[i, 5] = i64(libdevice.ullmax(ul[i], u64(u[i])) >> u64(1))
        longs[i, 6] = libdevice.double_as_longlong(d[i])
        longs[i, 7] = libdevice.longlong_as_double(la[i]).view(i64) + libdevice.hiloint2double(a[i], b[i]).view(i64)
        floats[i, 0] = libdevice.fadd_rn(f[i], g[i])
        floats[i, 1] = libdevice.fsub_rn(f[i], g[i])
        floats[i, 2] = libdevice.fmul_rn(f[i], g[i])
        floats[i, 3] = libdevice.fdiv_rn(f[i], g[i])
        floats[i, 4] = libdevice.fdividef(f[i], g[i])
        floats[i, 5] = libdevice.frcp_rn(g[i])
        floats[i, 6] = libdevice.fsqrt_rn(g[i])
        floats[i, 7] = libdevice.rsqrtf(g[i])
        floats[i, 8] = libdevice.saturatef(f[i])
        doubles[i, 0] = libdevice.dadd_rn(d[i], e[i])
        doubles[i, 1] = libdevice.dsub_rn(d[i], e[i])
        doubles[i, 2] = libdevice.dmul_rn(d[i], e[i])
        doubles[i, 3] = libdevice.ddiv_rn(d[i], e[i])
        doubles[i, 4] = libdevice.drcp_rn(e[i])
        doubles[i, 5] = libdevice.dsqrt_rn(e[i])
        doubles[i, 6] = libdevice.rsqrt(e[i])
        maths[i, 0] = libdevice.erf(d[i])
        maths[i, 1] = libdevice.erff(f[i])
        maths[i, 2] = libdevice.erfc(e[i])
        maths[i, 3] = libdevice.tgamma(e[i])
        maths[i, 4] = libdevice.lgammaf(g[i])
        maths[i, 5] = libdevice.fmod(d[i], e[i])
        maths[i, 6] = libdevice.remainderf(f[i], g[i])
        maths[i, 7] = libdevice.ldexpf(g[i], a[i] % 20) + libdevice.scalbn(e[i], b[i] % 1100)


@kernel
def nested_libdevice(h: Array[f16], o: Array[f16], p: Array[f32]):
    i = cuda.grid(1)
    o[i] = cuda.fp16.hadd(cuda.fp16.hexp10(h[i]), h[i])
    s, c = libdevice.sincosf(libdevice.exp10f(p[i]))
    p[i] = s + c


@kernel
def fp16_arithmetic(a: Array[f16], b: Array[f16], c: Array[f16], out: Array[f16], flags: Array[i32]):
    i = cuda.grid(1)
    s, co = libdevice.sincosf(f32(a[i]))
    out[i] = cuda.fp16.hfma(a[i], b[i], c[i]) + cuda.fp16.hdiv(cuda.fp16.hneg(a[i]), b[i])
    out[i] = cuda.fp16.hadd(out[i], cuda.fp16.hrcp(b[i])) + f16(s * co)
    flags[i] = cuda.fp16.hlt(a[i], b[i]) + 2 * cuda.fp16.heq(a[i], c[i])


@kernel
def numba_extremes(val: Array[f32], mx: Array[f32], mn: Array[f32], nmx: Array[f32], old: Array[f32]):
    i = cuda.grid(1)
    old[i] = cuda.atomic.max(mx, i, val[i])
    cuda.atomic.min(mn, i, val[i])
    cuda.atomic.nanmax(nmx, i, val[i])


@kernel
def grid_rounds(x: Array[i64], out: Array[i64]):
    i = cuda.grid(1)
    n = cuda.gridsize(1)
    g = cuda.cg.this_grid()
    for r in range(3):
        out[i] = x[(i + 37) % n] + r  # another block's value of the previous round
        g.sync()
        x[i] = out[i] * 2
        cuda.cg.this_grid().sync()


def settle(a: Array[i64], i: int):
    a[i] += 1
    gpu.grid_sync()  # (the gpu spelling, in a helper)


@kernel
def grid_helper(a: Array[i64], out: Array[i64]):
    i = gpu.global_tid_x()
    a[i] = i
    settle(a, i)
    out[i] = a[(i + 1) % gpu.global_size_x()]


@kernel
def scale_in_place(x: Array[f32], k: f32):
    i = cuda.grid(1)
    if i < x.shape[0]:
        x[i] *= k


@kernel
def partial_warps(x: Array[i64], out: Array[i64], votes: Array[i64], matches: Array[i64]):
    i = cuda.grid(1)
    lane = cuda.laneid
    half = 0x0000FFFF if lane < 16 else 0xFFFF0000  # each half-warp with a mask of its own
    if lane < 16:
        v = cuda.shfl_down_sync(half, x[i], 8)  # lanes 8-15 read outside the mask: their own value
        b = cuda.ballot_sync(half, x[i] > 0)
    else:
        v = cuda.shfl_xor_sync(half, x[i], 1)
        b = cuda.ballot_sync(half, x[i] > 0)
    out[i] = v
    votes[i] = b + cuda.any_sync(half, x[i] > 5) * (1 << 40) + cuda.all_sync(half, x[i] >= 0) * (1 << 41)
    matches[i] = cuda.match_any_sync(half, x[i] % 3)
    cuda.syncwarp(half)


@kernel
def activemask_in_a_ragged_loop(out: Array[i64], sh: Array[i64]):
    i = cuda.grid(1)
    for j in range(1 + i % 2):  # bounds that differ between threads: the native state machine
        if i % 2 == 0:
            out[i] = cuda.activemask()
            sh[i] = cuda.shfl_down_sync(cuda.activemask(), i, 2)
        else:
            out[i] = cuda.activemask()
            sh[i] = cuda.shfl_down_sync(cuda.activemask(), i * 100, 2)


@kernel
def grid_early_exit(x: Array[i64], out: Array[i64]):
    i = cuda.grid(1)
    if i >= len(x):  # whole blocks past the data return before the barrier
        return
    x[i] = i
    cuda.cg.this_grid().sync()
    out[i] = x[(i + 37) % len(x)]


@kernel
def divergent_activemask(out: Array[i64]):
    i = cuda.grid(1)
    if i % 3 == 0:
        out[i] = cuda.activemask()
    else:
        out[i] = cuda.activemask() + 1


@kernel
def unpack_pair(shape: Array[i64], out: Array[f64]):
    i = cuda.grid(1)
    nx, ny = shape
    if i < out.shape[0]:
        out[i] = nx * ny


from hybrid_runtime.cuda.core import config

if config.ENABLE_CUDASIM:  # numba-cuda's tests shrink for the simulator: off here, kernels are compiled
    TILE_N = 2
else:
    TILE_N = 8
FORTRAN = np.asfortranarray(np.arange(6, dtype=np.float64).reshape(2, 3))  # a table: read by index
try:
    from math import nan as NAN_VALUE
except ImportError:
    NAN_VALUE = float("nan")
try:
    from no_such_module_anywhere import thing  # noqa: F401
except ImportError:
    FALLBACK = 3.0
from packaging.version import Version

if Version(np.__version__) >= Version("1.20.0"):  # a version gate (datashader's, on numba's version)

    def gated(v):
        return v * 2.0

elif TILE_N > 4:

    def gated(v):
        return v * 3.0

else:

    def gated(v):
        return v * 4.0


if TILE_N > 4 and Version("0.1") < Version("0.1.1"):
    WIDE = 1.0
else:
    WIDE = 0.0


@kernel
def module_branches(out: Array[f64]):
    i = cuda.grid(1)
    if i < out.shape[0]:
        tile = cuda.local.array(TILE_N, float64)
        tile[i % TILE_N] = FALLBACK
        out[i] = NAN_VALUE if i == 0 else tile[i % TILE_N] + TILE_N + FORTRAN[1, 2] + gated(WIDE)


SHAPE = (3, 5, 2)
N = len(SHAPE) + max(SHAPE) + min(4, 2) + abs(-1)  # 3 + 5 + 2 + 1


@kernel
def chained(x: Array[f64], out: Array[f64]):
    i = cuda.grid(1)
    if i < out.shape[0]:
        a = b = x[i] * 2.0
        if i % 2 == 0:
            lo = hi = 0
            wl = wr = 0.5
        else:
            lo = i
            hi = lo + 1
            wl = 1.0 - 0.25
            wr = 0.25
        out[i] = a + b + lo * wl + hi * wr + N
"""
)


@pytest.fixture(scope="module")
def kern(tmp_path_factory):
    from conftest import built_package

    with built_package(tmp_path_factory.mktemp("spelling"), "numba_spelling", SOURCE, native=True) as module:
        yield module


@pytest.mark.parametrize("device", DEVICES)
def test_atomics_at_a_tuple_held_in_a_variable(kern, device):
    rng = np.random.default_rng(1)
    xs, ys = rng.integers(0, 4, 500).astype(np.int32), rng.integers(0, 3, 500).astype(np.int32)
    hist = np.zeros((4, 3), np.int32)
    kern.histogram2d.launch(128, 4, xs, ys, hist, device=device)
    np.testing.assert_array_equal(hist, np.histogram2d(xs, ys, bins=(4, 3), range=((0, 4), (0, 3)))[0])
    a = np.zeros((8, 4), np.int32)  # a[x, y], as cuda.grid(2) gives (x, y)
    a[1, 2] = 7
    kern.mark_grid.launch((8, 4), (1, 1), a, device=device)
    expected = np.add.outer(np.arange(8) * 10, np.arange(4)).astype(np.int32)
    expected[1, 2] = 7 + 7  # the cas found 7 there: it stayed, and 7 more were added
    np.testing.assert_array_equal(a, expected)


@pytest.mark.parametrize("device", DEVICES)
def test_a_loop_over_a_constant_tuple_with_a_mask_in_a_local(kern, device):
    x = np.random.default_rng(2).integers(-9, 9, 128).astype(np.float32)
    out = np.zeros(4, np.float32)
    kern.warp_sums.launch(64, 2, x, out, device=device)
    np.testing.assert_array_equal(out, x.reshape(4, 32).sum(axis=1))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("threads", [32, 48])
def test_activemask_is_the_warps_lanes(kern, device, threads):
    x = np.random.default_rng(threads).standard_normal(threads).astype(np.float32)
    out = np.zeros(threads, np.uint32)
    kern.active_votes.launch(threads, 1, x, out, device=device)
    for w in range(0, threads, 32):
        lanes = x[w : w + 32] > 0
        assert (out[w : w + 32] == sum(1 << k for k, p in enumerate(lanes) if p)).all()


@pytest.mark.parametrize("device", DEVICES)
def test_loops_over_a_table_and_an_array(kern, device):
    x = np.arange(10, dtype=np.float32)
    out = np.zeros(10, np.float32)
    kern.smooth.launch(16, 1, x, out, device=device)
    padded = np.concatenate([[x[0]], x, [x[-1]]])
    expected = 0.25 * padded[:-2] + 0.5 * padded[1:-1] + 0.25 * padded[2:] + sum(range(7))
    np.testing.assert_array_equal(out, expected.astype(np.float32))


@pytest.mark.parametrize("device", DEVICES)
def test_inverse_hyperbolic_functions(kern, device):
    x = np.array([-2.0, -1.0, -0.5, -0.0, 0.0, 0.3, 0.99, 1.0, 1.5, 1e300, np.inf, np.nan])
    out = np.zeros((3, len(x)))
    kern.inverse_hyperbolic.launch(16, 1, x, out, device=device)
    with np.errstate(all="ignore"):
        expected = np.array([np.arcsinh(x), np.arccosh(x), np.arctanh(x)])
    close = np.isclose(out, expected, rtol=4e-16, atol=0, equal_nan=True)
    assert close.all(), (out, expected)
    assert math.copysign(1, out[2, 3]) == -1  # atanh(-0.0) keeps the sign


def _bit_ops_reference(x: np.ndarray) -> np.ndarray:
    width = x.dtype.itemsize * 8
    bits = [int(v) & ((1 << width) - 1) for v in x]
    popc = [bin(v).count("1") for v in bits]
    clz = [width - v.bit_length() for v in bits]
    ffs = [(v & -v).bit_length() for v in bits]
    brev = np.array([int(format(v, f"0{width}b")[::-1], 2) for v in bits], np.uint64).astype(x.dtype)
    return np.array([np.array(popc) + np.array(clz) * 100 + np.array(ffs) * 10000, brev.astype(np.int64)])


@pytest.mark.parametrize("device", DEVICES)
def test_syncwarp_lanemask_nan_atomics_fma_cbrt(kern, device):
    x = np.random.default_rng(3).standard_normal(128).astype(np.float32)
    x[7] = np.nan
    sums, masks, f = np.zeros(4, np.float32), np.zeros(128, np.uint32), np.zeros(128)
    acc = np.array([-np.inf, np.inf])
    kern.warp_synchronous.launch(64, 2, x, sums, masks, acc, f, device=device)
    want = x.reshape(4, 32).copy()
    for step in (16, 8, 4, 2, 1):  # the tree's order of f32 additions
        want[:, :step] += want[:, step : 2 * step]
    np.testing.assert_array_equal(sums, want[:, 0])
    np.testing.assert_array_equal(masks, (1 << (np.arange(128) % 32)) - 1)
    assert acc.tolist() == [np.nanmax(x), np.nanmin(x)]  # NaN is a missing value to nanmax and nanmin
    exact = np.array([float(Fraction(float(v)) * 3 + 1) if np.isfinite(v) else np.nan for v in x])
    roots = np.array([math.cbrt(i) if hasattr(math, "cbrt") else np.cbrt(i) for i in range(128)])  # the C library's
    if device in ("cuda", "wgpu"):  # libdevice's and the shader's cube roots: within 1 ulp of the C library's
        bound = 2 * np.spacing(np.abs(exact) + roots)  # the root's error (1 ulp) and the sum's rounding, in ulps
        want = exact + roots
        far = ~((np.abs(f - want) <= bound) | (np.isnan(f) & np.isnan(want)))
        assert not far.any(), (np.flatnonzero(far), f[far], want[far])
    else:
        np.testing.assert_array_equal(f, exact + roots)


@pytest.mark.parametrize("device", DEVICES)
def test_helpers_given_functions_dtypes_and_sizes(kern, device):
    """Each call site specialises the helper to the atomic, dtype, size and cast it passes (numba's tests)."""
    idx = (np.arange(32, dtype=np.uint32) * 7) % 5
    ary = np.zeros(32, np.uint32)
    kern.atomic_add_u32.launch(32, 1, ary, idx, device=device)
    np.testing.assert_array_equal(ary, np.bincount(idx, minlength=32))
    idf = np.arange(16.0) * 3 % 4
    arf = np.zeros(16)
    kern.atomic_add_f64.launch(16, 1, arf, idf, device=device)
    np.testing.assert_array_equal(arf, 2.0 * np.bincount(idf.astype(int), minlength=16))
    ari = np.zeros(32, np.int32)
    kern.atomic_max_i32.launch(32, 1, ari, np.arange(32, dtype=np.int32), device=device)
    np.testing.assert_array_equal(ari, np.full(32, 7))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("axis", [0, 2, -1, -3])
def test_tuples_of_one_type_indexed_at_run_time(kern, device, axis):
    x, out = np.zeros((2, 3, 4), np.float32), np.zeros(3, np.int64)
    kern.shape_at_run_time.launch(1, 1, x, axis, out, device=device)
    np.testing.assert_array_equal(out, [24, x.shape[axis], (3, 5, 7)[axis] + 3])


@pytest.mark.parametrize("device", DEVICES)
def test_functions_compiled_by_calling_cuda_jit(kern, device, monkeypatch):
    """``cuda.jit(sig)(f)`` and ``cuda.jit(f)`` anywhere in the module make ``f`` a kernel at build time."""
    import warnings

    from hybrid_runtime import SlowPathWarning

    monkeypatch.setenv("HYBRID_DEVICE", device)
    x = np.arange(8, dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SlowPathWarning)  # compiled, not run as written
        kern.scale_f32[1, 8](x, np.float32(3))
        n = np.arange(5)
        kern.launch_twice(n)
    np.testing.assert_array_equal(x, 3 * np.arange(8))
    np.testing.assert_array_equal(n, 4 * np.arange(5))


@pytest.mark.parametrize("device", DEVICES)
def test_bit_operations(kern, device):
    """CUDA's __popc, __clz, __ffs and __brev in the operand's width (numba-cuda's cuda.popc & co.)."""
    a = np.array([0, 1, 0x80000000, 0xFFFFFFFF, 12, 0xF0F0], np.uint32)
    b = np.array([0, -1, 1, 2**62, -(2**63), 12345], np.int64)
    c = np.array([0, 1, 128, 255, 12, 0x70], np.uint8)
    out = np.zeros((6, 6), np.int64)
    kern.bit_ops.launch(8, 1, a, b, c, out, device=device)
    np.testing.assert_array_equal(out, np.concatenate([_bit_ops_reference(v) for v in (a, b, c)]))


@pytest.mark.parametrize("device", DEVICES)
def test_block_votes(kern, device):
    """syncthreads_count / and / or: barriers that count or combine a predicate over the block's threads."""
    x = np.random.default_rng(3).standard_normal(3 * 48).astype(np.float32) * 2
    out = np.zeros((3, len(x)), np.int64)
    kern.block_votes.launch((16, 3), 3, x, out, device=device)
    for b, block in enumerate(x.reshape(3, 48)):
        got = out[:, b * 48 : (b + 1) * 48]
        assert (got[0] == (block > 0).sum()).all()
        assert (got[1] == int((block > -2).all()) + 10 * int((block > 2).any())).all()
        assert (got[2] == (16 if (block > 1).any() else 0)).all()


@pytest.mark.parametrize("device", DEVICES)
def test_a_local_annotated_with_an_arrays_dtype(kern, device):
    x = np.arange(10, dtype=np.float32)
    taps = np.array([0.5, 0.25, 0.125], np.float32)
    out = np.zeros(10, np.float32)
    kern.convolve.launch(16, 1, x, taps, out, device=device)
    np.testing.assert_array_equal(out, np.convolve(x, taps)[:10].astype(np.float32))


@pytest.mark.parametrize("device", DEVICES)
def test_tables_computed_by_numpy_calls(kern, device):
    cube = np.arange(27, dtype=np.complex128).reshape(3, 3, 3)
    out, z = np.zeros(6), np.zeros(6, np.complex128)
    kern.tables.launch(6, 1, out, z, device=device)
    np.testing.assert_array_equal(z, [cube[i % 3, 1, 2] * 2 for i in range(6)])
    np.testing.assert_array_equal(out, [1.5 + np.arange(7, 29, 7)[i % 4] for i in range(6)])


LANES = (
    KERNEL_PRELUDE
    + """

@kernel
def lanes(out: Array[i64]):
    i = gpu.global_tid_x()
    out[i] = gpu.lane_id()
    if gpu.lane_id() < 16:
        out[i] += 100
"""
)


@pytest.mark.parametrize("device", DEVICES)
def test_lane_id_without_barriers(build, device):
    """The Python path ran kernels without barriers thread by thread with every lane_id() 0 (found by the
    differential fuzzer): each thread's lane now, as on the devices."""
    kern = build(LANES, shared=True).module
    out = np.zeros(96, np.int64)
    kern.lanes.launch(48, 2, out, device=device)
    lanes = np.concatenate([np.arange(48) % 32] * 2)
    np.testing.assert_array_equal(out, lanes + np.where(lanes < 16, 100, 0))


JIT = (
    KERNEL_PRELUDE
    + """
from hybrid_runtime import cuda


@cuda.jit(device=True)
def axpy(a, x, y):
    return a * x + y


@cuda.jit
def saxpy(a: f32, x: Array[f32], y: Array[f32]):
    i = cuda.grid(1)
    if i < y.size:
        y[i] = axpy(a, x[i], y[i])


@cuda.jit(fastmath=False, lineinfo=True, cache=True, max_registers=32, opt=True)
def scale(x: Array[f32]):
    i = cuda.grid(1)
    if i < x.size:
        x[i] *= 2
"""
)


@pytest.mark.parametrize("device", DEVICES)
def test_cuda_jit_decorates_kernels_and_helpers(build, device):
    """@cuda.jit is the kernel decorator (numba's options that change nothing here accepted), and
    @cuda.jit(device=True) leaves a helper a plain function."""
    built = build(JIT, shared=True)
    assert set(built.kernels) == {"saxpy", "scale"}
    kern = built.module
    assert kern.axpy(1.0, 2.0, 3.0) == 5.0
    x, y = np.arange(8, dtype=np.float32), np.ones(8, np.float32)
    kern.saxpy.launch(8, 1, np.float32(2), x, y, device=device)
    kern.scale.launch(8, 1, y, device=device)
    np.testing.assert_array_equal(y, (2 * x + 1) * 2)


EAGER = (
    KERNEL_PRELUDE
    + """
from hybrid_runtime import cuda, float32, intp, njit, prange
from hybrid_runtime import types


@njit(cache=True)
def clamp(v, lo, hi):
    return min(max(v, lo), hi)


@njit("f4(f4[:])")
def head_sum(a):
    s = float32(0)
    for k in prange(4):
        s += a[k]
    return s


@cuda.jit("void(float32[:], float32[:])")
def block_sums(x, out):
    tile = cuda.shared.array(32, dtype=float32)
    t = cuda.threadIdx.x
    tile[t] = x[cuda.grid(1)] if cuda.grid(1) < x.size else float32(0)
    cuda.syncthreads()
    if t == 0:
        s = types.float32(0)
        for k in range(intp(32)):
            s += tile[k]
        out[cuda.blockIdx.x] = s


@cuda.jit("void(float32[:], float32[:], float32)")
def saxpy(x, y, a):
    i = cuda.grid(1)
    if i < x.size:
        y[i] = clamp(a * x[i] + y[i], float32(0), float32(100)) + head_sum(x) * 0


@cuda.jit(["void(int32[:, ::1], int32)", "void(float64[:, :], f8)"], fastmath=False)
def add_scalar(m, k):
    i, j = cuda.grid(2)
    if i < m.shape[0] and j < m.shape[1]:
        m[i, j] += k


@cuda.jit("(u1[:], i8[:])")
def widen(small, big):
    i = cuda.grid(1)
    if i < small.size:
        big[i] = i64(small[i]) * 1000 + small[i] * 3
"""
)


@pytest.mark.parametrize("device", DEVICES)
def test_eager_signatures_give_the_parameters_types(build, device):
    """numba's eager signatures: a string, a list of them (a variant each, the launch picks the one the
    arguments fit) and numba's short names (``u1``: uint8, ``i8``: int64); no annotations needed; numba's
    type names (``float32``, ``types.float32``, ``intp``), ``@njit`` helpers and ``prange`` imported from
    hybrid_runtime."""
    kern = build(EAGER, shared=True).module
    x, y = np.arange(8, dtype=np.float32), np.ones(8, np.float32)
    kern.saxpy.launch(8, 1, x, y, np.float32(2), device=device)
    np.testing.assert_array_equal(y, 2 * x + 1)
    assert kern.head_sum(x) == 6 and kern.clamp(5, 0, 3) == 3  # @njit helpers stay Python functions on the host
    ints, floats = np.arange(16, dtype=np.int32).reshape(4, 4), np.zeros((4, 4))
    kern.add_scalar.launch((4, 4), (1, 1), ints, np.int32(3), device=device)
    kern.add_scalar.launch((4, 4), (1, 1), floats, 1.5, device=device)
    np.testing.assert_array_equal(ints, np.arange(16).reshape(4, 4) + 3)
    np.testing.assert_array_equal(floats, np.full((4, 4), 1.5))
    small, big = np.arange(250, 258, dtype=np.uint16).astype(np.uint8), np.zeros(8, np.int64)
    kern.widen.launch(8, 1, small, big, device=device)
    np.testing.assert_array_equal(big, small.astype(np.int64) * 1000 + small * np.uint8(3))  # (u8 * 3 wraps)
    x, sums = np.arange(64, dtype=np.float32), np.zeros(2, np.float32)
    kern.block_sums.launch(32, 2, x, sums, device=device)  # numba's type names, imported from hybrid_runtime
    np.testing.assert_array_equal(sums, x.reshape(2, 32).sum(axis=1))
    with pytest.raises(TypeError, match=r"no specialisation fits.*\(Array\[i32, 2\], i32\)"):
        kern.add_scalar.launch((4, 4), (1, 1), np.zeros((4, 4), np.float32), np.float32(1), device=device)


@pytest.mark.parametrize(
    ("signature", "message"),
    [
        ("'int32(float32[:])'", "a kernel's signature returns void, not `int32`"),
        ("'void(float32[:], int32)'", "the signature has 2 parameter types and the kernel 1 parameter"),
        ("'void(float32[:2])'", "`float32[:2]` is not an array type numba reads"),
        ("'void(vector)'", "`vector` is not a numba type name"),
        ("'void(float32'", "is not one numba can read"),
    ],
)
def test_a_signature_numba_would_refuse_is_a_located_error(build, signature, message):
    from hatch_hybrid.errors import CompileError

    source = KERNEL_PRELUDE + f"from hybrid_runtime import cuda\n\n@cuda.jit({signature})\ndef k(x):\n    pass\n"
    with pytest.raises(CompileError) as info:
        build(source)
    assert message in info.value.message, info.value.message
    assert (
        info.value.loc is not None and info.value.loc.line == source.splitlines().index(f"@cuda.jit({signature})") + 1
    )


@pytest.mark.parametrize("device", DEVICES)
def test_chained_assignment_and_constants_from_len_min_max(kern, device):
    """``a = b = value`` (the value once, each target in turn: pylops' and xarray-spatial's kernels) and
    module constants computed with len/min/max/abs."""
    x = np.linspace(-2.0, 3.0, 37)
    out = np.zeros_like(x)
    kern.chained.launch(32, 2, x, out, device=device)
    i = np.arange(x.size)
    lo = np.where(i % 2 == 0, 0, i)
    hi = np.where(i % 2 == 0, 0, i + 1)
    wl = np.where(i % 2 == 0, 0.5, 0.75)
    wr = np.where(i % 2 == 0, 0.5, 0.25)
    np.testing.assert_array_equal(out, (x * 2.0 + x * 2.0) + lo * wl + hi * wr + 11)


@pytest.mark.parametrize("device", DEVICES)
def test_dtype_names_and_truth_tests_of_numbers(kern, device):
    """``dtype = x.dtype``, ``dtype.type(0.1)``, a local array of it (dpbench), a dtype constant's itemsize
    (cudf), and ``and``/``or``/``not`` of a boolean and a number in conditions."""
    x = np.linspace(-1, 1, 50).astype(np.float32)
    mask = (np.arange(50) % 3).astype(np.int32)
    out = np.zeros_like(x)
    kern.dtype_and_truth.launch(32, 2, x, mask, out, device=device)
    want = np.where(mask != 0, x * np.float32(2) + np.float32(0.1) + np.float32(32), np.float32(-1))
    np.testing.assert_array_equal(out, want)


def _zipped(x, y, out):  # the kernel's loops in plain Python, for the reference
    for i in range(out.shape[0]):
        acc = 0.0
        for k, (a, b) in enumerate(zip(x, y)):
            if k > i:
                break
            acc += a * b
        for j, w in enumerate((0.25, 0.5, 0.25), 1):
            acc += j * w
        for lo, hi in zip(range(i, -1, -2), range(0, 100, 3)):
            if hi == 9:
                continue
            acc += lo - hi
        for v in enumerate(zip(range(3), x)):
            acc += v[0] + v[1][0] * v[1][1]
        out[i] = acc


@pytest.mark.parametrize("device", DEVICES)
def test_zip_and_enumerate_loops(kern, device):
    """``for k, (a, b) in enumerate(zip(x, y))``, ``enumerate(TABLE, 1)``, ``zip`` of counting-down and
    counting-up ranges with ``break`` and ``continue`` (pylops' kernels loop so), as Python runs them."""
    x, y = np.linspace(-1, 2, 20), np.linspace(3, 0, 20)
    out, want = np.zeros(20), np.zeros(20)
    kern.zipped.launch(32, 1, x, y, out, device=device)
    _zipped(x, y, want)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("device", DEVICES)
def test_a_variable_given_numbers_of_two_types_takes_numpys_promotion(kern, device):
    """``D = np.inf`` on one path and an i64 on another (STUMPY), an i64 then an i32 (cuML): the variable
    is NumPy's promotion of both (f64, i64) on every path, the Python path's included."""
    m = np.arange(-5, 35, dtype=np.int64)
    small = (np.arange(40) % 7).astype(np.int32)
    out = np.zeros(40)
    idx = np.zeros(40, np.int64)
    kern.promoted.launch(32, 2, m, small, out, idx, device=device)
    want = np.where(m < 0, np.inf, np.where(m % 3 == 0, m.astype(np.float64), np.abs(2 * m * 0.5)))
    np.testing.assert_array_equal(out, want / 3)
    np.testing.assert_array_equal(idx, np.where(np.arange(40) % 2 == 0, m, small) * 3_000_000_000)


@pytest.mark.parametrize("device", DEVICES)
def test_module_level_if_on_config_and_try_of_imports(kern, device):
    """``if config.ENABLE_CUDASIM:`` at module level takes the branch the import takes (off: kernels are
    compiled), ``try: from math import nan`` / ``except ImportError:`` the import when it resolves, the
    handler when it does not (datashader's and numba-cuda's modules)."""
    assert kern.TILE_N == 8 and kern.FALLBACK == 3.0
    out = np.zeros(20)
    kern.module_branches.launch(32, 1, out, device=device)
    assert np.isnan(out[0])
    np.testing.assert_array_equal(out[1:], 18.0)  # ... + gated(WIDE): version and number comparisons


@pytest.mark.parametrize("device", DEVICES)
def test_complex_array_parts_as_views_and_the_operator_module(kern, device):
    """``z.real``/``z.imag`` of a complex array are views of its parts (fbpic's atomics on ``rho.real``);
    ``operator.mod``/``rshift``/``lt``/``not_``/``eq`` are their operators (cuSpatial)."""
    z = (np.arange(12) + 1j * np.arange(12, 24)).reshape(6, 2).astype(np.complex128)
    bits = np.array([5, 10, 15, 7, 0, 9, 3, 12], np.int64)
    out = np.zeros((8, 4), np.int64)
    want = z.copy()
    kern.parts_and_operators.launch(8, 1, z, bits, out, device=device)
    np.testing.assert_array_equal(out, (bits[:, None] >> np.arange(4)) % 2)
    for i in range(6):
        if i != 3:
            want.real[i, 1] += 1.5
            want.imag[i, 0] = -want.real[i, 0]
    np.testing.assert_array_equal(z, want)


@pytest.mark.parametrize("device", DEVICES)
def test_unpacking_a_1d_array_into_variables(kern, device):
    """``nx, ny = shape_array`` (PyLaBolt): the elements, after a check of the length that raises Python's
    ValueError, with Python's message, on every path."""
    out = np.zeros(4)
    kern.unpack_pair.launch(4, 1, np.array([3, 7]), out, device=device)
    np.testing.assert_array_equal(out, [21, 21, 21, 21])
    for wrong, message in (([1, 2, 3], r"too many values to unpack \(expected 2\)"),
                           ([1], r"not enough values to unpack \(expected 2, got 1\)")):  # fmt: skip
        with pytest.raises(ValueError, match=message):
            kern.unpack_pair.launch(4, 1, np.array(wrong), out, device=device)
            if device == "cuda":
                import hybrid_runtime as hr

                hr.synchronize()


@pytest.mark.parametrize("device", DEVICES)
def test_match_any_and_match_all_compare_bits(kern, device):
    """numba's ``cuda.match_any_sync``: the lanes whose value has this lane's bits (-0.0 is not 0.0, a NaN
    matches the same NaN), 64-bit values whole; ``match_all_sync``: (the warp's lanes, True) where every
    lane's bits agree, else (0, False)."""
    rng = np.random.default_rng(7)
    x = rng.choice(np.array([0.0, -0.0, np.nan, 1.5], np.float32), 64)
    y = rng.choice(np.array([3, 3 + 2**40, -1], np.int64), 64)
    y[32:] = 2**40  # warp 1: every lane the same
    outs = [np.zeros(64, np.int64) for _ in range(3)]
    kern.warp_matches.launch(64, 1, x, y, *outs, device=device)
    bits_x, lanes = x.view(np.uint32), np.arange(64)
    for out, values in ((outs[0], bits_x), (outs[1], y)):
        want = [sum(1 << k for k in range(32) if values[w + k] == values[i]) for i in lanes for w in [i - i % 32]]
        np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(outs[2], [-1 if len(set(y[:32])) > 1 else 0xFFFFFFFF] * 32 + [0xFFFFFFFF] * 32)
    calls = np.zeros(1, np.int64)
    kern.match_all_evaluates_once.launch(64, 1, y, calls, outs[2], device=device)
    assert calls[0] == 64, "match_all_sync's value is evaluated once per thread"
    np.testing.assert_array_equal(outs[2], [-1 if len(set(y[:32])) > 1 else 0xFFFFFFFF] * 32 + [0xFFFFFFFF] * 32)
    out = np.zeros(64, np.int64)
    kern.matches_in_a_loop_of_thread_bounds.launch(64, 1, y, out, device=device)
    shifted = y + (lanes % 2)
    want = [sum(1 << k for k in range(32) if v[w + k] == v[i]) for i in lanes for w in [i - i % 32] for v in [y]]
    want = np.array(want) + [
        sum(1 << k for k in range(32) if shifted[w + k] == shifted[i]) for i in lanes for w in [i - i % 32]
    ]
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("device", DEVICES)
def test_libdevice_and_fp16_functions_are_numpy_s_of_their_type(kern, device):
    """numba's ``cuda.libdevice.sinf(x)`` is ``np.sin`` of an f32 (``fast_`` ones the accurate functions,
    ``exp10f(x)`` ``10 ** x``), ``libdevice.pow`` of f64, ``cuda.fp16.hexp10`` of f16: the result has the
    type, on every device."""
    x = np.linspace(0.1, 2.0, 32, dtype=np.float32)
    h = x.astype(np.float16)
    out32, out64, out16 = np.zeros(32, np.float32), np.zeros(32), np.zeros(32, np.float16)
    kern.libdevice_math.launch(32, 1, x, out32, out64, h, out16, device=device)
    f = np.float32
    np.testing.assert_allclose(out32, np.sin(x) + np.exp(x) * np.power(f(10), x), rtol=2e-6)
    np.testing.assert_allclose(out64, np.power(x.astype(np.float64), 1.5) + np.arctan2(x.astype(np.float64), 2.0))
    want16 = np.power(np.float16(10), h) + np.sqrt(h)
    np.testing.assert_allclose(out16.astype(np.float64), want16.astype(np.float64), rtol=2e-3)


def _bits(v: np.ndarray, width: int, count: str) -> np.ndarray:
    """popc / clz / ffs / brev of each value's ``width`` bits, in Python's integers (the reference)."""
    out = []
    for x in v.tolist():
        x &= (1 << width) - 1
        out.append(
            {"popc": bin(x).count("1"), "clz": width - x.bit_length(), "ffs": (x & -x).bit_length()}.get(count)
            if count != "brev"
            else int(format(x, f"0{width}b")[::-1], 2)
        )
    return np.array(out)


@pytest.mark.parametrize("device", DEVICES)
def test_libdevice_integer_bit_rounding_and_classification_functions(kern, device):
    """libdevice's functions that are not math: bit counts and reversal, integer min/max/abs, high halves
    of products and halving sums, arithmetic rounded to nearest, reciprocals and square roots, saturation
    and classification, each with its operand and result types: bit for bit against NumPy on every device."""
    rng = np.random.default_rng(11)
    n = 64
    i32, i64_, u32, u64_ = np.int32, np.int64, np.uint32, np.uint64
    a, b = (rng.integers(-(2**31), 2**31, n, dtype=i32) for _ in range(2))
    a[:4], b[:4] = [0, -1, -(2**31), 2**31 - 1], [2**31 - 1, -(2**31), -1, 2**31 - 1]
    u, w = (rng.integers(0, 2**32, n, dtype=u32) for _ in range(2))
    u[:2], w[:2] = [0, 2**32 - 1], [2**32 - 1, 2**32 - 1]
    la, lb = (rng.integers(-(2**62), 2**62, n, dtype=i64_) for _ in range(2))
    la[:2] = [0, -(2**62)]
    ul = rng.integers(0, 2**64, n, dtype=u64_)
    f, g = (rng.standard_normal(n).astype(np.float32) * 100 for _ in range(2))
    f[:8] = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-45, 0.5, 2.0]
    g[:3] = [0.0, -4.0, 1e-40]
    d, e = rng.standard_normal(n) * 1e10, np.abs(rng.standard_normal(n)) + 0.5
    d[:5] = [np.nan, -np.inf, np.inf, -0.0, 5e-324]
    ints, uints = np.zeros((n, 19), i32), np.zeros((n, 7), u32)
    longs, floats, doubles = np.zeros((n, 8), i64_), np.zeros((n, 9), np.float32), np.zeros((n, 7))
    maths = np.zeros((n, 8))
    kern.libdevice_operations.launch(
        64, 1, a, b, u, w, la, lb, ul, f, g, d, e, ints, uints, longs, floats, doubles, maths, device=device
    )
    a64, b64 = a.astype(i64_), b.astype(i64_)
    with np.errstate(all="ignore"):
        want_ints = [
            _bits(a, 32, "popc"), _bits(la, 64, "popc"), _bits(a, 32, "clz"), _bits(la, 64, "clz"),
            _bits(a, 32, "ffs"), _bits(la, 64, "ffs"), np.minimum(a, b), np.maximum(a, b), np.abs(a),
            (a64 * b64) >> 32, (a64 + b64) >> 1, (a64 + b64 + 1) >> 1,
            np.isnan(f) + 2 * np.isinf(f) + 4 * np.isfinite(f), np.isnan(d) + 2 * np.isinf(d) + 4 * np.isfinite(d),
            (np.signbit(f) & ~np.isnan(f)) + 2 * (np.signbit(d) & ~np.isnan(d)),  # a NaN's sign reads positive
            f.view(i32), d.view(i64_) >> 32, d.view(i64_).astype(i32), np.zeros(n),
        ]  # fmt: skip
        u64v, w64 = u.astype(u64_), w.astype(u64_)
        want_uints = [
            _bits(u, 32, "brev"), np.minimum(u, w), np.maximum(u, w), (u64v * w64) >> 32, (u64v + w64) >> 1,
            (u64v + w64 + 1) >> 1, a.view(u32) + u,
        ]  # fmt: skip
        want_longs = [
            np.minimum(la, lb), np.maximum(la, lb), np.abs(la),
            (np.array([int(format(x, "064b")[::-1], 2) for x in ul.tolist()], u64_) >> 1),
            np.minimum(ul, u64v) >> 1, np.maximum(ul, u64v) >> 1, d.view(i64_),
            la + ((a64 << 32) | b.view(u32).astype(i64_)),
        ]  # fmt: skip
        one32 = np.float32(1)
        want_floats = [f + g, f - g, f * g, f / g, f / g, one32 / g, np.sqrt(g), one32 / np.sqrt(g)]
        want_floats.append(np.where(np.isnan(f), 0, np.clip(f, 0, 1)).astype(np.float32))
        want_doubles = [d + e, d - e, d * e, d / e, 1.0 / e, np.sqrt(e), 1.0 / np.sqrt(e)]
    from hybrid_runtime.python_math import ieee_math as m

    f32_ = np.float32
    want_maths = [
        [m.erf(x) for x in d], [f32_(m.erf(x)) for x in f], [m.erfc(x) for x in e], [m.gamma(x) for x in e],
        [f32_(m.lgamma(x)) for x in g], [m.fmod(x, y) for x, y in zip(d, e)],
        [f32_(m.remainder(x, y)) for x, y in zip(f, g)],
        [f32_(m.ldexp(x, k % 20)) + m.ldexp(y, j % 1100) for x, k, y, j in zip(g, a.tolist(), e, b.tolist())],
    ]  # fmt: skip
    expected = np.stack([np.asarray(c, np.float64) for c in want_maths], axis=1)
    if device == "cuda":  # libdevice's erf, erfc, tgamma, lgamma: within their documented ulps of the C library's
        np.testing.assert_allclose(maths, expected, rtol=1e-6, atol=1e-300)
    else:
        assert maths.tobytes() == expected.tobytes() or np.array_equal(maths, expected, equal_nan=True)
    for got, want in ((ints, want_ints), (uints, want_uints), (longs, want_longs)):
        np.testing.assert_array_equal(got, np.stack([np.asarray(c).astype(got.dtype) for c in want], axis=1))
    for got, want in ((floats, want_floats), (doubles, want_doubles)):
        expected = np.stack([np.asarray(c, got.dtype) for c in want], axis=1)
        assert got.tobytes() == expected.tobytes() or np.array_equal(got, expected, equal_nan=True)


def test_every_libdevice_operation_compiles_to_what_the_python_path_computes(build):
    """Each entry of libdevice's OPERATIONS table, called from a kernel: native code gives the Python path's
    bits (the compiler rewrites the call into the entry's expression; the Python path evaluates it)."""
    from hybrid_runtime.libdevice import OPERATIONS

    names = {"int32": ("a", "b"), "uint32": ("u", "w"), "int64": ("la", "lb"), "uint64": ("ul", "vl"),
             "float32": ("f", "g"), "float64": ("d", "e")}  # fmt: skip
    lines = []
    for k, (name, (dtypes, _)) in enumerate(sorted(OPERATIONS.items())):
        args = ", ".join(names[t][j] + "[i]" for j, t in enumerate(dtypes))
        lines.append(f"        out[i, {k}] = f64(libdevice.{name}({args}))")
    params = ", ".join(f"{v}: Array[{t.replace('float', 'f').replace('uint', 'u').replace('int', 'i')}]"
                       for t, pair in names.items() for v in pair)  # fmt: skip
    source = KERNEL_PRELUDE + (
        "from hybrid_runtime import cuda\nfrom hybrid_runtime.cuda import libdevice\n\n"
        f"@kernel\ndef every({params}, out: Array[f64, 2]):\n    i = cuda.grid(1)\n    if i < a.size:\n"
        + "\n".join(lines)
        + "\n"
    )
    every = build(source).module.every
    rng = np.random.default_rng(3)
    n = 64
    arrays = []
    for t in names:
        for _ in range(2):
            dt = np.dtype(t)
            if dt.kind == "f":
                v = (rng.standard_normal(n) * 50).astype(dt)
                v[:6] = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0]
            else:
                info = np.iinfo(dt)
                v = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
                v[:3] = [0, info.max, info.min]
            arrays.append(np.roll(v, len(arrays)))
    outs = {}
    for device in ("cpu", "cpu-python"):
        outs[device] = np.zeros((n, len(OPERATIONS)))
        with np.errstate(all="ignore"):
            every.launch(64, 1, *arrays, outs[device], device=device)
    for k, name in enumerate(sorted(OPERATIONS)):
        native, python = outs["cpu"][:, k], outs["cpu-python"][:, k]
        assert native.tobytes() == python.tobytes() or np.array_equal(native, python, equal_nan=True), name


@pytest.mark.parametrize(
    ("line", "message", "hint"),
    [
        # match_all_sync reads its arguments twice: a call where it cannot be computed before the statement
        ("x[0] = i > 3 and cuda.match_all_sync(0xFFFFFFFF, abs(x[1]))[1]", "where only some evaluations", "a variable"),
        ("x[0] = libdevice.fadd_rz(x[0], x[1])", "rounds in a directed mode", "cuda.libdevice.fadd_rn()"),
        ("x[0] = x[1].view(np.int32)", "takes one dtype: an integer or float type of 64 bits", "x.view(np.int64)"),
        ("x[0] = (float(x[1]) + 1.0).view(np.int64)", "a NumPy integer or float, not of", "f64(x).view(np.int64)"),
    ],
)
def test_what_numba_cuda_takes_and_cannot_mean_one_thing_is_a_located_error(build, line, message, hint):
    from hatch_hybrid.errors import CompileError

    source = KERNEL_PRELUDE + (
        "from hybrid_runtime import cuda\nfrom hybrid_runtime.cuda import libdevice\n\n"
        f"@kernel\ndef k(x: Array[f64]):\n    i = cuda.grid(1)\n    {line}\n"
    )
    with pytest.raises(CompileError) as info:
        build(source)
    assert message in info.value.message and hint in (info.value.hint or "")
    assert info.value.loc is not None and info.value.loc.line == source.count("\n")


@pytest.mark.parametrize("device", DEVICES)
def test_atomic_max_and_min_keep_a_stored_nan_as_numba_s_do(kern, device):
    """numba's ``cuda.atomic.max/min`` of floats store the value only where it compares larger (smaller): a
    NaN in memory stays, a NaN value changes nothing; ``nanmax`` takes the number over a NaN either way."""
    nan = np.nan
    val = np.array([2, 2, nan, nan], np.float32)
    mx, mn, nmx = (np.array([a, nan, a, nan], np.float32) for a in (1, 3, 1))
    old = np.zeros(4, np.float32)
    kern.numba_extremes.launch(4, 1, val, mx, mn, nmx, old, device=device)
    np.testing.assert_array_equal(mx, [2, nan, 1, nan])
    np.testing.assert_array_equal(old, [1, nan, 1, nan])
    np.testing.assert_array_equal(mn, [2, nan, 3, nan])
    np.testing.assert_array_equal(nmx, [2, 2, 1, nan])


@pytest.mark.parametrize("device", DEVICES)
def test_libdevice_calls_nested_in_rewritten_ones(kern, device):
    """``hadd(hexp10(h), h)``, ``sincosf(exp10f(p))``: each rewrite once (exp10's leading 10 too)."""
    h, p = np.full(4, 0.5, np.float16), np.full(4, 0.25, np.float32)
    o = np.zeros(4, np.float16)
    kern.nested_libdevice.launch(4, 1, h, o, p, device=device)
    want_p = np.power(np.float32(10), np.float32(0.25))
    np.testing.assert_allclose(o, np.power(np.float16(10), np.float16(0.5)) + np.float16(0.5), rtol=2e-3)
    np.testing.assert_allclose(p, np.sin(want_p) + np.cos(want_p), rtol=1e-6)


@pytest.mark.parametrize("device", DEVICES)
def test_fp16_arithmetic_and_sincos(kern, device):
    """``cuda.fp16.hadd/hsub/hmul/hdiv/hneg`` are float16 arithmetic, ``hfma`` a product and sum rounded once
    to float16, ``hlt``/``heq``... comparisons; ``libdevice.sincosf(x)`` is ``(sinf(x), cosf(x))``."""
    rng = np.random.default_rng(5)
    a, b = (rng.uniform(0.5, 4, 32).astype(np.float16) for _ in range(2))
    c = a.copy()
    c[::3] += np.float16(1)
    out, flags = np.zeros(32, np.float16), np.zeros(32, np.int32)
    kern.fp16_arithmetic.launch(32, 1, a, b, c, out, flags, device=device)
    f64, h = np.float64, np.float16
    fma = (a.astype(f64) * b.astype(f64) + c.astype(f64)).astype(h)
    s, co = np.sin(a.astype(np.float32)), np.cos(a.astype(np.float32))
    want = (fma + (-a) / b + h(1) / b) + (s * co).astype(h)
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(flags, (a < b) + 2 * (a == c))


@pytest.mark.parametrize("device", DEVICES)
def test_grid_sync_meets_every_block(kern, device):
    """numba's ``cuda.cg.this_grid().sync()`` (and ``gpu.grid_sync()``): every thread of the grid meets, so
    a round reads what other blocks wrote in the one before (a cooperative launch on CUDA; every block on
    its own thread natively; every thread at once on the Python path)."""
    n = 128  # 4 blocks of 32
    x = np.arange(n, dtype=np.int64)
    want_x = x.copy()
    for r in range(3):
        out = np.roll(want_x, -37) + r
        want_x = out * 2
    got, outs = x.copy(), np.zeros(n, np.int64)
    kern.grid_rounds.launch(32, 4, got, outs, device=device)  # 4 blocks of 32 threads
    np.testing.assert_array_equal(got, want_x)
    np.testing.assert_array_equal(outs, out)
    a, out = np.zeros(n, np.int64), np.zeros(n, np.int64)
    kern.grid_helper.launch(4, 32, a, out, device=device)  # 32 blocks of 4
    np.testing.assert_array_equal(out, np.roll(np.arange(n) + 1, -1))


@pytest.mark.gpu
def test_grid_sync_on_cuda_refuses_grids_the_gpu_cannot_hold(kern):
    """On a GPU the cooperative launch's grid must fit on the GPU at once: a ValueError naming the limit."""
    x = np.zeros(32 * 100_000, np.int64)
    with pytest.raises(ValueError, match=r"every block must be on the GPU at once: 100000 blocks"):
        kern.grid_rounds.launch(32, 100_000, x, x.copy(), device="cuda")
    assert not x.any()


@pytest.mark.parametrize("device", ["cpu", "cpu-python"])
def test_a_block_that_returned_no_longer_holds_up_the_grid_barrier(kern, device):
    """Natively and on the Python path a block that has returned counts as arrived at the grid barrier, as a
    returned thread does at a block's barrier (on a GPU every block must reach it: CUDA's rule); the
    sanitizer, which does not follow the grid barrier yet, says so when asked for."""
    x, out = np.zeros(100, np.int64), np.zeros(100, np.int64)
    kern.grid_early_exit.launch(64, 4, x, out, device=device)
    np.testing.assert_array_equal(out, (np.arange(100) + 37) % 100)
    if device == "cpu":
        with pytest.raises(ValueError, match="does not follow a grid-wide barrier"):
            kern.grid_early_exit.launch(64, 4, x, out, device="cpu", sanitize=True)


def test_grid_sync_refuses_grids_that_cannot_run_at_once(kern):
    """Every block of a grid-synchronised launch runs at once: natively at most 1024 blocks, on the Python
    path 4096 threads; more is a ValueError before anything runs."""
    x = np.zeros(2048 * 32, np.int64)
    for device, blocks in (("cpu", 2048), ("cpu-python", 256)):
        with pytest.raises(ValueError, match="grid-wide barrier"):
            kern.grid_rounds.launch(32, blocks, x, x.copy(), device=device)
    assert not x.any()


class _DlpackOnly:
    """Another library's CPU tensor as the kernel sees it: DLPack alone (as PyTorch's and JAX's CPU arrays)."""

    def __init__(self, a: np.ndarray) -> None:
        self._a = a

    def __dlpack__(self, **kw):  # type: ignore[no-untyped-def]
        return self._a.__dlpack__(**{k: v for k, v in kw.items() if k != "stream"})

    def __dlpack_device__(self):  # type: ignore[no-untyped-def]
        return self._a.__dlpack_device__()


class _InterfaceOnly:
    def __init__(self, a: np.ndarray) -> None:
        self._a, self.__array_interface__ = a, a.__array_interface__


@pytest.mark.parametrize("device", DEVICES)
def test_foreign_cpu_arrays_are_launched_in_place(kern, device):
    """A CPU array of another library (DLPack, as PyTorch's and JAX's CPU tensors; ``__array_interface__``)
    is an argument on every device: the kernel's writes reach its memory."""
    for wrap in (_DlpackOnly, _InterfaceOnly):
        a = np.arange(64, dtype=np.float32)
        kern.scale_in_place.launch(32, 2, wrap(a), np.float32(3), device=device)
        np.testing.assert_array_equal(a, np.arange(64, dtype=np.float32) * 3)
    with pytest.raises(TypeError, match=r"parameter `x` expects Array\[f32\], got an array of float64"):
        kern.scale_in_place.launch(32, 2, _DlpackOnly(np.zeros(4)), np.float32(3), device=device)
    torch = pytest.importorskip("torch")
    t = torch.arange(64, dtype=torch.float32)
    kern.scale_in_place.launch(32, 2, t, np.float32(2), device=device)
    assert t.tolist() == [2.0 * v for v in range(64)]


@pytest.mark.parametrize("device", DEVICES)
def test_partial_masks_name_the_lanes_that_take_part(kern, device):
    """CUDA's partial masks (a mask known only at run time): a shuffle whose source is outside the mask keeps
    the lane's own value, a vote or match counts the mask's lanes, on every device."""
    rng = np.random.default_rng(3)
    x = rng.integers(-3, 9, 64)
    out, votes, matches = (np.zeros(64, np.int64) for _ in range(3))
    kern.partial_warps.launch(64, 1, x, out, votes, matches, device=device)
    want_out, want_votes, want_matches = (np.zeros(64, np.int64) for _ in range(3))
    for i in range(64):
        lane, w = i % 32, i - i % 32
        half = range(w, w + 16) if lane < 16 else range(w + 16, w + 32)
        if lane < 16:
            want_out[i] = x[i + 8] if lane < 8 else x[i]
        else:
            want_out[i] = x[i ^ 1]
        ballot = sum(1 << (j - w) for j in half if x[j] > 0)
        match = sum(1 << (j - w) for j in half if x[j] % 3 == x[i] % 3)
        anyv, allv = any(x[j] > 5 for j in half), all(x[j] >= 0 for j in half)
        want_votes[i] = ballot + anyv * (1 << 40) + allv * (1 << 41)
        want_matches[i] = match
    np.testing.assert_array_equal(out, want_out)
    np.testing.assert_array_equal(votes, want_votes)
    np.testing.assert_array_equal(matches, want_matches)


@pytest.mark.parametrize("device", DEVICES)
def test_warp_calls_on_both_sides_of_a_branch_in_a_ragged_loop(kern, device):
    """Lanes at another warp call (the other side of a branch) never take part, whichever thread schedule
    runs the kernel: each side's activemask is its own lanes, and its shuffles read its own lanes."""
    out, sh = np.zeros(32, np.int64), np.zeros(32, np.int64)
    kern.activemask_in_a_ragged_loop.launch(32, 1, out, sh, device=device)
    np.testing.assert_array_equal(out, [0x55555555 if i % 2 == 0 else 0xAAAAAAAA for i in range(32)])
    want = [(i + 2 if i + 2 < 32 else i) * (1 if i % 2 == 0 else 100) for i in range(32)]
    np.testing.assert_array_equal(sh, want)


@pytest.mark.parametrize("device", DEVICES)
def test_activemask_in_a_branch_is_the_branch_s_lanes(kern, device):
    """``cuda.activemask()`` where the warp has diverged: the lanes on this side of the branch."""
    out = np.zeros(64, np.int64)
    kern.divergent_activemask.launch(64, 1, out, device=device)
    side = sum(1 << k for k in range(32) if k % 3 == 0)  # (warp 1 starts at 32, a multiple of 3 minus 1)
    other = [sum(1 << k for k in range(32) if (w + k) % 3 == 0) for w in (0, 32)]
    want = [other[i // 32] if i % 3 == 0 else (0xFFFFFFFF ^ other[i // 32]) + 1 for i in range(64)]
    assert other[0] == side
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("device", DEVICES)
def test_eq_sync_says_whether_every_lane_agrees(kern, device):
    """numba's ``cuda.eq_sync(mask, p)``: true in a warp whose lanes all have the same predicate (all true or
    all false), false where they differ."""
    x = np.zeros(128, np.int32)
    x[32:64] = 5  # warp 1: all true; warp 0: all false
    x[70] = 1  # warp 2: one differs
    x[96:127] = 3  # warp 3: all but one
    out = np.full(128, -1, np.int32)
    kern.uniform_votes.launch(128, 1, x, out, device=device)
    np.testing.assert_array_equal(out, np.repeat([1, 1, 0, 0], 32))
