"""The escape-time iteration around a ``Complex`` struct, shared unchanged by the CPU threads and the
GPU kernel: the class is an ordinary Python class on the host and a value type on the device."""

from __future__ import annotations

from hybrid_runtime import f32, i32, struct


@struct
class Complex:
    """A complex number of two f32 (``Complex.dtype`` is its layout in arrays)."""

    re: f32
    im: f32

    def add(self, other: Complex) -> Complex:
        return Complex(self.re + other.re, self.im + other.im)

    def square(self) -> Complex:
        return Complex(self.re * self.re - self.im * self.im, f32(2.0) * self.re * self.im)

    def norm_sqr(self) -> f32:
        return self.re * self.re + self.im * self.im

    def escape_time(self, max_iter: i32) -> i32:
        """Iterations of z <- z*z + self, from z = 0, before |z| > 2 (at most ``max_iter``)."""
        z = Complex(0.0, 0.0)
        n = i32(0)
        while n < max_iter:
            if z.norm_sqr() > 4.0:
                break
            z = z.square().add(self)
            n += 1
        return n

    def is_stable(self, max_iter: i32) -> bool:
        """Does the point stay bounded for ``max_iter`` iterations (is it in the set, as far as we look)?"""
        return self.escape_time(max_iter) == max_iter


def escape_time(cr: f32, ci: f32, max_iter: i32) -> i32:
    """:meth:`Complex.escape_time` of ``cr + ci*i`` (for callers that work with two floats)."""
    return Complex(cr, ci).escape_time(max_iter)
