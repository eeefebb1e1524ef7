"""``print()`` in kernels: every device prints the text Python's ``print`` gives on the Python path
(the compiled code records values, the runtime formats them with Python), to ``sys.stdout``; the
PTX goes through ptxas; unsupported arguments are located compile errors."""

from __future__ import annotations

import enum
import re
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from conftest import DEVICES_BUT_WGPU, KERNEL_PRELUDE, Built

from hatch_hybrid.errors import CompileError
from hatch_hybrid.pipeline import compile_packages

SOURCE = (
    KERNEL_PRELUDE
    + """
import enum
from hybrid_runtime import struct, f16, c64, c128


class Color(enum.IntEnum):
    RED = 1
    GREEN = 2


def show(label: i32, v: f32):
    print("helper", label, v, sep=":")


@kernel
def scalars(xs: Array[f32], ys: Array[f64], ns: Array[i32], us: Array[u8], flags: Array[boolean], hs: Array[f16]):
    i = gpu.global_tid_x()
    if i < len(xs):
        x = xs[i]
        h = hs[i] / 3
        print(i, x, ys[i], ns[i], us[i], flags[i], x * 2.0, 0.1 * i, i // 2, x < 1.0, i16(-i), u64(i) + u64(7), h)


@kernel
def formatted(xs: Array[f32], c: Color):
    i = gpu.global_tid_x()
    if i < len(xs):
        x = xs[i]
        y = f64(x) / 3.0
        print(
            f"i={i:3d} x={x:.3f} y={y!r} e={y:e} h={i:#x} c={c} {c!r} s={x!s:>12}|{x}", "tail", sep=" -- ", end="!\\n"
        )
        print(f"{x * 2.0}{y:+.2e}", end="")
        print()
        print("sep", "none", sep=None, end=None, flush=True)
        show(i32(i), x)


@kernel
def many(out: Array[i64], rounds: int):
    i = gpu.global_tid_x()
    for k in range(rounds):
        print("t", i, "k", k, sep="|")
    out[i] = i


@kernel
def prints_then_asserts(out: Array[i64]):
    i = gpu.global_tid_x()
    print("before", i)
    assert i != 2, "two"
    out[i] = i


@kernel(print_buffer=64)
def overflows(out: Array[i64]):
    i = gpu.global_tid_x()
    print(i, i * 10)
    out[i] = i


@kernel
def meets(out: Array[i32]):
    t = gpu.thread_idx_x()
    tile = gpu.shared_array(i32, 32)
    tile[t] = i32(t) * 3
    print("before", t)
    gpu.syncthreads()
    v = tile[(t + 1) % 32]
    print("after", t, v)
    out[t] = v


@kernel
def mixed(ns: Array[i32], out: Array[i32]):
    n = 0
    for k in range(len(ns)):
        n += ns[k]
    d = 0.5
    d = f64(ns[0]) / 3.0
    print(n, f"{n:5d}", d, f"{d:.4f}")
    out[0] = n


@kernel
def complexes(zs: Array[c64], ws: Array[c128]):
    i = gpu.global_tid_x()
    if i < len(zs):
        z = zs[i]
        print(z, ws[i], z * 2, ws[i] / 3, z.real, complex(i, -1) * 0.5j, f"{z:.3f}|{ws[i]!r}")


@kernel
def silent(out: Array[f32]):
    i = gpu.global_tid_x()
    out[i] = 1.0
"""
)


class Color(enum.IntEnum):  # as the kernel module's
    RED = 1
    GREEN = 2


@pytest.fixture
def lang(build: Callable[[str], Built]) -> Built:
    return build(SOURCE, shared=True)


@pytest.mark.parametrize("device", DEVICES_BUT_WGPU)
def test_complex_numbers_print_as_python_prints_them(
    lang: Built, device: str, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = np.random.default_rng(7)
    n = 40
    zs = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)
    ws = rng.standard_normal(n) * 1e5 + 1j * rng.standard_normal(n)
    zs[:2] = [complex(np.inf, -0.0), complex(0.1, np.nan)]
    lang.module.complexes.launch(32, 2, zs, ws, device=device)
    with np.errstate(all="ignore"):  # inf * 2 as the kernel computes it
        want = [
            " ".join(
                str(v)
                for v in (
                    zs[i],
                    ws[i],
                    zs[i] * 2,
                    ws[i] / 3,
                    zs[i].real,
                    complex(i, -1) * 0.5j,
                    f"{zs[i]:.3f}|{ws[i]!r}",
                )
            )
            for i in range(n)
        ]
    assert _lines(capsys.readouterr().out) == sorted(want)


def _lines(text: str) -> list[str]:
    return sorted(text.splitlines())


@pytest.mark.parametrize("device", DEVICES_BUT_WGPU)
def test_numbers_print_as_python_prints_them(lang: Built, device: str, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(5)
    n = 70
    xs = rng.standard_normal(n).astype(np.float32)
    xs[:3] = [0.1, np.inf, np.nan]
    ys = rng.standard_normal(n) * 1e10
    ns = rng.integers(-(2**31), 2**31, n).astype(np.int32)
    us = rng.integers(0, 256, n).astype(np.uint8)
    flags = rng.integers(0, 2, n).astype(bool)
    hs = (rng.standard_normal(n) * 100).astype(np.float16)
    lang.module.scalars.launch(32, 3, xs, ys, ns, us, flags, hs, device=device)
    want = [
        " ".join(
            str(v)
            for v in (
                i,
                xs[i],
                ys[i],
                ns[i],
                us[i],
                flags[i],
                xs[i] * 2.0,
                0.1 * i,
                i // 2,
                xs[i] < 1.0,
                np.int16(-i),
                np.uint64(i) + np.uint64(7),
                hs[i] / 3,
            )
        )
        for i in range(n)
    ]
    assert _lines(capsys.readouterr().out) == sorted(want)


@pytest.mark.parametrize("device", DEVICES_BUT_WGPU)
def test_fstrings_specs_sep_end_helpers(lang: Built, device: str, capsys: pytest.CaptureFixture[str]) -> None:
    """``end=""`` joins a thread's next record to this one; between threads the order of records is
    unspecified (a warp's threads print each statement together on the GPU), so each launch here has
    one thread."""
    xs = np.array([0.1, -2.5, 1e-7, 3.0e38], np.float32)
    for k in range(len(xs)):
        lang.module.formatted.launch(1, 1, xs[k : k + 1], lang.module.Color.GREEN, device=device)
    c = Color.GREEN
    want = []
    for x in xs:
        i = 0
        y = np.float64(x) / 3.0
        want.append(f"i={i:3d} x={x:.3f} y={y!r} e={y:e} h={i:#x} c={c} {c!r} s={x!s:>12}|{x} -- tail!")
        with np.errstate(over="ignore"):
            want.append(f"{x * 2.0}{y:+.2e}")
        want.append("sep none")
        want.append(f"helper:{i}:{x!s}")  # print(x) is str(x); f"{x}" is format(x, "")
    out = capsys.readouterr().out
    assert _lines(out) == sorted(want)
    assert out.index("i=  0") < out.index("helper:0:")  # one thread's lines in program order


@pytest.mark.parametrize("device", DEVICES_BUT_WGPU)
def test_many_records_from_loops(lang: Built, device: str, capsys: pytest.CaptureFixture[str]) -> None:
    out = np.zeros(128, np.int64)
    lang.module.many.launch(32, 4, out, 9, device=device)
    text = capsys.readouterr().out
    assert _lines(text) == sorted(f"t|{i}|k|{k}" for i in range(128) for k in range(9))
    for i in (0, 77):  # each thread's records in its program order
        mine = [line for line in text.splitlines() if line.startswith(f"t|{i}|")]
        assert mine == [f"t|{i}|k|{k}" for k in range(9)]
    assert np.array_equal(out, np.arange(128))


@pytest.mark.parametrize("device", DEVICES_BUT_WGPU)
def test_prints_before_a_failed_assert_appear(lang: Built, device: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(AssertionError, match="assertion failed: two"):
        lang.module.prints_then_asserts.launch(4, 1, np.zeros(4, np.int64), device=device)
    lines = capsys.readouterr().out.splitlines()
    assert "before 2" in lines  # the failing thread's print came first
    assert len(set(lines)) == len(lines) and set(lines) <= {f"before {i}" for i in range(4)}


@pytest.mark.parametrize("device", DEVICES_BUT_WGPU)
def test_threads_meeting_at_barriers_print(lang: Built, device: str, capsys: pytest.CaptureFixture[str]) -> None:
    out = np.zeros(32, np.int32)
    lang.module.meets.launch(32, 1, out, device=device)
    want = [f"before {t}" for t in range(32)] + [f"after {t} {(t + 1) % 32 * 3}" for t in range(32)]
    text = capsys.readouterr().out
    assert _lines(text) == sorted(want)
    assert text.index("before 5") < text.index("after 5 ")


@pytest.mark.parametrize("device", [d for d in DEVICES_BUT_WGPU if d != "cpu-python"])
def test_records_past_the_buffer_are_dropped_and_reported(
    lang: Built, device: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # 24-byte records in a 64-byte buffer: two fit, the third straddles the end, five more are dropped
    out = np.zeros(8, np.int64)
    with pytest.warns(RuntimeWarning, match=r"overflows: 6 print\(\) call\(s\) did not fit .* 64-byte"):
        lang.module.overflows.launch(8, 1, out, device=device)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and set(lines) <= {f"{i} {i * 10}" for i in range(8)}
    assert np.array_equal(out, np.arange(8))
    with pytest.warns(RuntimeWarning):  # the buffer is empty again for the next launch
        lang.module.overflows.launch(8, 1, out, device=device)
    assert len(capsys.readouterr().out.splitlines()) == 2


@pytest.mark.gpu
def test_gpu_output_of_an_asynchronous_launch_appears_at_synchronisation(
    lang: Built, capsys: pytest.CaptureFixture[str]
) -> None:
    import hybrid_runtime

    out = hybrid_runtime.device_array((128,), np.int64)
    lang.module.many.launch(32, 4, out, 2, device="cuda")
    lang.module.many.launch(32, 4, out, 1, device="cuda")  # both launches' records, at the synchronisation
    hybrid_runtime.synchronize()
    want = [f"t|{i}|k|{k}" for i in range(128) for k in range(2)] + [f"t|{i}|k|0" for i in range(128)]
    assert _lines(capsys.readouterr().out) == sorted(want)
    assert np.array_equal(out.copy_to_host(), np.arange(128))


@pytest.mark.parametrize("device", DEVICES_BUT_WGPU)
def test_locals_assigned_python_numbers_print_same(
    lang: Built, device: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """An int or f64 local that holds a Python number at some points on the Python path prints the same
    (printing an f32 one, or any with !r, is a compile error: see test_errors.py)."""
    ns = np.array([7, -3, 12], np.int32)
    lang.module.mixed.launch(1, 1, ns, np.zeros(1, np.int32), device=device)
    n, d = ns.sum(dtype=np.int32), np.float64(ns[0]) / 3.0
    assert capsys.readouterr().out == f"{n} {n:5d} {d} {d:.4f}\n"


def test_the_python_path_has_no_buffer_to_overflow(lang: Built, capsys: pytest.CaptureFixture[str]) -> None:
    lang.module.overflows.launch(8, 1, np.zeros(8, np.int64), device="cpu-python")
    assert capsys.readouterr().out.splitlines() == [f"{i} {i * 10}" for i in range(8)]


def test_ptx_and_manifest(lang: Built) -> None:
    """Printing kernels have the print buffer and one atomic reservation per print; others pay nothing.
    (The build fixture assembles every PTX with ptxas for sm_70 and sm_90.)"""
    for arch in ("sm_70", "sm_90"):
        ptx = lang.ptx("many", arch)
        assert re.search(r"\.visible \.global \.align 8 \.b8 hybrid_print\[1048592\];", ptx)
        assert re.search(r"atom\.global\.add\.u64\s+%rd\d+, \[hybrid_print\], 24;", ptx)
        assert "hybrid_print" not in lang.ptx("silent", arch)
    assert "hybrid_print[80];" in lang.ptx("overflows")
    many = lang.kernels["many"].codes["ptx"]
    assert many.prints["bytes"] == 1 << 20
    (site,) = many.prints["sites"]
    assert site["file"].endswith("kern.py") and site["pieces"][0] == "t|"
    assert not lang.kernels["silent"].codes["ptx"].prints
    if lang.kernels["silent"].codes.get("cpu") is not None:
        assert lang.kernels["many"].codes.get("cpu").prints["sites"] == many.prints["sites"]


# f-strings' own errors (the other print() errors are in test_errors.py's catalogue): (body, the snippet
# the caret must start at, message part, hint part)
FSTRING_ERRORS = [
    ("w = 3\nprint(f'{n:{w}}')", "w}", "format spec computed in kernel code", "literally"),
    ("print(f'{n > 1!r}')", "n > 1", "!r of a boolean", "{int(flag)}"),
    ("print(f'{xs[0]:d}')", "xs[0]", "format spec 'd' does not apply to f32", None),
]


@pytest.mark.parametrize(("body", "snippet", "message", "hint"), FSTRING_ERRORS, ids=[e[0] for e in FSTRING_ERRORS])
def test_fstring_errors_are_located(tmp_path: Path, body: str, snippet: str, message: str, hint: str | None) -> None:
    (tmp_path / "perr").mkdir()
    (tmp_path / "perr" / "__init__.py").write_text("")
    source = KERNEL_PRELUDE + "\n@kernel\ndef k(xs: Array[f32], n: i32):\n" + textwrap.indent(body, "    ") + "\n"
    (tmp_path / "perr" / "kern.py").write_text(source)
    with pytest.raises(CompileError) as info:
        compile_packages([tmp_path / "perr"], archs=["sm_70"])
    err, text = info.value, str(info.value)
    assert message in err.message and (hint is None or (err.hint is not None and hint in err.hint)), text
    assert err.loc is not None and "hatch_hybrid" not in text
    at = source.splitlines()[err.loc.line - 1][err.loc.col :]
    # before Python 3.12, the parts of an f-string are located at the f-string
    assert at.startswith(snippet) or (sys.version_info < (3, 12) and at.startswith("f'")), text


@pytest.mark.parametrize("value", ["4", "True", "1.5"])
def test_print_buffer_option_takes_bytes(tmp_path: Path, value: str) -> None:
    (tmp_path / "popt").mkdir()
    (tmp_path / "popt" / "__init__.py").write_text("")
    source = KERNEL_PRELUDE + f"\n@kernel(print_buffer={value})\ndef k(n: i32):\n    print(n)\n"
    (tmp_path / "popt" / "kern.py").write_text(source)
    with pytest.raises(CompileError, match=r"@kernel\(print_buffer=\.\.\.\) takes a number of bytes \(8 or more\)"):
        compile_packages([tmp_path / "popt"], archs=["sm_70"])
