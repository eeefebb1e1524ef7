"""Issue 42, item 3: a Python int from 2**63 to 2**64 - 1 known at build time (a literal, a module
constant, a local assigned once, a folded expression) means its value on every path. NumPy converts it
to what it meets (NEP 50): a u64 or a float holds it, in arithmetic, bitwise operators, shifts,
comparisons, stores, conversions, min/max, conditional expressions and ``+=``; every other integer type
raises OverflowError, which the compiler refuses at build time, located. The device holds a Python int
computed at run time in an i64, so such a number used as one (``len(a) + 2**63``) is refused too. It
was held as the i64 -1 and checked as that: ``OverflowError: Python integer -1 out of bounds for uint64``
natively, other values on the GPU."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
from conftest import DEVICES, KERNEL_PRELUDE, same_bits
from test_errors import assert_located

from hatch_hybrid.errors import CompileError
from hatch_hybrid.pipeline import compile_packages

L = 2**64 - 1  # the literal 18446744073709551615
H = 2**63  # 9223372036854775808
WIDTHS = ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"]
DTYPES = {w: np.dtype(("int" if w[0] == "i" else "uint") + w[1:]) for w in WIDTHS}
PATHS = DEVICES  # (WebGPU's too)

#: each row of ``o``: the kernel's expression (``m`` a local, ``MASK`` a module constant), and NumPy's
ROWS = [
    ("(a[i] & 18446744073709551615) - b[i]", lambda a, b: (a & L) - b),
    ("18446744073709551615 ^ a[i]", lambda a, b: L ^ a),
    ("u64(18446744073709551615) - a[i]", lambda a, b: np.uint64(L) - a),
    ("18446744073709551615 // (a[i] | u64(1))", lambda a, b: L // (a | np.uint64(1))),
    ("18446744073709551615 % (b[i] | u64(1))", lambda a, b: L % (b | np.uint64(1))),
    ("(a[i] << 18446744073709551615) | (a[i] >> 9223372036854775808)", lambda a, b: (a << L) | (a >> H)),
    ("a[i] & m", lambda a, b: a & H),
    ("a[i] - MASK", lambda a, b: a - L),
    ("a[i] & ((1 << 63) | 5)", lambda a, b: a & (H | 5)),
    ("b[i] ^ np.iinfo(np.uint64).max", lambda a, b: b ^ np.iinfo(np.uint64).max),
    ("min(a[i], 18446744073709551615)", lambda a, b: np.minimum(a, np.uint64(L))),
    ("max(b[i], 9223372036854775808)", lambda a, b: np.maximum(b, np.uint64(H))),
    ("a[i] if b[i] > a[i] else 18446744073709551615", lambda a, b: np.where(b > a, a, np.uint64(L))),
    ("9223372036854775808 if b[i] > a[i] else a[i]", lambda a, b: np.where(b > a, np.uint64(H), a)),
    (
        "u64(a[i] == 18446744073709551615) + u64(18446744073709551615 > a[i]) * u64(2)"
        " + u64(a[i] >= MASK - 1) * u64(4) + u64(9223372036854775808 <= b[i]) * u64(8)",
        lambda a, b: (a == L) + (a < L) * np.uint64(2) + (a >= L - 1) * np.uint64(4) + (b >= H) * np.uint64(8),
    ),
    ("18446744073709551615", lambda a, b: np.full_like(a, L)),
]

WIDE = (
    KERNEL_PRELUDE
    + "\nMASK = 18446744073709551615\n\n@kernel\ndef wide(a: Array[u64], b: Array[u64], o: Array[u64, 2]):\n"
    + "    i = gpu.global_tid_x()\n    m = 9223372036854775808\n    if i < len(a):\n"
    + "".join(f"        o[i, {k}] = {expr}\n" for k, (expr, _) in enumerate(ROWS))
    + f"        o[i, {len(ROWS)}] = a[i]\n        o[i, {len(ROWS)}] += 18446744073709551615\n"
    + "        gpu.syncthreads()\n"  # the local read after a barrier (native: the block's threads as loops)
    + f"        o[i, {len(ROWS) + 1}] = b[i] | m\n"
)


def _values() -> tuple[np.ndarray, np.ndarray]:
    edges = [0, 1, 5, 7, H - 1, H, H + 1, L - 1, L]
    a = np.array(edges * len(edges), np.uint64)
    b = np.array([e for e in edges for _ in edges], np.uint64)
    return a, b


@pytest.mark.parametrize("device", PATHS)
def test_wide_python_ints_meet_u64_as_their_value_on_every_path(build, device):
    built = build(WIDE, wgsl=device == "wgpu")
    a, b = _values()
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        expected = np.stack([f(a, b).astype(np.uint64) for _, f in ROWS] + [a + np.uint64(L), b | np.uint64(H)], 1)
        got = np.zeros_like(expected)
        built.module.wide.launch(len(a), 1, a, b, got, device=device)
    assert np.array_equal(got, expected), [ROWS[k][0] for k in np.nonzero((got != expected).any(0))[0] if k < len(ROWS)]


FLOATS = (
    KERNEL_PRELUDE
    + """
@kernel
def floats(h: Array[np.float16], f: Array[f32], d: Array[f64], o: Array[f64]):
    i = gpu.global_tid_x()
    if i < len(d):
        h[i] = h[i] + 18446744073709551615
        f[i] = f[i] * 9223372036854775808 - 18446744073709551615
        o[i] = f64(d[i] < 18446744073709551615) + math.sqrt(9223372036854775808) + float(18446744073709551615)
        d[i] = max(d[i], 9223372036854775808)
"""
)


@pytest.mark.parametrize("device", DEVICES)
def test_wide_python_ints_meet_floats_as_numpy_converts_them(build, device):
    """NumPy converts the Python int to the float type it meets (the device held its i64 bits: -1.0)."""
    built = build(FLOATS)
    x = np.array([0.0, -1.0, 1e19, 2.5e19, np.inf], np.float64)
    h, f, d, o = x.astype(np.float16), x.astype(np.float32), x.copy(), np.zeros_like(x)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        expected = [h + L, f * H - L, np.maximum(d, H), (d < L) + np.sqrt(float(H)) + float(L)]
        built.module.floats.launch(len(x), 1, h, f, d, o, device=device)
    for want, have in zip(expected, (h, f, d, o)):
        assert same_bits(have, want.astype(have.dtype)), (have, want)


COMPARE = (
    KERNEL_PRELUDE
    + """
@kernel
def compare(x: Array[{t}], o: Array[i32]):
    i = gpu.global_tid_x()
    if i < len(x):
        o[i] = i32(x[i] < 18446744073709551615) + i32(x[i] == 9223372036854775808) * 2
        o[i] += i32(18446744073709551615 != x[i]) * 4 + i32(x[i] >= 9223372036854775808) * 8
"""
)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("device", DEVICES)
def test_comparisons_with_wide_python_ints_are_by_value_for_every_integer_width(build, device, width):
    info = np.iinfo(DTYPES[width])
    x = np.array([info.min, -1 if info.min else 0, 0, 1, info.max], DTYPES[width])
    built = build(COMPARE.format(t=width))
    o = np.zeros(len(x), np.int32)
    built.module.compare.launch(len(x), 1, x, o, device=device)
    expected = [int(v < L) + int(v == H) * 2 + int(v != L) * 4 + int(v >= H) * 8 for v in x]
    assert o.tolist() == expected


def _refused(tmp_path: Path, params: str, body: str) -> CompileError:
    """``body`` in a kernel of ``params`` (``i`` the thread's index; the module constant ``MASK`` beside
    it), refused by the compiler, located (test_errors.assert_located)."""
    pkg = tmp_path / "widepkg"
    pkg.mkdir(exist_ok=True)
    (pkg / "__init__.py").write_text("")
    source = f"{KERNEL_PRELUDE}\nMASK = 18446744073709551615\n\n@kernel\ndef k({params}):\n    i = gpu.global_tid_x()\n"
    (pkg / "k.py").write_text(source + "".join(f"    {line}\n" for line in body.splitlines()))
    with pytest.raises(CompileError) as info:
        compile_packages([pkg], ["sm_90"])
    return info.value


NARROWER = [
    ("o[i] = a[i] & 18446744073709551615", "18446744073709551615", lambda a: a & L),
    ("o[i] = 9223372036854775808 ^ a[i]", "9223372036854775808", lambda a: H ^ a),
    ("o[i] = a[i] - MASK", "MASK", lambda a: a - L),
    ("o[i] = 18446744073709551615", "18446744073709551615", None),
    ("o[i] = a[i]\no[i] += 9223372036854775808", "9223372036854775808", lambda a: a + H),
]


@pytest.mark.parametrize("width", [w for w in WIDTHS if w != "u64"])
@pytest.mark.parametrize("body, marked, numpy", NARROWER, ids=[b for b, _, _ in NARROWER])
def test_wide_python_ints_meeting_narrower_or_signed_integers_are_refused_located(tmp_path, width, body, marked, numpy):
    """NumPy raises OverflowError (a Python int its type cannot hold); the value is known, so the compiler
    refuses the kernel where the number is."""
    if numpy is not None:
        with pytest.raises(OverflowError):
            numpy(np.ones(1, DTYPES[width])[0])
    err = _refused(tmp_path, f"a: Array[{width}], o: Array[{width}]", body)
    assert_located(err, tmp_path / "widepkg" / "k.py", marked, "out of bounds for " + width, None)


RUN_TIME = [
    ("o[i] = u64(len(a) + 9223372036854775808)", "9223372036854775808"),
    ("m = 9223372036854775808\nif i > 1:\n    m = 3\no[i] = a[i] & m", "9223372036854775808"),
    ("o[i] = a[9223372036854775808]", "9223372036854775808"),
    ("print(18446744073709551615)", "18446744073709551615"),
    ("for j in range(9223372036854775808):\n    o[i] = a[j]", "9223372036854775808"),
]


@pytest.mark.parametrize("body, marked", RUN_TIME, ids=[b for b, _ in RUN_TIME])
def test_wide_python_ints_used_as_python_ints_at_run_time_are_refused(tmp_path, body, marked):
    """The device holds a Python int computed at run time in an i64, which cannot hold it."""
    err = _refused(tmp_path, "a: Array[u64], o: Array[u64]", body)
    assert_located(err, tmp_path / "widepkg" / "k.py", marked, "held as i64", "u64(")
