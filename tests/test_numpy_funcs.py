"""Issue 19 item 2: NumPy's scalar functions in kernels, typed and computed as NumPy does for scalars, on
the native CPU, the Python path (NumPy itself) and the GPU; NumPy constants, np.finfo/np.iinfo."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from conftest import DEVICES, KERNEL_PRELUDE

#: the functions each row of the kernels below computes, in order
UNARY = ["sqrt", "floor", "ceil", "trunc", "rint", "absolute", "fabs", "sign", "square", "degrees", "radians"]
TRANSCENDENTAL = ["exp", "log", "log2", "log10", "sin", "cos", "tan", "arctan", "tanh", "cbrt", "expm1", "log1p"]
BINARY = ["minimum", "maximum", "fmin", "fmax", "copysign", "power"]
CLASSIFY = ["isnan", "isinf", "isfinite"]


def _float_kernel(name: str, t: str) -> str:
    """A kernel that stores every function of UNARY, TRANSCENDENTAL, BINARY (rows of ``out``) and
    CLASSIFY (rows of ``flags``) of x[i] (and y[i]), for arrays of ``t``."""
    rows = UNARY + TRANSCENDENTAL
    body = "".join(f"        out[{k}, i] = np.{f}(v)\n" for k, f in enumerate(rows))
    body += "".join(f"        out[{len(rows) + k}, i] = np.{f}(v, w)\n" for k, f in enumerate(BINARY))
    body += "".join(f"        flags[{k}, i] = np.{f}(v)\n" for k, f in enumerate(CLASSIFY))
    return f"""
@kernel
def {name}(x: Array[{t}], y: Array[{t}], out: Array[{t}, 2], flags: Array[boolean, 2]):
    i = gpu.global_tid_x()
    if i < x.size:
        v = x[i]
        w = y[i]
{body}
"""


SOURCE = (
    KERNEL_PRELUDE
    + """
EPS32 = np.finfo(np.float32).eps
SQRT2 = np.sqrt(np.float32(2.0))
BIG = np.iinfo(np.int16).max
"""
    + _float_kernel("floats32", "f32")
    + _float_kernel("floats64", "f64")
    + '''
@kernel
def ints(x: Array[i32], y: Array[i32], out: Array[i32, 2], u: Array[u8], uout: Array[u8, 2]):
    i = gpu.global_tid_x()
    if i < x.size:
        v = x[i]
        w = y[i]
        out[0, i] = np.absolute(v)
        out[1, i] = np.sign(v)
        out[2, i] = np.square(v)
        out[3, i] = np.minimum(v, w)
        out[4, i] = np.maximum(v, w)
        out[5, i] = np.fmin(v, w)
        out[6, i] = np.power(v, np.abs(w) % 5)
        out[7, i] = np.floor(v) + np.ceil(v) + np.trunc(v)
        out[8, i] = np.clip(v, -1000, 1000)
        out[9, i] = np.clip(v, w, 2**40)
        out[10, i] = np.where(v > w, v, w)
        out[11, i] = np.isnan(v) + np.isinf(v) * 2 + np.isfinite(v) * 4
        uout[0, i] = np.sign(u[i])
        uout[1, i] = np.abs(u[i])
        uout[2, i] = np.clip(u[i], -1, 200)
        uout[3, i] = np.where(u[i] > 100, u[i], 200)


@kernel
def mixed(x: Array[f32], k: Array[i8], out: Array[f64, 2], half: Array[np.float16, 2]):
    """Result types as NumPy gives them: Python numbers are weak, results of Python numbers strong."""
    i = gpu.global_tid_x()
    if i < x.size:
        v = x[i]
        out[0, i] = np.minimum(v, 0.5)  # f32
        out[1, i] = np.sqrt(i + 1)  # f64 of a Python int
        out[2, i] = np.clip(v, 0, 1)  # f32
        out[3, i] = np.where(v > 0, v, -1.0) * 3.0  # f32, then f32 * weak
        out[4, i] = np.arctan2(v, 2.0) + np.hypot(v, 3.0)
        out[5, i] = np.sqrt(v) * np.pi + EPS32 + SQRT2 + BIG + np.finfo(np.float32).max / 1e38
        out[6, i] = np.float32(v) / np.float64(3) + np.int64(k[i])
        out[7, i] = np.fmax(v, np.nan) + np.minimum(v, np.inf) + np.iinfo(np.int8).min
        half[0, i] = np.sqrt(k[i])  # an i8 gives an f16, as NumPy's loops choose
        half[1, i] = np.exp(half[0, i])
        half[2, i] = np.clip(half[0, i], 0.5, 2.0)
        half[3, i] = np.maximum(half[0, i], np.float16(1.25))
'''
)

SPECIAL = [0.0, -0.0, 0.5, -0.5, 1.5, -2.5, 2.5, 3.7, -3.7, 100.0, 1e-30, 1e30, np.inf, -np.inf, np.nan, 7.0, 1.0]


@pytest.fixture(scope="module")
def kern(tmp_path_factory):
    from conftest import built_package

    root = tmp_path_factory.mktemp("npfuncs")
    with built_package(root, "npfuncs", SOURCE, native=True) as module:
        yield module


def _scalar_reference(dtype, funcs_unary, funcs_binary, classify, x, y):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        rows = [[getattr(np, f)(dtype(v)) for v in x] for f in funcs_unary]
        rows += [[getattr(np, f)(dtype(a), dtype(b)) for a, b in zip(x, y)] for f in funcs_binary]
        flags = [[getattr(np, f)(dtype(v)) for v in x] for f in classify]
    return np.array(rows, dtype), np.array(flags, bool)


def same_values(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Per element: equal, NaN where NaN, and zeros of the same sign (NaN's sign is the hardware's)."""
    nan = np.isnan(want)
    return (nan & np.isnan(got)) | (~nan & (got == want) & (np.signbit(got) == np.signbit(want)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("device", DEVICES)
def test_float_functions_as_numpy_computes_them(kern, device, dtype):
    x = np.array(SPECIAL, dtype)
    y = np.roll(x, 3)
    out = np.zeros((len(UNARY) + len(TRANSCENDENTAL) + len(BINARY), len(x)), dtype)
    flags = np.zeros((len(CLASSIFY), len(x)), bool)
    k = kern.floats32 if dtype == np.float32 else kern.floats64
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        k.launch(1, 32, x, y, out, flags, device=device)
    want, want_flags = _scalar_reference(dtype, UNARY + TRANSCENDENTAL, BINARY, CLASSIFY, x, y)
    names = UNARY + TRANSCENDENTAL + BINARY
    for row, name in enumerate(names):
        if name in TRANSCENDENTAL or name == "power":  # the C library's (libdevice's), NumPy's own: 2 ulps
            ok = same_values(out[row], want[row]) | np.isclose(
                out[row], want[row], rtol=4 * np.finfo(dtype).eps, atol=0
            )
        elif name in ("minimum", "maximum", "fmin", "fmax"):  # the zero of equal operands: NumPy's loops differ
            ok = same_values(out[row], want[row]) | (out[row] == want[row])
        else:
            ok = same_values(out[row], want[row])
        assert ok.all(), (name, x[~ok], out[row][~ok], want[row][~ok])
    assert np.array_equal(flags, want_flags)


@pytest.mark.parametrize("device", DEVICES)
def test_integer_functions_as_numpy_computes_them(kern, device):
    rng = np.random.default_rng(19)
    x = np.concatenate([[0, -1, 1, 2**31 - 1, -(2**31), 50000, -50000, 7], rng.integers(-100, 100, 24)]).astype(
        np.int32
    )
    y = np.roll(x, 5)
    u = np.arange(0, 256, 8, dtype=np.uint8)
    out = np.zeros((12, len(x)), np.int32)
    uout = np.zeros((4, len(x)), np.uint8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kern.ints.launch(1, 32, x, y, out, u, uout, device=device)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = [
            [np.absolute(v) for v in x],
            [np.sign(v) for v in x],
            [np.square(v) for v in x],
            [np.minimum(v, w) for v, w in zip(x, y)],
            [np.maximum(v, w) for v, w in zip(x, y)],
            [np.fmin(v, w) for v, w in zip(x, y)],
            [np.power(v, np.abs(w) % 5) for v, w in zip(x, y)],
            [np.floor(v) + np.ceil(v) + np.trunc(v) for v in x],
            [np.clip(v, -1000, 1000) for v in x],
            [np.clip(v, w, 2**40) for v, w in zip(x, y)],
            [np.where(v > w, v, w) for v, w in zip(x, y)],
            [np.isnan(v) + np.isinf(v) * 2 + np.isfinite(v) * 4 for v in x],
        ]
        uwant = [[np.sign(v) for v in u], [np.abs(v) for v in u], [np.clip(v, -1, 200) for v in u]]
        uwant.append([np.where(v > 100, v, 200) for v in u])
    assert np.array_equal(out, np.array(want).astype(np.int32))
    assert np.array_equal(uout, np.array(uwant).astype(np.uint8))


@pytest.mark.parametrize("device", DEVICES)
def test_result_types_follow_numpy(kern, device):
    x = np.array([0.25, -1.5, 2.0, 0.0, 9.0], np.float32)
    k = np.array([1, 2, 3, 4, 9], np.int8)
    out = np.zeros((8, len(x)), np.float64)
    half = np.zeros((4, len(x)), np.float16)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kern.mixed.launch(1, 32, x, k, out, half, device=device)
    f32 = np.float32
    eps, sqrt2, big = np.finfo(f32).eps, np.sqrt(f32(2.0)), np.iinfo(np.int16).max
    with np.errstate(all="ignore"):
        want = [
            [np.minimum(v, 0.5) for v in x],
            [np.sqrt(i + 1) for i in range(len(x))],
            [np.clip(v, 0, 1) for v in x],
            [np.where(v > 0, v, -1.0) * 3.0 for v in x],
            [np.arctan2(v, 2.0) + np.hypot(v, 3.0) for v in x],
            [np.sqrt(v) * np.pi + eps + sqrt2 + big + np.finfo(f32).max / 1e38 for v in x],
            [f32(v) / np.float64(3) + np.int64(kk) for v, kk in zip(x, k)],
            [np.fmax(v, np.nan) + np.minimum(v, np.inf) + np.iinfo(np.int8).min for v in x],
        ]
        hwant = [[np.sqrt(kk) for kk in k]]
        hwant.append([np.exp(h) for h in hwant[0]])
        hwant.append([np.clip(h, 0.5, 2.0) for h in hwant[0]])
        hwant.append([np.maximum(h, np.float16(1.25)) for h in hwant[0]])
    # the f32 rows are computed in f32 (a wider type would round differently); math on Python numbers in f64
    for row in (0, 2, 3, 5, 6, 7):
        assert np.asarray(want[row]).dtype.kind == "f"
    assert [np.asarray(w).dtype for w in want] == [f32, np.float64, f32, f32, f32, f32, np.float64, f32]
    for row in range(8):
        tol = 4 * np.finfo(np.asarray(want[row]).dtype).eps if row in (4, 5) else 0
        assert np.allclose(out[row], np.array(want[row], np.float64), rtol=tol, atol=0, equal_nan=True), row
    assert [np.asarray(w).dtype for w in hwant] == [np.float16] * 4
    assert np.array_equal(half, np.array(hwant, np.float16))


def test_result_types_in_the_compiler(build):
    """The compiler's types are NumPy's: checked on the typed kernel, not only through stored values."""
    b = build(
        KERNEL_PRELUDE
        + """
@kernel
def k(x: Array[f32], y: Array[i8]):
    a = np.sqrt(x[0])
    c = np.sqrt(y[0])
    d = np.minimum(x[0], 2.0)
    e = np.sqrt(2)
    f = np.abs(y[0])
    g = np.isnan(x[0])
    h = np.where(x[0] > 0, y[0], 1000)
    j = np.clip(y[0], 0, 1000)
    m = np.finfo(np.float32).eps
    n = np.iinfo(np.int32).max
    p = np.pi
"""
    )
    typed = b.kernels["k"].typed
    assert typed is not None
    types = typed.locals
    assert {k: str(v) for k, v in types.items() if k in "acdefghjmnp"} == {
        "a": "f32", "c": "f16", "d": "f32", "e": "f64", "f": "i8", "g": "boolean",
        "h": "i8", "j": "i8", "m": "f32", "n": "int", "p": "float",
    }  # fmt: skip


@pytest.mark.parametrize("device", ["cpu", "cpu-python"])
def test_int_bounds_numpy_refuses_raise_as_numpy_does(build, device):
    """np.clip of an int8 takes a Python int bound beyond int8 on its own side as no bound, and raises
    OverflowError for one beyond it on the other side, as NumPy 2 does; np.minimum raises for both.
    (Bounds are Python ints computed at run time: a parameter annotated ``int`` is an int64.)"""
    b = build(
        KERNEL_PRELUDE
        + """
@kernel
def clipped(x: Array[i8], which: i32):
    n = len(x)  # 1: a Python int the compiler does not know
    if which == 0:
        x[0] = np.clip(x[0], 0, 1000 * n)
    elif which == 1:
        x[0] = np.clip(x[0], -1000 * n, 3 * n)
    elif which == 2:
        x[0] = np.clip(x[0], 200 * n, 300 * n)
    elif which == 3:
        x[0] = np.clip(x[0], -300 * n, -200 * n)
    else:
        x[0] = np.minimum(x[0], 1000 * n)
"""
    )
    x = np.array([5], np.int8)
    b.module.clipped.launch(1, 1, x, 0, device=device)
    assert x[0] == 5
    b.module.clipped.launch(1, 1, x, 1, device=device)
    assert x[0] == 3
    for which, number in ((2, "200"), (3, "-200"), (4, "1000")):
        with pytest.raises(OverflowError, match=number):
            b.module.clipped.launch(1, 1, x, which, device=device)
