"""Issue 42, item 3: LLVM's InstCombine (llvm/llvm-project#157254, open in LLVM 22) folds
``select (fcmp ogt x, 0), +0.0, fpext x`` into a min/max through the conversion that returns +0.0 for
x = -0.0, where Python returns x (``0 < -0.0`` is False). ``f64(0) if 0 < x[i] else f64(x[i])`` gave +0.0
natively and on the GPU, -0.0 on the Python path. The program's float zeros reach LLVM behind
``llvm.arithmetic.fence`` (``Ops.opaque_zero``), out of the fold's reach; each form that makes such a
select keeps the sign of zero on every path."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from conftest import DEVICES_BUT_WGPU, KERNEL_PRELUDE, same_bits

HELPERS = """
def pick(c, a, b):
    return a if c else b

def clamp(v: f32) -> f64:
    if 0 < v:
        return f64(0)
    return f64(v)
"""

#: the forms that make ``select(fcmp x, 0), 0.0, conversion of x)`` (x: f32, d: f64, h: f16), stored into
#: ``out`` (f64): conditional expressions both ways round, if statements assigning a variable or an element,
#: min/max, np.where, a helper's arguments and returns, a zero from a variable, an int or a float literal,
#: f16 -> f32/f64 and f64 -> f32 conversions
FORMS = {
    "ternary": "out[i] = f64(0) if 0 < x[i] else f64(x[i])",
    "ternary_lt": "out[i] = f64(0) if x[i] < 0 else f64(x[i])",
    "ternary_swapped": "out[i] = f64(x[i]) if x[i] <= 0 else f64(0)",
    "ternary_ge": "out[i] = f64(x[i]) if 0 >= x[i] else f64(0)",
    "int_zero": "out[i] = 0 if 0 < x[i] else f64(x[i])",
    "float_zero": "out[i] = 0.0 if x[i] > 0 else f64(x[i])",
    "variable_zero": "z = 0.0\nout[i] = z if 0 < x[i] else f64(x[i])",
    "if_variable": "v = f64(x[i])\nif 0 < x[i]:\n    v = f64(0)\nout[i] = v",
    "if_element": "if 0 < x[i]:\n    out[i] = f64(0)\nelse:\n    out[i] = f64(x[i])",
    "min": "out[i] = min(f64(x[i]), f64(0))",
    "max": "out[i] = max(f64(0), f64(x[i]))",
    "np_where": "out[i] = np.where(0 < x[i], f64(0), f64(x[i]))",
    "np_minimum": "out[i] = np.minimum(f64(x[i]), f64(0))",
    "helper_args": "out[i] = pick(0 < x[i], f64(0), f64(x[i]))",
    "helper_return": "out[i] = clamp(x[i])",
    "f16_to_f32": "out[i] = f64(f32(0) if 0 < h[i] else f32(h[i]))",
    "f16_to_f64": "out[i] = f64(0) if 0 < h[i] else f64(h[i])",
    "f64_to_f32": "out[i] = f64(f32(0) if 0 < d[i] else f32(d[i]))",
}

SOURCE = (
    KERNEL_PRELUDE
    + HELPERS
    + "".join(
        f"\n@kernel\ndef k_{name}(x: Array[f32], d: Array[f64], h: Array[np.float16], out: Array[f64]):\n"
        "    i = gpu.global_tid_x()\n    if i < len(x):\n" + "".join(f"        {line}\n" for line in body.splitlines())
        for name, body in FORMS.items()
    )
)

VALUES = [-0.0, 0.0, -1.0, 1.0, float("nan"), float("inf"), -float("inf"), -1e-30, 1e-30, -2.5]


def _run(kernel, device: str) -> np.ndarray:
    x = np.array(VALUES, np.float32)
    out = np.full(len(VALUES), 7.0)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        kernel.launch(len(VALUES), 1, x, x.astype(np.float64), x.astype(np.float16), out, device=device)
    return out


@pytest.mark.parametrize("device", [d for d in DEVICES_BUT_WGPU if d != "cpu-python"])  # (signed zeros: wgpu.md)
@pytest.mark.parametrize("form", FORMS)
def test_the_sign_of_zero_survives_a_select_of_zero_and_a_conversion(build, device, form):
    """Each form gives the Python path's bits (-0.0 from x = -0.0 where it chooses x), natively and on the
    GPU."""
    kernel = getattr(build(SOURCE, shared=True).module, f"k_{form}")
    python, other = _run(kernel, "cpu-python"), _run(kernel, device)
    assert same_bits(python, other), f"{FORMS[form]}\nPython path: {python}\n{device}: {other}"


def _zero_arms(optimised_ir: str) -> list[str]:
    """Selects with a float zero constant as an arm: what the fold needs (the fold's result has one, in
    the narrower type; the program's zeros reach LLVM behind the fence)."""
    zero = r"(?:half|float|double) (?:-?0\.000000e\+00|0xH0000|0xH8000)"
    return re.findall(rf"= select i1 [^,]+, (?:{zero}, .*|[^,]+, {zero})(?:, !dbg|$)", optimised_ir, re.M)


def test_the_optimised_ir_keeps_the_zero_out_of_the_folds_reach(build):
    """In the optimised NVPTX IR (the host's pipeline is the test above, natively), no select has a zero
    constant for an arm: LLVM did not turn one into a min/max through the conversion."""
    built = build(SOURCE, shared=True)
    for form in FORMS:
        for arch, text in built.kernels[f"k_{form}"].codes["ptx"].optimised_ir.items():
            assert not _zero_arms(text), (form, arch, _zero_arms(text))
    assert "llvm.arithmetic.fence" in built.kernels["k_ternary"].codes["ptx"].optimised_ir["sm_90"]


WGSL = (
    KERNEL_PRELUDE
    + """
@kernel
def narrow(h: Array[np.float16], out: Array[f32]):
    i = gpu.global_tid_x()
    if i < len(h):
        out[i] = f32(0) if 0 < h[i] else f32(h[i])
"""
)


@pytest.mark.parametrize("device", ["cpu", pytest.param("wgpu", marks=pytest.mark.wgpu)])
def test_the_sign_of_zero_in_a_webgpu_shader(build, device):
    """WGSL has no such fold; the shader is built (f64 has none) and keeps -0.0 where it runs."""
    built = build(WGSL, wgsl=True)
    assert built.kernels["narrow"].codes.get("wgsl") is not None
    h = np.array(VALUES, np.float16)
    outs = []
    for where in ("cpu-python", device):
        out = np.full(len(h), 7.0, np.float32)
        built.module.narrow.launch(len(h), 1, h, out, device=where)
        outs.append(out)
    assert np.signbit(outs[0][0]) and same_bits(*outs)
