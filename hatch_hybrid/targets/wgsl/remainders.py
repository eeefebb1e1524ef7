"""Remainders of floats for the WebGPU target, exact as IEEE 754 and C define them: WGSL's ``%`` of floats is
``x - y * trunc(x / y)``, rounded twice, and no driver computes C's ``fmod``. Three prelude functions:

* ``hh_fmod_{f32,f64}``: C's ``fmod`` (``math.fmod``), by long division on the significands' bits (musl's
  algorithm): the result is exact, as IEEE 754's remainders always are;
* ``hh_remainder_{f32,f64}``: IEEE 754's ``remainder`` (``math.remainder``: the quotient rounded to the
  nearest, ties to even), from ``fmod`` as CPython's ``m_remainder`` makes it;
* ``hh_fdivmod_{f32,f64}``: Python's and NumPy's ``//`` and ``%`` of floats, NumPy's ``npy_divmod``
  operation for operation, as ``lower.ops.float_divmod`` lowers it for the other targets.

In: the float type's WGSL name. Out: WGSL text for :meth:`.render.ModuleRenderer.need`.
"""

from __future__ import annotations


def _layout(wt: str) -> dict[str, str]:
    """The bit layout of f32 or f64, as WGSL literals."""
    if wt == "f64":
        u, s, m, e = "u64", "lu", 52, 0x7FF
    else:
        u, s, m, e = "u32", "u", 23, 0xFF
    w = 64 if wt == "f64" else 32
    return {
        "wt": wt,
        "ut": u,
        "M": str(m),
        "TOP": str(w - 1),
        "LEAD": str(w - m),
        "EXP": f"{e}{s}",
        "SIGN": f"{1 << (w - 1)}{s}",
        "ABS": f"{(1 << (w - 1)) - 1}{s}",
        "INF": f"{e << m}{s}",
        "NAN": f"{(e << m) | (1 << (m - 1))}{s}",
        "MANT": f"{(1 << m) - 1}{s}",
        "HIDDEN": f"{1 << m}{s}",
        "Z": f"0{s}",
    }


def fmod_fn(wt: str) -> str:
    """C's ``fmod(x, y)``: NaN where y is 0 or NaN or x is infinite or NaN, else x's sign and exact."""
    return """fn hh_fmod_{wt}(x: {wt}, y: {wt}) -> {wt} {{  // C's fmod, exact: long division of the significands
    var ux = bitcast<{ut}>(x);
    var uy = bitcast<{ut}>(y);
    var ex = i32((ux >> {M}u) & {EXP});
    var ey = i32((uy >> {M}u) & {EXP});
    let sx = ux & {SIGN};
    let ax = ux & {ABS};
    let ay = uy & {ABS};
    if (ay == {Z} || ay > {INF} || ax >= {INF}) {{ return bitcast<{wt}>({NAN}); }}
    if (ax <= ay) {{ return select(x, bitcast<{wt}>(sx), ax == ay); }}
    var i: {ut};
    if (ex == 0i) {{  // subnormal: normalise
        i = ux << {LEAD}u;
        loop {{ if ((i >> {TOP}u) != {Z}) {{ break; }} ex = ex - 1i; i = i << 1u; }}
        ux = ux << u32(1i - ex);
    }} else {{
        ux = (ux & {MANT}) | {HIDDEN};
    }}
    if (ey == 0i) {{
        i = uy << {LEAD}u;
        loop {{ if ((i >> {TOP}u) != {Z}) {{ break; }} ey = ey - 1i; i = i << 1u; }}
        uy = uy << u32(1i - ey);
    }} else {{
        uy = (uy & {MANT}) | {HIDDEN};
    }}
    loop {{
        if (ex <= ey) {{ break; }}
        i = ux - uy;
        if ((i >> {TOP}u) == {Z}) {{
            if (i == {Z}) {{ return bitcast<{wt}>(sx); }}
            ux = i;
        }}
        ux = ux << 1u;
        ex = ex - 1i;
    }}
    i = ux - uy;
    if ((i >> {TOP}u) == {Z}) {{
        if (i == {Z}) {{ return bitcast<{wt}>(sx); }}
        ux = i;
    }}
    loop {{ if ((ux >> {M}u) != {Z}) {{ break; }} ux = ux << 1u; ex = ex - 1i; }}
    if (ex > 0i) {{
        ux = (ux - {HIDDEN}) | ({ut}(ex) << {M}u);
    }} else {{
        ux = ux >> u32(1i - ex);
    }}
    return bitcast<{wt}>(ux | sx);
}}
""".format(**_layout(wt))


def remainder_fn(wt: str) -> str:
    """IEEE 754's ``remainder(x, y)`` (needs :func:`fmod_fn`'s function): CPython's ``m_remainder``; NaN where
    C's gives it (x infinite, y zero, either NaN), x where y is infinite."""
    return """fn hh_remainder_{wt}(x: {wt}, y: {wt}) -> {wt} {{  // IEEE 754's remainder, exact
    let ux = bitcast<{ut}>(x);
    let ax = ux & {ABS};
    let ay = bitcast<{ut}>(y) & {ABS};
    if (ax >= {INF} || ay == {Z} || ay > {INF}) {{ return bitcast<{wt}>({NAN}); }}
    if (ay == {INF}) {{ return x; }}
    let absx = bitcast<{wt}>(ax);
    let absy = bitcast<{wt}>(ay);
    let m = hh_fmod_{wt}(absx, absy);
    let c = absy - m;  // exact where it matters (CPython's comment)
    var r: {wt};
    if (m < c) {{
        r = m;
    }} else if (m > c) {{
        r = -c;
    }} else {{  // half way: the even quotient
        r = m - 2.0 * hh_fmod_{wt}(0.5 * (absx - m), absy);
    }}
    return bitcast<{wt}>(bitcast<{ut}>(r) ^ (ux & {SIGN}));
}}
""".format(**_layout(wt))


def fdivmod_fn(wt: str, div: str) -> str:
    """NumPy's ``npy_divmod`` of floats (needs :func:`fmod_fn`'s function, and ``div``, the correctly rounded
    division): the floored quotient and the remainder with the divisor's sign, as ``lower.ops.float_divmod``
    computes them; a zero divisor gives ``a / 0`` and fmod's NaN."""
    names = _layout(wt)
    return """struct HhFDivmod_{wt} {{ q: {wt}, r: {wt} }}
fn hh_copysign0_{wt}(y: {wt}) -> {wt} {{ return bitcast<{wt}>(bitcast<{ut}>(y) & {SIGN}); }}
fn hh_fdivmod_{wt}(a: {wt}, d: {wt}) -> HhFDivmod_{wt} {{  // NumPy's npy_divmod
    let quotient = {div}(a, d);
    var m = hh_fmod_{wt}(a, d);
    if (d == 0.0) {{ return HhFDivmod_{wt}(quotient, m); }}
    if ((bitcast<{ut}>(m) & {ABS}) > {INF}) {{ return HhFDivmod_{wt}(m, m); }}  // (by its bits: drivers may
    // assume that no value is NaN, and lavapipe took `m != 0` for false)
    var q = {div}(a - m, d);
    if (m != 0.0) {{
        if ((d < 0.0) != (m < 0.0)) {{ m = m + d; q = q - 1.0; }}
    }} else {{
        m = hh_copysign0_{wt}(d);
    }}
    var f: {wt};
    if (q != 0.0) {{
        f = floor(q);
        if (q - f > 0.5) {{ f = f + 1.0; }}
    }} else {{
        f = hh_copysign0_{wt}(quotient);
    }}
    return HhFDivmod_{wt}(f, m);
}}
""".format(**names, div=div)
