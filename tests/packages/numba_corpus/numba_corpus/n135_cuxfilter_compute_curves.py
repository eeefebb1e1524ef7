# =============================================================================
# Source : rapidsai/cuxfilter, python/cuxfilter/charts/datashader/custom_extensions/graph_assets.py, kernel `compute_curves`,
#          device functions `bezier`, `add_aggregate_col`
#          https://github.com/rapidsai/cuxfilter/blob/a417915070bb9d46a7311e3e98d346f14b59cf8a/python/cuxfilter/charts/datashader/custom_extensions/graph_assets.py
# License: Apache-2.0 (cuxfilter)
# Project: cuxfilter (real)
# What   : quadratic Bezier edge curves into a float32 3-D array: 1-D views result[i, 0] to device fns, np.nan, index -1, grid-stride.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
import numpy as np
from numba import cuda


@cuda.jit(device=True)
def bezier(start, end, control_point, steps, result):
    for i in range(steps.shape[0]):
        result[i] = (
            start * (1 - steps[i]) ** 2
            + 2 * (1 - steps[i]) * steps[i] * control_point
            + end * steps[i] ** 2
        )


@cuda.jit(device=True)
def add_aggregate_col(aggregate_col, steps, result):
    for i in range(steps.shape[0]):
        result[i] = aggregate_col


@cuda.jit
def compute_curves(nodes, control_points, result, steps):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)

    for i in range(start, nodes.shape[0], stride):
        v1_x = nodes[i, 0]
        v1_y = nodes[i, 1]
        v2_x = nodes[i, 2]
        v2_y = nodes[i, 3]

        bezier(v1_x, v2_x, control_points[i, 0], steps, result[i, 0])
        result[i, 0, -1] = np.nan
        bezier(v1_y, v2_y, control_points[i, 1], steps, result[i, 1])
        result[i, 1, -1] = np.nan
        if nodes.shape[1] == 5:
            add_aggregate_col(nodes[i, 4], steps, result[i, 2])
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
import numpy as np
from hybrid_runtime import cuda


@cuda.jit(device=True)
def bezier(start, end, control_point, steps, result):
    for i in range(steps.shape[0]):
        result[i] = (
            start * (1 - steps[i]) ** 2
            + 2 * (1 - steps[i]) * steps[i] * control_point
            + end * steps[i] ** 2
        )


@cuda.jit(device=True)
def add_aggregate_col(aggregate_col, steps, result):
    for i in range(steps.shape[0]):
        result[i] = aggregate_col


@cuda.jit
def compute_curves(nodes, control_points, result, steps):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)

    for i in range(start, nodes.shape[0], stride):
        v1_x = nodes[i, 0]
        v1_y = nodes[i, 1]
        v2_x = nodes[i, 2]
        v2_y = nodes[i, 3]

        bezier(v1_x, v2_x, control_points[i, 0], steps, result[i, 0])
        result[i, 0, -1] = np.nan
        bezier(v1_y, v2_y, control_points[i, 1], steps, result[i, 1])
        result[i, 1, -1] = np.nan
        if nodes.shape[1] == 5:
            add_aggregate_col(nodes[i, 4], steps, result[i, 2])


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    n, steps_n = 20, 9
    nodes = rng.uniform(-5, 5, (n, 5))
    ctrl = rng.uniform(-5, 5, (n, 2)).astype(np.float32)
    result = np.zeros((n, 3, steps_n + 1), np.float32)
    steps = np.linspace(0, 1, steps_n)
    return [nodes, ctrl, result, steps]


def reference(nodes, control_points, result, steps):
    want = result.copy()
    s = steps[None, :]
    for c in range(2):
        a, b, p = nodes[:, c][:, None], nodes[:, c + 2][:, None], control_points[:, c].astype(np.float64)[:, None]
        want[:, c, : steps.size] = a * (1 - s) ** 2 + 2 * (1 - s) * s * p + b * s ** 2
        want[:, c, -1] = np.nan
    want[:, 2, : steps.size] = nodes[:, 4][:, None]
    return {"result": want}


CASE = dict(kernel="compute_curves", griddim=1, blockdim=8, args=["nodes", "control_points", "result", "steps"],
            outputs=["result"], rtol=1e-6, atol=1e-5)
