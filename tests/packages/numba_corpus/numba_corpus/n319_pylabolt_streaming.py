# =============================================================================
# Source : Malyadeep/pylabolt, pylabolt/parallel/gpu/streaming_kernels.py, kernel `scalar_based_kernel`
#          https://github.com/Malyadeep/pylabolt/blob/1872e9dbe6f8ac06386556b7feb9fceb0c317691/pylabolt/parallel/gpu/streaming_kernels.py
# License: BSD-3-Clause
# Project: PyLaBolt (real)
# What   : D2Q9 lattice-Boltzmann pull streaming with moving-wall bounce-back on flattened bool masks.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda


@cuda.jit
def scalar_based_kernel(
    size,
    shape,
    cx,
    cy,
    weights,
    inv_list,
    no_of_directions,
    inv_cs_2,
    solid,
    ghost_node,
    density,
    velocity,
    pop,
    pop_new
):
    """
    Streaming kernel with scalar during bounce-back
    Args:

    Returns:

    """
    ind = cuda.grid(1)
    if ind < size:
        if not solid[ind] and not ghost_node[ind]:
            x = ind // shape[1]
            y = ind - x * shape[1]
            density_local = density[ind]
            pop_new[ind, 0] = pop[ind, 0]
            for k in range(1, no_of_directions):
                x_nb = x - cx[k]
                y_nb = y - cy[k]
                ind_nb = x_nb * shape[1] + y_nb
                if not solid[ind_nb]:
                    pop_new[ind, k] = pop[ind_nb, k]
                else:
                    k_inv = inv_list[k]
                    temp = 2 * weights[k_inv] * density_local * inv_cs_2 * (
                        cx[k_inv] * velocity[ind_nb, 0] +
                        cy[k_inv] * velocity[ind_nb, 1]
                    )
                    pop_new[ind, k] = pop[ind, k_inv] - temp
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda


@cuda.jit
def scalar_based_kernel(
    size,
    shape,
    cx,
    cy,
    weights,
    inv_list,
    no_of_directions,
    inv_cs_2,
    solid,
    ghost_node,
    density,
    velocity,
    pop,
    pop_new
):
    """
    Streaming kernel with scalar during bounce-back
    Args:

    Returns:

    """
    ind = cuda.grid(1)
    if ind < size:
        if not solid[ind] and not ghost_node[ind]:
            x = ind // shape[1]
            y = ind - x * shape[1]
            density_local = density[ind]
            pop_new[ind, 0] = pop[ind, 0]
            for k in range(1, no_of_directions):
                x_nb = x - cx[k]
                y_nb = y - cy[k]
                ind_nb = x_nb * shape[1] + y_nb
                if not solid[ind_nb]:
                    pop_new[ind, k] = pop[ind_nb, k]
                else:
                    k_inv = inv_list[k]
                    temp = 2 * weights[k_inv] * density_local * inv_cs_2 * (
                        cx[k_inv] * velocity[ind_nb, 0] +
                        cy[k_inv] * velocity[ind_nb, 1]
                    )
                    pop_new[ind, k] = pop[ind, k_inv] - temp

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
    pop = rng.random((SIZE, 9))
    pop_new = np.zeros((SIZE, 9))
    return [SIZE, np.array([NX, NY], dtype=np.int64), CX, CY, W, INV, 9, 3.0, solid, ghost, density, velocity, pop,
            pop_new]


def reference(size, shape, cx, cy, w, inv, q, inv_cs_2, solid, ghost, density, velocity, pop, pop_new):
    for ind in range(size):
        if solid[ind] or ghost[ind]:
            continue
        x, y = divmod(ind, NY)
        pop_new[ind, 0] = pop[ind, 0]
        for k in range(1, q):
            nb = (x - cx[k]) * NY + (y - cy[k])
            if not solid[nb]:
                pop_new[ind, k] = pop[nb, k]
            else:
                ki = inv[k]
                t = 2 * w[ki] * density[ind] * inv_cs_2 * (cx[ki] * velocity[nb, 0] + cy[ki] * velocity[nb, 1])
                pop_new[ind, k] = pop[ind, ki] - t
    return {"pop_new": pop_new}


CASE = dict(kernel="scalar_based_kernel", griddim=2, blockdim=64,
            args=["size", "shape", "cx", "cy", "w", "inv", "q", "inv_cs_2", "solid", "ghost", "density", "velocity",
                  "pop", "pop_new"], outputs=["pop_new"], rtol=1e-14, atol=1e-15)
