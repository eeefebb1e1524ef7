# =============================================================================
# Source : Malyadeep/pylabolt, pylabolt/parallel/gpu/equilibrium_kernels.py, kernel
#          `initialize_pop_density_based_second_order`, device function `equilibrium_density_based_second_order`;
#          and pylabolt/parallel/gpu/compute_fields_kernels.py, kernels `density_compute_density_based`,
#          `velocity_compute_density_based`
#          https://github.com/Malyadeep/pylabolt/blob/1872e9dbe6f8ac06386556b7feb9fceb0c317691/pylabolt/parallel/gpu/equilibrium_kernels.py
#          https://github.com/Malyadeep/pylabolt/blob/1872e9dbe6f8ac06386556b7feb9fceb0c317691/pylabolt/parallel/gpu/compute_fields_kernels.py
# License: BSD-3-Clause
# Project: PyLaBolt (real)
# What   : equilibrium initialisation via a device function, then density and velocity moments (row view
#          `pop_new[ind]` of a 2-D array, `0.` float literal accumulators).
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda


@cuda.jit(device=True)
def equilibrium_density_based_second_order(
    weight,
    inv_cs_2,
    inv_cs_4,
    density_local,
    cu,
    u2
):
    """
    Equilibrium kernel for density based second order
    equilibrium distribution per lattice direction
    Args:

    Returns:

    """
    pop_local = weight * density_local * (
        1 + inv_cs_2 * cu + 0.5 * inv_cs_4 * cu * cu -
        0.5 * inv_cs_2 * u2
    )
    return pop_local


@cuda.jit
def initialize_pop_density_based_second_order(
    size,
    cx,
    cy,
    weights,
    no_of_directions,
    inv_cs_2,
    inv_cs_4,
    solid,
    ghost_node,
    density,
    velocity,
    pop,
    pop_new
):
    """
    Initialization of populations using density based
    second order equilibrium
    Args:

    Returns:

    """
    ind = cuda.grid(1)
    if ind < size:
        if not solid[ind] and not ghost_node[ind]:
            velocity_local_x = velocity[ind, 0]
            velocity_local_y = velocity[ind, 1]
            u2 = (velocity_local_x * velocity_local_x +
                  velocity_local_y * velocity_local_y)
            for k in range(no_of_directions):
                cu = cx[k] * velocity_local_x + cy[k] * velocity_local_y
                pop_eq = equilibrium_density_based_second_order(
                    weights[k],
                    inv_cs_2,
                    inv_cs_4,
                    density[ind],
                    cu,
                    u2
                )
                pop[ind, k] = pop_eq
                pop_new[ind, k] = pop_eq


@cuda.jit
def density_compute_density_based(
    size,
    no_of_directions,
    solid,
    ghost_node,
    density,
    pop_new
):
    """
    Kernel to compute density and velocity from
    distributions
    Args:

    Returns:

    """
    ind = cuda.grid(1)
    if ind < size:
        if not solid[ind] and not ghost_node[ind]:
            density_sum = 0.
            pop_local = pop_new[ind]
            for k in range(no_of_directions):
                density_sum += pop_local[k]
            density[ind] = density_sum


@cuda.jit
def velocity_compute_density_based(
    float_min,
    size,
    cx,
    cy,
    no_of_directions,
    solid,
    ghost_node,
    density,
    velocity,
    force_field,
    pop_new
):
    """
    Kernel to compute density and velocity from
    distributions
    Args:

    Returns:

    """
    ind = cuda.grid(1)
    if ind < size:
        if not solid[ind] and not ghost_node[ind]:
            velocity_x_sum = 0.
            velocity_y_sum = 0.
            pop_local = pop_new[ind]
            for k in range(no_of_directions):
                velocity_x_sum += cx[k] * pop_local[k]
                velocity_y_sum += cy[k] * pop_local[k]
            inv_density = 1 / (density[ind] + float_min)
            velocity[ind, 0] = velocity_x_sum * inv_density +\
                0.5 * force_field[ind, 0] * inv_density
            velocity[ind, 1] = velocity_y_sum * inv_density +\
                0.5 * force_field[ind, 1] * inv_density
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda


@cuda.jit(device=True)
def equilibrium_density_based_second_order(
    weight,
    inv_cs_2,
    inv_cs_4,
    density_local,
    cu,
    u2
):
    """
    Equilibrium kernel for density based second order
    equilibrium distribution per lattice direction
    Args:

    Returns:

    """
    pop_local = weight * density_local * (
        1 + inv_cs_2 * cu + 0.5 * inv_cs_4 * cu * cu -
        0.5 * inv_cs_2 * u2
    )
    return pop_local


@cuda.jit
def initialize_pop_density_based_second_order(
    size,
    cx,
    cy,
    weights,
    no_of_directions,
    inv_cs_2,
    inv_cs_4,
    solid,
    ghost_node,
    density,
    velocity,
    pop,
    pop_new
):
    """
    Initialization of populations using density based
    second order equilibrium
    Args:

    Returns:

    """
    ind = cuda.grid(1)
    if ind < size:
        if not solid[ind] and not ghost_node[ind]:
            velocity_local_x = velocity[ind, 0]
            velocity_local_y = velocity[ind, 1]
            u2 = (velocity_local_x * velocity_local_x +
                  velocity_local_y * velocity_local_y)
            for k in range(no_of_directions):
                cu = cx[k] * velocity_local_x + cy[k] * velocity_local_y
                pop_eq = equilibrium_density_based_second_order(
                    weights[k],
                    inv_cs_2,
                    inv_cs_4,
                    density[ind],
                    cu,
                    u2
                )
                pop[ind, k] = pop_eq
                pop_new[ind, k] = pop_eq


@cuda.jit
def density_compute_density_based(
    size,
    no_of_directions,
    solid,
    ghost_node,
    density,
    pop_new
):
    """
    Kernel to compute density and velocity from
    distributions
    Args:

    Returns:

    """
    ind = cuda.grid(1)
    if ind < size:
        if not solid[ind] and not ghost_node[ind]:
            density_sum = 0.
            pop_local = pop_new[ind]
            for k in range(no_of_directions):
                density_sum += pop_local[k]
            density[ind] = density_sum


@cuda.jit
def velocity_compute_density_based(
    float_min,
    size,
    cx,
    cy,
    no_of_directions,
    solid,
    ghost_node,
    density,
    velocity,
    force_field,
    pop_new
):
    """
    Kernel to compute density and velocity from
    distributions
    Args:

    Returns:

    """
    ind = cuda.grid(1)
    if ind < size:
        if not solid[ind] and not ghost_node[ind]:
            velocity_x_sum = 0.
            velocity_y_sum = 0.
            pop_local = pop_new[ind]
            for k in range(no_of_directions):
                velocity_x_sum += cx[k] * pop_local[k]
                velocity_y_sum += cy[k] * pop_local[k]
            inv_density = 1 / (density[ind] + float_min)
            velocity[ind, 0] = velocity_x_sum * inv_density +\
                0.5 * force_field[ind, 0] * inv_density
            velocity[ind, 1] = velocity_y_sum * inv_density +\
                0.5 * force_field[ind, 1] * inv_density

# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402

CX = np.array([0, 1, 0, -1, 0, 1, -1, -1, 1], dtype=np.int64)
CY = np.array([0, 0, 1, 0, -1, 1, 1, -1, -1], dtype=np.int64)
W = np.array([4 / 9] + [1 / 9] * 4 + [1 / 36] * 4)
INV = np.array([0, 3, 4, 1, 2, 7, 8, 5, 6], dtype=np.int64)
NX, NY = 8, 10
SIZE = NX * NY


def _masks(rng):
    ghost = np.zeros((NX, NY), dtype=np.bool_)
    ghost[0, :] = ghost[-1, :] = ghost[:, 0] = ghost[:, -1] = True
    solid = np.zeros((NX, NY), dtype=np.bool_)
    solid[3:5, 4:6] = True
    solid[1, 1:4] = True
    return solid.reshape(-1), ghost.reshape(-1)


def make_args(rng):
    solid, ghost = _masks(rng)
    density = 1 + 0.1 * rng.random(SIZE)
    velocity = 0.05 * rng.standard_normal((SIZE, 2))
    force = 1e-3 * rng.standard_normal((SIZE, 2))
    return [solid, ghost, density, velocity, force, np.zeros((SIZE, 9)), np.zeros((SIZE, 9)), np.zeros(SIZE),
            np.zeros((SIZE, 2))]


def reference(solid, ghost, density, velocity, force, pop, pop_new, dens_out, vel_out):
    for ind in range(SIZE):
        if solid[ind] or ghost[ind]:
            continue
        ux, uy = velocity[ind]
        cu = CX * ux + CY * uy
        eq = W * density[ind] * (1 + 3 * cu + 4.5 * cu * cu - 1.5 * (ux * ux + uy * uy))
        pop[ind] = eq
        pop_new[ind] = eq
        rho = eq.sum()
        dens_out[ind] = rho
        inv = 1 / (rho + 1e-30)
        vel_out[ind, 0] = (CX * eq).sum() * inv + 0.5 * force[ind, 0] * inv
        vel_out[ind, 1] = (CY * eq).sum() * inv + 0.5 * force[ind, 1] * inv
    return {"pop": pop, "pop_new": pop_new, "dens_out": dens_out, "vel_out": vel_out}


def run(solid, ghost, density, velocity, force, pop, pop_new, dens_out, vel_out):
    initialize_pop_density_based_second_order[2, 64](SIZE, CX, CY, W, 9, 3.0, 9.0, solid, ghost, density, velocity,
                                                     pop, pop_new)
    density_compute_density_based[2, 64](SIZE, 9, solid, ghost, dens_out, pop_new)
    velocity_compute_density_based[2, 64](1e-30, SIZE, CX, CY, 9, solid, ghost, dens_out, vel_out, force, pop_new)


CASE = dict(kernel="initialize_pop_density_based_second_order",
            args=["solid", "ghost", "density", "velocity", "force", "pop", "pop_new", "dens_out", "vel_out"],
            outputs=["pop", "pop_new", "dens_out", "vel_out"], rtol=1e-12, atol=1e-15)
