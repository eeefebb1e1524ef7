"""Structs, enums and match, generic kernels, tuples, device-side checks, shared memory of structs and
dynamic shared memory: each compiled (every PTX through ptxas), run on the CPU path and, where a GPU is
present, on the GPU with the same expected results."""

from __future__ import annotations

import hybrid_runtime.errors
import numpy as np
import pytest
from conftest import DEVICES, KERNEL_PRELUDE

LANGUAGE = (
    "from __future__ import annotations\n"
    + KERNEL_PRELUDE
    + """
import enum
from typing import TypeVar
from hybrid_runtime import struct

T = TypeVar("T")
K = TypeVar("K")


class Order(enum.IntEnum):
    ASCENDING = 0
    DESCENDING = enum.auto()


@struct
class Complex:
    re: f32
    im: f32

    def add(self, other: Complex) -> Complex:
        return Complex(self.re + other.re, self.im + other.im)

    def square(self) -> Complex:
        return Complex(self.re * self.re - self.im * self.im, f32(2.0) * self.re * self.im)

    def norm2(self) -> f32:
        return self.re * self.re + self.im * self.im

    @staticmethod
    def zero() -> Complex:
        return Complex(0.0, 0.0)


@struct
class Particle:
    pos: Complex
    mass: f64
    alive: bool
    id: i32


@struct
class Vec2:
    x: f64
    y: f64

    def __add__(self, other: Vec2) -> Vec2:
        return Vec2(self.x + other.x, self.y + other.y)

    def __mul__(self, k: f64) -> Vec2:
        return Vec2(self.x * k, self.y * k)

    def __neg__(self) -> Vec2:
        return Vec2(-self.x, -self.y)


@kernel
def vectors(xs: Array[Vec2], out: Array[Vec2]):
    i = gpu.global_tid_x()
    if i < len(xs):
        acc = Vec2(0.0, 0.0)
        for k in range(i + 1):
            acc += xs[k] * 0.5
        out[i] = -acc + xs[i]


def escape(c: Complex, limit: i32) -> i32:
    z = Complex.zero()
    k = i32(0)
    while k < limit and z.norm2() < f32(4.0):
        z = z.square().add(c)
        k += 1
    return k


@kernel
def mandel(out: Array[i32], corner: Complex, step: f32, limit: i32):
    i = gpu.global_tid_x()
    if i < len(out):
        out[i] = escape(Complex(corner.re + f32(i) * step, corner.im), limit)


@kernel
def particles(ps: Array[Particle], out: Array[f64]):
    i = gpu.global_tid_x()
    if i < len(ps):
        p = ps[i]
        p.mass = p.mass * 2.0
        p.pos.re += f32(0.5)
        p.id = i32(i)
        ps[i] = p
        out[i] = p.mass + f64(p.pos.re) if p.alive else f64(-1.0)


def divmod_(a: int, b: int):
    return a // b, a % b


def ordered(a: T, b: T, order: Order):
    match order:
        case Order.ASCENDING:
            return (b, a) if a > b else (a, b)
        case _:
            return (b, a) if a < b else (a, b)


@kernel(specialize={"T": [f32, i32, u32]})
def sort_pairs(x: Array[T], order: Order):
    i = gpu.global_tid_x() * 2
    if i + 1 < len(x):
        x[i], x[i + 1] = ordered(x[i], x[i + 1], order)


@kernel(specialize={"K": [f32, f64]})
def scale_by(x: Array[K], factor: K):
    i = gpu.global_tid_x()
    if i < len(x):
        x[i] = x[i] * factor + K(1)


@kernel(specialize={"K": [f32, f64]})
def fill_with(out: Array[f64], v: K):
    i = gpu.global_tid_x()
    if i < len(out):
        out[i] = f64(v) / 3.0


@kernel
def tuples(out: Array[i64, 2], src: Array[i64, 2]):
    i = gpu.global_tid_x()
    n, m = src.shape
    if i < n:
        q, r = divmod_(i * 7, 3)
        idx = (i, m - 1)
        a, b = src[idx], src[i, 0]
        a, b = b, a
        out[i, 0] = q
        out[i, 1] = r
        out[i, 2] = a
        out[i, 3] = b


@kernel
def classify(x: Array[i32], out: Array[i32]):
    i = gpu.global_tid_x()
    if i < len(x):
        match x[i]:
            case 0 | 1:
                out[i] = 10
            case 2 if i > 2:
                out[i] = 20
            case 3 | 4 as v:
                out[i] = v * 100
            case v:
                out[i] = v * 3


@kernel
def checked(x: Array[f32], n: i32):
    i = gpu.global_tid_x()
    assert n > 0, "n must be positive"
    if i < len(x):
        x[i] = x[i] * f32(2.0)


@kernel(debug=True)
def bounds(x: Array[f32], offset: i64):
    i = gpu.global_tid_x()
    x[i + offset] = f32(1.0)


@kernel
def shared_structs(out: Array[Complex]):
    tile = gpu.shared_array(Complex, (4, 8))
    grid2 = gpu.shared_array(f32, (4, 8))
    t = gpu.thread_idx_x()
    r, c = t // 8, t % 8
    tile[r, c] = Complex(f32(t), f32(-t))
    grid2[r, c] = f32(t)
    gpu.syncthreads()
    other = tile[3 - r, 7 - c]
    out[t] = Complex(other.re + grid2[r, c], other.im)


@kernel
def dynamic(out: Array[f32]):
    buf = gpu.dynamic_shared_array(f32)
    t = gpu.thread_idx_x()
    buf[t] = f32(t) * f32(2.0)
    gpu.syncthreads()
    out[t] = buf[len(buf) - 1 - t] + f32(len(buf))
"""
)


@pytest.fixture
def lang(build):  # type: ignore[no-untyped-def]
    return build(LANGUAGE, shared=True)


def _escape(c: complex, limit: int) -> int:
    z = np.complex64(0)
    for k in range(limit):
        if abs(z.real) ** 2 + abs(z.imag) ** 2 >= 4:  # noqa: PLR2004
            return k
        z = np.complex64(
            complex(np.float32(z.real * z.real - z.imag * z.imag) + np.float32(c.real), 2 * z.real * z.imag + c.imag)
        )
    return limit


@pytest.mark.parametrize("device", DEVICES)
def test_struct_methods_params_and_returns(lang, device: str) -> None:  # type: ignore[no-untyped-def]
    m = lang.module
    out = np.zeros(64, np.int32)
    m.mandel.launch(64, 1, out, m.Complex(-2.0, 0.05), np.float32(0.04), 200, device=device)
    # the same function, run as plain Python on the host, is the reference
    expected = [m.escape(m.Complex(np.float32(-2.0) + np.float32(i) * np.float32(0.04), 0.05), 200) for i in range(64)]
    assert out.tolist() == [int(v) for v in expected]
    assert len(set(out.tolist())) > 5


@pytest.mark.parametrize("device", DEVICES)
def test_struct_operators_call_their_methods(lang, device: str) -> None:  # type: ignore[no-untyped-def]
    m = lang.module
    xs = np.zeros(16, m.Vec2.dtype)
    xs["x"] = np.arange(16) * 0.25
    xs["y"] = np.arange(16) ** 2 / 7.0
    out = np.zeros(16, m.Vec2.dtype)
    m.vectors.launch(16, 1, xs, out, device=device)
    for i in range(16):  # the same operators, as plain Python on the host
        acc = m.Vec2(0.0, 0.0)
        for k in range(i + 1):
            acc += m.Vec2(*xs[k]) * 0.5
        want = -acc + m.Vec2(*xs[i])
        assert (out["x"][i], out["y"][i]) == (want.x, want.y)


@pytest.mark.parametrize("device", DEVICES)
def test_arrays_of_nested_structs(lang, device: str) -> None:  # type: ignore[no-untyped-def]
    m = lang.module
    assert m.Particle.dtype == np.dtype(
        [("pos", [("re", "f4"), ("im", "f4")]), ("mass", "f8"), ("alive", "?"), ("id", "i4")], align=True
    )
    ps = np.zeros(10, m.Particle.dtype)
    ps["mass"] = np.arange(10) * 1.5
    ps["alive"] = np.arange(10) % 3 != 0
    ps["pos"]["re"] = np.linspace(0, 1, 10, dtype=np.float32)
    before = ps.copy()
    out = np.zeros(10)
    m.particles.launch(32, 1, ps, out, device=device)
    assert np.array_equal(ps["mass"], before["mass"] * 2)
    assert np.array_equal(ps["pos"]["re"], before["pos"]["re"] + np.float32(0.5))
    assert ps["id"].tolist() == list(range(10))
    assert np.array_equal(ps["alive"], before["alive"])
    want = np.where(
        before["alive"], before["mass"] * 2 + (before["pos"]["re"] + np.float32(0.5)).astype(np.float64), -1.0
    )
    assert np.array_equal(out, want)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint32])
def test_generic_kernel_with_enum_and_match(lang, device: str, dtype: type) -> None:  # type: ignore[no-untyped-def]
    m = lang.module
    rng = np.random.default_rng(1)
    x = rng.integers(0, 1000, 64).astype(dtype)
    for order in m.Order:
        y = x.copy()
        m.sort_pairs.launch(32, 1, y, order, device=device)
        pairs = x.reshape(-1, 2)
        want = np.sort(pairs, axis=1)
        if order == m.Order.DESCENDING:
            want = want[:, ::-1]
        assert np.array_equal(y, want.ravel()), order


def test_generic_kernel_symbols_and_manifest(lang) -> None:  # type: ignore[no-untyped-def]
    import json

    symbols = sorted(k.symbol for k in lang.kernels.values() if "sort_pairs" in k.symbol)
    assert len(symbols) == 1  # kernels dict keyed by name keeps the last; the manifest has them all
    manifest = json.loads((lang.package_dir / "_hybrid" / "manifest.json").read_text())
    entry = manifest["kernels"][f"{lang.package_dir.name}.kern.sort_pairs"]
    assert [v["types"] for v in entry["variants"]] == [{"T": "f32"}, {"T": "i32"}, {"T": "u32"}]
    assert [v["symbol"] for v in entry["variants"]] == [
        f"{lang.package_dir.name}__kern__sort_pairs__{t}" for t in ("f32", "i32", "u32")
    ]
    order = entry["variants"][0]["params"][1]
    assert order == {"name": "order", "kind": "enum", "dtype": "int64", "type": "Order", "values": [0, 1]}


@pytest.mark.parametrize("device", DEVICES)
def test_generic_variant_chosen_from_arguments(lang, device: str) -> None:  # type: ignore[no-untyped-def]
    m = lang.module
    for dtype in (np.float32, np.float64):
        x = np.arange(8, dtype=dtype)
        m.scale_by.launch(8, 1, x, dtype(0.1), device=device)
        assert x.dtype == dtype
        assert np.array_equal(x, np.arange(8, dtype=dtype) * dtype(0.1) + dtype(1))
    # numba's TypingError too, for ported code that catches it (hybrid_runtime.errors, numba.errors' names)
    with pytest.raises(
        hybrid_runtime.errors.TypingError, match=r"no specialisation fits .*array of int32.*K=f32; K=f64"
    ):
        m.scale_by.launch(8, 1, np.arange(8, dtype=np.int32), 2, device=device)
    with pytest.raises(TypeError, match=r"no specialisation fits .*array of float64, Order"):
        m.sort_pairs.launch(8, 1, np.zeros(4), m.Order.ASCENDING, device=device)
    out = np.zeros(4)
    m.scale_by.launch(4, 1, out, 2.0, device=device)  # a Python float fits both; the array decides: f64
    assert out.tolist() == [1.0] * 4
    for dtype in (np.float32, np.float64):
        m.fill_with.launch(4, 1, out, dtype(0.1), device=device)
        assert out.tolist() == [np.float64(dtype(0.1)) / 3.0] * 4
    with pytest.raises(TypeError, match=r"several specialisations \(K=f32; K=f64\).*np.float32"):
        m.fill_with.launch(4, 1, out, 0.1, device=device)


@pytest.mark.parametrize("device", DEVICES)
def test_tuples_unpacking_swaps_and_index_tuples(lang, device: str) -> None:  # type: ignore[no-untyped-def]
    m = lang.module
    src = np.arange(15, dtype=np.int64).reshape(5, 3)
    out = np.zeros((5, 4), np.int64)
    m.tuples.launch(8, 1, out, src, device=device)
    i = np.arange(5)
    assert out[:, 0].tolist() == (i * 7 // 3).tolist()
    assert out[:, 1].tolist() == (i * 7 % 3).tolist()
    assert out[:, 2].tolist() == src[:, 0].tolist()
    assert out[:, 3].tolist() == src[:, 2].tolist()


@pytest.mark.parametrize("device", DEVICES)
def test_match_literals_or_guards_and_captures(lang, device: str) -> None:  # type: ignore[no-untyped-def]
    m = lang.module
    x = np.array([0, 1, 2, 2, 3, 4, 5, 7], np.int32)
    out = np.zeros_like(x)
    m.classify.launch(8, 1, x, out, device=device)
    assert out.tolist() == [10, 10, 6, 20, 300, 400, 15, 21]


@pytest.mark.parametrize("device", DEVICES)
def test_assert_reports_kernel_file_line_and_next_launch_works(lang, device: str) -> None:  # type: ignore[no-untyped-def]
    m = lang.module
    x = np.ones(8, np.float32)
    with pytest.raises(AssertionError) as info:
        m.checked.launch(8, 1, x, 0, device=device)
    message = str(info.value)
    assert f"kernel {lang.package_dir.name}.kern.checked" in message
    assert "assertion failed: n must be positive" in message
    line = LANGUAGE.splitlines().index('    assert n > 0, "n must be positive"') + 1
    assert f"{lang.package_dir.name}/kern.py:{line}: assert n > 0" in message
    m.checked.launch(8, 1, x, 3, device=device)  # the context still works; the slot was cleared
    assert x.tolist() == [2.0] * 8


@pytest.mark.parametrize("device", DEVICES)
def test_debug_bounds_checks_raise_index_error(lang, device: str) -> None:  # type: ignore[no-untyped-def]
    m = lang.module
    x = np.zeros(8, np.float32)
    m.bounds.launch(8, 1, x, 0, device=device)
    assert x.tolist() == [1.0] * 8
    with pytest.raises(
        IndexError, match=r"index 8 is out of bounds for axis 0 with size 8 \(.*kern.py:\d+: x\[i \+ offset\]"
    ):
        m.bounds.launch(8, 1, np.zeros(8, np.float32), 1, device=device)
    with pytest.raises(IndexError, match=r"index -9 is out of bounds for axis 0 with size 8"):
        m.bounds.launch(1, 1, np.zeros(8, np.float32), -9, device=device)
    y = np.zeros(8, np.float32)
    m.bounds.launch(8, 1, y, -8, device=device)  # negative indices count from the end, as in Python
    assert y.tolist() == [1.0] * 8


@pytest.mark.parametrize("device", DEVICES)
def test_shared_arrays_of_structs_and_2d(lang, device: str) -> None:  # type: ignore[no-untyped-def]
    m = lang.module
    out = np.zeros(32, m.Complex.dtype)
    m.shared_structs.launch(32, 1, out, device=device)
    t = np.arange(32)
    r, c = t // 8, t % 8
    partner = (3 - r) * 8 + (7 - c)
    assert out["re"].tolist() == (partner + t).astype(np.float32).tolist()
    assert out["im"].tolist() == (-partner).astype(np.float32).tolist()


@pytest.mark.parametrize("device", DEVICES)
def test_dynamic_shared_memory_sized_at_launch(lang, device: str) -> None:  # type: ignore[no-untyped-def]
    m = lang.module
    for n in (16, 64):
        out = np.zeros(n, np.float32)
        m.dynamic.launch(n, 1, out, device=device, shared_bytes=4 * n)
        t = np.arange(n)
        assert out.tolist() == ((n - 1 - t) * 2.0 + n).astype(np.float32).tolist()


def test_struct_host_class_converts_fields(lang) -> None:  # type: ignore[no-untyped-def]
    m = lang.module
    c = m.Complex(1, 2.5)
    assert type(c.re) is np.float32 and type(c.im) is np.float32
    c.re = 3.0
    assert type(c.re) is np.float32
    p = m.Particle(c, 2, True, 7)
    c.re = 9.0
    assert p.pos.re == 3.0  # a struct field holds a copy: value semantics, as on the device
    assert repr(m.Complex(1, 2)) == "Complex(re=1.0, im=2.0)"
    with pytest.raises(TypeError, match="missing field im"):
        m.Complex(1)
    with pytest.raises(TypeError, match="Particle.pos is a Complex"):
        m.Particle(1.0, 2, True, 7)


def test_struct_ptx_uses_field_offsets(lang) -> None:  # type: ignore[no-untyped-def]
    ptx = lang.ptx("particles")
    # mass (f64 at byte 8), alive (bool at 16), id (i32 at 20) of a 24-byte element
    assert "mul.lo.s64" in ptx or "mad.lo.s64" in ptx or "shl.b64" in ptx
    assert ".param .b32" in lang.ptx("mandel") or ".param .f32" in lang.ptx("mandel")
    assert "exit;" in lang.ptx("checked")
    assert ".visible .global .align 8 .b8 hybrid_error[32]" in lang.ptx("checked")
    assert "hybrid_error" not in lang.ptx("mandel")
    assert "%dynamic_smem_size" in lang.ptx("dynamic")


FASTMATH = (
    KERNEL_PRELUDE
    + """
@kernel(fastmath=True)
def fast(x: Array[f32], y: Array[f32]):
    i = gpu.global_tid_x()
    if i < len(x):
        y[i] = f32(math.sin(x[i])) + f32(math.exp(x[i])) / x[i] + f32(math.sqrt(x[i])) * x[i] + y[i]


@kernel
def exact(x: Array[f32], y: Array[f32]):
    i = gpu.global_tid_x()
    if i < len(x):
        y[i] = f32(math.sin(x[i])) + f32(math.exp(x[i])) / x[i] + f32(math.sqrt(x[i])) * x[i] + y[i]
"""
)


def test_fastmath_uses_approximate_instructions_and_exact_stays_exact(build) -> None:  # type: ignore[no-untyped-def]
    b = build(FASTMATH)
    fast, exact = b.ptx("fast"), b.ptx("exact")
    for instruction in ("sin.approx.f32", "ex2.approx", "div.approx.f32", "sqrt.approx.f32", "fma.rn.f32"):
        assert instruction in fast
        assert instruction not in exact
    assert "f64" not in fast  # f32(math.f(x)) of an f32 is computed in f32
    assert "div.rn.f32" in exact and "sqrt.rn.f32" in exact


@pytest.mark.gpu
def test_fastmath_is_close_to_exact_on_gpu(build) -> None:  # type: ignore[no-untyped-def]
    b = build(FASTMATH)
    x = np.linspace(0.5, 3.0, 4096, dtype=np.float32)
    fast, exact, cpu = np.zeros_like(x), np.zeros_like(x), np.zeros_like(x)
    b.module.fast.launch(256, 16, x, fast, device="cuda")
    b.module.exact.launch(256, 16, x, exact, device="cuda")
    b.module.exact.launch(256, 16, x, cpu, device="cpu")
    assert np.array_equal(exact, cpu) or np.allclose(exact, cpu, rtol=1e-6)  # libdevice sin/exp are not libm's
    assert np.allclose(fast, exact, rtol=1e-4)
    assert not np.array_equal(fast, exact)  # it did take the approximate path


def test_every_kernel_matches_its_manifest(lang) -> None:  # type: ignore[no-untyped-def]
    """What the first CUDA launch checks (digests; parameters against the annotations) holds for structs,
    nested structs, enums, generics and 2-d arrays."""
    from hybrid_runtime import Kernel

    kernels = [k for k in vars(lang.module).values() if isinstance(k, Kernel)]
    assert len(kernels) > 10  # noqa: PLR2004
    for k in kernels:
        k.verify()
