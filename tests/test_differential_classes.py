"""The differential fuzzer's classes of issue 42 (scripts/fuzz_classes.py, run by scripts/fuzz_edges.py) from
fixed seeds: values live across barriers and warp calls, views and structs through helpers, Python literals
merged into every width, atomics at computed indices; native CPU code against the Python path (bits, the
same exception, or, for atomics, final values and old values as multisets). Then the smallest kernel of
each divergence the fuzzer found, marked ``xfail(strict=True)`` with the bug it shows until that is fixed
(a fix makes the test pass, and strict xfail then fails it: remove the mark)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import KERNEL_PRELUDE, fuzz_edges_script, same_bits


def differential(tmp_path: Path, kind: str, count: int, seed: int, **options: Any) -> dict[str, Any]:
    """``count`` kernels of class ``kind`` (its generator's ``options``) from ``seed``, built with native code
    and run natively and on the Python path: the fuzzer's counts and divergences."""
    fz = fuzz_edges_script()
    built = fz.build_package(tmp_path, seed, kind, 0, count, ["sm_90"], options or None)
    name = fz.package_name(seed, kind, 0)
    sys.path.insert(0, str(tmp_path))
    try:
        counts: dict[str, Any] = fz.run_package(tmp_path / name, ["cpu"])
    finally:
        sys.path.remove(str(tmp_path))
        for module in [m for m in sys.modules if m.split(".")[0] == name]:
            del sys.modules[module]
    counts["built"], counts["refused"] = built["built"], built["refused"]
    return counts


def agree(counts: dict[str, Any]) -> None:
    assert counts["checked"] > 0, counts
    shown = [{k: d[k] for k in ("python", "cpu", "source")} for d in counts["diverged"][:2]]
    assert not counts["diverged"], json.dumps(shown, indent=1, default=str)


# ------------------------------------------------------------------------------ the classes
def test_barriers_scalars_tuples_structs(tmp_path: Path) -> None:
    """Scalars, tuples and structs live across barriers, votes and shuffles, in uniform loops and branches."""
    agree(differential(tmp_path, "barriers", 4, 42, carried=("scalar", "tuple", "struct")))


def test_barriers_views(tmp_path: Path) -> None:
    """Views (of the inputs, strided, reversed, of views, of the thread's own array) across meeting points."""
    agree(differential(tmp_path, "barriers", 3, 43, carried=("scalar", "view")))


def test_helpers(tmp_path: Path) -> None:
    """Structs changed by helpers and methods and returned, views sliced in helpers and written through (a
    second name for a struct a helper returned: test_struct_returned_by_a_helper_that_changed_it)."""
    agree(differential(tmp_path, "helpers", 8, 42, alias=False))


BEYOND_I64 = ("9223372036854775808", "18446744073709551615", "18446744073709551614")


def test_literals(tmp_path: Path) -> None:
    """Python literals merged with NumPy scalars of every width, below 2**63 (beyond: test_u64_literal_merged;
    the fuzzer takes the Python path's OverflowError there for Python-int arithmetic past 64 bits)."""
    literals = tuple(x for x in fuzz_edges_script().GENERATORS["literals"].LITERALS if x not in BEYOND_I64)
    agree(differential(tmp_path, "literals", 20, 42, literals=literals))


def test_atomics(tmp_path: Path) -> None:
    """Atomics at computed indices, global and shared: final values, and old values as multisets."""
    agree(differential(tmp_path, "atomics", 10, 42))


# ------------------------------------------------------------------- the divergences found
def both_paths(kernel: Any, threads: int, blocks: int, *arrays: np.ndarray) -> list[object]:
    """The arrays after a launch on the Python path and natively (or the exception's type and message)."""
    results: list[object] = []
    for device in ("cpu-python", "cpu"):
        copies = [a.copy() for a in arrays]
        try:
            with np.errstate(all="ignore"):
                kernel.launch(threads, blocks, *copies, device=device)
            results.append(copies)
        except Exception as exc:  # noqa: BLE001 - the same exception on both paths is the rule
            results.append(type(exc).__name__)
    return results


def assert_same(python: object, native: object) -> None:
    if isinstance(python, str) or isinstance(native, str):
        assert python == native
        return
    assert isinstance(python, list) and isinstance(native, list)
    for p, n in zip(python, native):
        assert same_bits(p, n), f"python {p}, native {n}"


@pytest.mark.parametrize("dtype, out", [(np.uint64, np.uint64), (np.float32, np.float64)], ids=["u64", "f32"])
def test_u64_literal_merged(build, dtype: type, out: type) -> None:
    """A Python int literal from 2**63 to 2**64 - 1 merged into a u64 or float variable (it was held wrapped
    to i64 natively, and the Python path's conversion raised for a float): its value on both paths."""
    source = f"""
@kernel
def k(a: Array[np.{dtype.__name__}], o: Array[np.{out.__name__}]):
    i = gpu.global_tid_x()
    v = 9223372036854775808
    if i > 0:
        v = a[i]
    o[i] = v
"""
    k = build(KERNEL_PRELUDE + source, archs=["sm_90"]).module.k
    assert_same(*both_paths(k, 1, 4, np.arange(4).astype(dtype), np.zeros(4, out)))


def test_struct_returned_by_a_helper_that_changed_it(build) -> None:
    """s2 is s1's object on the Python path and a copy on the devices: once s1 changes after that, a
    located error (it was a silent divergence)."""
    from hatch_hybrid.errors import CompileError

    source = """
from hybrid_runtime import struct


@struct
class S:
    x: f32
    y: f32


def bump(s, d):
    s.y = s.y + d
    return s


@kernel
def k(o: Array[f32]):
    s1 = S(f32(1), f32(2))
    s2 = bump(s1, f32(1))
    bump(s1, f32(10))
    o[gpu.global_tid_x()] = s2.y
"""
    with pytest.raises(CompileError) as info:
        build(KERNEL_PRELUDE + source, archs=["sm_90"])
    text = str(info.value)
    assert "`s1` is changed here, after `s2` was bound to the object it holds" in text, text
    assert "bump(s1, f32(10))" in text.splitlines()[1], text
