"""f16 (``np.float16``) with NumPy's semantics, bit for bit against NumPy on every path: the native
CPU code at each x86-64 level this machine runs (the v2 baseline calls our own f16 conversions),
the Python function, and the GPU when present. Unary operations and conversions over all 65536
f16 values; binary operations over a large random sample of bit patterns (inf, nan, subnormals)."""

from __future__ import annotations

import dataclasses
import re
import struct
import warnings
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from conftest import HOST_TARGETS, KERNEL_PRELUDE, TEST_ARCHS, built_package
from hybrid_runtime import native

from hatch_hybrid.cache import KernelCache
from hatch_hybrid.errors import CompileError
from hatch_hybrid.pipeline import CompiledKernel, Options, compile_packages
from hatch_hybrid.targets.host import half, pool
from hatch_hybrid.targets.host.cpus import DEFAULT_TARGETS, TARGETS
from hatch_hybrid.targets.host.link import link

SOURCE = (
    KERNEL_PRELUDE
    + """
from hybrid_runtime import f16, struct

EPS = f16(0.1)
HALF = np.float16(0.5)

@struct
class Sample:
    weight: f16
    count: i16
    value: f16


@kernel
def unary(
    a: Array[f16], h: Array[f16, 2], w32: Array[f32], w64: Array[f64], ints: Array[i32, 2], flags: Array[boolean, 2]
):
    i = gpu.global_tid_x()
    if i < len(a):
        x = a[i]
        h[0, i] = -x
        h[1, i] = abs(x)
        h[2, i] = f16(math.sqrt(x))
        row = h[3]  # a view of f16
        row[i] = +x
        h[4, i] = x * x
        h[5, i] = x ** 2
        h[6, i] = f16(math.exp(x))
        h[7, i] = f16(f32(x))
        h[8, i] = f16(math.copysign(math.fabs(x), -1.0) * math.frexp(x)[0])
        w32[i] = x
        w64[i] = f64(x) * 3.0
        if math.isfinite(x) and abs(x) < 2.0**31:
            ints[0, i] = i32(x)
            ints[1, i] = i32(i8(x)) if abs(x) < 128.0 else i32(0)
            ints[2, i] = i32(u8(x)) if 0.0 <= x < 256.0 else i32(0)
        flags[0, i] = x < 1.5
        flags[1, i] = x != x
        flags[2, i] = bool(x)
        flags[3, i] = math.isnan(x)


@kernel
def narrow(s: Array[f32], d: Array[f64], n: Array[i64], u: Array[u16], h: Array[f16, 2]):
    i = gpu.global_tid_x()
    if i < len(s):
        h[0, i] = f16(s[i])
        h[1, i] = d[i]
        h[2, i] = f16(n[i])
        h[3, i] = f16(u[i])
        h[4, i] = f16(i8(n[i]))
        h[5, i] = f16(u64(n[i]))
        h[6, i] = f16(n[i] > 0)


@kernel
def binary(a: Array[f16], b: Array[f16], h: Array[f16, 2], wide: Array[f32, 2], flags: Array[boolean, 2]):
    i = gpu.global_tid_x()
    if i < len(a):
        x = a[i]
        y = b[i]
        h[0, i] = x + y
        h[1, i] = x - y
        h[2, i] = x * y
        h[3, i] = x / y
        h[4, i] = x // y
        h[5, i] = x % y
        h[6, i] = x ** y
        h[7, i] = min(x, y)
        h[8, i] = max(x, y)
        h[9, i] = x * y + x
        h[10, i] = x * EPS - 3 + HALF
        h[11, i] = x + i8(7)
        t = x
        t += y
        t *= y
        h[12, i] = t
        wide[0, i] = x + i16(3)
        wide[1, i] = x * f32(0.5)
        flags[0, i] = x < y
        flags[1, i] = x >= y
        flags[2, i] = x == y
        flags[3, i] = x != y


@kernel
def blocks(samples: Array[Sample], scale: f16, s: Sample, out: Array[f16], lanes: Array[f16]):
    t = gpu.thread_idx_x()
    i = gpu.global_tid_x()
    tile = gpu.shared_array(f16, 64)
    mine = gpu.local_array(f16, 2)
    x = samples[i]
    mine[0] = x.weight * scale
    mine[1] = x.value + s.value
    tile[t] = mine[0] + mine[1]
    gpu.syncthreads()
    out[i] = tile[(t + 1) % gpu.block_dim_x()] + f16(x.count) * s.weight
    lanes[i] = gpu.shfl_xor(tile[t], 1)
    samples[i] = Sample(x.weight + scale, x.count, x.value)
"""
)

BINARY_ROWS = 13


@pytest.fixture(scope="module")
def kern(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ModuleType, dict[str, CompiledKernel]]]:
    """The kernels above, compiled once (PTX through ptxas for sm_70 and sm_90, native code for this
    machine) and imported as their wheel installs them."""
    compiled: dict[str, CompiledKernel] = {}
    with built_package(tmp_path_factory.mktemp("f16"), "hkf16", SOURCE, native=True, compiled=compiled) as module:
        yield module, compiled


#: the native code at each x86-64 level (v4 where the CPU has it), the Python function, the GPU
DEVICES = [
    "cpu",
    "cpu-v3",
    "cpu-baseline",
    "cpu-python",
    pytest.param("cuda", marks=pytest.mark.gpu),
]


def _launch(k: Any, n: int, *args: Any, device: str, monkeypatch: pytest.MonkeyPatch, threads: int = 128) -> None:
    """Launch over ``n`` threads; ``cpu-v3``/``cpu-baseline``: the native code of that x86-64 level."""
    level = device.removeprefix("cpu-") if device in ("cpu-v3", "cpu-baseline") else ""
    if level == "v3" and "v3" not in native.cpu_levels():
        pytest.skip("this CPU has no AVX2 (x86-64-v3)")
    monkeypatch.setenv("HYBRID_CPU_LEVEL", level)
    native.cpu_levels.cache_clear()
    k._native.clear()
    try:
        k.launch(threads, (n + threads - 1) // threads, *args, device="cpu" if level else device)
        if device.startswith("cpu") and device != "cpu-python" and HOST_TARGETS[0].startswith("x86_64"):
            code = k.native_code()
            assert code is not None
            name = code.function.__name__
            want = {"baseline": None, "v3": "v3"}.get(level, max(native.cpu_levels(), default=None))
            assert name.endswith(f"__{want}") if want else "__v" not in name, name
    finally:
        monkeypatch.delenv("HYBRID_CPU_LEVEL")
        native.cpu_levels.cache_clear()
        k._native.clear()


def _same(got: np.ndarray, want: np.ndarray) -> None:
    """Bit-identical, but any NaN equals any NaN (IEEE leaves a NaN result's payload open)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype
    if got.dtype.kind == "f":
        differ = (got != want) & ~(np.isnan(got) & np.isnan(want))
        differ |= (got == 0) & (want == 0) & (np.signbit(got) != np.signbit(want))
    else:
        differ = got != want
    if differ.any():
        k = np.flatnonzero(differ)
        pytest.fail(f"{differ.sum()} of {differ.size} differ, e.g. at {k[:5]}: got {got[k[:5]]}, want {want[k[:5]]}")


ALL = np.arange(1 << 16, dtype=np.uint16).view(np.float16)


@pytest.mark.parametrize("device", DEVICES)
def test_unary_and_conversions_from_f16_over_every_value(kern, device: str, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    mod, _ = kern
    n = ALL.size
    h = np.zeros((9, n), np.float16)
    w32, w64 = np.zeros(n, np.float32), np.zeros(n, np.float64)
    ints, flags = np.zeros((3, n), np.int32), np.zeros((4, n), np.bool_)
    _launch(mod.unary, n, ALL, h, w32, w64, ints, flags, device=device, monkeypatch=monkeypatch)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        x = ALL
        want = [-x, abs(x), np.array([np.float16(np.sqrt(float(v))) for v in x]), +x, x * x, x**2]
        want += [np.array([np.float16(np.exp(float(v))) for v in x]), x.astype(np.float32).astype(np.float16)]
        want.append(np.array([np.float16(-abs(float(v)) * np.frexp(float(v))[0]) for v in x]))
        for row in range(9):
            if row == 6 and device == "cuda":  # math.exp: libdevice's, not the host libm's (documented)
                continue
            _same(h[row], np.asarray(want[row], np.float16))
        _same(w32, x.astype(np.float32))
        _same(w64, x.astype(np.float64) * 3.0)
        finite = np.isfinite(x)
        _same(ints[0], np.where(finite, x.astype(np.float64), 0).astype(np.int32))
        small = np.abs(np.where(finite, x, 0)) < 128
        _same(ints[1], np.where(small, np.where(small, x, 0).astype(np.int8), 0).astype(np.int32))
        byte = (x >= 0) & (x < 256)
        _same(ints[2], np.where(byte, np.where(byte, x, 0).astype(np.uint8), 0).astype(np.int32))
        _same(flags[0], x < 1.5)
        _same(flags[1], np.isnan(x))
        _same(flags[2], x.astype(np.bool_))
        _same(flags[3], np.isnan(x))


def _narrow_inputs() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """f32 and f64 values around every f16 rounding boundary (each midpoint between neighbours, and
    the float next to it on either side), plus random bit patterns; integers over and past the range."""
    with np.errstate(all="ignore"):
        return _narrow_values()


def _narrow_values() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    up = ALL[np.isfinite(ALL)].astype(np.float64)
    up = np.unique(up)
    mid = (up[:-1] + up[1:]) / 2
    mid = np.concatenate([mid, [65520.0, -65520.0, 2.0**-25, -(2.0**-25), 3 * 2.0**-26]])
    rng = np.random.default_rng(16)
    s = [mid.astype(np.float32)]
    s += [np.nextafter(s[0], np.float32(np.inf)), np.nextafter(s[0], np.float32(-np.inf))]
    s.append(rng.integers(0, 1 << 32, 200_000, dtype=np.uint64).astype(np.uint32).view(np.float32))
    s.append(np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-45, 7e4, -7e4], np.float32))
    singles = np.concatenate(s)
    d = [mid, np.nextafter(mid, np.inf), np.nextafter(mid, -np.inf), singles.astype(np.float64)]
    d.append(rng.integers(0, 1 << 63, 200_000, dtype=np.uint64).view(np.float64))
    doubles = np.concatenate(d)[: singles.size]
    ints = np.concatenate([np.arange(-70000, 70000, dtype=np.int64), [2**62, -(2**63), 2**24 + 1]])
    ints = np.resize(ints, singles.size)
    return singles, doubles, ints, np.resize(np.arange(1 << 16, dtype=np.uint16), singles.size)


@pytest.mark.parametrize("device", DEVICES)
def test_conversions_to_f16_round_as_numpy(kern, device: str, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    mod, _ = kern
    singles, doubles, ints, shorts = _narrow_inputs()
    h = np.zeros((7, singles.size), np.float16)
    _launch(mod.narrow, singles.size, singles, doubles, ints, shorts, h, device=device, monkeypatch=monkeypatch)
    with np.errstate(all="ignore"):
        _same(h[0], singles.astype(np.float16))
        _same(h[1], doubles.astype(np.float16))
        _same(h[2], ints.astype(np.float16))
        _same(h[3], shorts.astype(np.float16))
        _same(h[4], ints.astype(np.int8).astype(np.float16))
        _same(h[5], ints.astype(np.uint64).astype(np.float16))
        _same(h[6], (ints > 0).astype(np.float16))


def _pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(8)
    a = rng.integers(0, 1 << 16, n, dtype=np.uint32).astype(np.uint16).view(np.float16)
    b = rng.integers(0, 1 << 16, n, dtype=np.uint32).astype(np.uint16).view(np.float16)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 6e-8, -6e-8, 65504, -65504, 1, -1, 0.5, 3], np.float16)
    grid_a, grid_b = np.meshgrid(special, special)
    b[: grid_b.size] = grid_b.ravel()
    a[: grid_a.size] = grid_a.ravel()
    b[grid_a.size : 4 * grid_a.size] = a[grid_a.size : 4 * grid_a.size]  # equal operands
    return a, b


def _ulps(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """How many f16 steps apart (ordered as integers), NaN and NaN being 0 apart."""

    def ordered(v: np.ndarray) -> np.ndarray:
        i = v.view(np.int16).astype(np.int32)
        return np.where(i < 0, -(i & 0x7FFF), i)

    both_nan = np.isnan(got) & np.isnan(want)
    return np.where(both_nan, 0, np.abs(ordered(got) - ordered(want)))


@pytest.mark.parametrize("device", DEVICES)
def test_binary_operations_bit_identical_to_numpy(kern, device: str, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    mod, _ = kern
    a, b = _pairs(300_000)
    n = a.size
    h = np.zeros((BINARY_ROWS, n), np.float16)
    wide = np.zeros((2, n), np.float32)
    flags = np.zeros((4, n), np.bool_)
    _launch(mod.binary, n, a, b, h, wide, flags, device=device, monkeypatch=monkeypatch)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        t = (a + b) * b
        want = [a + b, a - b, a * b, a / b, a // b, a % b, a**b, np.where(b < a, b, a), np.where(b > a, b, a)]
        want += [a * b + a, a * np.float16(0.1) - np.float16(3) + np.float16(0.5), a + np.int8(7), t]
        for row in range(BINARY_ROWS):
            if row == 6 and device == "cuda":  # ** is powf computed in f32: libdevice's may differ by an f32 ulp
                assert _ulps(h[row], want[row]).max() <= 1
                continue
            _same(h[row], want[row])
        _same(wide[0], a + np.int16(3))
        _same(wide[1], a * np.float32(0.5))
        for row, w in enumerate([a < b, a >= b, a == b, a != b]):
            _same(flags[row], w)


@pytest.mark.parametrize("device", DEVICES)
def test_structs_shared_local_arrays_params_and_shuffles(kern, device: str, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    mod, _ = kern
    n = 256
    rng = np.random.default_rng(5)
    samples = np.zeros(n, mod.Sample.dtype)
    samples["weight"] = rng.standard_normal(n).astype(np.float16)
    samples["count"] = rng.integers(-50, 50, n)
    samples["value"] = rng.standard_normal(n).astype(np.float16) * 100
    before = samples.copy()
    scale, s = np.float16(0.3), mod.Sample(1.5, 2, -0.25)
    out, lanes = np.zeros(n, np.float16), np.zeros(n, np.float16)
    _launch(mod.blocks, n, samples, scale, s, out, lanes, device=device, monkeypatch=monkeypatch, threads=64)
    w, v, c = before["weight"], before["value"], before["count"]
    tile = (w * scale + (v + np.float16(-0.25))).reshape(-1, 64)
    _same(out, (np.roll(tile, -1, axis=1).ravel() + c.astype(np.float16) * np.float16(1.5)))
    _same(lanes, tile[:, np.arange(64) ^ 1].ravel())
    _same(samples["weight"], w + scale)
    assert samples.dtype.itemsize == 6 and mod.Sample.dtype["weight"] == np.float16


def test_ptx_uses_f16_instructions_without_contraction(kern) -> None:  # type: ignore[no-untyped-def]
    _, kernels = kern
    for arch in TEST_ARCHS:
        ptx = kernels["binary"].codes["ptx"].ptx[arch]
        for op in ("add.rn.f16", "sub.rn.f16", "mul.rn.f16"):
            assert op in ptx, (arch, op)
        assert "fma.rn.f16" not in ptx  # x * y + x: two roundings, as NumPy
        assert "div.rn.f32" in ptx  # x / y: in f32, rounded once to f16 (correctly rounded)
        assert re.search(r"cvt\.rn\.f16\.f32", ptx)
        assert "cvt.rn.f16.f64" in kernels["narrow"].codes["ptx"].ptx[arch]
        unary = kernels["unary"].codes["ptx"].ptx[arch]
        assert "sqrt.rn.f32" in unary and "sqrt.rn.f64" not in unary  # f16(math.sqrt(x)): in f32, same bits


def test_older_archs_compute_f16_in_f32_and_ptxas_accepts_every_arch(build) -> None:  # type: ignore[no-untyped-def]
    """sm_50/sm_52 have no f16 arithmetic: LLVM computes in f32, rounding each result (the same bits)."""
    archs = ["sm_50", "sm_52", "sm_53", "sm_70", "sm_90"]
    built = build(
        KERNEL_PRELUDE
        + """
from hybrid_runtime import f16

@kernel
def ops(a: Array[f16], b: Array[f16], out: Array[f16]):
    i = gpu.global_tid_x()
    if i < len(out):
        out[i] = (a[i] + b[i]) * b[i] - a[i] // b[i] + f16(i32(a[i]))
""",
        archs=archs,
    )
    for arch in archs:
        ptx = built.ptx("ops", arch)
        assert ("add.rn.f16" in ptx) == (arch >= "sm_53"), arch
        assert "cvt.rn.f16.f32" in ptx  # // in f32, rounded once


def test_fastmath_contracts_f16(build) -> None:  # type: ignore[no-untyped-def]
    built = build(
        KERNEL_PRELUDE
        + """
from hybrid_runtime import f16

@kernel(fastmath=True)
def fused(a: Array[f16], b: Array[f16], out: Array[f16]):
    i = gpu.global_tid_x()
    if i < len(out):
        out[i] = a[i] * b[i] + out[i]
"""
    )
    assert "fma.rn.f16" in built.ptx("fused", "sm_70")


def test_launch_checks_f16_arguments(kern) -> None:  # type: ignore[no-untyped-def]
    mod, _ = kern
    n = 4
    a = np.zeros(n, np.float16)
    with pytest.raises(TypeError, match="f16"):
        mod.unary.launch(
            1,
            1,
            a.astype(np.float32),
            np.zeros((8, n), np.float16),
            np.zeros(n, np.float32),
            np.zeros(n),
            np.zeros((2, n), np.int32),
            np.zeros((2, n), bool),
            device="cpu",
        )
    samples = np.zeros(n, mod.Sample.dtype)
    out = np.zeros(n, np.float16)
    args = (samples, 65504.0, mod.Sample(1, 1, 1), out, out.copy())
    mod.blocks.launch(4, 1, *args, device="cpu-python")  # a Python float that f16 holds
    with pytest.raises(ValueError, match="65504"):
        mod.blocks.launch(4, 1, samples, 65520.0, mod.Sample(1, 1, 1), out, out.copy(), device="cpu")
    with pytest.raises(ValueError, match="scale"):  # a wider float is converted only when f16 holds it
        mod.blocks.launch(4, 1, samples, np.float64(1e6), mod.Sample(1, 1, 1), out, out.copy(), device="cpu")
    samples["weight"] = 0.0
    mod.blocks.launch(4, 1, samples, np.float64(2.0), mod.Sample(1, 1, 1), out, out.copy(), device="cpu")
    assert np.all(samples["weight"] == 2.0)


def test_atomics_on_f16_are_a_located_error(build) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(CompileError) as info:
        build(
            KERNEL_PRELUDE
            + """
from hybrid_runtime import f16

@kernel
def acc(a: Array[f16], x: f16):
    gpu.atomic_add(a, 0, x)
"""
        )
    text = str(info.value)
    assert "kern.py:10:20" in text and "arrays of f16" in text and "into an f32 array" in text


#: linker flags that make any unresolved symbol an error (the default for Mach-O dylibs and DLLs)
_STRICT = {"x86_64-linux": ("-Wl,-z,defs",), "aarch64-linux": ("-Wl,-z,defs",)}


@pytest.mark.skipif(not HOST_TARGETS, reason="no native CPU code on this machine")
def test_every_target_links_its_own_f16_conversions(kern, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """Each default target's library of an f16 kernel (which calls no C library function) links with
    every symbol resolved; without our conversions, no x86-64 one does."""
    mod, _ = kern
    root = Path(mod.__file__).parent
    options = Options(["sm_70"], cubin=False, cpu=list(DEFAULT_TARGETS), cache=KernelCache(None))
    kernels = [k for k in compile_packages([root], options=options) if k.decl.name == "narrow"]
    assert kernels and kernels[0].codes.get("cpu") is not None and not kernels[0].codes.get("cpu").libm
    objects = kernels[0].codes.get("cpu").objects
    for target in DEFAULT_TARGETS:
        monkeypatch.setitem(TARGETS, target, dataclasses.replace(TARGETS[target], link_flags=_STRICT.get(target, ())))
        blobs = [blob for key, blob in objects.items() if key.split("/")[0] == target]
        library = link(blobs, target, needs_libc=False)
        if target.endswith("macos"):  # zig's Mach-O linker lets undefined symbols through: read them
            assert _macho_undefined(library) <= {"dyld_stub_binder", *pool.MACOS_IMPORTS}, target
        if target.startswith("x86_64"):
            assert half.needed(blobs)  # f64 -> f16 at every level, f32 <-> f16 at the baseline
            with monkeypatch.context() as m:
                m.setattr(half, "needed", lambda objects: False)
                if target.endswith("macos"):
                    assert "__truncdfhf2" in _macho_undefined(link(blobs, target, needs_libc=False))
                else:
                    with pytest.raises(CompileError, match="__truncdfhf2"):
                        link(blobs, target, needs_libc=False)


def _macho_undefined(library: bytes) -> set[str]:
    """The external symbols a 64-bit Mach-O image leaves undefined (LC_SYMTAB's N_UNDF | N_EXT entries),
    without their leading underscore."""
    ncmds = struct.unpack_from("<I", library, 16)[0]
    at = 32
    for _ in range(ncmds):
        cmd, size = struct.unpack_from("<II", library, at)
        if cmd == 0x2:  # LC_SYMTAB
            symoff, nsyms, stroff, _ = struct.unpack_from("<IIII", library, at + 8)
            names = set()
            for k in range(nsyms):
                strx, ntype = struct.unpack_from("<IB", library, symoff + 16 * k)
                if ntype & 0x0E == 0 and ntype & 0x01:
                    end = library.index(b"\0", stroff + strx)
                    names.add(library[stroff + strx : end].decode().removeprefix("_"))
            return names
        at += size
    return set()
