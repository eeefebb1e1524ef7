# =============================================================================
# Source : Malyadeep/pylabolt, pylabolt/parallel/gpu/collision_kernels.py, kernels `BGK_density_based_second_order_None`,
#          `BGK_density_based_second_order_guo_linear`
#          https://github.com/Malyadeep/pylabolt/blob/1872e9dbe6f8ac06386556b7feb9fceb0c317691/pylabolt/parallel/gpu/collision_kernels.py
# License: BSD-3-Clause
# Project: PyLaBolt (real)
# What   : BGK collision towards second-order equilibrium, without and with linear Guo forcing.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda


@cuda.jit
def BGK_density_based_second_order_None(
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
    force_field,
    pop,
    pop_new,
    omega
):
    """
    Collision kernel for single phase flow
    for density based equilibrium distributions
    without any forcing
    Args:

    Returns:

    """
    ind = cuda.grid(1)
    if ind < size:
        if not solid[ind] and not ghost_node[ind]:
            density_local = density[ind]
            velocity_local_x = velocity[ind, 0]
            velocity_local_y = velocity[ind, 1]
            u2 = (velocity_local_x * velocity_local_x +
                  velocity_local_y * velocity_local_y)
            for k in range(no_of_directions):
                cu = cx[k] * velocity_local_x + cy[k] * velocity_local_y
                pop_eq = weights[k] * density_local * (
                    1 + inv_cs_2 * cu + 0.5 * inv_cs_4 * cu * cu -
                    0.5 * inv_cs_2 * u2
                )
                pop[ind, k] = (1 - omega) * pop_new[ind, k] + omega * pop_eq


@cuda.jit
def BGK_density_based_second_order_guo_linear(
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
    force_field,
    pop,
    pop_new,
    omega
):
    """
    Collision kernel for single phase flow
    for density based equilibrium distributions
    with linear Guo forcing
    Args:

    Returns:

    """
    ind = cuda.grid(1)
    if ind < size:
        if not solid[ind] and not ghost_node[ind]:
            density_local = density[ind]
            velocity_local_x = velocity[ind, 0]
            velocity_local_y = velocity[ind, 1]
            force_local_x = force_field[ind, 0]
            force_local_y = force_field[ind, 1]
            u2 = (velocity_local_x * velocity_local_x +
                  velocity_local_y * velocity_local_y)
            for k in range(no_of_directions):
                cu = cx[k] * velocity_local_x + cy[k] * velocity_local_y
                pop_eq = weights[k] * density_local * (
                    1 + inv_cs_2 * cu + 0.5 * inv_cs_4 * cu * cu -
                    0.5 * inv_cs_2 * u2
                )
                force_term = weights[k] * (
                    cx[k] * force_local_x + cy[k] * force_local_y
                ) * inv_cs_2
                pop[ind, k] = (
                    (1 - omega) * pop_new[ind, k] +
                    omega * pop_eq +
                    (1 - 0.5 * omega) * force_term
                )
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda


@cuda.jit
def BGK_density_based_second_order_None(
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
    force_field,
    pop,
    pop_new,
    omega
):
    """
    Collision kernel for single phase flow
    for density based equilibrium distributions
    without any forcing
    Args:

    Returns:

    """
    ind = cuda.grid(1)
    if ind < size:
        if not solid[ind] and not ghost_node[ind]:
            density_local = density[ind]
            velocity_local_x = velocity[ind, 0]
            velocity_local_y = velocity[ind, 1]
            u2 = (velocity_local_x * velocity_local_x +
                  velocity_local_y * velocity_local_y)
            for k in range(no_of_directions):
                cu = cx[k] * velocity_local_x + cy[k] * velocity_local_y
                pop_eq = weights[k] * density_local * (
                    1 + inv_cs_2 * cu + 0.5 * inv_cs_4 * cu * cu -
                    0.5 * inv_cs_2 * u2
                )
                pop[ind, k] = (1 - omega) * pop_new[ind, k] + omega * pop_eq


@cuda.jit
def BGK_density_based_second_order_guo_linear(
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
    force_field,
    pop,
    pop_new,
    omega
):
    """
    Collision kernel for single phase flow
    for density based equilibrium distributions
    with linear Guo forcing
    Args:

    Returns:

    """
    ind = cuda.grid(1)
    if ind < size:
        if not solid[ind] and not ghost_node[ind]:
            density_local = density[ind]
            velocity_local_x = velocity[ind, 0]
            velocity_local_y = velocity[ind, 1]
            force_local_x = force_field[ind, 0]
            force_local_y = force_field[ind, 1]
            u2 = (velocity_local_x * velocity_local_x +
                  velocity_local_y * velocity_local_y)
            for k in range(no_of_directions):
                cu = cx[k] * velocity_local_x + cy[k] * velocity_local_y
                pop_eq = weights[k] * density_local * (
                    1 + inv_cs_2 * cu + 0.5 * inv_cs_4 * cu * cu -
                    0.5 * inv_cs_2 * u2
                )
                force_term = weights[k] * (
                    cx[k] * force_local_x + cy[k] * force_local_y
                ) * inv_cs_2
                pop[ind, k] = (
                    (1 - omega) * pop_new[ind, k] +
                    omega * pop_eq +
                    (1 - 0.5 * omega) * force_term
                )

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


def _collide(solid, ghost, density, velocity, force, pop, pop_new, omega, guo):
    for ind in range(SIZE):
        if solid[ind] or ghost[ind]:
            continue
        ux, uy = velocity[ind]
        u2 = ux * ux + uy * uy
        for k in range(9):
            cu = CX[k] * ux + CY[k] * uy
            eq = W[k] * density[ind] * (1 + 3 * cu + 4.5 * cu * cu - 1.5 * u2)
            val = (1 - omega) * pop_new[ind, k] + omega * eq
            if guo:
                val += (1 - 0.5 * omega) * W[k] * (CX[k] * force[ind, 0] + CY[k] * force[ind, 1]) * 3
            pop[ind, k] = val
    return pop


def make_args(rng):
    solid, ghost = _masks(rng)
    density = 1 + 0.1 * rng.random(SIZE)
    velocity = 0.05 * rng.standard_normal((SIZE, 2))
    force = 1e-3 * rng.standard_normal((SIZE, 2))
    pop_new = rng.random((SIZE, 9))
    return [solid, ghost, density, velocity, force, np.zeros((SIZE, 9)), np.zeros((SIZE, 9)), pop_new, 1 / 0.8]


def reference(solid, ghost, density, velocity, force, pop_a, pop_b, pop_new, omega):
    return {"pop_a": _collide(solid, ghost, density, velocity, force, pop_a, pop_new, omega, False),
            "pop_b": _collide(solid, ghost, density, velocity, force, pop_b, pop_new, omega, True)}


def run(solid, ghost, density, velocity, force, pop_a, pop_b, pop_new, omega):
    BGK_density_based_second_order_None[2, 64](SIZE, CX, CY, W, 9, 3.0, 9.0, solid, ghost, density, velocity, force,
                                               pop_a, pop_new, omega)
    BGK_density_based_second_order_guo_linear[2, 64](SIZE, CX, CY, W, 9, 3.0, 9.0, solid, ghost, density, velocity,
                                                     force, pop_b, pop_new, omega)


CASE = dict(kernel="BGK_density_based_second_order_None",
            args=["solid", "ghost", "density", "velocity", "force", "pop_a", "pop_b", "pop_new", "omega"],
            outputs=["pop_a", "pop_b"], rtol=1e-13, atol=1e-15)
