"""CPython's special-value tables for ``cmath``: what ``cosh(inf + nan j)``, ``acos(-inf + 0j)`` ... are.

CPython's ``cmathmodule.c`` gives every function of a complex argument with an infinite or NaN part the
result C99's Annex G recommends, from a 7 x 7 table indexed by the classes of the real and imaginary
parts (:func:`special_type`). These are those tables, transcribed from ``cmath_exec`` (entries ``U`` are
never read: both parts finite). The compiler emits them as constant data of native and GPU code
(:mod:`hatch_hybrid.lower.cmath`); the Python path reads them where CPython's ``cmath`` raises
``ValueError`` instead of returning the entry (``cmath.cosh(complex(1, inf))``), so every path returns
the same value. ``tests/test_complex.py`` checks every entry CPython returns against CPython.
"""

from __future__ import annotations

import math

#: the classes, in CPython's order (``enum special_types``)
NINF, NEG, NZERO, PZERO, POS, PINF, NAN = range(7)

_VALUES = {
    "P": math.pi, "P14": 0.25 * math.pi, "P12": 0.5 * math.pi, "P34": 0.75 * math.pi, "INF": math.inf,
    "N": math.nan, "0.": 0.0, "1.": 1.0, "U": math.nan,
}  # fmt: skip

# fmt: off
_TABLES = {
    "acos": """
        P34,INF P,INF   P,INF   P,-INF  P,-INF  P34,-INF N,INF
        P12,INF U,U     U,U     U,U     U,U     P12,-INF N,N
        P12,INF U,U     P12,0.  P12,-0. U,U     P12,-INF P12,N
        P12,INF U,U     P12,0.  P12,-0. U,U     P12,-INF P12,N
        P12,INF U,U     U,U     U,U     U,U     P12,-INF N,N
        P14,INF 0.,INF  0.,INF  0.,-INF 0.,-INF P14,-INF N,INF
        N,INF   N,N     N,N     N,N     N,N     N,-INF   N,N""",
    "acosh": """
        INF,-P34 INF,-P  INF,-P  INF,P  INF,P  INF,P34 INF,N
        INF,-P12 U,U     U,U     U,U    U,U    INF,P12 N,N
        INF,-P12 U,U     0.,-P12 0.,P12 U,U    INF,P12 N,P12
        INF,-P12 U,U     0.,-P12 0.,P12 U,U    INF,P12 N,P12
        INF,-P12 U,U     U,U     U,U    U,U    INF,P12 N,N
        INF,-P14 INF,-0. INF,-0. INF,0. INF,0. INF,P14 INF,N
        INF,N    N,N     N,N     N,N    N,N    INF,N   N,N""",
    "asinh": """
        -INF,-P14 -INF,-0. -INF,-0. -INF,0. -INF,0. -INF,P14 -INF,N
        -INF,-P12 U,U      U,U      U,U     U,U     -INF,P12 N,N
        -INF,-P12 U,U      -0.,-0.  -0.,0.  U,U     -INF,P12 N,N
        INF,-P12  U,U      0.,-0.   0.,0.   U,U     INF,P12  N,N
        INF,-P12  U,U      U,U      U,U     U,U     INF,P12  N,N
        INF,-P14  INF,-0.  INF,-0.  INF,0.  INF,0.  INF,P14  INF,N
        INF,N     N,N      N,-0.    N,0.    N,N     INF,N    N,N""",
    "atanh": """
        -0.,-P12 -0.,-P12 -0.,-P12 -0.,P12 -0.,P12 -0.,P12 -0.,N
        -0.,-P12 U,U      U,U      U,U     U,U     -0.,P12 N,N
        -0.,-P12 U,U      -0.,-0.  -0.,0.  U,U     -0.,P12 -0.,N
        0.,-P12  U,U      0.,-0.   0.,0.   U,U     0.,P12  0.,N
        0.,-P12  U,U      U,U      U,U     U,U     0.,P12  N,N
        0.,-P12  0.,-P12  0.,-P12  0.,P12  0.,P12  0.,P12  0.,N
        0.,-P12  N,N      N,N      N,N     N,N     0.,P12  N,N""",
    "cosh": """
        INF,N U,U INF,0.  INF,-0. U,U INF,N INF,N
        N,N   U,U U,U     U,U     U,U N,N   N,N
        N,0.  U,U 1.,0.   1.,-0.  U,U N,0.  N,0.
        N,0.  U,U 1.,-0.  1.,0.   U,U N,0.  N,0.
        N,N   U,U U,U     U,U     U,U N,N   N,N
        INF,N U,U INF,-0. INF,0.  U,U INF,N INF,N
        N,N   N,N N,0.    N,0.    N,N N,N   N,N""",
    "sinh": """
        INF,N U,U -INF,-0. -INF,0. U,U INF,N INF,N
        N,N   U,U U,U      U,U     U,U N,N   N,N
        0.,N  U,U -0.,-0.  -0.,0.  U,U 0.,N  0.,N
        0.,N  U,U 0.,-0.   0.,0.   U,U 0.,N  0.,N
        N,N   U,U U,U      U,U     U,U N,N   N,N
        INF,N U,U INF,-0.  INF,0.  U,U INF,N INF,N
        N,N   N,N N,-0.    N,0.    N,N N,N   N,N""",
    "tanh": """
        -1.,0. U,U -1.,-0. -1.,0. U,U -1.,0. -1.,0.
        N,N    U,U U,U     U,U    U,U N,N    N,N
        -0.,N  U,U -0.,-0. -0.,0. U,U -0.,N  -0.,N
        0.,N   U,U 0.,-0.  0.,0.  U,U 0.,N   0.,N
        N,N    U,U U,U     U,U    U,U N,N    N,N
        1.,0.  U,U 1.,-0.  1.,0.  U,U 1.,0.  1.,0.
        N,N    N,N N,-0.   N,0.   N,N N,N    N,N""",
}
# fmt: on


def _number(text: str) -> float:
    return -_VALUES[text[1:]] if text.startswith("-") else _VALUES[text]


def _parse(text: str) -> tuple[tuple[complex, ...], ...]:
    rows = [line.split() for line in text.strip().splitlines()]
    assert len(rows) == 7 and all(len(row) == 7 for row in rows)
    return tuple(tuple(complex(*map(_number, entry.split(","))) for entry in row) for row in rows)


#: function name -> table[class of the real part][class of the imaginary part]
TABLES: dict[str, tuple[tuple[complex, ...], ...]] = {name: _parse(text) for name, text in _TABLES.items()}


def special_type(x: float) -> int:
    """CPython's ``special_type``: the class of a double."""
    positive = math.copysign(1.0, x) == 1.0
    if math.isfinite(x):
        if x != 0:
            return POS if positive else NEG
        return PZERO if positive else NZERO
    if math.isnan(x):
        return NAN
    return PINF if positive else NINF


def value(name: str, z: complex) -> complex:
    """The table's entry for ``z`` (which has an infinite or NaN part)."""
    return TABLES[name][special_type(z.real)][special_type(z.imag)]
