# =============================================================================
# Source : rapidsai/cuxfilter, python/cuxfilter/charts/core/non_aggregate/utils.py, kernel `point_in_polygon_kernel`,
#          device function `point_in_polygon_ray_cast`
#          https://github.com/rapidsai/cuxfilter/blob/fc8aab2033fabcc4117272a0a4ca84029fe365eb/python/cuxfilter/charts/core/non_aggregate/utils.py
# License: Apache-2.0 (cuxfilter)
# Project: cuxfilter (real)
# What   : ray-casting point-in-polygon over interleaved x/y arrays: chained comparisons, bool-returning device fn, bool output.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda


# Define the CUDA kernel using numba.cuda.jit
# This kernel implements the ray casting algorithm
@cuda.jit(device=True)
def point_in_polygon_ray_cast(px, py, polygon_xy, num_vertices):
    """
    Check if a single point (px, py) is inside a polygon using ray casting.

    This is a device function intended to be called from a CUDA kernel.

    Parameters
    ----------
    px : float
        X-coordinate of the point.
    py : float
        Y-coordinate of the point.
    polygon_xy : cupy.ndarray
        Flat array of polygon vertices, interleaved [x0, y0, x1, y1, ...].
    num_vertices : int
        Number of vertices in the polygon.

    Returns
    -------
    bool
        True if the point is inside the polygon, False otherwise.
    """
    intersections = 0
    for j in range(num_vertices):
        vjx = polygon_xy[2 * j]
        vjy = polygon_xy[2 * j + 1]
        # Get next vertex, wrapping around
        j_plus_1 = (j + 1) % num_vertices
        vj1x = polygon_xy[2 * j_plus_1]
        vj1y = polygon_xy[2 * j_plus_1 + 1]

        # Check if the horizontal ray crosses the edge (vj, vj1)
        # Condition 1: Is the point's y-coordinate within the edge's y-range?
        if (vjy <= py < vj1y) or (vj1y <= py < vjy):
            # Condition 2: Is the edge not horizontal?
            if vjy != vj1y:
                # Calculate the x-coordinate of the intersection
                x_intersection = vjx + (py - vjy) * (vj1x - vjx) / (vj1y - vjy)
                # Condition 3: Is the intersection point to the right of
                # the point?
                if px < x_intersection:
                    intersections += 1

    # Point is inside if the number of intersections is odd
    return intersections % 2 == 1


@cuda.jit
def point_in_polygon_kernel(points_xy, polygon_xy, num_vertices, out):
    """
    CUDA kernel to check an array of points against a single polygon.

    Each thread checks one point.

    Parameters
    ----------
    points_xy : cupy.ndarray
        Flat array of point coordinates, interleaved [px0, py0, px1, py1, ...].
    polygon_xy : cupy.ndarray
        Flat array of polygon vertices, interleaved [vx0, vy0, vx1, vy1, ...].
    num_vertices : int
        Number of vertices in the polygon.
    out : cupy.ndarray
        Output boolean array. out[i] is True if points_xy[2*i:2*i+2] is
        inside the polygon.
    """
    i = cuda.grid(1)  # Global thread index

    # Check if index is within bounds (number of points)
    if i < points_xy.shape[0] // 2:
        px = points_xy[2 * i]
        py = points_xy[2 * i + 1]

        # Call the device function for the actual check
        out[i] = point_in_polygon_ray_cast(px, py, polygon_xy, num_vertices)
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda


# Define the CUDA kernel using numba.cuda.jit
# This kernel implements the ray casting algorithm
@cuda.jit(device=True)
def point_in_polygon_ray_cast(px, py, polygon_xy, num_vertices):
    """
    Check if a single point (px, py) is inside a polygon using ray casting.

    This is a device function intended to be called from a CUDA kernel.

    Parameters
    ----------
    px : float
        X-coordinate of the point.
    py : float
        Y-coordinate of the point.
    polygon_xy : cupy.ndarray
        Flat array of polygon vertices, interleaved [x0, y0, x1, y1, ...].
    num_vertices : int
        Number of vertices in the polygon.

    Returns
    -------
    bool
        True if the point is inside the polygon, False otherwise.
    """
    intersections = 0
    for j in range(num_vertices):
        vjx = polygon_xy[2 * j]
        vjy = polygon_xy[2 * j + 1]
        # Get next vertex, wrapping around
        j_plus_1 = (j + 1) % num_vertices
        vj1x = polygon_xy[2 * j_plus_1]
        vj1y = polygon_xy[2 * j_plus_1 + 1]

        # Check if the horizontal ray crosses the edge (vj, vj1)
        # Condition 1: Is the point's y-coordinate within the edge's y-range?
        if (vjy <= py < vj1y) or (vj1y <= py < vjy):
            # Condition 2: Is the edge not horizontal?
            if vjy != vj1y:
                # Calculate the x-coordinate of the intersection
                x_intersection = vjx + (py - vjy) * (vj1x - vjx) / (vj1y - vjy)
                # Condition 3: Is the intersection point to the right of
                # the point?
                if px < x_intersection:
                    intersections += 1

    # Point is inside if the number of intersections is odd
    return intersections % 2 == 1


@cuda.jit
def point_in_polygon_kernel(points_xy, polygon_xy, num_vertices, out):
    """
    CUDA kernel to check an array of points against a single polygon.

    Each thread checks one point.

    Parameters
    ----------
    points_xy : cupy.ndarray
        Flat array of point coordinates, interleaved [px0, py0, px1, py1, ...].
    polygon_xy : cupy.ndarray
        Flat array of polygon vertices, interleaved [vx0, vy0, vx1, vy1, ...].
    num_vertices : int
        Number of vertices in the polygon.
    out : cupy.ndarray
        Output boolean array. out[i] is True if points_xy[2*i:2*i+2] is
        inside the polygon.
    """
    i = cuda.grid(1)  # Global thread index

    # Check if index is within bounds (number of points)
    if i < points_xy.shape[0] // 2:
        px = points_xy[2 * i]
        py = points_xy[2 * i + 1]

        # Call the device function for the actual check
        out[i] = point_in_polygon_ray_cast(px, py, polygon_xy, num_vertices)


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    # a non-convex star polygon (vertices interleaved), points on a grid offset from every edge
    k = 7
    ang = np.arange(2 * k) * np.pi / k
    rad = np.where(np.arange(2 * k) % 2 == 0, 1.0, 0.45)
    poly = np.stack([rad * np.cos(ang), rad * np.sin(ang)], 1).ravel()
    g = np.linspace(-1.1, 1.1, 23) + 0.0137
    px, py = np.meshgrid(g, g + 0.0071)
    pts = np.stack([px.ravel(), py.ravel()], 1).ravel()
    return [pts, poly, 2 * k, np.zeros(pts.size // 2, np.bool_)]


def reference(points_xy, polygon_xy, num_vertices, out):
    # even-odd rule, counted independently with a vectorised crossing test
    P = points_xy.reshape(-1, 2)
    V = polygon_xy.reshape(-1, 2)
    W = np.roll(V, -1, 0)
    x, y = P[:, :1], P[:, 1:]
    straddle = (V[:, 1] > y) != (W[:, 1] > y)
    with np.errstate(divide="ignore", invalid="ignore"):
        xi = V[:, 0] + (y - V[:, 1]) * (W[:, 0] - V[:, 0]) / (W[:, 1] - V[:, 1])
    crossings = (straddle & (x < xi)).sum(1)
    return {"out": crossings % 2 == 1}


CASE = dict(kernel="point_in_polygon_kernel", griddim=3, blockdim=256,
            args=["points_xy", "polygon_xy", "num_vertices", "out"], outputs=["out"])
