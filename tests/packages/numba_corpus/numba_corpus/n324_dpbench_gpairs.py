# =============================================================================
# Source : IntelPython/dpbench, dpbench/benchmarks/default/gpairs/gpairs_numba_cuda.py, kernels `count_weighted_pairs_3d_diff_ker`,
#          `count_weighted_pairs_3d_diff_agg_ker`
#          https://github.com/IntelPython/dpbench/blob/0b59bd251543e0e3ab6dc53c07f694757d32f3b3/dpbench/benchmarks/default/gpairs/gpairs_numba_cuda.py
# License: Apache-2.0
# Project: dpbench (real)
# What   : weighted pair counts in radial bins (reverse range loops with break, per-thread result rows, then a
#          column aggregation kernel).
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from math import ceil

from numba import cuda


@cuda.jit
def count_weighted_pairs_3d_diff_ker(
    n, nbins, x1, y1, z1, w1, x2, y2, z2, w2, rbins_squared, result
):
    i = cuda.grid(1)

    px = x1[i]
    py = y1[i]
    pz = z1[i]
    pw = w1[i]
    for j in range(n):
        qx = x2[j]
        qy = y2[j]
        qz = z2[j]
        qw = w2[j]
        dx = px - qx
        dy = py - qy
        dz = pz - qz
        wprod = pw * qw
        dsq = dx * dx + dy * dy + dz * dz

        if dsq <= rbins_squared[nbins - 1]:
            for k in range(nbins - 1, -1, -1):
                if dsq > rbins_squared[k]:
                    result[i, k + 1] += wprod
                    break
                if k == 0:
                    result[i, k] += wprod
                    break

    for j in range(nbins - 2, -1, -1):
        for k in range(j + 1, nbins, 1):
            result[i, k] += result[i, j]


@cuda.jit
def count_weighted_pairs_3d_diff_agg_ker(nbins, result, n):
    col_id = cuda.grid(1)

    for i in range(1, n):
        result[0, col_id] += result[i, col_id]
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from math import ceil

from hybrid_runtime import cuda


@cuda.jit
def count_weighted_pairs_3d_diff_ker(
    n, nbins, x1, y1, z1, w1, x2, y2, z2, w2, rbins_squared, result
):
    i = cuda.grid(1)

    px = x1[i]
    py = y1[i]
    pz = z1[i]
    pw = w1[i]
    for j in range(n):
        qx = x2[j]
        qy = y2[j]
        qz = z2[j]
        qw = w2[j]
        dx = px - qx
        dy = py - qy
        dz = pz - qz
        wprod = pw * qw
        dsq = dx * dx + dy * dy + dz * dz

        if dsq <= rbins_squared[nbins - 1]:
            for k in range(nbins - 1, -1, -1):
                if dsq > rbins_squared[k]:
                    result[i, k + 1] += wprod
                    break
                if k == 0:
                    result[i, k] += wprod
                    break

    for j in range(nbins - 2, -1, -1):
        for k in range(j + 1, nbins, 1):
            result[i, k] += result[i, j]


@cuda.jit
def count_weighted_pairs_3d_diff_agg_ker(nbins, result, n):
    col_id = cuda.grid(1)

    for i in range(1, n):
        result[0, col_id] += result[i, col_id]

# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    n, nbins = 256, 8
    pts = [rng.random(n) for _ in range(8)]
    rbins = (np.linspace(0.05, 0.9, nbins) ** 2).astype(np.float64)
    return [n, nbins] + pts + [rbins, np.zeros((n, nbins))]


def reference(n, nbins, x1, y1, z1, w1, x2, y2, z2, w2, rbins, result):
    d = (x1[:, None] - x2) ** 2 + (y1[:, None] - y2) ** 2 + (z1[:, None] - z2) ** 2
    w = w1[:, None] * w2
    res = np.zeros((n, nbins))
    ok = d <= rbins[-1]
    b = np.searchsorted(rbins, d, side="left")
    for i in range(n):
        np.add.at(res[i], b[i][ok[i]], w[i][ok[i]])
    res = np.cumsum(res, axis=1)
    res[0] = res.sum(axis=0)
    return {"result": res}


def run(n, nbins, x1, y1, z1, w1, x2, y2, z2, w2, rbins, result):
    nthreads = 256
    nblocks = ceil(n / nthreads)
    count_weighted_pairs_3d_diff_ker[nblocks, nthreads](n, nbins, x1, y1, z1, w1, x2, y2, z2, w2, rbins, result)
    nthreads = nbins if nbins < 256 else 256
    nblocks = ceil(nbins / 256)
    count_weighted_pairs_3d_diff_agg_ker[nblocks, nthreads](nbins, result, n)


CASE = dict(kernel="count_weighted_pairs_3d_diff_ker",
            args=["n", "nbins", "x1", "y1", "z1", "w1", "x2", "y2", "z2", "w2", "rbins", "result"],
            outputs=["result"], rtol=1e-10, atol=1e-10)
