"""The escape-time iteration, shared unchanged by the CPU threads and the GPU kernel."""

from hybrid_runtime import f32, i32


def escape_time(cr: f32, ci: f32, max_iter: i32) -> i32:
    """Iterations of z <- z*z + c, from z = 0, before |z| > 2 (at most ``max_iter``)."""
    zr = f32(0.0)
    zi = f32(0.0)
    n = i32(0)
    while n < max_iter:
        zr2 = zr * zr
        zi2 = zi * zi
        if zr2 + zi2 > 4.0:
            break
        zi = 2.0 * zr * zi + ci
        zr = zr2 - zi2 + cr
        n += 1
    return n
