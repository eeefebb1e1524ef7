"""complex64 / complex128 and Python complex: arithmetic bit for bit against NumPy's scalars and
CPython's complex on every device (zeros, infs, nans, huge and tiny magnitudes), ``cmath`` against
CPython, parameters, struct fields, shared and per-thread arrays, helpers; PTX through ptxas (the
``build`` fixture assembles every kernel for sm_70 and sm_90); located errors for what Python and
NumPy refuse."""

from __future__ import annotations

import cmath
import math
import struct
import sys
from typing import Any

import numpy as np
import pytest
from conftest import DEVICES, DEVICES_BUT_WGPU, KERNEL_PRELUDE

SOURCE = (
    KERNEL_PRELUDE
    + """
import cmath
from typing import TypeVar
from hybrid_runtime import c64, c128, complex64, f16, struct

C = TypeVar("C")


@struct
class Wave:
    amp: c64
    phase: c128
    k: f32


def product(a, b):
    return a * b


@kernel(specialize={"C": [c64, c128]})
def numpy_ops(x: Array[C], y: Array[C], out: Array[C, 2], mag: Array[f64], eq: Array[boolean, 2]):
    i = gpu.global_tid_x()
    if i < len(x):
        a = x[i]
        b = y[i]
        out[i, 0] = a + b
        out[i, 1] = a - b
        out[i, 2] = product(a, b)
        out[i, 3] = a / b
        out[i, 4] = -a
        out[i, 5] = a.conjugate()
        out[i, 6] = a * 2.5
        out[i, 7] = a + 1j
        out[i, 8] = a / 3
        out[i, 9] = complex(a.imag, a.real)
        mag[i] = abs(a)
        eq[i, 0] = a == b
        eq[i, 1] = a != b
        eq[i, 2] = a == a
        eq[i, 3] = bool(a)


@kernel
def python_ops(x: Array[c128], y: Array[c128], out: Array[c128, 2], mag: Array[f64]):
    i = gpu.global_tid_x()
    if i < len(x):
        a = complex(x[i].real, x[i].imag)  # Python complex: CPython's arithmetic
        b = complex(y[i].real, y[i].imag)
        out[i, 0] = a + b
        out[i, 1] = a - b
        out[i, 2] = a * b
        out[i, 3] = a / b
        out[i, 4] = -a
        out[i, 5] = a * 2.5
        out[i, 6] = a / 3
        out[i, 7] = 1 + a
        out[i, 8] = a.conjugate() * (0.5 - 2j)
        mag[i] = abs(a)


@kernel
def mixed(x: Array[f32], y: Array[i32], h: Array[f16], out: Array[c128, 2]):
    i = gpu.global_tid_x()
    if i < len(x):
        out[i, 4] = h[i] * (0.5 - 1j) + c64(h[i])  # f16 and a Python complex: complex64
        out[i, 0] = x[i] * 1j  # f32 and a Python complex: complex64
        out[i, 1] = y[i] * (2 - 1j)  # i32 and a Python complex: complex128
        out[i, 2] = c64(x[i]) / c128(y[i])
        out[i, 3] = c64(complex(x[i], 1.0)) * x[i]


@kernel
def python_zero_division(x: Array[c128], out: Array[c128]):
    out[0] = (1 + 1j) / complex(x[0].real, x[0].imag)


@kernel
def python_zero_power(x: Array[c128], out: Array[c128]):
    out[0] = complex(x[0].real, x[0].imag) ** -2


def store_powers(a, out, i):  # numpy_powers: NumPy's algorithm; python_powers: CPython's
    out[i, 0] = a**0
    out[i, 1] = a**1
    out[i, 2] = a**2
    out[i, 3] = a**3
    out[i, 4] = a**5
    out[i, 5] = a**-1
    out[i, 6] = a**-2
    out[i, 7] = a**-7
    out[i, 8] = a**12


@kernel(specialize={"C": [c64, c128]})
def numpy_powers(x: Array[C], out: Array[C, 2]):
    i = gpu.global_tid_x()
    if i < len(x):
        store_powers(x[i], out, i)


@kernel
def python_powers(x: Array[c128], out: Array[c128, 2]):
    i = gpu.global_tid_x()
    if i < len(x):
        store_powers(complex(x[i].real, x[i].imag), out, i)


@kernel
def cmath_funcs(x: Array[c128], out: Array[c128, 2], real: Array[f64, 2], flags: Array[boolean, 2]):
    i = gpu.global_tid_x()
    if i < len(x):
        z = x[i]
        out[i, 0] = cmath.sqrt(z)
        out[i, 1] = cmath.exp(z)
        out[i, 2] = cmath.log(z)
        out[i, 3] = cmath.rect(z.real, z.imag)
        out[i, 4] = cmath.sqrt(c64(z))
        out[i, 5] = cmath.log10(z)
        r, phi = cmath.polar(z)
        real[i, 0] = r
        real[i, 1] = phi
        real[i, 2] = cmath.phase(z)
        flags[i, 0] = cmath.isnan(z)
        flags[i, 1] = cmath.isinf(z)
        flags[i, 2] = cmath.isfinite(z)


@kernel
def cmath_trig(x: Array[c128], out: Array[c128, 2]):
    i = gpu.global_tid_x()
    if i < len(x):
        z = x[i]
        out[i, 0] = cmath.cos(z)
        out[i, 1] = cmath.sin(z)
        out[i, 2] = cmath.tan(z)
        out[i, 3] = cmath.cosh(z)
        out[i, 4] = cmath.sinh(z)
        out[i, 5] = cmath.tanh(z)
        out[i, 6] = cmath.acos(z)
        out[i, 7] = cmath.asin(z)
        out[i, 8] = cmath.atan(z)
        out[i, 9] = cmath.acosh(z)
        out[i, 10] = cmath.asinh(z)
        out[i, 11] = cmath.atanh(z)
        out[i, 12] = cmath.cos(c64(z))


def shift(w: Wave, by: c128) -> Wave:
    return Wave(w.amp * 2, w.phase + by, w.k)


@kernel
def memory(waves: Array[Wave], out: Array[c64], s: c64, p: complex, w: Wave):
    t = gpu.thread_idx_x()
    tile = gpu.shared_array(c64, 64)
    mine = gpu.local_array(c128, 3)
    moved = shift(waves[gpu.global_tid_x()], p)
    tile[t] = moved.amp + s
    gpu.syncthreads()
    for k in range(3):
        mine[k] = moved.phase * k
    acc = tile[(t + 1) % gpu.block_dim_x()] if t % 2 == 0 else tile[t]
    acc += w.amp * w.k
    out[gpu.global_tid_x()] = acc + mine[2] - mine[1]
    waves[gpu.global_tid_x()] = moved


ROT = 0.5 + 0.5j  # module constants: a Python complex, a NumPy complex64
C0 = np.complex64(1 - 1j)
SCALED = ROT * 3 - 2j


@kernel
def constants(x: Array[c64], out: Array[c128, 2]):
    i = gpu.global_tid_x()
    if i < len(x):
        out[i, 0] = x[i] * ROT
        out[i, 1] = x[i] + C0
        out[i, 2] = SCALED + (1 + 2j) * 3
        out[i, 3] = ROT.imag * x[i] + C0.real


@kernel
def multiply_add(x: Array[c128], y: Array[c128]):
    i = gpu.global_tid_x()
    if i < len(x):
        x[i] = x[i] * y[i] + y[i]


@kernel
def mandelbrot(cs: Array[complex64], counts: Array[i32], limit: i32):
    i = gpu.global_tid_x()
    if i < len(cs):
        c = cs[i]
        z = c64(0)
        n = 0
        while n < limit and abs(z) <= 2:
            z = z * z + c
            n += 1
        counts[i] = n
"""
)

SPECIAL = [0.0, -0.0, 1.0, -2.5, math.inf, -math.inf, math.nan, 1e300, -1e-300, 5e-324, 3e38, 1e-40, 7.25e10]


def _parts(dtype: np.dtype, n: int, rng: np.random.Generator, finite: bool = False) -> np.ndarray:
    """Random numbers of many magnitudes, a third of them special values (unless ``finite``)."""
    top = 300 if dtype.itemsize == 8 else 37
    values = rng.uniform(-10, 10, n) * 10.0 ** rng.integers(-top, top, n)
    if not finite:
        pick = rng.random(n) < 0.35
        values[pick] = rng.choice(SPECIAL, int(pick.sum()))
    with np.errstate(all="ignore"):
        return values.astype(dtype)


def _random(dtype: type, n: int, seed: int, finite: bool = False) -> np.ndarray:
    rng = np.random.default_rng(seed)
    part = np.dtype(np.float32 if dtype is np.complex64 else np.float64)
    out = np.empty(n, dtype)
    out.real, out.imag = _parts(part, n, rng, finite), _parts(part, n, rng, finite)
    return out


def _same(got: np.ndarray, expected: np.ndarray, what: str = "") -> None:
    """Bit for bit, except that any NaN equals any NaN (IEEE leaves a NaN's sign and payload open)."""
    got, expected = np.ascontiguousarray(got), np.ascontiguousarray(expected)
    if got.dtype.kind == "c":
        got, expected = got.view(got.real.dtype), expected.view(expected.real.dtype)
    nan = np.isnan(got) & np.isnan(expected) if got.dtype.kind == "f" else np.zeros(got.shape, bool)
    differ = (got.tobytes() != expected.tobytes()) and not np.array_equal(
        got.view(f"u{got.itemsize}")[~nan], expected.view(f"u{got.itemsize}")[~nan]
    )
    bad = ~nan & (got.view(f"u{got.itemsize}") != expected.view(f"u{got.itemsize}"))
    assert not differ, f"{what} {got} != {expected} at {np.argwhere(bad)[:5]}"


#: The tests on DEVICES_BUT_WGPU compare infinities, NaNs and signed zeros (a third of their operands are
#: special values), which WGSL lets drivers fold (docs/wgpu.md): on lavapipe the sign of a zero part differed
#: in the mixed-promotion and constant-folding kernels. test_wgpu.py compares complex arithmetic on finite
#: values through WebGPU with native code, bit for bit.
@pytest.fixture(scope="module")
def cx(tmp_path_factory):  # type: ignore[no-untyped-def]
    from conftest import built_package

    compiled: dict[str, Any] = {}
    with built_package(tmp_path_factory.mktemp("complex"), "cxpkg", SOURCE, native=True, compiled=compiled) as module:
        module.COMPILED = compiled
        yield module


N = 2048


@pytest.mark.parametrize("device", DEVICES_BUT_WGPU)  # (special values, signed zeros: see cx)
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_numpy_complex_arithmetic_bit_for_bit(cx, device: str, dtype: type) -> None:
    x, y = _random(dtype, N, 1), _random(dtype, N, 2)
    out, mag, eq = np.zeros((N, 10), dtype), np.zeros(N), np.zeros((N, 4), bool)
    cx.numpy_ops.launch(128, N // 128, x, y, out, mag, eq, device=device)
    expected, exp_mag, exp_eq = np.zeros_like(out), np.zeros_like(mag), np.zeros_like(eq)
    with np.errstate(all="ignore"):
        for i in range(N):  # NumPy's scalar arithmetic, element by element
            a, b = x[i], y[i]
            row = [a + b, a - b, a * b, a / b, -a, a.conjugate(), a * 2.5, a + 1j, a / 3, complex(a.imag, a.real)]
            expected[i] = row
            exp_mag[i] = abs(a)
            exp_eq[i] = [a == b, a != b, a == a, bool(a)]
    _same(out, expected)
    _same_abs(mag, exp_mag, device, np.finfo(dtype).eps)
    np.testing.assert_array_equal(eq, exp_eq)


@pytest.mark.parametrize("device", DEVICES_BUT_WGPU)  # (special values, signed zeros: see cx)
def test_python_complex_arithmetic_bit_for_bit(cx, device: str) -> None:
    # CPython 3.14 follows C99 for mixed real/complex operands and infinities: special values differ there
    finite = sys.version_info >= (3, 14)
    x, y = _random(np.complex128, N, 3, finite), _random(np.complex128, N, 4, finite)
    y[(y.real == 0) & (y.imag == 0)] = 1 + 1j  # Python raises ZeroDivisionError (tested below)
    # abs() raises OverflowError where finite parts give an infinite magnitude, on every path (test_edges)
    x[np.isfinite(x) & np.isinf(np.abs(x))] = 1 + 1j
    out, mag = np.zeros((N, 9), np.complex128), np.zeros(N)
    cx.python_ops.launch(128, N // 128, x, y, out, mag, device=device)
    expected, exp_mag = np.zeros_like(out), np.zeros_like(mag)
    for i in range(N):  # CPython's complex arithmetic
        a, b = complex(x[i]), complex(y[i])
        expected[i] = [a + b, a - b, a * b, a / b, -a, a * 2.5, a / 3, 1 + a, a.conjugate() * (0.5 - 2j)]
        exp_mag[i] = abs(a)
    _same(out, expected)
    _same_abs(mag, exp_mag, device, np.finfo(np.float64).eps)


#: libdevice's hypot (abs of a complex number on the GPU): CUDA documents 2 ulps (f64), 3 ulps (f32)
HYPOT_ULPS = 3


def _same_abs(got: np.ndarray, expected: np.ndarray, device: str, eps: float) -> None:
    """``abs`` of complex numbers: the C library's hypot on the CPU (the same bits), libdevice's on the GPU."""
    if device != "cuda":
        _same(got, expected)
        return
    finite = np.isfinite(expected)
    np.testing.assert_array_equal(got[~finite], expected[~finite])
    np.testing.assert_allclose(got[finite], expected[finite], rtol=HYPOT_ULPS * eps, atol=0)


def test_numpy_and_python_division_differ_where_expected() -> None:
    """The two algorithms are really different (so the tests above tell them apart)."""
    a, b = -2.1816215560029617 + 2.5580420415722394j, 1.1836899667533167 - 2.4949365863755943j
    assert complex(np.complex128(a) / np.complex128(b)) != a / b


@pytest.mark.parametrize("device", DEVICES)
def test_python_complex_division_by_zero_raises(cx, device: str) -> None:
    out = np.zeros(1, np.complex128)
    with pytest.raises(ZeroDivisionError):
        cx.python_zero_division.launch(1, 1, np.zeros(1, np.complex128), out, device=device)
    cx.python_zero_division.launch(1, 1, np.array([2j]), out, device=device)
    assert out[0] == (1 + 1j) / 2j


POWERS = [0, 1, 2, 3, 5, -1, -2, -7, 12]


@pytest.mark.parametrize("device", DEVICES_BUT_WGPU)  # (special values, signed zeros: see cx)
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_numpy_integer_powers_bit_for_bit(cx, device: str, dtype: type) -> None:
    x = _random(dtype, N, 8)
    x[:4] = [0, complex(0.0, -0.0), 1, 1j]
    out = np.zeros((N, len(POWERS)), dtype)
    cx.numpy_powers.launch(128, N // 128, x, out, device=device)
    with np.errstate(all="ignore"):  # NumPy's npy_cpow, element by element
        expected = np.array([[x[i] ** n for n in POWERS] for i in range(N)], dtype)
    _same(out, expected)


@pytest.mark.parametrize("device", DEVICES)
def test_python_integer_powers_bit_for_bit(cx, device: str) -> None:
    rng = np.random.default_rng(9)
    x = rng.uniform(-3, 3, N) + 1j * rng.uniform(-3, 3, N)  # CPython raises OverflowError on inf results
    x[:2] = [1, complex(-0.0, 2.0)]
    out = np.zeros((N, len(POWERS)), np.complex128)
    cx.python_powers.launch(128, N // 128, x, out, device=device)
    _same(out, np.array([[complex(x[i]) ** n for n in POWERS] for i in range(N)]))
    with pytest.raises(ZeroDivisionError):  # 0j ** -2, as Python
        cx.python_zero_power.launch(1, 1, np.zeros(1, np.complex128), np.zeros(1, np.complex128), device=device)


@pytest.mark.parametrize("device", DEVICES_BUT_WGPU)  # (special values, signed zeros: see cx)
def test_mixed_real_and_complex_promotion(cx, device: str) -> None:
    rng = np.random.default_rng(5)
    x = rng.standard_normal(256).astype(np.float32)
    y = rng.integers(-1000, 1000, 256).astype(np.int32)
    y[y == 0] = 7
    h = (rng.standard_normal(256) * 50).astype(np.float16)
    out = np.zeros((256, 5), np.complex128)
    cx.mixed.launch(64, 4, x, y, h, out, device=device)
    expected = np.array(
        [
            [
                x[i] * 1j,
                y[i] * (2 - 1j),
                np.complex64(x[i]) / np.complex128(y[i]),
                np.complex64(complex(x[i], 1.0)) * x[i],
                h[i] * (0.5 - 1j) + np.complex64(h[i]),
            ]
            for i in range(256)
        ]
    )
    assert type(x[0] * 1j) is np.complex64 and type(y[0] * (2 - 1j)) is np.complex128
    assert type(h[0] * (0.5 - 1j)) is np.complex64
    _same(out, expected)


@pytest.mark.parametrize("device", DEVICES_BUT_WGPU)  # (special values, signed zeros: see cx)
def test_module_constants_and_folding(cx, device: str) -> None:
    x = _random(np.complex64, 256, 10)
    out = np.zeros((256, 4), np.complex128)
    cx.constants.launch(64, 4, x, out, device=device)
    rot, c0 = 0.5 + 0.5j, np.complex64(1 - 1j)
    with np.errstate(all="ignore"):
        expected = [[x[i] * rot, x[i] + c0, rot * 3 - 2j + (1 + 2j) * 3, rot.imag * x[i] + c0.real] for i in range(256)]
    _same(out, np.array(expected, np.complex128))


#: cmath in native code and on the GPU against CPython's: native code computes CPython's formulas with
#: the C library CPython calls (the same bits for finite arguments). On the GPU libdevice's functions
#: are within their documented ulps (hypot 2, atan2 2, sin/cos 2, exp/log/log1p 1); log(hypot(z)) near
#: |z| = 0.7 turns hypot's 2 ulps into about 7 ulps of the real part, so the bound is that with margin,
#: in ulps of the result's magnitude; the test reports the measured worst.
GPU_CMATH_ULPS = 16


def _ulps(got: complex, expected: complex) -> float:
    scale = max(abs(expected.real), abs(expected.imag), 2.0**-1022)
    return max(abs(got.real - expected.real), abs(got.imag - expected.imag)) / math.ulp(scale)


def _check_cmath(cx, device: str, z: np.ndarray) -> float:  # type: ignore[no-untyped-def]
    """Every cmath function of ``z`` against CPython's: the same bits, except the GPU's results of finite
    arguments (within :data:`GPU_CMATH_ULPS`); returns the worst ulps seen on the GPU."""
    n = len(z)
    out, real, flags = np.zeros((n, 6), np.complex128), np.zeros((n, 3)), np.zeros((n, 3), bool)
    cx.cmath_funcs.launch(128, (n + 127) // 128, z, out, real, flags, device=device)
    worst = 0.0
    for i in range(n):
        w = complex(z[i])
        with np.errstate(over="ignore"):
            narrow = complex(np.complex64(w))
        expected = [_cmath_or_ieee(f, w) for f in ("sqrt", "exp", "log")]
        expected += [_cmath_or_ieee("rect", w.real, w.imag), _cmath_or_ieee("sqrt", narrow), _cmath_or_ieee("log10", w)]
        expected += [*_cmath_or_ieee("polar", w), _cmath_or_ieee("phase", w)]
        for got, want in zip([*out[i], *real[i]], expected):
            g, e = complex(got), complex(want)
            if device == "cuda" and cmath.isfinite(w) and cmath.isfinite(e):  # libdevice: within its ulps
                worst = max(worst, _ulps(g, e))
            else:
                _same(np.array([g]), np.array([e]))
        assert list(flags[i]) == [cmath.isnan(w), cmath.isinf(w), cmath.isfinite(w)]
    assert worst <= GPU_CMATH_ULPS, f"cmath on the GPU: worst {worst:.2f} ulps of the result's magnitude"
    return worst


@pytest.mark.parametrize("device", DEVICES)
def test_cmath_against_cpython(cx, device: str) -> None:
    z = _random(np.complex128, N, 6, finite=True)
    z[:8] = [0, 1, -1, 1j, -1j, 1e-310 + 1e-310j, 1e308 + 1e308j, 800 + 3j]
    worst = _check_cmath(cx, device, z)
    print(f"cmath on {device}: worst {worst:.2f} ulps of the result's magnitude")


CLASSES = [-math.inf, -1.5, -0.0, 0.0, 1.5, math.inf, math.nan]  # CPython's special-value classes


@pytest.mark.parametrize("device", DEVICES)
def test_cmath_special_values(cx, device: str) -> None:
    """Infinite and NaN parts: CPython's C99 results (its special-value tables) on every path."""
    _check_cmath(cx, device, np.array([complex(a, b) for a in CLASSES for b in CLASSES]))


TRIG = ("cos", "sin", "tan", "cosh", "sinh", "tanh", "acos", "asin", "atan", "acosh", "asinh", "atanh")


def _check_trig(cx, device: str, z: np.ndarray) -> float:  # type: ignore[no-untyped-def]
    """The trigonometric and hyperbolic functions of ``z``: CPython's bits natively and on the Python path
    (its special-value tables where a part is infinite or NaN), within :data:`GPU_CMATH_ULPS` on the GPU
    for finite arguments and results; returns the worst ulps seen on the GPU."""
    n = len(z)
    out = np.zeros((n, len(TRIG) + 1), np.complex128)
    cx.cmath_trig.launch(128, (n + 127) // 128, z, out, device=device)
    worst = 0.0
    for i in range(n):
        w = complex(z[i])
        with np.errstate(over="ignore"):
            narrow = complex(np.complex64(w))
        expected = [_cmath_or_ieee(f, w) for f in TRIG] + [_cmath_or_ieee("cos", narrow)]
        for name, got, want in zip([*TRIG, "cos(c64)"], out[i], expected):
            g, e = complex(got), complex(want)
            if device == "cuda" and cmath.isfinite(w) and cmath.isfinite(e):
                worst = max(worst, _ulps(g, e))
            else:
                _same(np.array([g]), np.array([e]), f"cmath.{name}({w!r})")
    assert worst <= GPU_CMATH_ULPS, f"cmath on the GPU: worst {worst:.2f} ulps of the result's magnitude"
    return worst


@pytest.mark.parametrize("device", DEVICES)
def test_cmath_trigonometric_against_cpython(cx, device: str) -> None:
    z = _random(np.complex128, N, 16, finite=True)
    # the branches of CPython's formulas: large parts (overflow avoided, or the result overflows: CPython
    # raises OverflowError, the device gives inf), atanh next to +-1 and at its poles, tiny parts, the axes
    z[:24] = [
        0,
        1,
        -1,
        1j,
        -1j,
        1e-310 + 1e-310j,
        1e308 + 1e308j,
        800 + 3j,
        -720.5 + 0.25j,
        3 + 800j,
        0.5 - 712j,
        1 + 1e-200j,
        -1 - 1e-200j,
        1 + 0j,
        complex(-1, -0.0),
        1j + 1e-160,
        2e154 + 1j,
        1 + 3e154j,
        complex(-0.0, 2.5),
        complex(2.5, -0.0),
        1e-20 + 1e-20j,
        0.7 + 0.7j,
        -1e300 - 1e-300j,
        5 + 1e300j,
    ]
    worst = _check_trig(cx, device, z)
    print(f"cmath trigonometric functions on {device}: worst {worst:.2f} ulps of the result's magnitude")


@pytest.mark.parametrize("device", DEVICES)
def test_cmath_trigonometric_special_values(cx, device: str) -> None:
    """Every class of real and imaginary part: CPython's tables (and its cases ahead of them)."""
    _check_trig(cx, device, np.array([complex(a, b) for a in CLASSES for b in CLASSES]))


def test_cmath_tables_are_cpythons() -> None:
    """Every entry of the special-value tables that this CPython returns (rather than raising) is what
    it returns, but for the two entries CPython 3.14 changed to C11's values (earlier: nan + nan j)."""
    from hybrid_runtime import cmath_special

    changed = {("acosh", 2, 6), ("acosh", 3, 6), ("tanh", 2, 6), ("tanh", 3, 6)}
    checked = 0
    for name, table in cmath_special.TABLES.items():
        for a, row in zip(CLASSES, table):
            for b, entry in zip(CLASSES, row):
                key = (name, CLASSES.index(a), CLASSES.index(b))
                if (math.isfinite(a) and math.isfinite(b)) or (sys.version_info < (3, 14) and key in changed):
                    continue
                if name in ("cosh", "sinh", "tanh") and math.isinf(a) and math.isfinite(b) and b != 0:
                    continue  # CPython's case ahead of the table
                try:
                    got = getattr(cmath, name)(complex(a, b))
                except ValueError:
                    continue
                _same(np.array([got]), np.array([entry]), f"cmath.{name}({complex(a, b)!r})")
                checked += 1
    assert checked > 150  # of 231 non-finite entries, less those CPython raises for


def _cmath_or_ieee(name: str, *args: complex | float) -> Any:
    """CPython's cmath; where it raises (log(0), exp overflow), the IEEE result the device gives."""
    from hybrid_runtime.python_math import ieee_cmath

    return getattr(ieee_cmath, name)(*args)


@pytest.mark.parametrize("device", DEVICES)
def test_parameters_structs_shared_and_local_arrays(cx, device: str) -> None:
    n = 128
    rng = np.random.default_rng(7)
    waves = np.zeros(n, cx.Wave.dtype)
    waves["amp"] = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)
    waves["phase"] = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    waves["k"] = rng.standard_normal(n).astype(np.float32)
    before = waves.copy()
    out = np.zeros(n, np.complex64)
    s, p, w = np.complex64(0.5 - 0.25j), 1.5 + 2j, cx.Wave(1 + 2j, 3j, 0.5)
    cx.memory.launch(64, 2, waves, out, s, p, w, device=device)
    # what the kernel computes, in NumPy's and Python's arithmetic
    amp = before["amp"] * np.complex64(2)
    phase = before["phase"] + p
    tile = amp + s
    expected = np.zeros(n, np.complex64)
    for g in range(n):
        t, base = g % 64, g - g % 64
        acc = tile[base + (t + 1) % 64] if t % 2 == 0 else tile[g]
        acc += np.complex64(1 + 2j) * np.float32(0.5)
        expected[g] = acc + phase[g] * 2 - phase[g] * 1
    _same(out, expected)
    _same(waves["amp"], amp)
    _same(waves["phase"], phase)


@pytest.mark.parametrize("device", DEVICES)
def test_mandelbrot_counts(cx, device: str) -> None:
    re, im = np.meshgrid(np.linspace(-2, 0.6, 64), np.linspace(-1.2, 1.2, 48))
    cs = (re + 1j * im).astype(np.complex64).ravel()
    counts = np.zeros(cs.size, np.int32)
    cx.mandelbrot.launch(128, (cs.size + 127) // 128, cs, counts, np.int32(200), device=device)
    expected = np.zeros_like(counts)
    for i, c in enumerate(cs):
        z, n = np.complex64(0), 0
        while n < 200 and abs(z) <= 2:
            z = z * z + c
            n += 1
        expected[i] = n
    if device == "cuda":  # abs is libdevice's hypotf (3 ulps): a point whose |z| comes that close to 2 may differ
        assert np.count_nonzero(counts != expected) <= 3
    else:
        np.testing.assert_array_equal(counts, expected)
    assert 1 < len(set(counts.tolist())) and counts.max() == 200


def test_launch_checks_complex_arguments(cx) -> None:
    out = np.zeros(1, np.complex64)
    waves = np.zeros(1, cx.Wave.dtype)
    w = cx.Wave(0, 0, 0)
    with pytest.raises(TypeError, match="parameter `s` expects c64"):
        cx.memory.launch(1, 1, waves, out, "x", 1j, w, device="cpu-python")
    with pytest.raises(ValueError, match="out of range"):
        cx.memory.launch(1, 1, waves, out, complex(1e39, 0), 1j, w, device="cpu")
    with pytest.raises(TypeError, match="got an array of complex128"):
        cx.memory.launch(1, 1, waves, np.zeros(1, np.complex128), 1j, 1j, w, device="cpu")


def test_every_kernel_has_native_code(cx) -> None:
    """device="cpu" above ran native code (a kernel without it would fall back to the Python path)."""
    from conftest import HOST_TARGETS

    if not HOST_TARGETS:
        pytest.skip("no native CPU target on this machine (zig missing)")
    assert all(
        k.codes.get("cpu") is not None and k.codes.get("cpu").objects and not k.codes.get("cpu").unsupported
        for k in cx.COMPILED.values()
    )


def test_ptx_keeps_complex_arithmetic_unfused(cx) -> None:
    """No FMA contraction: the products of ``a * b`` are rounded before they are added."""
    ptx = cx.COMPILED["multiply_add"].codes["ptx"].ptx["sm_90"]
    assert "fma" not in ptx and ptx.count("mul.rn.f64") == 4 * ptx.count(".entry"), ptx


def test_complex_bits_helper_is_strict() -> None:
    with pytest.raises(AssertionError):
        _same(np.array([complex(1, 0.0)]), np.array([complex(1, -0.0)]))
    _same(np.array([complex(math.nan, 1)]), np.array([complex(-math.nan, 1)]))
    assert struct.pack("<d", 0.0) != struct.pack("<d", -0.0)


def test_launch_packing_splits_complex_values(cx) -> None:
    """GPU and native launches pass a complex number as two parameters, real then imaginary."""
    from hybrid_runtime.plan import _codes, _leaf_paths
    from hybrid_runtime.signature import Param
    from hybrid_runtime.structs import leaf_dtypes, leaves

    assert _leaf_paths(cx.Wave) == ["amp.real", "amp.imag", "phase.real", "phase.imag", "k"]
    assert list(leaves(cx.Wave(1 + 2j, 3 - 4j, 0.5))) == [1, 2, 3, -4, 0.5]
    assert [d.name for d in leaf_dtypes(cx.Wave.dtype)] == ["float32", "float32", "float64", "float64", "float32"]
    assert _codes(Param("s", "scalar", np.dtype(np.complex128))) == ["d", "d"]
    assert cx.Wave.dtype.fields["phase"][1] == 8 and cx.Wave.dtype.itemsize == 32  # NumPy's aligned layout
