"""The WGSL text the renderer writes besides statements: prelude functions (added to a shader once, when
used), and expressions that keep NumPy's meaning where WGSL, naga or a driver would change it."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from ...types import Scalar


def number(value: Any) -> int | float | bool | None:
    """A compile-time constant as a Python number (NumPy scalars too); None for anything else."""
    if isinstance(value, np.generic) and value.dtype.kind in "biuf":
        return value.item()  # type: ignore[no-any-return]
    return value if isinstance(value, (int, float, bool)) else None


#: An f32's value as the bits of the f64 that holds it (subnormals as zero: they never fail a check)
F64_BITS = """fn hh_f64_bits(x: f32) -> i64 {
    let b = bitcast<u32>(x);
    let e = (b >> 23u) & 255u;
    var e64 = u64(e) + 896lu;
    if (e == 255u) { e64 = 2047lu; }
    if (e == 0u) { e64 = 0lu; }
    let m = select(u64(b & 8388607u) << 29u, 0lu, e == 0u);
    return bitcast<i64>((u64(b >> 31u) << 63u) | (e64 << 52u) | m);
}
"""


PURE = {"i32", "u32", "i64", "u64", "f32", "bool", "select", "abs", "bitcast", "true", "false", "trunc", "sqrt"}


def constant_expression(value: str) -> bool:
    """Whether a WGSL expression names nothing but literals and pure functions (naga folds those)."""
    return all(token in PURE for token in re.findall(r"(?<![\w.])[A-Za-z_]\w*", value))


def as_i32(v: str) -> str:
    """An i64 expression as i32 (low bits); a literal is written as an i32 literal, since naga cannot
    convert i64 constants when it evaluates constant expressions."""
    found = re.fullmatch(r"(?:i64\()?\(?(-?\d+)li\)?\)?", v)
    return f"{found.group(1)}i" if found else f"i32({v})"


def widen(v: str, s: Scalar, d: Scalar) -> str:
    """An integer widened to 64 bits by its own sign. naga extends by the target's sign (``i64(u32)``
    sign-extends), and lavapipe miscompares values that naga's i32 -> i64 conversion made (``-7li <
    i64(v)`` held for v = -9), so a signed source is extended by shifts of its bits."""
    dw = d.name
    if s.kind == "u":
        return f"u64({v})" if dw == "u64" else f"bitcast<i64>(u64({v}))"
    extended = f"(bitcast<i64>(u64(bitcast<u32>({v})) << 32u) >> 32u)"
    return extended if dw == "i64" else f"bitcast<u64>{extended}"


#: Keeps a float product from being fused with an addition into one FMA (one rounding instead of two):
#: SPIR-V lets drivers contract unless told not to, which WGSL cannot say; an identity on the product's
#: bits through a uniform word the runtime sets to 0 is one integer operation no compiler can see past.
NOFMA = """fn hh_nofma(x: f32) -> f32 {
    return bitcast<f32>(bitcast<u32>(x) | hh_p.hh_zero);
}
"""


def divmod_fn(wt: str) -> str:
    """Python's floor division and modulo; a zero divisor gives 0 (as NumPy), x // -1 wraps."""
    name = f"hh_divmod_{wt}"
    signed = wt in ("i32", "i64")
    z, one = f"{wt}(0)", f"{wt}(1)"
    if not signed:
        body = f"""    if (d == {z}) {{ return HhDivmod_{wt}({z}, {z}); }}
    return HhDivmod_{wt}(a / d, a % d);"""
    else:
        body = f"""    if (d == {z}) {{ return HhDivmod_{wt}({z}, {z}); }}
    if (d == -{one}) {{ return HhDivmod_{wt}({z} - a, {z}); }}
    var q = a / d;
    var r = a % d;
    if (r != {z} && ((r ^ d) < {z})) {{ q = q - {one}; r = r + d; }}
    return HhDivmod_{wt}(q, r);"""
    return f"struct HhDivmod_{wt} {{ q: {wt}, r: {wt} }}\nfn {name}(a: {wt}, d: {wt}) -> HhDivmod_{wt} {{\n{body}\n}}\n"


def ipow_fn(wt: str) -> str:
    """Integer power by squaring, wrapping; negative exponents (which NumPy rejects) give 1."""
    return f"""fn hh_ipow_{wt}(base: {wt}, exp: {wt}) -> {wt} {{
    var acc = {wt}(1);
    var b = base;
    var e = exp;
    loop {{
        if (e <= {wt}(0)) {{ break; }}
        if ((e & {wt}(1)) != {wt}(0)) {{ acc = acc * b; }}
        b = b * b;
        e = e >> {"u32(1)" if wt in ("i32", "u32") else "u32(1)"};
    }}
    return acc;
}}
"""


def shift_fn(op: str, wt: str, rw: str, bits: int) -> str:
    """Shifts past the width give 0 (or, for >> of a negative number, -1), as NumPy's do."""
    name = f"hh_shift_{op == '<<'}_{wt}_{rw}"
    count = f"{rw}({bits})"
    too_far = f"(n < {rw}(0) || n >= {count})" if rw in ("i32", "i64") else f"(n >= {count})"
    if op == "<<":
        far = f"{wt}(0)"
        shifted = "a << u32(n)"
    else:
        far = f"select({wt}(0), {wt}(0) - {wt}(1), a < {wt}(0))" if wt in ("i32", "i64") else f"{wt}(0)"
        shifted = "a >> u32(n)"
    return f"""fn {name}(a: {wt}, n: {rw}) -> {wt} {{
    if {too_far} {{ return {far}; }}
    return {shifted};
}}
"""
