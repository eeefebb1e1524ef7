# =============================================================================
# Source : RendersJens/ImWIP, imwip/numba_backend/warp_kernels.py, kernel `cubic_warp_2D_kernel`
#          https://github.com/RendersJens/ImWIP/blob/97a234a21bea8364d8aacad1cafa51d00755d218/imwip/numba_backend/warp_kernels.py
# License: GPL-3.0-or-later
# Project: ImWIP (real)
# What   : bicubic image warp via a 16-term monomial basis in a cuda.local.array(16, float32), tuples of
#          float32 powers (**2, **3), forward and adjoint (atomic.add).
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
import numpy as np
from numba import cuda
from numba.types import void, int32, float32, boolean
import math


@cuda.jit
def cubic_warp_2D_kernel(f, u, v, f_warped, coeffs, adjoint):
    i, j = cuda.grid(2)

    if i < f.shape[0] and j < f.shape[1]:
        f_i = float32(i)
        f_j = float32(j)

        # position at which to iterpolate
        x = f_i + u[i, j]
        y = f_j + v[i, j]

        # points from which to interpolate
        x1 = int32(math.floor(x))
        y1 = int32(math.floor(y))
        # xi = x1 - 1 + i

        # interpolation coefficients
        xmx1 = x - float32(x1)
        ymy1 = y - float32(y1)
        x_powers = (float32(1), xmx1, xmx1**2, xmx1**3)
        y_powers = (float32(1), ymy1, ymy1**2, ymy1**3)
        monomials = cuda.local.array(16, float32)
        for py in range(4):
            for px in range(4):
                monomials[py*4 + px] = x_powers[px] * y_powers[py]

        m = 0
        for ii in range(4):
            for jj in range(4):
                Q0 = x1 + ii - 1
                Q1 = y1 + jj - 1
                if 0 <= Q0 < f.shape[0] and 0 <= Q1 < f.shape[1]:
                    coefficient = float32(0)
                    for n in range(16):
                        coefficient += coeffs[m*16 + n] * monomials[n]
                    if adjoint:
                        cuda.atomic.add(f_warped, (Q0, Q1), coefficient * f[i, j])
                    else:
                        f_warped[i, j] += coefficient * f[Q0, Q1]
                m += 1
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
import numpy as np
from hybrid_runtime import cuda
from hybrid_runtime.types import void, int32, float32, boolean
import math


@cuda.jit
def cubic_warp_2D_kernel(f, u, v, f_warped, coeffs, adjoint):
    i, j = cuda.grid(2)

    if i < f.shape[0] and j < f.shape[1]:
        f_i = float32(i)
        f_j = float32(j)

        # position at which to iterpolate
        x = f_i + u[i, j]
        y = f_j + v[i, j]

        # points from which to interpolate
        x1 = int32(math.floor(x))
        y1 = int32(math.floor(y))
        # xi = x1 - 1 + i

        # interpolation coefficients
        xmx1 = x - float32(x1)
        ymy1 = y - float32(y1)
        x_powers = (float32(1), xmx1, xmx1**2, xmx1**3)
        y_powers = (float32(1), ymy1, ymy1**2, ymy1**3)
        monomials = cuda.local.array(16, float32)
        for py in range(4):
            for px in range(4):
                monomials[py*4 + px] = x_powers[px] * y_powers[py]

        m = 0
        for ii in range(4):
            for jj in range(4):
                Q0 = x1 + ii - 1
                Q1 = y1 + jj - 1
                if 0 <= Q0 < f.shape[0] and 0 <= Q1 < f.shape[1]:
                    coefficient = float32(0)
                    for n in range(16):
                        coefficient += coeffs[m*16 + n] * monomials[n]
                    if adjoint:
                        cuda.atomic.add(f_warped, (Q0, Q1), coefficient * f[i, j])
                    else:
                        f_warped[i, j] += coefficient * f[Q0, Q1]
                m += 1

# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def _cubic2d(f, u, v, coeffs, adjoint):
    n0, n1 = f.shape
    out = np.zeros(f.shape)
    for i in range(n0):
        for j in range(n1):
            x = np.float32(np.float32(i) + u[i, j])
            y = np.float32(np.float32(j) + v[i, j])
            x1, y1 = int(np.floor(x)), int(np.floor(y))
            xm = np.float32(x - np.float32(x1))
            ym = np.float32(y - np.float32(y1))
            mono = np.array([xm ** px * ym ** py for py in range(4) for px in range(4)], dtype=np.float64)
            m = 0
            for ii in range(4):
                for jj in range(4):
                    q0, q1 = x1 + ii - 1, y1 + jj - 1
                    if 0 <= q0 < n0 and 0 <= q1 < n1:
                        c = float(np.dot(coeffs[m * 16:(m + 1) * 16].astype(np.float64), mono))
                        if adjoint:
                            out[q0, q1] += c * f[i, j]
                        else:
                            out[i, j] += c * f[q0, q1]
                    m += 1
    return out


def make_args(rng):
    f = rng.random((10, 9)).astype(np.float32)
    u = (rng.random((10, 9)) * 3 - 1.5).astype(np.float32)
    v = (rng.random((10, 9)) * 3 - 1.5).astype(np.float32)
    coeffs = (rng.random(256) - 0.5).astype(np.float32)
    return [f, u, v, np.zeros((10, 9), dtype=np.float32), np.zeros((10, 9), dtype=np.float32), coeffs]


def reference(f, u, v, fw, fa, coeffs):
    return {"fw": _cubic2d(f, u, v, coeffs, False), "fa": _cubic2d(f, u, v, coeffs, True)}


def run(f, u, v, fw, fa, coeffs):
    cubic_warp_2D_kernel[(1, 1), (16, 16)](f, u, v, fw, coeffs, False)
    cubic_warp_2D_kernel[(1, 1), (16, 16)](f, u, v, fa, coeffs, True)


CASE = dict(kernel="cubic_warp_2D_kernel", args=["f", "u", "v", "fw", "fa", "coeffs"], outputs=["fw", "fa"],
            rtol=1e-4, atol=1e-4)
