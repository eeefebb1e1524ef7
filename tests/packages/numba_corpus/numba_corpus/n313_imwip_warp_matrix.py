# =============================================================================
# Source : RendersJens/ImWIP, imwip/matrices/matrix_kernels.py, kernel `linear_warp_2D_matrix_kernel`
#          https://github.com/RendersJens/ImWIP/blob/97a234a21bea8364d8aacad1cafa51d00755d218/imwip/matrices/matrix_kernels.py
# License: GPL-3.0-or-later
# Project: ImWIP (real)
# What   : sparse (COO) matrix entries of a bilinear warp; the image shape arrives as a Python tuple argument;
#          `from numba.types import ..., UniTuple`.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
import numpy as np
from numba import cuda
from numba.types import void, int32, float32, boolean, UniTuple
import math


@cuda.jit
def linear_warp_2D_matrix_kernel(im_shape, u, v, data, coords):
    i, j = cuda.grid(2)

    if i < im_shape[0] and j < im_shape[1]:
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
            if 0 <= Q[m][0] < im_shape[0] and 0 <= Q[m][1] < im_shape[1]:
                data[i*im_shape[1] + j, m] = coefficients[m]
                coords[0, i*im_shape[1] + j, m] = i*im_shape[1] + j
                coords[1, i*im_shape[1] + j, m] = Q[m][0]*im_shape[1] + Q[m][1]
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
import numpy as np
from hybrid_runtime import cuda
from hybrid_runtime.types import void, int32, float32, boolean, UniTuple
import math


@cuda.jit
def linear_warp_2D_matrix_kernel(im_shape, u, v, data, coords):
    i, j = cuda.grid(2)

    if i < im_shape[0] and j < im_shape[1]:
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
            if 0 <= Q[m][0] < im_shape[0] and 0 <= Q[m][1] < im_shape[1]:
                data[i*im_shape[1] + j, m] = coefficients[m]
                coords[0, i*im_shape[1] + j, m] = i*im_shape[1] + j
                coords[1, i*im_shape[1] + j, m] = Q[m][0]*im_shape[1] + Q[m][1]

# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    im_shape = (9, 11)
    u = (rng.random(im_shape) * 3 - 1.5).astype(np.float32)
    v = (rng.random(im_shape) * 3 - 1.5).astype(np.float32)
    data = np.zeros((99, 4), dtype=np.float32)
    coords = np.zeros((2, 99, 4), dtype=np.int32)
    return [im_shape, u, v, data, coords]


def reference(im_shape, u, v, data, coords):
    n0, n1 = im_shape
    for i in range(n0):
        for j in range(n1):
            x = np.float32(np.float32(i) + u[i, j])
            y = np.float32(np.float32(j) + v[i, j])
            x1, y1 = int(np.floor(x)), int(np.floor(y))
            x2, y2 = x1 + 1, y1 + 1
            Q = ((x1, y1), (x1, y2), (x2, y1), (x2, y2))
            c = ((x2 - x) * (y2 - y), (x2 - x) * (y - y1), (x - x1) * (y2 - y), (x - x1) * (y - y1))
            r = i * n1 + j
            for m in range(4):
                if 0 <= Q[m][0] < n0 and 0 <= Q[m][1] < n1:
                    data[r, m] = c[m]
                    coords[0, r, m] = r
                    coords[1, r, m] = Q[m][0] * n1 + Q[m][1]
    return {"data": data, "coords": coords}


CASE = dict(kernel="linear_warp_2D_matrix_kernel", griddim=(1, 1), blockdim=(16, 16),
            args=["im_shape", "u", "v", "data", "coords"], outputs=["data", "coords"], rtol=1e-6, atol=1e-6)
