# =============================================================================
# Source : rapidsai/cuspatial, python/cuspatial/benchmarks/conftest.py, kernel `generate_polygon_coordinates`
#          https://github.com/rapidsai/cuspatial/blob/2ea9d2b8d426064d1fe0a6f90bb869e27c8db8be/python/cuspatial/benchmarks/conftest.py
# License: Apache-2.0 (cuSpatial)
# Project: cuSpatial (real)
# What   : (benchmarks/conftest.py) generate interleaved x/y vertices of regular polygons around centroids: np.pi, np.cos, np.sin, row view centroids[g], early return.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
import numpy as np
from numba import cuda


@cuda.jit
def generate_polygon_coordinates(
    coordinate_array, centroids, radius, num_vertices
):
    i = cuda.grid(1)
    if i >= coordinate_array.size:
        return

    point_idx = i // 2
    geometry_idx = point_idx // (num_vertices + 1)

    # The last index should wrap around to 0
    intra_point_idx = point_idx % (num_vertices + 1)

    centroid = centroids[geometry_idx]
    angle = 2 * np.pi * intra_point_idx / num_vertices

    if i % 2 == 0:
        coordinate_array[i] = centroid[0] + radius * np.cos(angle)
    else:
        coordinate_array[i] = centroid[1] + radius * np.sin(angle)
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
import numpy as np
from hybrid_runtime import cuda


@cuda.jit
def generate_polygon_coordinates(
    coordinate_array, centroids, radius, num_vertices
):
    i = cuda.grid(1)
    if i >= coordinate_array.size:
        return

    point_idx = i // 2
    geometry_idx = point_idx // (num_vertices + 1)

    # The last index should wrap around to 0
    intra_point_idx = point_idx % (num_vertices + 1)

    centroid = centroids[geometry_idx]
    angle = 2 * np.pi * intra_point_idx / num_vertices

    if i % 2 == 0:
        coordinate_array[i] = centroid[0] + radius * np.cos(angle)
    else:
        coordinate_array[i] = centroid[1] + radius * np.sin(angle)


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    n, num_vertices = 6, 7
    num_points = n * (num_vertices + 1)
    centroids = rng.random((n, 2))
    coords = np.zeros(num_points * 2)
    return [coords, centroids, 0.5, num_vertices]


def reference(coordinate_array, centroids, radius, num_vertices):
    p = np.arange(coordinate_array.size // 2)
    g = p // (num_vertices + 1)
    angle = 2 * np.pi * (p % (num_vertices + 1)) / num_vertices
    want = np.empty_like(coordinate_array)
    want[0::2] = centroids[g, 0] + radius * np.cos(angle)
    want[1::2] = centroids[g, 1] + radius * np.sin(angle)
    return {"coordinate_array": want}


CASE = dict(kernel="generate_polygon_coordinates", griddim=2, blockdim=64,
            args=["coordinate_array", "centroids", "radius", "num_vertices"], outputs=["coordinate_array"],
            rtol=1e-13, atol=1e-13)
