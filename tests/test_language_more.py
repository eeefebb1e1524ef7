"""Annotations as Python writes them, per-thread arrays, keyword arguments and defaults, the rest of
``math``, and numba.cuda's spelling: compiled (PTX through ptxas), run natively on the CPU and through
the Python function (and on a GPU when present) with the same results."""

from __future__ import annotations

import math
import re
import sys

import numpy as np
import pytest
from conftest import DEVICES, KERNEL_PRELUDE, same_bits

SOURCE = (
    "from __future__ import annotations\n"
    + KERNEL_PRELUDE
    + """
import typing
from hybrid_runtime import struct, cuda

SCALE = 3


@struct
class Vec2:
    x: "f64"
    y: f64

    def dot(self, other: "Vec2") -> f64:
        return self.x * other.x + self.y * other.y

    def scaled(self, k: f64 = 2.0) -> Vec2:
        return Vec2(self.x * k, self.y * k)

    def plus(self, other: typing.Self) -> "typing.Self":
        result: typing.Self = Vec2(self.x + other.x, self.y + other.y)
        return result


def weighted(a: f64, b: "f64", wa: f64 = 1.0, wb: f64 = -0.5, times: int = SCALE) -> f64:
    return (a * wa + b * wb) * times


@kernel
def annotated(xs: "Array[Vec2]", out: Array["f64"]):
    i = gpu.global_tid_x()
    if i < len(xs):
        v: "Vec2" = xs[i]
        w = v.scaled().plus(v.scaled(k=0.5))
        out[i] = w.dot(other=v) + weighted(v.x, v.y) + weighted(wb=2.0, b=v.x, a=v.y) + weighted(1.0, 2.0, 3.0, times=1)


@kernel
def local_structs(xs: Array[f64], out: Array[f64]):
    i = gpu.global_tid_x()
    if i < len(xs):
        pts = gpu.local_array(Vec2, (2, 3))
        acc = 0.0
        for r in range(2):
            for c in range(3):
                pts[r, c] = Vec2(xs[i] * r, f64(c))
        for r in range(2):
            for c in range(3):
                acc += pts[r, c].dot(Vec2(1.0, 1.0))
        out[i] = acc


@kernel
def local_with_barrier(xs: Array[i32], out: Array[i32]):
    t = gpu.thread_idx_x()
    mine = gpu.local_array(i32, 4)
    tile = gpu.shared_array(i32, 64)
    for k in range(4):
        mine[k] = xs[gpu.global_tid_x()] * (k + 1)
    tile[t] = mine[3]
    gpu.syncthreads()
    mine[0] += tile[(t + 1) % gpu.block_dim_x()]
    gpu.syncthreads()
    out[gpu.global_tid_x()] = mine[0] + mine[1] + mine[2]


@kernel
def numba_spelling(xs: Array[f32], out: Array[f32], lanes: Array[i64]):
    i = cuda.grid(1)
    n = cuda.gridsize(1)
    t = cuda.threadIdx.x
    v = xs[i] if i < len(xs) else f32(0.0)
    v += cuda.shfl_down_sync(0xFFFFFFFF, v, 1)
    if i < len(xs):
        out[i] = v
        lanes[i] = cuda.laneid + cuda.blockIdx.x * 100 + cuda.blockDim.x * 10000 + cuda.warpsize * 0 + n * 0 + t * 0


@kernel
def gpu_spelling(xs: Array[f32], out: Array[f32], lanes: Array[i64]):
    i = gpu.global_tid_x()
    n = gpu.global_size_x()
    t = gpu.thread_idx_x()
    v = xs[i] if i < len(xs) else f32(0.0)
    v += gpu.shfl_down(v, 1)
    if i < len(xs):
        out[i] = v
        lanes[i] = gpu.lane_id() + gpu.block_idx_x() * 100 + gpu.block_dim_x() * 10000 + 32 * 0 + n * 0 + t * 0


@kernel
def grid2(out: Array[i64, 2]):
    x, y = cuda.grid(2)
    w, h = cuda.gridsize(2)
    if x < out.shape[0] and y < out.shape[1]:
        out[x, y] = x * 1000 + y + w * 0 + h * 0


@kernel
def more_math(xs: Array[f64], ys: Array[f64], out: Array[f64, 2], flags: Array[boolean, 2], ints: Array[i64, 2]):
    i = gpu.global_tid_x()
    if i < len(xs):
        x = xs[i]
        y = ys[i]
        out[i, 0] = math.fmod(x, y)
        out[i, 1] = math.remainder(x, y)
        out[i, 2] = math.ldexp(x, i - 8)
        m, e = math.frexp(x)
        out[i, 3] = m
        ints[i, 0] = e
        f, w = math.modf(x)
        out[i, 4] = f
        out[i, 5] = w
        out[i, 6] = math.degrees(x)
        out[i, 7] = math.radians(x)
        out[i, 8] = math.cbrt(x)
        out[i, 9] = math.exp2(y)
        out[i, 10] = f32(math.fmod(f32(x), f32(y)))
        flags[i, 0] = math.isnan(x)
        flags[i, 1] = math.isinf(x)
        flags[i, 2] = math.isfinite(x)
        ints[i, 1] = math.floor(math.ldexp(1.0, 3))


@kernel
def gammas(xs: Array[f64], out: Array[f64, 2]):
    i = gpu.global_tid_x()
    if i < len(xs):
        out[i, 0] = math.gamma(xs[i])
        out[i, 1] = math.lgamma(xs[i])
        out[i, 2] = math.erf(xs[i] - 2.0)


@kernel
def fused(a: Array[f64], b: Array[f64], c: Array[f64], out: Array[f64]):
    i = gpu.global_tid_x()
    if i < len(out):
        out[i] = math.fma(a[i], b[i], c[i])
"""
)


@pytest.fixture
def lang(build):  # type: ignore[no-untyped-def]
    return build(SOURCE, shared=True)


def _vecs(n: int, mod) -> np.ndarray:  # type: ignore[no-untyped-def]
    xs = np.zeros(n, mod.Vec2.dtype)
    xs["x"] = np.linspace(-2, 3, n)
    xs["y"] = np.linspace(1, -1, n) ** 3
    return xs


@pytest.mark.parametrize("device", DEVICES)
def test_string_annotations_self_keywords_defaults(lang, device: str) -> None:  # type: ignore[no-untyped-def]
    mod = lang.module
    xs = _vecs(37, mod)
    out = np.zeros(37)
    mod.annotated.launch(32, 2, xs, out, device=device)
    x, y = xs["x"], xs["y"]
    w_x, w_y = x * 2.0 + x * 0.5, y * 2.0 + y * 0.5
    expected = (w_x * x + w_y * y) + (x - 0.5 * y) * 3 + (y + 2.0 * x) * 3 + (1.0 * 3.0 + 2.0 * -0.5)
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("device", DEVICES)
def test_local_array_of_structs_2d(lang, device: str) -> None:  # type: ignore[no-untyped-def]
    xs = np.linspace(-1, 1, 40)
    out = np.zeros(40)
    lang.module.local_structs.launch(32, 2, xs, out, device=device)
    expected = np.zeros(40)
    for r in range(2):
        for c in range(3):
            expected += xs * r + c
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("device", DEVICES)
def test_local_array_survives_barriers(lang, device: str) -> None:  # type: ignore[no-untyped-def]
    xs = np.arange(128, dtype=np.int32)
    out = np.zeros_like(xs)
    lang.module.local_with_barrier.launch(64, 2, xs, out, device=device)
    t = np.arange(128) % 64
    neighbour = (xs - t + (t + 1) % 64) * 4
    np.testing.assert_array_equal(out, xs + neighbour + 2 * xs + 3 * xs)


@pytest.mark.parametrize("device", DEVICES)
def test_numba_spelling_matches_gpu_spelling(lang, device: str) -> None:  # type: ignore[no-untyped-def]
    mod = lang.module
    xs = np.arange(70, dtype=np.float32) * 0.5
    results = []
    for k in (mod.numba_spelling, mod.gpu_spelling):
        out, lanes = np.zeros_like(xs), np.zeros(70, np.int64)
        k.launch(32, 3, xs, out, lanes, device=device)
        results.append((out, lanes))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], results[1][1])
    i = np.arange(70)
    np.testing.assert_array_equal(results[0][1], i % 32 + (i // 32) * 100 + 320000)


def test_numba_spelling_compiles_to_the_same_code(lang) -> None:  # type: ignore[no-untyped-def]
    package = lang.package_dir.name
    a = lang.ptx("numba_spelling").replace(package, "P").replace("numba_spelling", "K")
    b = lang.ptx("gpu_spelling").replace(package, "P").replace("gpu_spelling", "K")
    lines = re.compile(r"^\s*\.loc\s.*\n", re.M)  # the two kernels stand on different source lines
    assert ".loc" in a and lines.sub("", a) == lines.sub("", b)


@pytest.mark.parametrize("device", DEVICES)
def test_grid_2d(lang, device: str) -> None:  # type: ignore[no-untyped-def]
    out = np.zeros((20, 9), np.int64)
    lang.module.grid2.launch((8, 4), (3, 3), out, device=device)
    x, y = np.meshgrid(np.arange(20), np.arange(9), indexing="ij")
    np.testing.assert_array_equal(out, x * 1000 + y)


def _math_inputs() -> tuple[np.ndarray, np.ndarray]:
    xs = np.array(
        [7.5, -7.5, 1e30, -0.0, 0.3, np.inf, -np.inf, np.nan, 5.0, 2.5, 1e-310, 123.456, -3.75, 8.0, 1.0, 0.1]
    )
    ys = np.array([2.0, 2.0, 3.0, 1.0, 0.1, 1.0, 2.0, 1.0, 2.0, -2.0, 1.0, 7.0, 0.5, 3.0, 1023.0, -3.5])
    return xs, ys


@pytest.mark.skipif(sys.version_info < (3, 11), reason="math.cbrt and math.exp2 are new in Python 3.11")
@pytest.mark.parametrize("device", DEVICES)
def test_more_math_bit_identical(lang, device: str) -> None:  # type: ignore[no-untyped-def]
    xs, ys = _math_inputs()
    n = len(xs)
    out, flags, ints = np.zeros((n, 11)), np.zeros((n, 3), bool), np.zeros((n, 2), np.int64)
    if device == "cpu-python" or (device == "cpu" and lang.module.more_math.native_code() is None):
        finite = np.isfinite(xs)  # Python's math raises where C returns inf/nan: compare the finite rows
        xs, ys = np.where(finite, xs, 1.0), ys
    lang.module.more_math.launch(32, 1, xs, ys, out, flags, ints, device=device)
    with np.errstate(all="ignore"):
        expected = np.stack(
            [
                np.fmod(xs, ys),
                [math.remainder(x, y) if np.isfinite(x) else np.nan for x, y in zip(xs, ys)],
                np.ldexp(xs, np.arange(n) - 8),
                np.frexp(xs)[0],
                np.modf(xs)[0],
                np.modf(xs)[1],
                xs * (180.0 / math.pi),
                xs * (math.pi / 180.0),
                [math.cbrt(x) for x in xs],  # the C library's, as native code calls (NumPy has its own)
                np.exp2(ys),
                np.fmod(xs.astype(np.float32), ys.astype(np.float32)).astype(np.float64),
            ],
            axis=1,
        )
    if device == "cuda":  # cbrt and exp2 are libdevice's there: within docs/language.md's bound of the C library's
        libm = [8, 9]
        assert (_ulps(out[:, libm], expected[:, libm]) <= 2).all() or np.array_equal(out[:, libm], expected[:, libm])
        out[:, libm] = expected[:, libm]
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(flags, np.stack([np.isnan(xs), np.isinf(xs), np.isfinite(xs)], axis=1))
    finite = np.isfinite(xs)
    np.testing.assert_array_equal(ints[finite, 0], np.frexp(xs)[1][finite])
    assert (ints[:, 1] == 8).all()


def _ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    ia, ib = a.view(np.int64), b.view(np.int64)
    ia = np.where(ia < 0, np.int64(-(2**63)) - ia, ia)
    ib = np.where(ib < 0, np.int64(-(2**63)) - ib, ib)
    return np.abs(ia - ib)


def test_gamma_native_equals_python_path(lang) -> None:  # type: ignore[no-untyped-def]
    """Native code calls the C library's tgamma/lgamma and so does the Python path (CPython's own
    Lanczos versions differ in the last bits): the same bits, as erf (the C library's on both)."""
    xs = np.concatenate([np.linspace(0.05, 30.0, 997), np.linspace(-4.95, -0.05, 40), [0.0, -0.0, -1.0, 2000.0]])
    results = {}
    for device in ("cpu", "cpu-python"):
        out = np.zeros((len(xs), 3))
        lang.module.gammas.launch(128, 9, xs, out, device=device)
        results[device] = out
    native, python = results["cpu"], results["cpu-python"]
    assert same_bits(native, python)


@pytest.mark.parametrize(
    "device",
    [
        "cpu",
        pytest.param(
            "cpu-python",
            marks=pytest.mark.skipif(sys.version_info < (3, 13), reason="math.fma is new in Python 3.13"),
        ),
        pytest.param("cuda", marks=pytest.mark.gpu),
    ],
)
def test_fma_single_rounding(lang, device: str) -> None:  # type: ignore[no-untyped-def]
    if device == "cpu" and lang.module.fused.native_code() is None and sys.version_info < (3, 13):
        pytest.skip("no native code here, and the Python path needs math.fma (Python 3.13)")
    a = np.array([1.0 + 2.0**-30, 0.1, 3.0])
    b = np.array([1.0 - 2.0**-30, 10.0, 7.0])
    c = np.array([-1.0, -1.0, 1.0])
    out = np.zeros(3)
    lang.module.fused.launch(32, 1, a, b, c, out, device=device)
    assert out[0] == -(2.0**-60)  # a*b + c rounded once (a*b rounded alone gives 0.0)
    assert out[2] == 22.0


KWARGS_SOURCE = (
    KERNEL_PRELUDE
    + """
@kernel
def axpb(a: f32, x: Array[f32], out: Array[f32], b: f32 = 1.5):
    i = gpu.global_tid_x()
    if i < len(x):
        out[i] = a * x[i] + b
"""
)


@pytest.mark.parametrize("device", DEVICES)
def test_kernel_launched_with_keyword_arguments_and_defaults(build, device: str) -> None:  # type: ignore[no-untyped-def]
    k = build(KWARGS_SOURCE).module.axpb
    x = np.arange(10, dtype=np.float32)
    out = np.zeros_like(x)
    k.launch(32, 1, np.float32(2.0), out=out, x=x, device=device)
    np.testing.assert_array_equal(out, 2 * x + np.float32(1.5))
    k.launch(32, 1, x=x, out=out, a=np.float32(1.0), b=np.float32(-1.0), device=device)
    np.testing.assert_array_equal(out, x - 1)
    with pytest.raises(TypeError, match=r"axpb\(a, x, out, b\): .*'out'"):
        k.launch(32, 1, np.float32(2.0), x, device=device)


def test_kernel_keyword_arguments_through_brackets(build, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("HYBRID_DEVICE", "cpu")
    k = build(KWARGS_SOURCE).module.axpb
    x = np.arange(10, dtype=np.float32)
    out = np.zeros_like(x)
    k[1, 32](np.float32(3.0), x, out=out)
    np.testing.assert_array_equal(out, 3 * x + np.float32(1.5))
