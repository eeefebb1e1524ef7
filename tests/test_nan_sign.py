"""Issue 42, item 3: the sign of a NaN. IEEE 754 leaves it open for a result, and each path made its own:
``math.acos(2.0)`` is -nan on the Python path (NumPy's arccos, as x86's default NaN), +nan natively (the C
library's) and on the GPU (the canonical NaN); ``inf - inf`` is -nan on x86 and +nan on the GPU.
``math.copysign(x, y)`` and ``np.copysign(x, y)`` read it, so ``math.copysign(1.0, math.asin(math.acos(2.0)))``
was -1.0 on the Python path and 1.0 natively. They take a NaN y as positive on every path now (docs/language.md):
the sign of zero, infinities and numbers is copied as before."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from conftest import DEVICES_BUT_WGPU, KERNEL_PRELUDE

#: each row of ``out``: a NaN made by a math function where Python's raises, by arithmetic, by NumPy,
#: or given; ``big`` runs over the values below (NaN from 2.0 on), ``x`` over signed numbers
ROWS = [
    "math.copysign(x[i], math.asin(math.acos(big[i])))",
    "math.copysign(x[i], math.acos(big[i]))",
    "math.copysign(x[i], math.sqrt(-math.fabs(big[i]) - 1.0))",
    "math.copysign(x[i], math.log(-math.fabs(big[i]) - 1.0))",
    "math.copysign(x[i], math.fmod(big[i], 0.0))",
    "math.copysign(x[i], big[i] * 0.0 - big[i] * 0.0)",
    "math.copysign(x[i], (big[i] - big[i]) * -1.0)",
    "np.copysign(x[i], np.arccos(big[i]))",
    "np.copysign(x[i], np.sqrt(-big[i] * big[i] - 1.0))",
    "np.copysign(f32(x[i]), f32(big[i]) - f32(big[i]))",
    "math.copysign(x[i], big[i])",
    "math.copysign(x[i], -big[i])",
    "np.copysign(x[i], -big[i])",
]
SOURCE = (
    KERNEL_PRELUDE
    + "\n@kernel\ndef signs(x: Array[f64], big: Array[f64], out: Array[f64, 2]):\n    i = gpu.global_tid_x()\n"
    + "    if i < len(x):\n"
    + "".join(f"        out[i, {k}] = {row}\n" for k, row in enumerate(ROWS))
)
BIG = [2.0, -2.0, 1e300, math.inf, -math.inf, math.nan, -math.nan, 0.5, -0.0, 0.0, -3.0, 1.0]


def _run(kernel, device: str) -> np.ndarray:
    x = np.array([1.0, -1.0, 2.5, -0.0] * 3)
    big = np.array(BIG)
    out = np.zeros((len(x), len(ROWS)))
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        kernel.launch(len(x), 1, x, big, out, device=device)
    return out


def _expected() -> np.ndarray:
    """CPython's copysign with every NaN read as positive; the values where no NaN is made: CPython's."""
    x = np.array([1.0, -1.0, 2.5, -0.0] * 3)
    out = np.zeros((len(x), len(ROWS)))
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for i, (a, b) in enumerate(zip(x, BIG)):
            made = [
                np.arcsin(np.arccos(b)),
                np.arccos(b),
                np.sqrt(-abs(b) - 1.0),
                np.log(-abs(b) - 1.0),
                np.fmod(b, 0.0),
                b * 0.0 - b * 0.0,
                (b - b) * -1.0,
                np.arccos(b),
                np.sqrt(-b * b - 1.0),
                np.float32(b) - np.float32(b),
                b,
                -b,
                -b,
            ]
            out[i] = [math.copysign(a, abs(m) if math.isnan(m) else m) for m in made]
    return out


@pytest.mark.parametrize("device", DEVICES_BUT_WGPU)
def test_copysign_reads_every_nan_as_positive_on_every_path(build, device):
    got = _run(build(SOURCE, shared=True).module.signs, device)
    want = _expected()
    bad = ~(got.view(np.uint64) == want.view(np.uint64))
    assert not bad.any(), [(ROWS[k], BIG[i], got[i, k], want[i, k]) for i, k in zip(*np.nonzero(bad))][:6]


def test_the_python_path_reads_a_given_negative_nan_as_positive_too(build):
    """Also a NaN with its sign bit set that no operation made: -math.nan, a -nan element (CPython and NumPy
    copy the sign bit; the paths could not agree on the bits of a NaN that an operation makes from it)."""
    built = build(
        KERNEL_PRELUDE
        + """
@kernel
def given(y: Array[f64], out: Array[f64]):
    i = gpu.global_tid_x()
    if i < len(y):
        out[i] = math.copysign(1.0, y[i]) + np.copysign(f32(2), y[i]) + math.copysign(4.0, -math.nan)
"""
    )
    y = np.array([-math.nan, math.nan, -1.0, 0.0])
    for device in ("cpu-python", "cpu"):
        out = np.zeros(4)
        built.module.given.launch(4, 1, y, out, device=device)
        assert out.tolist() == [7.0, 7.0, 1.0, 7.0], device
