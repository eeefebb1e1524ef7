# =============================================================================
# Source : rapidsai/cusignal, python/cusignal/estimation/filters.py, kernel `_numba_predict`
#          https://github.com/rapidsai/cusignal/blob/b427a7c105019703119b5935948a3e3e09ecd06d/python/cusignal/estimation/filters.py
# License: Apache-2.0 (cuSignal at that commit)
# Project: cuSignal (real)
# What   : batched Kalman-filter predict (x = F x, P = a^2 F P F^T + Q): 3-D grid, dynamic shared float32, syncthreads in a z-stride loop.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda, float32


@cuda.jit(fastmath=False)
def _numba_predict(num, dim_x, alpha, x_in, F, P, Q):

    x, y, z = cuda.grid(3)
    _, _, strideZ = cuda.gridsize(3)
    tz = cuda.threadIdx.z

    s_data = cuda.shared.array(shape=0, dtype=float32)

    #  Each i is a different point
    for z_idx in range(z, num, strideZ):

        #  Compute new self.x
        temp: x_in.dtype = 0
        if y == 0:
            for j in range(dim_x):
                temp += F[x, j, z_idx] * x_in[j, y, z_idx]

            x_in[x, 0, z_idx] = temp

        #  Compute dot(self.F, self.P)
        temp: x_in.dtype = 0
        for j in range(dim_x):
            temp += F[x, j, z_idx] * P[j, y, z_idx]

        s_data[(dim_x * dim_x * tz) + (x * dim_x + y)] = temp

        cuda.syncthreads()

        #  Compute dot(dot(self.F, self.P), self.F.T)
        temp: x_in.dtype = 0
        for j in range(dim_x):
            temp += (
                s_data[(dim_x * dim_x * tz) + (x * dim_x + j)] * F[y, j, z_idx]
            )

        #  Compute (alpha * alpha) * dot(dot(self.F, self.P), self.F.T)
        temp *= alpha[0, 0, z_idx] * alpha[0, 0, z_idx]

        #  Compute
        #  (alpha * alpha) * dot(dot(self.F, self.P), self.F.T) + self.Q
        P[x, y, z_idx] = temp + Q[x, y, z_idx]
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda, float32


@cuda.jit(fastmath=False)
def _numba_predict(num, dim_x, alpha, x_in, F, P, Q):

    x, y, z = cuda.grid(3)
    _, _, strideZ = cuda.gridsize(3)
    tz = cuda.threadIdx.z

    s_data = cuda.shared.array(shape=0, dtype=float32)

    #  Each i is a different point
    for z_idx in range(z, num, strideZ):

        #  Compute new self.x
        temp: x_in.dtype = 0
        if y == 0:
            for j in range(dim_x):
                temp += F[x, j, z_idx] * x_in[j, y, z_idx]

            x_in[x, 0, z_idx] = temp

        #  Compute dot(self.F, self.P)
        temp: x_in.dtype = 0
        for j in range(dim_x):
            temp += F[x, j, z_idx] * P[j, y, z_idx]

        s_data[(dim_x * dim_x * tz) + (x * dim_x + y)] = temp

        cuda.syncthreads()

        #  Compute dot(dot(self.F, self.P), self.F.T)
        temp: x_in.dtype = 0
        for j in range(dim_x):
            temp += (
                s_data[(dim_x * dim_x * tz) + (x * dim_x + j)] * F[y, j, z_idx]
            )

        #  Compute (alpha * alpha) * dot(dot(self.F, self.P), self.F.T)
        temp *= alpha[0, 0, z_idx] * alpha[0, 0, z_idx]

        #  Compute
        #  (alpha * alpha) * dot(dot(self.F, self.P), self.F.T) + self.Q
        P[x, y, z_idx] = temp + Q[x, y, z_idx]


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    num, dim_x = 64, 4
    # F upper-triangular: threads (x, y=0) of a point read x_in[j] while others of the same block write x_in[x];
    # with j >= x only, every thread reads values not yet overwritten whatever the in-block order of x
    F = np.triu(rng.uniform(-1, 1, (dim_x, dim_x, num)).transpose(2, 0, 1)).transpose(1, 2, 0).astype(np.float32)
    A = rng.uniform(-1, 1, (num, dim_x, dim_x))
    P = np.ascontiguousarray((A @ A.transpose(0, 2, 1) + np.eye(dim_x)).transpose(1, 2, 0)).astype(np.float32)
    Q = np.ascontiguousarray(np.repeat(np.eye(dim_x, dtype=np.float32)[:, :, None] * 0.1, num, 2))
    alpha = rng.uniform(0.9, 1.1, (1, 1, num)).astype(np.float32)
    x_in = rng.standard_normal((dim_x, 1, num)).astype(np.float32)
    return [num, dim_x, alpha, x_in, F, P, Q]


def reference(num, dim_x, alpha, x_in, F, P, Q):
    Fz = F.transpose(2, 0, 1).astype(np.float64)
    Pz = P.transpose(2, 0, 1).astype(np.float64)
    xz = x_in.transpose(2, 0, 1).astype(np.float64)
    a2 = (alpha[0, 0].astype(np.float64) ** 2)[:, None, None]
    x_new = (Fz @ xz).transpose(1, 2, 0)
    P_new = (a2 * (Fz @ Pz @ Fz.transpose(0, 2, 1)) + Q.transpose(2, 0, 1)).transpose(1, 2, 0)
    return {"x_in": x_new, "P": P_new}


def run(num, dim_x, alpha, x_in, F, P, Q):
    # as published (KalmanFilter.predict): block (dim_x, dim_x, 16), grid (1, 1, numSM * 20), shared dim_x^2*16*4 bytes
    threadsperblock = (dim_x, dim_x, 16)
    blockspergrid = (1, 1, 2)
    shared_mem_size = dim_x * dim_x * threadsperblock[2] * x_in.dtype.itemsize
    _numba_predict[blockspergrid, threadsperblock, 0, shared_mem_size](num, dim_x, alpha, x_in, F, P, Q)


CASE = dict(kernel="_numba_predict", args=["num", "dim_x", "alpha", "x_in", "F", "P", "Q"], outputs=["x_in", "P"],
            rtol=1e-5, atol=1e-5)
