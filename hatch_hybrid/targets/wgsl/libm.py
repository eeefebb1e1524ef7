"""``math`` functions that IEEE 754 does not fix, for the WebGPU target: WGSL's built-ins (``exp``, ``log``,
``sin``, ...) are f32-only in naga and, where a driver computes them, within drivers' own bounds (several
ulps, and Vulkan promises f64 only f32's precision). These are f64 functions of the shader's own, written
with IEEE operations alone (``+ - *``, the correctly rounded division of :data:`.prelude.DIV_F64`, bit
manipulation, ``fma`` in the argument reductions), the same algorithm on every adapter:

* ``exp``: ``x = k ln2 + r`` (``ln2`` in two parts, ``|r| <= ln2/2``; the reductions are ``fma`` calls, which no
  driver reassociates: in one large shader NVIDIA's compiler gave ``exp`` 189 ulps where the same code alone
  had 1, which reassociating ``(x - k hi) - k lo`` explains), ``e**r`` by its Taylor series to degree
  13, scaled by ``2**k`` with one rounding;
* ``log``: ``x = 2**k (1 + f)`` with ``1 + f`` in ``[sqrt(1/2), sqrt(2))``, ``log(1 + f) = 2 atanh(s)``, ``s =
  f / (2 + f)``, as ``f - s (f - T(s**2))`` (the series to ``s**25``); ``log2``, ``log10`` and ``log(x, b)`` from
  the same parts;
* ``sin``, ``cos``, ``tan``: ``x = k pi/2 + r`` (``pi/2`` in five 24-bit parts, so that ``k * part`` is exact for
  ``|x|`` up to ``2**29``: beyond, the reduction loses bits), Taylor series on ``|r| <= pi/4``;
* ``atan`` (``1/x`` above 1, then ``atan(t) = pi/6 + atan((t sqrt3 - 1) / (sqrt3 + t))`` above ``tan(pi/12)``,
  then the series), ``atan2`` (C's quadrants and signed zeros), ``asin``/``acos`` through ``atan2``;
* ``cbrt`` (a guess from the exponent's bits, five Newton steps), ``hypot`` (the larger part times
  ``sqrt(1 + q**2)``, correctly rounded roots), ``fma`` (WGSL's, where the adapter's rounds once; a launch
  elsewhere says so).

They are within a few ulps of the C library's (tests/test_wgpu.py measures them), as libdevice's are on the
CUDA path; NaN and infinite arguments give C's results where the driver keeps them (docs/wgpu.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from math import factorial

#: The constants, as Python computed them from decimal expansions (their splits: the leading bits of the value,
#: then the rest)
LN2_HI, LN2_LO, INV_LN2 = 0.6931471803691238, 1.9082149292705877e-10, 1.4426950408889634
LOG10_2_HI, LOG10_2_LO, INV_LN10 = 0.3010299955494702, 1.1451100898021838e-10, 0.4342944819032518
PIO2_PARTS = (
    1.570796251296997,
    7.549789415861596e-08,
    5.390302529957765e-15,
    3.282003415807913e-22,
    1.270655753080676e-29,
)
TWO_OVER_PI, PIO2, PIO2_LO = 0.6366197723675814, 1.5707963267948966, 6.123233995736766e-17
PI, PI_LO, PIO6, PIO6_LO = 3.141592653589793, 1.2246467991473532e-16, 0.5235987755982989, -5.360408832255455e-17
SQRT3, TAN_PIO12, SQRT2 = 1.7320508075688772, 0.2679491924311227, 1.4142135623730951
BIG, SMALL = 1.7976931348623157e308, 2.2250738585072014e-308


def _lit(x: float | Fraction) -> str:
    return f"{float(x)!r}lf"


def _horner(var: str, coefficients: Sequence[float | Fraction]) -> str:
    """``c0 + var*(c1 + var*(c2 + ...))`` as WGSL."""
    text = _lit(coefficients[-1])
    for c in reversed(coefficients[:-1]):
        text = f"({_lit(c)} + {var} * {text})"
    return text


_EXP_SERIES = [Fraction(1, factorial(n)) for n in range(1, 14)]  # e**r = 1 + r*(1 + r/2 + ...)
_ATANH_SERIES = [Fraction(2, 2 * j + 1) for j in range(1, 13)]  # T(z) = z*(2/3 + 2z/5 + ...)
_SIN_SERIES = [Fraction((-1) ** n, factorial(2 * n + 1)) for n in range(1, 10)]
_COS_SERIES = [Fraction((-1) ** n, factorial(2 * n)) for n in range(2, 11)]
_ATAN_SERIES = [Fraction((-1) ** n, 2 * n + 1) for n in range(1, 16)]
_INF = "bitcast<f64>(9218868437227405312lu)"
_NAN = "bitcast<f64>(9221120237041090560lu)"

#: name -> (the prelude functions it calls, its WGSL)
FUNCTIONS: dict[str, tuple[tuple[str, ...], str]] = {
    "hh_scale_f64": (
        ("hh_ulp_f64",),
        """fn hh_scale_f64(x: f64, k: i32) -> f64 {  // x * 2**k, rounded once
    let k1 = k / 2i;
    return x * hh_pow2_f64(k1) * hh_pow2_f64(k - k1);
}
""",
    ),
    "hh_exp_f64": (
        ("hh_scale_f64",),
        f"""fn hh_exp_f64(x: f64) -> f64 {{
    if (x > 709.782712893384lf) {{ return {_INF}; }}
    if (x < -745.2lf) {{ return 0.0lf; }}
    let k = round(x * {_lit(INV_LN2)});
    let r = fma(-k, {_lit(LN2_LO)}, fma(-k, {_lit(LN2_HI)}, x));
    return hh_scale_f64(1.0lf + r * {_horner("r", _EXP_SERIES)}, i32(k));
}}
""",
    ),
    "hh_log_parts_f64": (
        ("hh_div_f64",),
        f"""fn hh_log_parts_f64(x: f64) -> vec2<f64> {{  // (k, log(1 + f)) of a finite x > 0: x = 2**k (1 + f)
    var b = bitcast<u64>(x);
    var k = -1023i;
    if ((b >> 52u) == 0lu) {{ b = bitcast<u64>(x * 18014398509481984.0lf); k = -1077i; }}
    k = k + i32(b >> 52u);
    var m = bitcast<f64>((b & 4503599627370495lu) | 4607182418800017408lu);
    if (m > {_lit(SQRT2)}) {{ m = m * 0.5lf; k = k + 1i; }}
    let f = m - 1.0lf;
    let s = hh_div_f64(f, 2.0lf + f);
    let z = s * s;
    return vec2<f64>(f64(k), f - s * (f - z * {_horner("z", _ATANH_SERIES)}));
}}
""",
    ),
    "hh_log_f64": (
        ("hh_log_parts_f64",),
        f"""fn hh_log_f64(x: f64, base: i32) -> f64 {{  // base 0: e, 2, 10
    if (!(x > 0.0lf)) {{ return select({_NAN}, -{_INF}, x == 0.0lf); }}
    if (x > {_lit(BIG)}) {{ return x; }}
    let p = hh_log_parts_f64(x);
    if (base == 2i) {{ return fma(p.y, {_lit(INV_LN2)}, p.x); }}
    if (base == 10i) {{ return fma(p.x, {_lit(LOG10_2_HI)}, fma(p.x, {_lit(LOG10_2_LO)}, p.y * {_lit(INV_LN10)})); }}
    return fma(p.x, {_lit(LN2_HI)}, fma(p.x, {_lit(LN2_LO)}, p.y));
}}
""",
    ),
    "hh_trig_f64": (
        ("hh_div_f64",),
        f"""fn hh_sin_kernel_f64(r: f64) -> f64 {{
    let z = r * r;
    return r + r * (z * {_horner("z", _SIN_SERIES)});
}}
fn hh_cos_kernel_f64(r: f64) -> f64 {{
    let z = r * r;
    let hz = 0.5lf * z;
    let w = 1.0lf - hz;
    return w + (((1.0lf - w) - hz) + z * z * {_horner("z", _COS_SERIES)});
}}
fn hh_trig_f64(x: f64, which: i32) -> f64 {{  // which 0: sin, 1: cos, 2: tan
    let k = round(x * {_lit(TWO_OVER_PI)});
    var r = x;  // (k = 0: x itself, so that -0.0 keeps its sign)
    if (k != 0.0lf) {{
{chr(10).join(f"        r = fma(-k, {_lit(p)}, r);" for p in PIO2_PARTS)}
    }}
    let q = i32(k - 4.0lf * floor(k * 0.25lf)) + select(0i, 1i, which == 1i);
    let s = hh_sin_kernel_f64(r);
    let c = hh_cos_kernel_f64(r);
    if (which == 2i) {{
        return select(hh_div_f64(s, c), -hh_div_f64(c, s), (q & 1i) == 1i);
    }}
    let v = select(s, c, (q & 1i) == 1i);
    return select(v, -v, (q & 2i) == 2i);
}}
""",
    ),
    "hh_atan_f64": (
        ("hh_div_f64",),
        f"""fn hh_atan_f64(x: f64) -> f64 {{
    let a = abs(x);
    let big = a > 1.0lf;
    let t = select(a, hh_div_f64(1.0lf, a), big);
    let mid = t > {_lit(TAN_PIO12)};
    let u = select(t, hh_div_f64(t * {_lit(SQRT3)} - 1.0lf, {_lit(SQRT3)} + t), mid);
    let z = u * u;
    var r = u + u * (z * {_horner("z", _ATAN_SERIES)});
    r = select(r, {_lit(PIO6)} + (r + {_lit(PIO6_LO)}), mid);
    r = select(r, {_lit(PIO2)} - (r - {_lit(PIO2_LO)}), big);
    return select(r, -r, bitcast<u64>(x) >= 9223372036854775808lu);
}}
""",
    ),
    "hh_atan2_f64": (
        ("hh_atan_f64",),
        f"""fn hh_atan2_f64(y: f64, x: f64) -> f64 {{  // C's atan2: quadrants by x's sign, signed zeros
    let y_negative = bitcast<u64>(y) >= 9223372036854775808lu;
    let x_negative = bitcast<u64>(x) >= 9223372036854775808lu;
    var r: f64;
    if (x == 0.0lf && y == 0.0lf) {{
        r = select(0.0lf, {_lit(PI)}, x_negative);
    }} else if (x == 0.0lf) {{
        r = {_lit(PIO2)};
    }} else {{
        r = hh_atan_f64(hh_div_f64(abs(y), abs(x)));
        if (x_negative) {{ r = {_lit(PI)} - (r - {_lit(PI_LO)}); }}
    }}
    return select(r, -r, y_negative);
}}
""",
    ),
    "hh_cbrt_f64": (
        ("hh_div_f64",),
        f"""fn hh_cbrt_f64(x: f64) -> f64 {{
    var a = abs(x);
    if (a == 0.0lf || a > {_lit(BIG)}) {{ return x; }}
    var scale = 1.0lf;
    if (a < {_lit(SMALL)}) {{ a = a * 18014398509481984.0lf; scale = 3.814697265625e-06lf; }}
    var t = bitcast<f64>(bitcast<u64>(a) / 3lu + 3071454945866678272lu);
    for (var n = 0i; n < 5i; n = n + 1i) {{
        t = hh_div_f64(2.0lf * t + hh_div_f64(a, t * t), 3.0lf);
    }}
    t = t * scale;
    return select(t, -t, x < 0.0lf);
}}
""",
    ),
    "hh_hypot_f64": (
        ("hh_div_f64", "hh_sqrt_f64"),
        f"""fn hh_hypot_f64(x: f64, y: f64) -> f64 {{
    let a = max(abs(x), abs(y));
    let b = min(abs(x), abs(y));
    if (a > {_lit(BIG)}) {{ return {_INF}; }}
    if (b == 0.0lf) {{ return a; }}
    let q = hh_div_f64(b, a);
    return a * hh_sqrt_f64(1.0lf + q * q);
}}
""",
    ),
}

FUNCTIONS["hh_two_prod_f64"] = (
    ("hh_nofma64", "hh_div_f64"),  # (hh_div_f64: for the hh_fused_fma64 override it declares)
    """fn hh_two_prod_f64(a: f64, b: f64) -> vec2<f64> {  // a*b = p + e exactly (Dekker; no product fused)
    let p = hh_nofma64(a * b);
    let sa = hh_nofma64(134217729.0lf * a);
    let sb = hh_nofma64(134217729.0lf * b);
    let ah = sa - (sa - a);
    let bh = sb - (sb - b);
    let al = a - ah;
    let bl = b - bh;
    let dekker = ((hh_nofma64(ah * bh) - p) + hh_nofma64(ah * bl) + hh_nofma64(al * bh)) + hh_nofma64(al * bl);
    return vec2<f64>(p, select(dekker, fma(a, b, -p), hh_fused_fma64));  // (a fused fma: no driver reorders it)
}
""",
)
FUNCTIONS["hh_pow_f64"] = (
    ("hh_two_prod_f64", "hh_log_parts_f64", "hh_exp_f64", "hh_sqrt_f64", "hh_div_f64", "hh_nofma64"),
    f"""fn hh_pow_f64(x: f64, y: f64) -> f64 {{  // C's pow
    if (y == 0.0lf || x == 1.0lf) {{ return 1.0lf; }}
    let yi = trunc(y);
    let integral = y == yi;
    if (x < 0.0lf && !integral) {{ return {_NAN}; }}
    let odd = integral && abs(yi - 2.0lf * trunc(yi * 0.5lf)) == 1.0lf;
    let ax = abs(x);
    var r: f64;
    if (y == 0.5lf) {{
        r = hh_sqrt_f64(ax);
    }} else if (integral && abs(y) <= 64.0lf) {{  // by squaring
        var n = u32(abs(y));
        var b = ax;
        r = 1.0lf;
        loop {{
            if ((n & 1u) == 1u) {{ r = hh_nofma64(r * b); }}
            n = n >> 1u;
            if (n == 0u) {{ break; }}
            b = hh_nofma64(b * b);
        }}
        if (y < 0.0lf) {{ r = hh_div_f64(1.0lf, r); }}
    }} else if (ax == 0.0lf || ax > {_lit(BIG)}) {{
        r = select({_INF}, 0.0lf, (ax == 0.0lf) == (y > 0.0lf));
    }} else {{  // e**(y log x), y log x in two parts: k ln2 exactly, its product with y (exact where fma is fused)
        let p = hh_log_parts_f64(ax);
        let t0 = y * (p.x * {_lit(LN2_HI)} + p.y);
        if (t0 > 710.0lf) {{ r = {_INF}; }} else if (t0 < -746.0lf) {{ r = 0.0lf; }} else {{
            let hi = hh_two_prod_f64(y, p.x * {_lit(LN2_HI)});
            let rest = hh_nofma64(y * (p.x * {_lit(LN2_LO)} + p.y));
            // (t's bits or'ed with the uniform 0, so that no driver can reassociate the tail to 0)
            let t = bitcast<f64>(bitcast<u64>(hi.x + (hi.y + rest)) | u64(hh_p.hh_zero));
            let tail = (hi.x - t) + (hi.y + rest);
            r = hh_exp_f64(t);
            r = r + hh_nofma64(r * tail);
        }}
    }}
    return select(r, -r, x < 0.0lf && odd || (bitcast<u64>(x) == 9223372036854775808lu && odd));
}}
""",
)

_EXPM1_SERIES = [Fraction(1, factorial(n)) for n in range(2, 19)]  # (e**x - 1 - x) / x**2 = 1/2 + x/6 + ...
_SIGNED = "bitcast<f64>(bitcast<u64>(r) ^ (bitcast<u64>(x) & 9223372036854775808lu))"  # r with x's sign
TWO28, TWO_M28 = 268435456.0, 3.725290298461914e-09

# the exponential and logarithm near 0, and the functions made of them (as the C library makes them: the
# forms that keep small arguments' bits)
FUNCTIONS["hh_expm1_f64"] = (
    ("hh_exp_f64",),
    f"""fn hh_expm1_f64(x: f64) -> f64 {{  // e**x - 1: the series below 1/2, else exp's (a few ulps)
    if (x > 709.782712893384lf) {{ return {_INF}; }}
    if (x < -40.0lf) {{ return -1.0lf; }}
    if (x == 0.0lf) {{ return x; }}  // (-0.0 too: no driver keeps the sign of -0 + -0 * p for sure)
    if (abs(x) < 0.5lf) {{ return x + x * (x * {_horner("x", _EXPM1_SERIES)}); }}
    return hh_exp_f64(x) - 1.0lf;
}}
""",
)
FUNCTIONS["hh_log1p_f64"] = (
    ("hh_log_f64", "hh_div_f64"),
    f"""fn hh_log1p_f64(x: f64) -> f64 {{  // log(1 + x) as log(u) * x / (u - 1), u = 1 + x rounded (Goldberg)
    if (x == -1.0lf) {{ return -{_INF}; }}
    if (!(x > -1.0lf)) {{ return {_NAN}; }}
    // (u's bits or'ed with the uniform 0: no driver can fold (1 + x) - 1 into x, as lavapipe's did)
    let u = bitcast<f64>(bitcast<u64>(1.0lf + x) | u64(hh_p.hh_zero));
    if (u == 1.0lf) {{ return x; }}
    if (u > {_lit(BIG)}) {{ return u; }}
    return hh_log_f64(u, 0i) * hh_div_f64(x, u - 1.0lf);
}}
""",
)
FUNCTIONS["hh_hyperbolic_f64"] = (
    ("hh_expm1_f64", "hh_exp_f64", "hh_div_f64"),
    f"""fn hh_hyperbolic_f64(x: f64, which: i32) -> f64 {{  // which 0: sinh, 1: cosh, 2: tanh
    let a = abs(x);
    var r: f64;
    if (which == 2i) {{
        if (a > 22.0lf) {{
            r = 1.0lf;
        }} else if (a >= 1.0lf) {{
            r = 1.0lf - hh_div_f64(2.0lf, hh_expm1_f64(a + a) + 2.0lf);
        }} else {{
            let t = hh_expm1_f64(-(a + a));
            r = hh_div_f64(-t, t + 2.0lf);
        }}
        return {_SIGNED};
    }}
    if (a >= 709.0lf) {{  // e**a overflows before sinh and cosh do
        let w = hh_exp_f64(0.5lf * a);
        r = (0.5lf * w) * w;
    }} else if (a >= 22.0lf) {{
        r = 0.5lf * hh_exp_f64(a);
    }} else if (which == 0i) {{
        let t = hh_expm1_f64(a);
        r = 0.5lf * (t + hh_div_f64(t, t + 1.0lf));
    }} else if (a < 0.34657359027997264lf) {{
        let t = hh_expm1_f64(a);
        let w = 1.0lf + t;
        return 1.0lf + hh_div_f64(t * t, w + w);
    }} else {{
        let t = hh_exp_f64(a);
        return 0.5lf * t + hh_div_f64(0.5lf, t);
    }}
    if (which == 1i) {{ return r; }}
    return {_SIGNED};
}}
""",
)
FUNCTIONS["hh_inverse_hyperbolic_f64"] = (
    ("hh_log1p_f64", "hh_log_f64", "hh_sqrt_f64", "hh_div_f64"),
    f"""fn hh_inverse_hyperbolic_f64(x: f64, which: i32) -> f64 {{  // which 0: asinh, 1: acosh, 2: atanh
    let a = abs(x);
    var r: f64;
    if (which == 1i) {{
        if (!(x >= 1.0lf)) {{ return {_NAN}; }}
        if (x > {TWO28!r}lf) {{ return hh_log_f64(x, 0i) + {_lit(LN2_HI + LN2_LO)}; }}
        if (x > 2.0lf) {{ return hh_log_f64(2.0lf * x - hh_div_f64(1.0lf, x + hh_sqrt_f64(x * x - 1.0lf)), 0i); }}
        let t = x - 1.0lf;
        return hh_log1p_f64(t + hh_sqrt_f64(2.0lf * t + t * t));
    }}
    if (which == 2i) {{
        if (!(a <= 1.0lf)) {{ return {_NAN}; }}
        if (a < 0.5lf) {{
            let t = a + a;
            r = 0.5lf * hh_log1p_f64(t + hh_div_f64(t * a, 1.0lf - a));
        }} else {{
            r = 0.5lf * hh_log1p_f64(hh_div_f64(a + a, 1.0lf - a));
        }}
        return {_SIGNED};
    }}
    if (a > {TWO28!r}lf) {{
        r = hh_log_f64(a, 0i) + {_lit(LN2_HI + LN2_LO)};
    }} else if (a > 2.0lf) {{
        r = hh_log_f64(2.0lf * a + hh_div_f64(1.0lf, hh_sqrt_f64(a * a + 1.0lf) + a), 0i);
    }} else if (a < {TWO_M28!r}lf) {{
        r = a;
    }} else {{
        let t = a * a;
        r = hh_log1p_f64(a + hh_div_f64(t, 1.0lf + hh_sqrt_f64(1.0lf + t)));
    }}
    return {_SIGNED};
}}
""",
)
FUNCTIONS["hh_exp2_f64"] = (
    ("hh_exp_f64", "hh_scale_f64"),
    f"""fn hh_exp2_f64(x: f64) -> f64 {{  // 2**k e**(f ln2), x = k + f exactly
    if (x > 1024.0lf) {{ return {_INF}; }}
    if (x < -1080.0lf) {{ return 0.0lf; }}
    let k = round(x);
    return hh_scale_f64(hh_exp_f64((x - k) * {_lit(LN2_HI + LN2_LO)}), i32(k));
}}
""",
)

#: 2/sqrt(pi) in two parts (the leading double and the rest), and 1/sqrt(pi)
TWO_OVER_SQRT_PI, TWO_OVER_SQRT_PI_LO, INV_SQRT_PI = 1.1283791670955126, 1.533545961316588e-17, 0.5641895835477563
_ERF_SERIES = [Fraction((-1) ** n, factorial(n) * (2 * n + 1)) for n in range(1, 24)]

# erf and erfc: below 1 erf's Taylor series (x * 2/sqrt(pi) * (1 - x**2/3 + x**4/10 - ...), the leading product
# in two parts), from 1 erfc's continued fraction (Laplace's: e**-x**2 / sqrt(pi) / (x + (1/2) / (x + 1 / (x +
# (3/2) / (x + ...)))), evaluated from its 200th term back; 800 below 1, where it converges more slowly),
# e**-x**2 with x**2 in two parts; 1 ulp (erf) and 2-4 (erfc) in a model of these steps in Python
FUNCTIONS["hh_erf_f64"] = (
    ("hh_exp_f64", "hh_div_f64", "hh_two_prod_f64"),
    f"""fn hh_erfc_tail_f64(a: f64, terms: i32) -> f64 {{  // erfc(a), a >= 1/2: the continued fraction
    if (a > 27.3lf) {{ return 0.0lf; }}
    var f = a;
    for (var k = terms; k > 0i; k = k - 1i) {{
        f = a + hh_div_f64(f64(k) * 0.5lf, f);
    }}
    let sq = hh_two_prod_f64(a, a);
    let e = hh_exp_f64(-sq.x) * (1.0lf - sq.y);
    return hh_div_f64({_lit(INV_SQRT_PI)} * e, f);
}}
fn hh_erf_f64(x: f64, complement: bool) -> f64 {{  // erf(x), or erfc(x) where complement
    let a = abs(x);
    let negative = bitcast<u64>(x) >= 9223372036854775808lu;
    var r: f64;  // erf(a), or erfc(a) where `tail`
    var tail = false;
    if (a < 1.0lf && !(complement && a >= 0.5lf)) {{
        let z = a * a;
        let p = {_horner("z", _ERF_SERIES)};
        r = a * {_lit(TWO_OVER_SQRT_PI)} + (a * {_lit(TWO_OVER_SQRT_PI_LO)} + {_lit(TWO_OVER_SQRT_PI)} * (a * (z * p)));
    }} else if (a < 6.0lf || complement) {{
        r = hh_erfc_tail_f64(a, select(200i, 800i, a < 1.0lf));
        tail = true;
    }} else {{
        r = 1.0lf;
    }}
    if (!complement) {{
        if (tail) {{ r = 1.0lf - r; }}
        return select(r, -r, negative);
    }}
    if (!tail) {{ r = 1.0lf - r; tail = true; }}
    return select(r, 2.0lf - r, negative);
}}
""",
)

#: ``math`` function -> (the prelude function, its extra argument); asin and acos are made in the renderer
CALLS = {
    "exp": ("hh_exp_f64", None),
    "log": ("hh_log_f64", "0i"),
    "log2": ("hh_log_f64", "2i"),
    "log10": ("hh_log_f64", "10i"),
    "sin": ("hh_trig_f64", "0i"),
    "cos": ("hh_trig_f64", "1i"),
    "tan": ("hh_trig_f64", "2i"),
    "atan": ("hh_atan_f64", None),
    "atan2": ("hh_atan2_f64", None),
    "cbrt": ("hh_cbrt_f64", None),
    "hypot": ("hh_hypot_f64", None),
    "pow": ("hh_pow_f64", None),
    "expm1": ("hh_expm1_f64", None),
    "log1p": ("hh_log1p_f64", None),
    "exp2": ("hh_exp2_f64", None),
    "sinh": ("hh_hyperbolic_f64", "0i"),
    "cosh": ("hh_hyperbolic_f64", "1i"),
    "tanh": ("hh_hyperbolic_f64", "2i"),
    "asinh": ("hh_inverse_hyperbolic_f64", "0i"),
    "acosh": ("hh_inverse_hyperbolic_f64", "1i"),
    "atanh": ("hh_inverse_hyperbolic_f64", "2i"),
    "erf": ("hh_erf_f64", "false"),
    "erfc": ("hh_erf_f64", "true"),
}
