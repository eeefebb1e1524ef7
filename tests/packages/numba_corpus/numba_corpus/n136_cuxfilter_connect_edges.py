# =============================================================================
# Source : rapidsai/cuxfilter, python/cuxfilter/charts/datashader/custom_extensions/graph_assets.py, kernel `connect_edges`
#          https://github.com/rapidsai/cuxfilter/blob/a417915070bb9d46a7311e3e98d346f14b59cf8a/python/cuxfilter/charts/datashader/custom_extensions/graph_assets.py
# License: Apache-2.0 (cuxfilter)
# Project: cuxfilter (real)
# What   : lay out straight edges as [x_src, x_dst, nan] / [y_src, y_dst, nan] rows of a 3-D array; np.nan, grid-stride loop.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
import numpy as np
from numba import cuda


@cuda.jit
def connect_edges(edges, result):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, edges.shape[0], stride):
        result[i, 0, 0] = edges[i, 0]
        result[i, 0, 1] = edges[i, 2]
        result[i, 0, 2] = np.nan
        result[i, 1, 0] = edges[i, 1]
        result[i, 1, 1] = edges[i, 3]
        result[i, 1, 2] = np.nan
        if edges.shape[1] == 5:
            result[i, 2, 0] = edges[i, 4]
            result[i, 2, 1] = edges[i, 4]
            result[i, 2, 2] = np.nan
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
import numpy as np
from hybrid_runtime import cuda


@cuda.jit
def connect_edges(edges, result):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, edges.shape[0], stride):
        result[i, 0, 0] = edges[i, 0]
        result[i, 0, 1] = edges[i, 2]
        result[i, 0, 2] = np.nan
        result[i, 1, 0] = edges[i, 1]
        result[i, 1, 1] = edges[i, 3]
        result[i, 1, 2] = np.nan
        if edges.shape[1] == 5:
            result[i, 2, 0] = edges[i, 4]
            result[i, 2, 1] = edges[i, 4]
            result[i, 2, 2] = np.nan


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    edges = rng.uniform(-5, 5, (30, 5))
    result = np.zeros((30, 3, 3))
    return [edges, result]


def reference(edges, result):
    want = np.empty((30, 3, 3))
    want[:, 0, 0], want[:, 0, 1] = edges[:, 0], edges[:, 2]
    want[:, 1, 0], want[:, 1, 1] = edges[:, 1], edges[:, 3]
    want[:, 2, 0] = want[:, 2, 1] = edges[:, 4]
    want[:, :, 2] = np.nan
    return {"result": want}


CASE = dict(kernel="connect_edges", griddim=2, blockdim=8, args=["edges", "result"], outputs=["result"])
