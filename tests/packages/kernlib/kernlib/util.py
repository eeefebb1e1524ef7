def clamp(v, lo, hi):
    return lo if v < lo else (hi if v > hi else v)
