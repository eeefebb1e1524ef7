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


PURE = {"i32", "u32", "i64", "u64", "f32", "f64", "bool", "select", "abs", "bitcast", "true", "false", "trunc", "sqrt"}


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
#: SPIR-V lets drivers contract unless told not to, which WGSL cannot say. The product's bits are or'ed with
#: a uniform word the runtime sets to 0, an identity no compiler can see through, so the product is rounded
#: on its own. Tried on NVIDIA's Vulkan driver (H200, 2026-11-28) with four barriers on a complex64
#: Mandelbrot (``abs(z) <= 2``, 512x384 points, 200 steps) against NumPy's float32 steps: this one gave 0
#: differing counts; adding a -0.0 made of the uniform word (``x + -0.0`` is ``x`` for every x; the barrier
#: until then), selecting the product under a uniform condition, or multiplying by a uniform 1.0 gave 230
#: each, and with no barrier at all an H100 differed from CUDA in 37,871 of 4096^2 pixels. Speed (the same
#: run, |z|^2 form): 1.78 ms against 1.89 ms for the -0.0.
NOFMA = """fn hh_nofma(x: f32) -> f32 {
    return bitcast<f32>(bitcast<u32>(x) | hh_p.hh_zero);
}
"""
#: f64 products keep the same integer identity on their bits: with an added -0.0, NVIDIA's Vulkan compiler
#: gave Python complex powers (a chain of ``p1 - p2`` of such products) other last bits than CPython's.
NOFMA64 = """fn hh_nofma64(x: f64) -> f64 {
    return bitcast<f64>(bitcast<u64>(x) | u64(hh_p.hh_zero));
}
"""


#: Correctly rounded f32 division and square root, as IEEE 754 (and every other target) has them. WGSL allows
#: 2.5 ulp for ``/`` and more for ``sqrt``, and NVIDIA's Vulkan driver uses it: on an H100, 29% of quotients
#: and 17% of square roots of random operands were 1 ulp off. Where the adapter's ``fma`` rounds once (the
#: runtime probes it and sets ``hh_fused_fma``), the driver's quotient of the operands' significands is
#: corrected with its exact residual: ``m + r*y`` rounds once, ``r = fa - m*fb`` is exact, and with ``y``
#: within 2**-46 of ``1/fb`` the sum is never on the wrong side of a rounding boundary (a quotient or root
#: of f32 values is never closer than 2**-25 ulp to one, and never on it). Where it does not (lavapipe),
#: the driver's own operations are used: the runtime refuses the shader on an adapter whose ``fma`` is
#: not fused and whose division is not correctly rounded. Zero, infinite and NaN operands and subnormal
#: results take the driver's operation.
FUSED_FMA = "override hh_fused_fma: bool = false;\n"
FUSED_FMA64 = "override hh_fused_fma64: bool = false;\n"  # (the same for f64's fma, probed on its own)
DIV_F32 = """fn hh_div_f32(a: f32, b: f32) -> f32 {
    let q = a / b;
    let fa = frexp(a);
    let fb = frexp(b);
    let m = fa.fract / fb.fract;
    let y0 = 1.0f / fb.fract;
    let y = fma(fma(-fb.fract, y0, 1.0f), y0, y0);
    let r = ldexp(fma(fma(-m, fb.fract, fa.fract), y, m), fa.exp - fb.exp);
    let finite = abs(a) <= 3.40282347e38f && abs(b) <= 3.40282347e38f && a != 0.0f && b != 0.0f;
    return select(q, r, hh_fused_fma && finite && abs(r) >= 1.17549435e-38f);
}
"""
SQRT_F32 = """fn hh_sqrt_f32(x: f32) -> f32 {
    let s = sqrt(x);
    let fx = frexp(x);
    let odd = (fx.exp & 1i) != 0i;
    let m = select(fx.fract, fx.fract * 2.0f, odd);
    let e = select(fx.exp, fx.exp - 1i, odd);
    let sm = sqrt(m);
    let r = ldexp(fma(fma(-sm, sm, m), 0.5f / sm, sm), e / 2i);
    return select(s, r, hh_fused_fma && x >= 1.17549435e-38f && x <= 3.40282347e38f);
}
"""

#: f64 as :data:`DIV_F32` and :data:`SQRT_F32` have f32, for drivers whose f64 operations are only as precise
#: as f32's (all Vulkan promises): the driver's reciprocal and root are refined by Newton steps through the
#: fused ``fma`` (``hh_fused_fma64``) to within an ulp, and the nearest f64 is then chosen by the exact
#: residual, which says on which side of each midpoint the quotient or root lies. For a quotient ``m`` of
#: significands ``x / d`` (both in [0.5, 1)): ``r = x - m*d`` is exact, and the true quotient ``m + r/d`` is
#: past the midpoint above ``m`` when ``r > d*u/2`` (``u`` the ulp above ``m``; the one below is ``u/2`` at a
#: power of two); for a root ``s`` of ``m``: ``d = m - s*s`` is exact near the midpoints, and ``m > (s +
#: u/2)**2`` when ``d > s*u``, ``m < (s - ub/2)**2`` when ``d <= -s*ub`` (every term is a multiple of
#: ``ub**2``, so no tie is missed). A model of this with f32-accurate driver results, checked against
#: IEEE 754 on 400,000 operand pairs (powers of two, significands of all ones, integers, squares and their
#: neighbours), found no difference; without the last step, 1358 in 40,000.
ULP_F64 = """fn hh_ulp_f64(m: f64) -> vec2<f64> {
    let u = bitcast<f64>(bitcast<u64>(m) & 9218868437227405312lu) * 2.220446049250313e-16lf;
    return vec2<f64>(u, select(u, u * 0.5lf, (bitcast<u64>(m) & 4503599627370495lu) == 0lu));
}
// |x| of a normal f64 as its significand in [0.5, 1) and exponent (frexp's, by the bits: naga gives f64's
// frexp an i64 exponent, which NVIDIA's Vulkan compiler failed on), and 2**k for k in [-1022, 1023]
fn hh_fract_f64(x: f64) -> f64 {
    return bitcast<f64>((bitcast<u64>(x) & 4503599627370495lu) | 4602678819172646912lu);
}
fn hh_expo_f64(x: f64) -> i32 {
    return i32((bitcast<u64>(x) >> 52u) & 2047lu) - 1022i;
}
fn hh_pow2_f64(k: i32) -> f64 {
    return bitcast<f64>(u64(clamp(k, -1022i, 1023i) + 1023i) << 52u);
}
"""
DIV_F64 = """fn hh_div_f64(a: f64, b: f64) -> f64 {
    let q = a / b;
    let x = hh_fract_f64(a);
    let d = hh_fract_f64(b);
    var y = 1.0lf / d;
    y = fma(fma(-d, y, 1.0lf), y, y);
    y = fma(fma(-d, y, 1.0lf), y, y);
    var m = x * y;
    m = fma(fma(-m, d, x), y, m);
    m = fma(fma(-m, d, x), y, m);
    let r = fma(-m, d, x);
    let u = hh_ulp_f64(m);
    m = select(select(m, m - u.y, r < -(d * u.y * 0.5lf)), m + u.x, r > d * u.x * 0.5lf);
    let e = hh_expo_f64(a) - hh_expo_f64(b);
    let z = select(m, -m, (a < 0.0lf) != (b < 0.0lf)) * hh_pow2_f64(e / 2i) * hh_pow2_f64(e - e / 2i);
    let small = 2.2250738585072014e-308lf;
    let big = 1.7976931348623157e308lf;
    let normal = abs(a) >= small && abs(a) <= big && abs(b) >= small && abs(b) <= big;
    return select(q, z, hh_fused_fma64 && normal && abs(z) >= small);
}
"""
SQRT_F64 = """fn hh_sqrt_f64(v: f64) -> f64 {
    let s0 = sqrt(v);
    let e0 = hh_expo_f64(v);
    let odd = (e0 & 1i) != 0i;
    let m = select(hh_fract_f64(v), hh_fract_f64(v) * 2.0lf, odd);
    let e = select(e0, e0 - 1i, odd);
    var s = sqrt(m);
    let h = 0.5lf / s;
    s = fma(fma(-s, s, m), h, s);
    s = fma(fma(-s, s, m), h, s);
    let d = fma(-s, s, m);
    let u = hh_ulp_f64(s);
    s = select(select(s, s - u.y, d <= -(s * u.y)), s + u.x, d > s * u.x);
    let r = s * hh_pow2_f64(e / 2i);
    return select(s0, r, hh_fused_fma64 && v >= 2.2250738585072014e-308lf && v <= 1.7976931348623157e308lf);
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
    var r = a - q * d;  // not WGSL's `%`: NVIDIA's Vulkan driver gave -1 % 2 == 1 and -46 % -7 == -46
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


#: f16 values are held as WGSL's f16 (the adapter's shader-f16) and never computed on as f16: drivers need
#: not round f16 operations correctly. An f16 is widened to f32 exactly (``f32(h)``: every f16 is an f32),
#: computed on in f32 and rounded back to the nearest f16, ties to even, as NumPy computes float16
#: arithmetic (f32's correctly rounded +, -, * and / then one rounding to f16 is the f16 operation's result:
#: 24 bits hold 2 * 11 + 2). The rounding is NumPy's npy_floatbits_to_halfbits on the f32's bits; its result
#: goes to f16 as the f32 of the same value, which WGSL converts exactly (naga has no bitcast to f16).
F32_TO_F16 = """fn hh_f2h(x: f32) -> f16 {
    let f = bitcast<u32>(x);
    let e = f & 2139095040u;
    var h = 0u;
    if (e >= 1199570944u) {
        h = 31744u;
        if (e == 2139095040u && (f & 8388607u) != 0u) { return f16(x); }
    } else if (e <= 939524096u) {
        if (e >= 855638016u) {
            let ex = e >> 23u;
            var m = (8388608u + (f & 8388607u)) >> (113u - ex);
            if ((m & 16383u) != 4096u || (f & 2047u) != 0u) { m += 4096u; }
            h = m >> 13u;
        }
    } else {
        var m = f & 8388607u;
        if ((m & 16383u) != 4096u) { m += 4096u; }
        h = ((e - 939524096u) >> 13u) + (m >> 13u);
    }
    let s = f & 2147483648u;
    let he = (h >> 10u) & 31u;
    let hm = h & 1023u;
    if (he == 31u) { return f16(bitcast<f32>(s | 2139095040u)); }
    if (he != 0u) { return f16(bitcast<f32>(s | ((he + 112u) << 23u) | (hm << 13u))); }
    return f16(bitcast<f32>(s | 864026624u) * f32(hm));  // hm * 2**-24: exact
}
"""
