# =============================================================================
# Source : Malyadeep/pylabolt, pylabolt/parallel/gpu/obstacle_kernels.py, kernel `construct_circle`, device
#          function `is_circle`; device function `local_to_global` from pylabolt/parallel/gpu/MPI_kernels.py
#          (in place of the file's `from pylabolt.parallel.gpu.MPI_kernels import local_to_global`)
#          https://github.com/Malyadeep/pylabolt/blob/1872e9dbe6f8ac06386556b7feb9fceb0c317691/pylabolt/parallel/gpu/obstacle_kernels.py
#          https://github.com/Malyadeep/pylabolt/blob/1872e9dbe6f8ac06386556b7feb9fceb0c317691/pylabolt/parallel/gpu/MPI_kernels.py
# License: BSD-3-Clause
# Project: PyLaBolt (real)
# What   : marks lattice nodes inside a (periodic) circular obstacle: device functions returning tuples,
#          `Nx, Ny = grid_global_shape` unpacking of an int array, abs() on floats.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
import numpy as np
import math
from numba import cuda, int64


@cuda.jit(device=True)
def local_to_global(i, j, offset):
    """
    convert local sub-domain index to global index
    Args:
        i: int
        j: int
        offset: (mesh.dimensions,) int array
    Returns:
        i_global: int
        j_global: int
    """
    return i + offset[0], j + offset[1]


@cuda.jit(device=True)
def is_circle(
    x_global,
    y_global,
    grid_global_shape,
    x_periodic,
    y_periodic,
    center,
    radius
):
    Nx, Ny = grid_global_shape
    rx = x_global - center[0]
    ry = y_global - center[1]
    rx_min = rx
    ry_min = ry
    if x_periodic:
        if abs(rx + Nx) < abs(rx_min):
            rx_min = rx + Nx
        if abs(rx - Nx) < abs(rx_min):
            rx_min = rx - Nx
    if y_periodic:
        if abs(ry + Ny) < abs(ry_min):
            ry_min = ry + Ny
        if abs(ry - Ny) < abs(ry_min):
            ry_min = ry - Ny
    dist_sq_from_center = rx_min * rx_min + ry_min * ry_min
    inside_solid = False
    if dist_sq_from_center <= radius * radius:
        inside_solid = True
    return inside_solid, rx_min, ry_min


@cuda.jit
def construct_circle(
    size,
    shape,
    offset,
    grid_global_shape,
    x_periodic,
    y_periodic,
    solid,
    solid_id,
    ghost_node,
    density,
    velocity,
    linear_velocity,
    angular_velocity,
    solid_density,
    center,
    radius,
    current_solid_id
):
    """
    Sets solid node values for obstacle type circle
    Args:

    Returns:

    """
    ind = cuda.grid(1)
    if ind < size:
        if not ghost_node[ind]:
            x = ind // shape[1]
            y = ind - x * shape[1]
            x_global, y_global = local_to_global(
                x - 1, y - 1, offset
            )
            inside_solid, rx, ry = is_circle(
                x_global,
                y_global,
                grid_global_shape,
                x_periodic,
                y_periodic,
                center,
                radius
            )
            if inside_solid:
                solid[ind] = True
                solid_id[ind] = current_solid_id
                velocity[ind, 0] = linear_velocity[0] -\
                    angular_velocity * ry
                velocity[ind, 1] = linear_velocity[1] +\
                    angular_velocity * rx
                density[ind] = solid_density
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
import numpy as np
import math
from hybrid_runtime import cuda, int64


@cuda.jit(device=True)
def local_to_global(i, j, offset):
    """
    convert local sub-domain index to global index
    Args:
        i: int
        j: int
        offset: (mesh.dimensions,) int array
    Returns:
        i_global: int
        j_global: int
    """
    return i + offset[0], j + offset[1]


@cuda.jit(device=True)
def is_circle(
    x_global,
    y_global,
    grid_global_shape,
    x_periodic,
    y_periodic,
    center,
    radius
):
    Nx, Ny = grid_global_shape
    rx = x_global - center[0]
    ry = y_global - center[1]
    rx_min = rx
    ry_min = ry
    if x_periodic:
        if abs(rx + Nx) < abs(rx_min):
            rx_min = rx + Nx
        if abs(rx - Nx) < abs(rx_min):
            rx_min = rx - Nx
    if y_periodic:
        if abs(ry + Ny) < abs(ry_min):
            ry_min = ry + Ny
        if abs(ry - Ny) < abs(ry_min):
            ry_min = ry - Ny
    dist_sq_from_center = rx_min * rx_min + ry_min * ry_min
    inside_solid = False
    if dist_sq_from_center <= radius * radius:
        inside_solid = True
    return inside_solid, rx_min, ry_min


@cuda.jit
def construct_circle(
    size,
    shape,
    offset,
    grid_global_shape,
    x_periodic,
    y_periodic,
    solid,
    solid_id,
    ghost_node,
    density,
    velocity,
    linear_velocity,
    angular_velocity,
    solid_density,
    center,
    radius,
    current_solid_id
):
    """
    Sets solid node values for obstacle type circle
    Args:

    Returns:

    """
    ind = cuda.grid(1)
    if ind < size:
        if not ghost_node[ind]:
            x = ind // shape[1]
            y = ind - x * shape[1]
            x_global, y_global = local_to_global(
                x - 1, y - 1, offset
            )
            inside_solid, rx, ry = is_circle(
                x_global,
                y_global,
                grid_global_shape,
                x_periodic,
                y_periodic,
                center,
                radius
            )
            if inside_solid:
                solid[ind] = True
                solid_id[ind] = current_solid_id
                velocity[ind, 0] = linear_velocity[0] -\
                    angular_velocity * ry
                velocity[ind, 1] = linear_velocity[1] +\
                    angular_velocity * rx
                density[ind] = solid_density

# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402

NX, NY = 10, 12  # local grid incl. one ghost layer
SIZE = NX * NY


def make_args(rng):
    ghost = np.zeros((NX, NY), dtype=np.bool_)
    ghost[0, :] = ghost[-1, :] = ghost[:, 0] = ghost[:, -1] = True
    return [SIZE, np.array([NX, NY], np.int64), np.array([3, 0], np.int64), np.array([12, 10], np.int64), True, False,
            np.zeros(SIZE, np.bool_), np.zeros(SIZE, np.int64), ghost.reshape(-1), np.ones(SIZE), np.zeros((SIZE, 2)),
            np.array([0.1, -0.2]), 0.05, 2.0, np.array([1.5, 4.0]), 3.2, 7]


def reference(size, shape, offset, gshape, xp, yp, solid, solid_id, ghost, density, velocity, lin, ang, sden, center,
              radius, sid):
    Nx, Ny = gshape
    for ind in range(size):
        if ghost[ind]:
            continue
        x, y = divmod(ind, NY)
        rx = x - 1 + offset[0] - center[0]
        ry = y - 1 + offset[1] - center[1]
        if xp:
            rx = min((rx, rx + Nx, rx - Nx), key=abs)
        if yp:
            ry = min((ry, ry + Ny, ry - Ny), key=abs)
        if rx * rx + ry * ry <= radius * radius:
            solid[ind] = True
            solid_id[ind] = sid
            velocity[ind] = (lin[0] - ang * ry, lin[1] + ang * rx)
            density[ind] = sden
    return {"solid": solid, "solid_id": solid_id, "velocity": velocity, "density": density}


CASE = dict(kernel="construct_circle", griddim=2, blockdim=64,
            args=["size", "shape", "offset", "gshape", "xp", "yp", "solid", "solid_id", "ghost", "density", "velocity",
                  "lin", "ang", "sden", "center", "radius", "sid"],
            outputs=["solid", "solid_id", "velocity", "density"], rtol=1e-14, atol=1e-15)
