"""Small numeric helpers. Plain Python: nothing here knows about GPUs."""


def lerp(a, b, t):
    """Linear interpolation from ``a`` to ``b``."""
    return a + (b - a) * t


def clamp(v, lo, hi):
    return lo if v < lo else (hi if v > hi else v)
