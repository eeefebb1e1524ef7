# =============================================================================
# Source : RendersJens/ImWIP, imwip/numba_backend/warp_kernels.py, kernels `linear_warp_2D_kernel`,
#          `linear_warp_3D_kernel`
#          https://github.com/RendersJens/ImWIP/blob/97a234a21bea8364d8aacad1cafa51d00755d218/imwip/numba_backend/warp_kernels.py
# License: GPL-3.0-or-later
# Project: ImWIP (real)
# What   : bilinear/trilinear image warp by a displacement field and its adjoint (tuple-of-tuples Q, atomic.add
#          with a tuple index, float32()/int32() casts, cuda.grid(3)); `from numba.types import void, ...`.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
import numpy as np
from numba import cuda
from numba.types import void, int32, float32, boolean
import math


@cuda.jit
def linear_warp_2D_kernel(f, u, v, f_warped, adjoint):
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
        x2 = int32(x1 + 1)
        y2 = int32(y1 + 1)
        Q = ((x1, y1),
             (x1, y2),
             (x2, y1),
             (x2, y2))

        # interpolation coefficients
        coefficients = ((x2 - x)*(y2 - y),
                        (x2 - x)*(y - y1),
                        (x - x1)*(y2 - y),
                        (x - x1)*(y - y1))


        for m in range(4):
            if 0 <= Q[m][0] < f.shape[0] and 0 <= Q[m][1] < f.shape[1]:
                if adjoint:
                    cuda.atomic.add(f_warped, (Q[m][0], Q[m][1]), coefficients[m] * f[i, j])
                else:
                    f_warped[i, j] += coefficients[m] * f[Q[m][0], Q[m][1]]


@cuda.jit
def linear_warp_3D_kernel(f, u, v, w, f_warped, adjoint):
    i, j, k = cuda.grid(3)

    if i < f.shape[0] and j < f.shape[1] and k < f.shape[2]:
        f_i = float32(i)
        f_j = float32(j)
        f_k = float32(k)

        # position at which to iterpolate
        x = f_i + u[i, j, k]
        y = f_j + v[i, j, k]
        z = f_k + w[i, j, k]

        # points from which to interpolate
        x1 = int32(math.floor(x))
        y1 = int32(math.floor(y))
        z1 = int32(math.floor(z))
        x2 = int32(x1 + 1)
        y2 = int32(y1 + 1)
        z2 = int32(z1 + 1)
        Q = ((x1, y1, z1),
             (x2, y1, z1),
             (x1, y2, z1),
             (x2, y2, z1),
             (x1, y1, z2),
             (x2, y1, z2),
             (x1, y2, z2),
             (x2, y2, z2))

        # interpolation coefficients
        coefficients = ((x2 - x)*(y2 - y)*(z2 - z),
                        (x - x1)*(y2 - y)*(z2 - z),
                        (x2 - x)*(y - y1)*(z2 - z),
                        (x - x1)*(y - y1)*(z2 - z),
                        (x2 - x)*(y2 - y)*(z - z1),
                        (x - x1)*(y2 - y)*(z - z1),
                        (x2 - x)*(y - y1)*(z - z1),
                        (x - x1)*(y - y1)*(z - z1))


        for m in range(8):
            if 0 <= Q[m][0] < f.shape[0] and 0 <= Q[m][1] < f.shape[1] and 0 <= Q[m][2] < f.shape[2]:
                if adjoint:
                    cuda.atomic.add(f_warped, (Q[m][0], Q[m][1], Q[m][2]), coefficients[m] * f[i, j, k])
                else:
                    f_warped[i, j, k] += coefficients[m] * f[Q[m][0], Q[m][1], Q[m][2]]
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
import numpy as np
from hybrid_runtime import cuda
from hybrid_runtime.types import void, int32, float32, boolean
import math


@cuda.jit
def linear_warp_2D_kernel(f, u, v, f_warped, adjoint):
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
        x2 = int32(x1 + 1)
        y2 = int32(y1 + 1)
        Q = ((x1, y1),
             (x1, y2),
             (x2, y1),
             (x2, y2))

        # interpolation coefficients
        coefficients = ((x2 - x)*(y2 - y),
                        (x2 - x)*(y - y1),
                        (x - x1)*(y2 - y),
                        (x - x1)*(y - y1))


        for m in range(4):
            if 0 <= Q[m][0] < f.shape[0] and 0 <= Q[m][1] < f.shape[1]:
                if adjoint:
                    cuda.atomic.add(f_warped, (Q[m][0], Q[m][1]), coefficients[m] * f[i, j])
                else:
                    f_warped[i, j] += coefficients[m] * f[Q[m][0], Q[m][1]]


@cuda.jit
def linear_warp_3D_kernel(f, u, v, w, f_warped, adjoint):
    i, j, k = cuda.grid(3)

    if i < f.shape[0] and j < f.shape[1] and k < f.shape[2]:
        f_i = float32(i)
        f_j = float32(j)
        f_k = float32(k)

        # position at which to iterpolate
        x = f_i + u[i, j, k]
        y = f_j + v[i, j, k]
        z = f_k + w[i, j, k]

        # points from which to interpolate
        x1 = int32(math.floor(x))
        y1 = int32(math.floor(y))
        z1 = int32(math.floor(z))
        x2 = int32(x1 + 1)
        y2 = int32(y1 + 1)
        z2 = int32(z1 + 1)
        Q = ((x1, y1, z1),
             (x2, y1, z1),
             (x1, y2, z1),
             (x2, y2, z1),
             (x1, y1, z2),
             (x2, y1, z2),
             (x1, y2, z2),
             (x2, y2, z2))

        # interpolation coefficients
        coefficients = ((x2 - x)*(y2 - y)*(z2 - z),
                        (x - x1)*(y2 - y)*(z2 - z),
                        (x2 - x)*(y - y1)*(z2 - z),
                        (x - x1)*(y - y1)*(z2 - z),
                        (x2 - x)*(y2 - y)*(z - z1),
                        (x - x1)*(y2 - y)*(z - z1),
                        (x2 - x)*(y - y1)*(z - z1),
                        (x - x1)*(y - y1)*(z - z1))


        for m in range(8):
            if 0 <= Q[m][0] < f.shape[0] and 0 <= Q[m][1] < f.shape[1] and 0 <= Q[m][2] < f.shape[2]:
                if adjoint:
                    cuda.atomic.add(f_warped, (Q[m][0], Q[m][1], Q[m][2]), coefficients[m] * f[i, j, k])
                else:
                    f_warped[i, j, k] += coefficients[m] * f[Q[m][0], Q[m][1], Q[m][2]]

# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import itertools  # noqa: E402

import numpy as np  # noqa: E402


def _lin2d_forward(f, u, v):
    n0, n1 = f.shape
    out = np.zeros(f.shape)
    for i in range(n0):
        for j in range(n1):
            x = np.float32(np.float32(i) + u[i, j])
            y = np.float32(np.float32(j) + v[i, j])
            x1, y1 = int(np.floor(x)), int(np.floor(y))
            x2, y2 = x1 + 1, y1 + 1
            Q = ((x1, y1), (x1, y2), (x2, y1), (x2, y2))
            c = ((x2 - x) * (y2 - y), (x2 - x) * (y - y1), (x - x1) * (y2 - y), (x - x1) * (y - y1))
            for m in range(4):
                if 0 <= Q[m][0] < n0 and 0 <= Q[m][1] < n1:
                    out[i, j] += c[m] * f[Q[m]]
    return out


def _lin2d_adjoint(f, u, v):
    n0, n1 = f.shape
    out = np.zeros(f.shape)
    for i in range(n0):
        for j in range(n1):
            x = np.float32(np.float32(i) + u[i, j])
            y = np.float32(np.float32(j) + v[i, j])
            x1, y1 = int(np.floor(x)), int(np.floor(y))
            x2, y2 = x1 + 1, y1 + 1
            Q = ((x1, y1), (x1, y2), (x2, y1), (x2, y2))
            c = ((x2 - x) * (y2 - y), (x2 - x) * (y - y1), (x - x1) * (y2 - y), (x - x1) * (y - y1))
            for m in range(4):
                if 0 <= Q[m][0] < n0 and 0 <= Q[m][1] < n1:
                    out[Q[m]] += c[m] * f[i, j]
    return out


def _lin3d(f, u, v, w, adjoint):
    sh = f.shape
    out = np.zeros(sh)
    for i, j, k in itertools.product(*map(range, sh)):
        x = np.float32(np.float32(i) + u[i, j, k])
        y = np.float32(np.float32(j) + v[i, j, k])
        z = np.float32(np.float32(k) + w[i, j, k])
        x1, y1, z1 = int(np.floor(x)), int(np.floor(y)), int(np.floor(z))
        x2, y2, z2 = x1 + 1, y1 + 1, z1 + 1
        for dx, dy, dz in itertools.product((0, 1), repeat=3):
            q = (x1 + dx, y1 + dy, z1 + dz)
            cx = (x - x1) if dx else (x2 - x)
            cy = (y - y1) if dy else (y2 - y)
            cz = (z - z1) if dz else (z2 - z)
            if all(0 <= q[a] < sh[a] for a in range(3)):
                if adjoint:
                    out[q] += cx * cy * cz * f[i, j, k]
                else:
                    out[i, j, k] += cx * cy * cz * f[q]
    return out


def make_args(rng):
    f2 = rng.random((12, 10)).astype(np.float32)
    u2 = (rng.random((12, 10)) * 3 - 1.5).astype(np.float32)
    v2 = (rng.random((12, 10)) * 3 - 1.5).astype(np.float32)
    f3 = rng.random((5, 6, 4)).astype(np.float32)
    u3, v3, w3 = ((rng.random((5, 6, 4)) * 2 - 1).astype(np.float32) for _ in range(3))
    z2 = lambda: np.zeros((12, 10), dtype=np.float32)
    z3 = lambda: np.zeros((5, 6, 4), dtype=np.float32)
    return [f2, u2, v2, z2(), z2(), f3, u3, v3, w3, z3(), z3()]


def reference(f2, u2, v2, fw2, fa2, f3, u3, v3, w3, fw3, fa3):
    return {"fw2": _lin2d_forward(f2, u2, v2), "fa2": _lin2d_adjoint(f2, u2, v2),
            "fw3": _lin3d(f3, u3, v3, w3, False), "fa3": _lin3d(f3, u3, v3, w3, True)}


def run(f2, u2, v2, fw2, fa2, f3, u3, v3, w3, fw3, fa3):
    linear_warp_2D_kernel[(1, 1), (16, 16)](f2, u2, v2, fw2, False)
    linear_warp_2D_kernel[(1, 1), (16, 16)](f2, u2, v2, fa2, True)
    linear_warp_3D_kernel[(1, 1, 1), (8, 8, 8)](f3, u3, v3, w3, fw3, False)
    linear_warp_3D_kernel[(1, 1, 1), (8, 8, 8)](f3, u3, v3, w3, fa3, True)


CASE = dict(kernel="linear_warp_2D_kernel", args=["f2", "u2", "v2", "fw2", "fa2", "f3", "u3", "v3", "w3", "fw3", "fa3"],
            outputs=["fw2", "fa2", "fw3", "fa3"], rtol=1e-5, atol=1e-5)
