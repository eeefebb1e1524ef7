"""Issue 22: one meaning at the edges. Each reproducer the differential fuzzer found, run on the Python
path (the reference), natively and on the GPU: the same values, or the same exception with the same
message, everywhere."""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest
from conftest import DEVICES_BUT_WGPU, KERNEL_PRELUDE, same_bits
from hybrid_runtime.types import SCALAR_DTYPES

# each compared with the Python path; not WebGPU's, whose drivers may assume no value is infinite or NaN and
# fold signed zeros (docs/wgpu.md), which most of these edges are about
PATHS = [d for d in DEVICES_BUT_WGPU if d != "cpu-python"]


def _launch(kernel, device: str, args: list, n: int):
    args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        kernel.launch(min(n, 64), max(1, n // 64), *args, device=device)
    return args[-1]


def agree(
    build, device: str, params: str, body: str, args: list, n: int = 4, helpers: str = "", **modules: str
) -> np.ndarray | str:
    """Run ``body`` (indented for the kernel, ``i`` the thread's index) on the Python path and on
    ``device``: the results agree bit for bit (NaN equals NaN), or both raise the same exception with
    the same message; returns the result, or the exception's "Type: message". ``modules``: more
    modules of the package, by name."""
    body = "".join(f"    {line}\n" for line in body.strip("\n").splitlines())
    source = f"{KERNEL_PRELUDE}\n{helpers}\n@kernel\ndef k({params}):\n    i = gpu.global_tid_x()\n{body}"
    built = build(source, **modules)
    outcomes = []
    for where in ("cpu-python", device):
        try:
            outcomes.append(_launch(built.module.k, where, args, n))
        except (ArithmeticError, ValueError, TypeError) as exc:
            # the package's file as the manifest names it (the Python path names the full path here, as the
            # test's package is no longer on sys.path)
            outcomes.append(re.sub(r"\(/\S*/(\w+/\w+\.py:)", r"(\1", f"{type(exc).__name__}: {exc}"))
    python, other = outcomes
    if isinstance(python, str) or isinstance(other, str):
        assert str(python) == str(other), f"{body}\nPython path: {python}\n{device}: {other}"
    else:
        assert same_bits(python, other), f"{body}\nPython path: {python}\n{device}: {other}"
    return python


def zeros(dtype: str, n: int = 4) -> np.ndarray:
    return np.zeros(n, SCALAR_DTYPES[dtype])


# ------------------------------------------------------------ 1. Python bools in arithmetic
@pytest.mark.parametrize("device", PATHS)
def test_python_bools_are_weak_in_arithmetic(build, device):
    x = np.array([0.5, 1.5, 2.5, 3.5], np.float32)
    out = agree(build, device, "x: Array[f32], o: Array[f32]", "o[i] = x[i] * (0.1 + (i > 0))", [x, zeros("f32")])
    assert out[1] == np.float32(1.5) * np.float32(1.1)  # an f32 product: the bool and 0.1 are Python values
    i8 = np.array([100, 100, 1, 2], np.int8)
    out = agree(build, device, "x: Array[i8], o: Array[i8]", "o[i] = x[i] + (i > 0) * 100", [i8, zeros("i8")])
    assert out[1] == -56  # i8 arithmetic, wrapping as NumPy's
    out = agree(build, device, "x: Array[i8], o: Array[i64]", "o[i] = min(i & (i > 0), int(x[i]))", [i8, zeros("i64")])
    assert list(out) == [0, 1, 0, 1]
    agree(
        build,
        device,
        "x: Array[boolean], o: Array[i64]",
        "o[i] = (i > 1) + (i > 2) - (not x[i]) + -(i == 3) + abs(i < 2) + (True & (i > 0))",
        [np.array([1, 0, 1, 0], bool), zeros("i64")],
    )


@pytest.mark.parametrize("device", PATHS)
def test_numpy_booleans_in_arithmetic_are_logic(build, device):
    a, b = np.array([1, 1, 0, 0], bool), np.array([1, 0, 1, 0], bool)
    params = "a: Array[boolean], b: Array[boolean], o: Array[boolean]"
    assert list(agree(build, device, params, "o[i] = a[i] * b[i]", [a, b, zeros("boolean")])) == [1, 0, 0, 0]
    assert list(agree(build, device, params, "o[i] = a[i] + b[i]", [a, b, zeros("boolean")])) == [1, 1, 1, 0]
    assert list(agree(build, device, params, "o[i] = ~a[i]", [a, b, zeros("boolean")])) == [0, 0, 1, 1]
    assert list(agree(build, device, params, "o[i] = abs(a[i])", [a, b, zeros("boolean")])) == [1, 1, 0, 0]
    agree(
        build,
        device,
        "a: Array[boolean], b: Array[boolean], o: Array[i8]",
        "o[i] = a[i] // b[i] + a[i] ** b[i]",
        [a, b, zeros("i8")],
    )


def test_numpy_shift_by_a_negative_constant_is_numpy_s(build):
    out = agree(
        build,
        "cpu",
        "a: Array[i16], o: Array[i16]",
        "o[i] = (-16) << (-(D & D))",
        [zeros("i16"), zeros("i16")],
        helpers="D = i16(-32768)",
    )
    assert list(out) == [0, 0, 0, 0]


# ------------------------------------------------ 2. values an integer type cannot hold
@pytest.mark.parametrize("device", PATHS)
@pytest.mark.parametrize(
    "params, body, arg, message",
    [
        (
            "x: Array[i8], o: Array[i8]",
            "o[i] = x[i] + i * 100",
            np.zeros(4, np.int8),
            "Python integer 200 out of bounds for int8",
        ),
        (
            "x: Array[i8], o: Array[i8]",
            "o[i] = i8(i * 100)",
            np.zeros(4, np.int8),
            "Python integer 200 out of bounds for int8",
        ),
        (
            "x: Array[i8], o: Array[i8]",
            "o[i] = i * 100",
            np.zeros(4, np.int8),
            "Python integer 200 out of bounds for int8",
        ),
        (
            "x: Array[i32], o: Array[i8]",
            "o[i] = x[i]",
            np.array([1, 2, 300, 4], np.int32),
            "Python integer 300 out of bounds for int8",
        ),
        (
            "x: Array[u64], o: Array[u64]",
            "o[i] = x[i] + (i - 2)",
            np.array([1, 1, 1, 1], np.uint64),
            "Python integer -2 out of bounds for uint64",
        ),
        (
            "x: Array[f64], o: Array[i8]",
            "o[i] = x[i]",
            np.array([1, 2, np.nan, 4]),
            "cannot convert float NaN to integer",
        ),
        (
            "x: Array[f64], o: Array[i8]",
            "o[i] = i8(float(x[i]))",
            np.array([1, 2, 300.7, 4]),
            "Python integer 300 out of bounds for int8",
        ),
        (
            "x: Array[f64], o: Array[i64]",
            "o[i] = int(x[i])",
            np.array([1, 2, np.inf, 4]),
            "cannot convert float infinity to integer",
        ),
        (
            "x: Array[f32], o: Array[i64]",
            "o[i] = math.floor(x[i])",
            np.array([1, 2, np.nan, 4], np.float32),
            "cannot convert float NaN to integer",
        ),
        (
            "x: Array[f64], o: Array[i8]",
            "o[i] = x[i] * 1e300",
            np.array([0, 0, 1, 0.0]),
            "Python int too large to convert to C long",
        ),
        (
            "x: Array[f64], o: Array[u8]",
            "o[i] = math.fabs(x[i]) * 300.0",
            np.array([0, 0, 1, 0.0]),
            "Python integer 300 out of bounds for uint8",
        ),
        (
            "x: Array[i32], o: Array[u8]",
            "o[i] = i - 1",
            np.array([0, 0, 1, 0], np.int32),
            "Python integer -1 out of bounds for uint8",
        ),
    ],
)
def test_values_an_integer_type_cannot_hold_raise_everywhere(build, device, params, body, arg, message):
    out_type = params.rsplit("Array[", 1)[1].rstrip("]")
    got = agree(build, device, params, body, [arg, zeros(out_type)])
    assert isinstance(got, str) and message in got and "kern.py:" in got, got


@pytest.mark.parametrize("device", PATHS)
def test_values_that_fit_convert_as_before(build, device):
    out = agree(
        build,
        device,
        "x: Array[i32], o: Array[i8]",
        "o[i] = x[i] + i - i8(i) + int(-2.5) + math.trunc(f32(1.5))",
        [np.array([1, 2, 3, 4], np.int32), zeros("i8")],
    )
    assert list(out) == [0, 1, 2, 3]
    agree(
        build, device, "x: Array[i8], o: Array[i8]", "o[i] = i8(x[i] * 100)", [np.arange(4, dtype=np.int8), zeros("i8")]
    )
    # NumPy scalars stored into unsigned arrays wrap (NumPy casts them); Python numbers are checked
    out = agree(
        build, device, "x: Array[i32], o: Array[u8]", "o[i] = x[i] - 1", [np.arange(4, dtype=np.int32), zeros("u8")]
    )
    assert list(out) == [255, 0, 1, 2]


@pytest.mark.parametrize("device", PATHS)
@pytest.mark.parametrize(
    "params, body, x",
    [
        ("x: Array[f64], o: Array[i64]", "o[i] = int(x[i]) // 3", [1.0, -(2.0**63), 1e300, 4.0]),
        ("x: Array[f64], o: Array[i64]", "o[i] = math.floor(x[i]) % 5", [1.5, 2.0**62, 2.0**63, 4.0]),
        ("x: Array[f32], o: Array[i64]", "o[i] = math.ceil(x[i]) >> 3", [1.5, -3e18, -3e19, 4.0]),
        ("x: Array[f64], o: Array[i64]", "o[i] = math.trunc(x[i]) & 7", [1.5, 9e18, -1e19, 4.0]),
        ("x: Array[u64], o: Array[i64]", "o[i] = int(x[i]) % 7", [1, 2**63 - 1, 2**64 - 1, 3]),
    ],
)
def test_python_ints_beyond_64_bits_raise_everywhere(build, device, params, body, x):
    """A Python int made from a float or a u64 is held in 64 bits on the device: one beyond them raises
    OverflowError on every path (the Python path's `int`, `math.floor`, `ceil` and `trunc` check)."""
    dtype = params.split("[", 1)[1].split("]", 1)[0]
    got = agree(build, device, params, body, [np.array(x, SCALAR_DTYPES[dtype]), zeros("i64")])
    assert isinstance(got, str) and got.startswith("OverflowError:") and "kern.py:" in got, got
    assert "out of bounds for int64" in got, got
    fits = [x[0], x[1], x[3], x[3]]  # the values that fit convert as before
    out = agree(build, device, params, body, [np.array(fits, SCALAR_DTYPES[dtype]), zeros("i64")])
    assert not isinstance(out, str), out


@pytest.mark.parametrize("device", PATHS)
def test_helpers_in_other_modules_follow_the_same_rules(build, device):
    """The Python path's `int` and `math` reach helpers called as `module.f(...)` too."""
    util = "import math\n\ndef h(v):\n    return int(v) + math.floor(v)\n"
    params, body = "x: Array[f64], o: Array[i64]", "o[i] = util.h(x[i]) % 7"
    args = [np.array([1.0, 2.0, 1e19, 3.0]), zeros("i64")]
    got = agree(build, device, params, body, args, helpers="from . import util", util=util)
    assert isinstance(got, str) and got.startswith("OverflowError:") and "out of bounds for int64" in got, got
    assert "util.py:" in got, got


@pytest.mark.parametrize("device", PATHS)
def test_floor_of_an_integer(build, device):
    """`math.floor`/`ceil`/`trunc` of a Python int give it exactly; NumPy integers have no `__floor__`, so
    Python rounds them through a float (i64's largest value becomes 2**63, beyond 64 bits: OverflowError)."""
    params = "a: Array[i64], o: Array[i64]"
    body = "o[i] = math.floor(int(a[i])) - math.trunc(int(a[i])) + math.ceil(int(a[i]) + 1) + math.floor(i > 1)"
    big = np.array([2**63 - 2, -(2**63), 2**53 + 1, -3], np.int64)
    out = agree(build, device, params, body, [big, zeros("i64")])
    assert list(out) == [2**63 - 1, -(2**63) + 1, 2**53 + 3, -1], list(out)
    out = agree(build, device, params, "o[i] = math.floor(a[i]) + math.trunc(a[i])", [big // 4, zeros("i64")])
    assert out[2] == 2 * float((2**53 + 1) // 4), list(out)
    for call in ("math.floor(a[i])", "math.ceil(a[i])", "math.trunc(a[i])"):
        got = agree(build, device, params, f"o[i] = {call}", [big + 1, zeros("i64")])
        assert isinstance(got, str) and "Python integer 9223372036854775808 out of bounds for int64" in got, got


@pytest.mark.parametrize("device", PATHS)
def test_python_int_powers_with_exponents_known_not_negative(build, device):
    """`b ** e` of Python ints compiles where `e` cannot be negative (else a build error, as Python's
    result would be a float for a negative `e`): counters of ranges from 0 or down to -1, indices, len,
    abs, and sums, products, remainders and `&` of them."""
    body = """
acc = 0
for j in range(3):
    for k in range(j, 3):
        acc += (i + 1) ** k + 2 ** (j * k % 5) + 3 ** abs(int(x[i]))
for m in range(4, -1, -1):
    acc += 2 ** (m & int(x[i])) + 2 ** min(m, len(x)) + 1 ** (x.shape[0] // 2)
o[i] = acc + (i if i > 1 else 2) ** (i % 3)
"""
    out = agree(build, device, "x: Array[f64], o: Array[i64]", body, [np.array([-2.0, 1.0, 3.0, 5.0]), zeros("i64")])
    assert out[0] > 0


@pytest.mark.parametrize("device", PATHS)
def test_abs_of_a_python_complex_that_overflows_raises_everywhere(build, device):
    """CPython raises OverflowError where finite parts give an infinite magnitude; so does the device."""
    params, body = "x: Array[f64], o: Array[f64]", "o[i] = abs(complex(x[i], x[i] * 0.5))"
    got = agree(build, device, params, body, [np.array([1.0, 1.7e308, 3.0, 4.0]), zeros("f64")])
    assert isinstance(got, str) and re.match(r"OverflowError: kernel \S+\.k: absolute value too large \(", got), got
    if device != "cuda":  # libdevice's hypot may differ in the last bits (tests/test_complex.py bounds it)
        out = agree(build, device, params, body, [np.array([1.0, math.inf, math.nan, -1e300]), zeros("f64")])
        assert math.isinf(out[1]) and out[3] == abs(complex(-1e300, -5e299))


@pytest.mark.parametrize("device", PATHS)
def test_either_bools_where_python_and_numpy_bools_mean_the_same(build, device):
    """`x[i] > 0 or i > 1` is a NumPy bool or a Python bool, as Python returns one operand: as a condition,
    with `not`, stored or converted the two are the same (in arithmetic they differ: a compile error,
    tests/test_errors.py)."""
    body = """
if x[i] > 0 and i > 1 or min(x[i] > 1, i > 2):
    o[i, 0] = 1
o[i, 1] = x[i] > 2 or i > 2
o[i, 2] = int(x[i] > 0 and i < 3) + bool(max(x[i] < 3, i == 1)) * 2 + i64(boolean(x[i] > 1 or i == 0)) * 4
o[i, 3] = not (x[i] > 1 if i % 2 else i > 1)
ok = x[i] > 2 and i > 1
if not ok:
    o[i, 3] += 10
c = False
if i > 0:
    c = x[i] > 1.0
o[i, 2] += int(c) * 100
"""
    x = np.array([0.0, 1.5, 2.5, 3.5])
    out = agree(build, device, "x: Array[f64], o: Array[i64, 2]", body, [x, np.zeros((4, 4), np.int64)])
    assert out.tolist() == [[0, 0, 6, 11], [0, 0, 107, 10], [1, 1, 107, 0], [1, 1, 104, 0]], out.tolist()


# --------------------------------------------------------------- 3. ** of Python floats
@pytest.mark.parametrize("device", PATHS)
@pytest.mark.parametrize(
    "body, error",
    [
        ("o[i] = math.fabs(x[i]) ** 2.5", "OverflowError: kernel .*: \\(34, 'Numerical result out of range'\\)"),
        ("o[i] = float(x[i]) ** 2", "OverflowError"),
        ("o[i] = (0.0 * i) ** -1", "ZeroDivisionError"),
        ("o[i] = x[i] ** 2.5", None),  # NumPy's f64: inf, no exception
    ],
)
def test_python_float_powers_raise_as_python(build, device, body, error):
    x = np.array([1.0, 2.0, 1e300, 4.0] if device != "cuda" or error else [1.0, 1.0, 1e300, 1.0])  # libdevice's pow
    got = agree(build, device, "x: Array[f64], o: Array[f64]", body, [x, zeros("f64")])
    if error is None:
        assert not isinstance(got, str) and math.isinf(got[2])
    else:
        assert isinstance(got, str)
        assert re.match(error, got), got


# ------------------------------------------------------------------- 4. % with NaN
@pytest.mark.parametrize("device", PATHS)
@pytest.mark.parametrize(
    "body", ["o[i] = a[i] % math.nan", "o[i] = f32(a[i]) % math.nan", "o[i] = f64(a[i]) // math.nan"]
)
def test_remainder_by_nan_is_nan(build, device, body):
    got = agree(build, device, "a: Array[i32], o: Array[f64]", body, [np.arange(4, dtype=np.int32), zeros("f64")])
    assert np.isnan(got).all()


@pytest.mark.parametrize("device", PATHS)
def test_remainder_by_nan_in_a_loop_returns(build, device):
    """LLVM's library-call simplifier made fmod(x, NaN) of an integer x poison (`frem nnan`), and the
    branch on it undefined: the native loop never ended."""
    body = """
for j in range(-3, 1):
    t = j % math.nan
    if t:
        pass
    else:
        o[i] = 1.0
"""
    got = agree(build, device, "a: Array[i32], o: Array[f64]", body, [np.arange(4, dtype=np.int32), zeros("f64")])
    assert (got == 0.0).all()


# ----------------------------------------------------------------- 5, 6. math functions
MATH_EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 2000.0, -2000.0, 1e308, -1e308, 5e-324, math.inf, -math.inf, math.nan]
MATH_CALLS = [
    *(
        f"math.{f}(x[i])"
        for f in (
            "sqrt",
            "exp",
            "exp2",
            "expm1",
            "log",
            "log2",
            "log10",
            "log1p",
            "sin",
            "cos",
            "tan",
            "asin",
            "acos",
            "atan",
            "sinh",
            "cosh",
            "tanh",
            "erf",
            "erfc",
            "gamma",
            "lgamma",
            "cbrt",
            "degrees",
            "radians",
            "fabs",
        )
    ),
    *(f"math.{f}(x[i], y[i])" for f in ("pow", "atan2", "hypot", "copysign", "fmod", "remainder")),
    "math.ldexp(x[i], int(y[i] * 0) + 5000)",
    "math.ldexp(x[i], -5000)",
]


@pytest.mark.parametrize("device", PATHS)
@pytest.mark.parametrize("call", MATH_CALLS)
def test_math_functions_give_c_results_where_python_raises(build, device, call):
    if call.startswith(("math.exp2", "math.cbrt")) and not hasattr(math, "exp2"):
        pytest.skip("math.exp2 and math.cbrt are Python 3.11+")
    xs = np.repeat(np.array(MATH_EDGES), len(MATH_EDGES))
    ys = np.tile(np.array(MATH_EDGES), len(MATH_EDGES))
    n = 256
    xs, ys = np.resize(xs, n), np.resize(ys, n)
    if device == "cuda":
        # the GPU computes every function with libdevice: equal where CPython raises (compared here),
        # within the ulps of docs/language.md's table elsewhere
        python = np.array([_raises(call, x, y) for x, y in zip(xs, ys)])
        xs, ys = np.where(python, xs, 0.0), np.where(python, ys, 0.0)
    agree(
        build, device, "x: Array[f64], y: Array[f64], o: Array[f64]", f"o[i] = {call}", [xs, ys, zeros("f64", n)], n=n
    )


def _raises(call: str, x: float, y: float) -> bool:
    try:
        eval(call.replace("x[i]", "x").replace("y[i]", "y"), {"math": math, "x": float(x), "y": float(y)})
    except (ValueError, OverflowError):
        return True
    return False


@pytest.mark.parametrize("device", PATHS)
def test_math_trunc_of_numpy_floats(build, device):
    got = agree(
        build,
        device,
        "x: Array[f32], o: Array[i64]",
        "o[i] = math.trunc(x[i])",
        [np.array([1.5, -2.5, 3e9, -0.5], np.float32), zeros("i64")],
    )
    assert list(got) == [1, -2, 3000000000, 0]


# ------------------------------------------------- 7, 10. C's pow, not the optimiser's
@pytest.mark.parametrize("device", PATHS)
def test_pow_is_the_c_library_s(build, device):
    signalling = np.array([1.0, 0.0, 2.0, 1.0], np.float32)
    signalling.view(np.uint32)[0] = 0x7F800001  # a signalling NaN: C's powf(sNaN, 0) is NaN, not 1
    agree(build, device, "x: Array[f32], o: Array[f32]", "o[i] = x[i] ** f32(0.0)", [signalling, zeros("f32")])
    # and pow(1, sNaN): NaN in C, 1 in libdevice (found by the fuzzer on an H100: `(i > 1) ** a[i]`)
    got = agree(
        build,
        device,
        "x: Array[f32], o: Array[f64]",
        "o[i] = (i > 1) ** x[i] + f32(1.0) ** x[i] + math.pow(1.0, x[i])",
        [signalling[::-1].copy(), zeros("f64")],
    )
    assert np.isnan(got[3]) and got[2] == 3.0, got
    # Python floats and math.pow follow CPython: 1.0 for x ** 0.0 and 1.0 ** y, a signalling NaN too
    snan = np.array([2.0, 0.5, 1.0, 3.0])
    snan.view(np.uint64)[1] = 0x7FF0000000000001
    body = "o[i] = 1.0 ** float(x[i]) + math.pow(1.0, x[i]) + math.pow(x[i], 0.0) + float(x[i]) ** (0.0 * i)"
    got = agree(build, device, "x: Array[f64], o: Array[f64]", body, [snan, zeros("f64")])
    assert list(got) == [4.0, 4.0, 4.0, 4.0], got
    xs = np.random.default_rng(22).uniform(-3, 3, 256)
    if device == "cpu":  # natively exactly the C library's; libdevice's pow is within its documented ulps
        agree(
            build,
            device,
            "x: Array[f64], o: Array[f64]",
            "o[i] = math.pow(1024.0, x[i]) + 32768 ** x[i]",
            [xs, zeros("f64", 256)],
            n=256,
        )


# ------------------------------------------------------------------- 8, 9. the GPU's
@pytest.mark.parametrize("device", PATHS)
def test_shifts_by_2_to_the_32_or_more_give_0(build, device):
    counts = np.array([2**32, 2**32 + 1, 2**40, 3], np.int64)
    got = agree(
        build,
        device,
        "x: Array[i64], c: Array[i64], o: Array[i64]",
        "o[i] = (x[i] << c[i]) + (x[i] >> c[i])",
        [np.full(4, 7, np.int64), counts, zeros("i64")],
    )
    assert list(got) == [0, 0, 0, 56]


@pytest.mark.parametrize("device", PATHS)
def test_min_of_narrow_integers_keeps_negations(build, device):
    x, y, z = (np.full(4, v, np.int16) for v in (3, 1, 0))
    got = agree(
        build,
        device,
        "x: Array[i16], y: Array[i16], z: Array[i16], o: Array[i16]",
        "o[i] = min(x[i], -y[i], z[i]) + max(-x[i], y[i] - z[i], -z[i])",
        [x, y, z, zeros("i16")],
    )
    assert list(got) == [0, 0, 0, 0]


@pytest.mark.parametrize("device", PATHS)
def test_python_int_shift_by_a_negative_count_raises(build, device):
    got = agree(
        build, device, "x: Array[i64], o: Array[i64]", "o[i] = (i + 1) << (i - 2)", [zeros("i64"), zeros("i64")]
    )
    assert isinstance(got, str) and got.startswith("ValueError") and "negative shift count" in got, got


@pytest.mark.parametrize("device", PATHS)
def test_python_int_to_a_run_time_power_is_an_int_or_raises(build, device):
    """Python ints to a power known only at run time (FBPIC's `(-1)**m`, QuTrunk's `2**ctrl`) are ints on
    every path, as numba types them; a negative exponent raises NumPy's ValueError everywhere (Python
    would give a float, numba 0)."""
    body = "o[i] = (-1) ** (i * i - i) * 3 ** (3 - i)"
    got = agree(build, device, "x: Array[i64], o: Array[i64]", body, [zeros("i64"), zeros("i64")])
    assert list(got) == [27, 9, 3, 1], got
    got = agree(build, device, "x: Array[i64], o: Array[i64]", "o[i] = 2 ** (i - 1)", [zeros("i64"), zeros("i64")])
    assert isinstance(got, str) and got.startswith("ValueError") and "negative integer powers" in got, got


OPTIONAL_HELPERS = """
def bin_of(v, n):
    if v < 0.0:
        return None
    b = int(v * n)
    if b >= n:
        return
    return b
"""


@pytest.mark.parametrize("device", PATHS)
def test_a_helper_may_return_a_number_or_none(build, device):
    """numba's Optional: a helper that returns a number on some paths and None on others (numba-examples'
    `compute_bin`); `is None` tests it, and a None used as a number raises TypeError on every path."""
    x = np.array([-1.0, 0.3, 0.9, 2.0])
    body = "b = bin_of(x[i], 4)\nif b is not None:\n    o[i] = b * 10\n"
    body += "else:\n    o[i] = -1 if bin_of(-x[i] / 2, 4) is None else -2"
    got = agree(build, device, "x: Array[f64], o: Array[i64]", body, [x, zeros("i64")], helpers=OPTIONAL_HELPERS)
    assert list(got) == [-2, 10, 30, -1], got
    body = "b = bin_of(x[i], 4)\nif i > 1:\n    b = 7\no[i] = b + 1"  # a local that may hold None
    got = agree(build, device, "x: Array[f64], o: Array[i64]", body, [x, zeros("i64")], helpers=OPTIONAL_HELPERS)
    assert isinstance(got, str) and got.startswith("TypeError") and "None is used as a number" in got, got
    x[0] = 0.0
    got = agree(build, device, "x: Array[f64], o: Array[i64]", body, [x, zeros("i64")], helpers=OPTIONAL_HELPERS)
    assert list(got) == [1, 2, 8, 8], got


OPTIONAL_MIXED = """
from hybrid_runtime import struct

@struct
class P:
    n: i64

def f(x: f32):
    if x > 0:
        return x * f32(2)
    return None

def fi(x):
    if x > 0:
        return x

def g(x: f32):
    if x > 1:
        return i8(3)
    return fi(int(x * 10))

def bump(p: P, v):
    p.n += 1
    if v > 0:
        return v * 2
"""


@pytest.mark.parametrize("device", PATHS)
def test_optional_results_convert_as_numbers_and_carry_changed_structs(build, device):
    """`return None` is None on every path (not NaN or False); another helper's number-or-None returned as an
    i8 is converted as that i8 where it is a number; a helper that changes a struct parameter and may
    return None hands both back."""
    body = "r = f(x[i])\nt = g(x[i])\np = P(0)\nu = bump(p, i - 1)\n"
    body += "o[i] = (-1.0 if r is None else r) + (-5 if t is None else t * 100) + p.n * 1000 + (0 if u is None else u)"
    x = np.array([-1.0, 0.5, 2.0, 0.0], np.float32)
    got = agree(build, device, "x: Array[f32], o: Array[f64]", body, [x, zeros("f64")], helpers=OPTIONAL_MIXED)
    assert list(got) == [994.0, 989.0, 1050.0, 998.0], got  # i8(5) * 100 and i8(3) * 100 wrap as i8


@pytest.mark.parametrize("device", PATHS)
def test_tuple_assignments_convert_once_and_check(build, device):
    """`o[i], t = x[i], 1` stores each value converted (and checked) once; a local takes its own type."""
    got = agree(
        build,
        device,
        "x: Array[f64], o: Array[i32]",
        "o[i], t = x[i], 1",
        [np.array([1.5, -2.5, 3.5, 4.5]), zeros("i32")],
    )
    assert list(got) == [1, -2, 3, 4]
    got = agree(
        build,
        device,
        "x: Array[f64], o: Array[i8]",
        "o[i], t = x[i], 1",
        [np.array([1.5, 2.5, np.nan, 4.5]), zeros("i8")],
    )
    assert isinstance(got, str) and "cannot convert float NaN to integer" in got
    body = "s = 0\ns, t = i, 1\ns += x[i]\no[i] = s"
    got = agree(build, device, "x: Array[i8], o: Array[i8]", body, [np.arange(4, dtype=np.int8), zeros("i8")])
    assert list(got) == [0, 2, 4, 6]


@pytest.mark.parametrize(
    "expr, message",
    [
        ("(-2.5) ** 0.5", r"-2.5 \*\* 0.5 is a complex number in Python"),
        ("0.0 ** -1", "0.0 cannot be raised to a negative power"),
        ("1e300 ** 2.5", "cannot compute this constant"),
        ("int(1e+300) % -2", "does not fit in 64 bits"),
    ],
)
def test_constant_float_powers_python_rejects_are_build_errors(build, expr, message):
    """What Python refuses (or makes complex) when both operands are known at build time is a located
    build error, never a traceback of the compiler's constant folding."""
    from hatch_hybrid.errors import CompileError

    with pytest.raises(CompileError, match=message) as caught:
        build(f"{KERNEL_PRELUDE}\n@kernel\ndef k(o: Array[f64]):\n    i = gpu.global_tid_x()\n    o[i] = {expr}\n")
    assert "kern.py:" in str(caught.value)
