"""Array views and slices, compiled: literal slices fold to plain pointer arithmetic, run-time steps
are checked for zero, the 32-bit-index entry point stays; and what views cannot do is a located
compile error with a hint."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
from conftest import KERNEL_PRELUDE

COMPILE_SOURCE = (
    KERNEL_PRELUDE
    + """
@kernel
def literal(x: Array[f32, 2], out: Array[f32]):
    i = gpu.global_tid_x()
    v = x[1:, 2]
    if i < len(v):
        out[i] = v[i]


@kernel
def run_time_step(x: Array[f32], out: Array[f32], k: i64):
    i = gpu.global_tid_x()
    v = x[1::k]
    if i < len(v):
        out[i] = v[i]
"""
)


def test_views_are_pointer_arithmetic(build) -> None:  # type: ignore[no-untyped-def]
    """A view is a new pointer, shape and strides: literal bounds fold to a few integer operations (no
    division, no check); a run-time step divides once and checks for zero. Both kernels keep their
    32-bit-index entry point."""
    b = build(COMPILE_SOURCE)
    for name in ("literal", "run_time_step"):
        k = b.kernels[name]
        assert k.codes["ptx"].index32
        assert f".entry {k.symbol}__i32(" in b.ptx(name)
    literal = b.ptx("literal")
    assert "div." not in literal and "hybrid_error" not in literal
    strided = b.ptx("run_time_step")
    assert "div.u64" in strided or "div.s64" in strided
    assert "hybrid_error" in strided  # the zero-step check reports through the error slot


def _compile_error(tmp_path: Path, body: str) -> str:
    from hatch_hybrid.errors import CompileError
    from hatch_hybrid.pipeline import compile_packages

    pkg = tmp_path / "viewerr"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    source = KERNEL_PRELUDE + "\n@kernel\ndef k(x: Array[f32], m: Array[f32, 2]):\n" + textwrap.indent(body, "    ")
    (pkg / "kern.py").write_text(source + "\n")
    with pytest.raises(CompileError) as info:
        compile_packages([pkg], ["sm_90"])
    return str(info.value)


@pytest.mark.parametrize(
    "body, message",
    [
        ("v = x[:, np.newaxis]", "`None` (np.newaxis) in an index"),
        ("m[1:3] = m[0]", "assigning to a view (Array[f32, 2])"),
        ("m[0] = 1.0", "assigning to a view (Array[f32])"),
        ("t = (m[0], 1)", "tuples of arrays"),
        ("v = x[1:] if x[0] > 0 else x[2:]", "cannot choose between Array"),
        ("v = m[0]\nv = m", "changes type from Array[f32] to Array[f32, 2]"),
        ("v = x[True:]", "slice bounds and steps must be integers or None, not bool"),
        ("v = x[m[0]]", "array indices must be integers or slices, not Array[f32]"),
        ("v = m[0, 1, 2]", "too many indices for Array[f32, 2]: it is 2-dimensional, but 3 were indexed"),
    ],
)
def test_view_errors_are_located(tmp_path: Path, body: str, message: str) -> None:
    text = _compile_error(tmp_path, body)
    assert re.match(r".*kern\.py:\d+:\d+: error: ", text) and message in text, text
    assert "Traceback" not in text and "hatch_hybrid" not in text
