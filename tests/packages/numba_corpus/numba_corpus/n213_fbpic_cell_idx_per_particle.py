# =============================================================================
# Source : fbpic/fbpic, fbpic/particles/utilities/cuda_sorting.py, kernel `get_cell_idx_per_particle`
#          https://github.com/fbpic/fbpic/blob/9022006d980a022aa4d3ca7394203efc413bbef2/fbpic/particles/utilities/cuda_sorting.py
# License: BSD-3-Clause-LBNL (FBPIC)
# Project: FBPIC (real)
# What   : 1-D cell index of each macroparticle (cylindrical r from x,y; ceil; absorbing r / periodic z).
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda


import math
import numpy as np


@cuda.jit
def get_cell_idx_per_particle(cell_idx, sorted_idx,
                              x, y, z,
                              invdz, zmin, Nz,
                              invdr, rmin, Nr):
    """
    Get the cell index of each particle.
    The cell index is 1d and calculated by:
    cell index in z + cell index in r * number of cells in z.
    The cell_idx of a particle is defined by
    the lower cell in r and z, that it deposits its field to.

    Parameters
    ----------
    cell_idx : 1darray of integers
        The cell index of the particle

    sorted_idx : 1darray of integers
        The sorted index array needs to be reset
        before doing the sort

    x, y, z : 1darray of floats (in meters)
        The position of the particles
        (is modified by this function)

    invdz, invdr : float (in meters^-1)
        Inverse of the grid step along the considered direction

    zmin, rmin : float (in meters)
        Position of the edge of the simulation box, in each direction

    Nz, Nr : int
        Number of gridpoints along the considered direction
    """
    i = cuda.grid(1)
    if i < cell_idx.shape[0]:
            # Preliminary arrays for the cylindrical conversion
            xj = x[i]
            yj = y[i]
            zj = z[i]
            rj = math.sqrt( xj**2 + yj**2 )

            # Positions of the particles, in the cell unit
            r_cell =  invdr*(rj - rmin) - 0.5
            z_cell =  invdz*(zj - zmin) - 0.5

            # Original index of the uppper grid point in z and r
            ir_upper = int(math.ceil( r_cell ))
            iz_upper = int(math.ceil( z_cell ))

            # Treat the boundary conditions
            # absorbing in upper r
            if ir_upper > Nr:
                ir_upper = Nr
            # periodic boundaries in z
            if iz_upper < 0:
                iz_upper += Nz
            elif iz_upper > Nz-1:
                iz_upper -= Nz
            # iz_upper has values between 0 and Nz-1.
            # ir_upper has values between 0 and Nr (included).
            # This corresponds to the Nz*(Nr+1) different inter-gridpoint
            # areas in a box that is periodic in z but aperiodic in r.

            # Reset sorted_idx array
            sorted_idx[i] = i
            # Calculate the 1D cell_idx
            cell_idx[i] = ir_upper + iz_upper * (Nr+1)
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda


import math
import numpy as np


@cuda.jit
def get_cell_idx_per_particle(cell_idx, sorted_idx,
                              x, y, z,
                              invdz, zmin, Nz,
                              invdr, rmin, Nr):
    """
    Get the cell index of each particle.
    The cell index is 1d and calculated by:
    cell index in z + cell index in r * number of cells in z.
    The cell_idx of a particle is defined by
    the lower cell in r and z, that it deposits its field to.

    Parameters
    ----------
    cell_idx : 1darray of integers
        The cell index of the particle

    sorted_idx : 1darray of integers
        The sorted index array needs to be reset
        before doing the sort

    x, y, z : 1darray of floats (in meters)
        The position of the particles
        (is modified by this function)

    invdz, invdr : float (in meters^-1)
        Inverse of the grid step along the considered direction

    zmin, rmin : float (in meters)
        Position of the edge of the simulation box, in each direction

    Nz, Nr : int
        Number of gridpoints along the considered direction
    """
    i = cuda.grid(1)
    if i < cell_idx.shape[0]:
            # Preliminary arrays for the cylindrical conversion
            xj = x[i]
            yj = y[i]
            zj = z[i]
            rj = math.sqrt( xj**2 + yj**2 )

            # Positions of the particles, in the cell unit
            r_cell =  invdr*(rj - rmin) - 0.5
            z_cell =  invdz*(zj - zmin) - 0.5

            # Original index of the uppper grid point in z and r
            ir_upper = int(math.ceil( r_cell ))
            iz_upper = int(math.ceil( z_cell ))

            # Treat the boundary conditions
            # absorbing in upper r
            if ir_upper > Nr:
                ir_upper = Nr
            # periodic boundaries in z
            if iz_upper < 0:
                iz_upper += Nz
            elif iz_upper > Nz-1:
                iz_upper -= Nz
            # iz_upper has values between 0 and Nz-1.
            # ir_upper has values between 0 and Nr (included).
            # This corresponds to the Nz*(Nr+1) different inter-gridpoint
            # areas in a box that is periodic in z but aperiodic in r.

            # Reset sorted_idx array
            sorted_idx[i] = i
            # Calculate the 1D cell_idx
            cell_idx[i] = ir_upper + iz_upper * (Nr+1)


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


NZ, NR = 16, 8


def make_args(rng):
    n = 300
    x = rng.uniform(-1.2, 1.2, n)
    y = rng.uniform(-1.2, 1.2, n)
    z = rng.uniform(-0.3, 2.3, n)
    return [np.zeros(n, dtype=np.int32), np.zeros(n, dtype=np.uint32), x, y, z,
            NZ / 2.0, 0.0, NZ, NR / 1.0, 0.0, NR]


def reference(cell_idx, sorted_idx, x, y, z, invdz, zmin, Nz, invdr, rmin, Nr):
    r = np.sqrt(x**2 + y**2)
    ir = np.ceil(invdr * (r - rmin) - 0.5).astype(np.int64)
    iz = np.ceil(invdz * (z - zmin) - 0.5).astype(np.int64)
    ir = np.minimum(ir, Nr)
    iz = np.where(iz < 0, iz + Nz, np.where(iz > Nz - 1, iz - Nz, iz))
    return {"cell_idx": (ir + iz * (Nr + 1)).astype(np.int32), "sorted_idx": np.arange(x.size, dtype=np.uint32)}


CASE = dict(kernel="get_cell_idx_per_particle", griddim=2, blockdim=256,
            args=["cell_idx", "sorted_idx", "x", "y", "z", "invdz", "zmin", "Nz", "invdr", "rmin", "Nr"],
            outputs=["cell_idx", "sorted_idx"])
