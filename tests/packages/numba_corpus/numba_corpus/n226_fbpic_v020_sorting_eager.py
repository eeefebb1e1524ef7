# =============================================================================
# Source : fbpic/fbpic, fbpic/particles/cuda_methods.py, kernels `get_cell_idx_per_particle`, `incl_prefix_sum`, `reset_prefix_sum`, `write_sorting_buffer` (fbpic 0.2.0)
#          https://github.com/fbpic/fbpic/blob/1288419d44407aead8a111c4e4e19be5b86da072/fbpic/particles/cuda_methods.py
# License: BSD-3-Clause-LBNL (FBPIC)
# Project: FBPIC (real)
# What   : particle sorting with eager int32/uint32/float64 signatures: cell index (floor), prefix sum (while + tail loop), gather.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda


import math


@cuda.jit('void(int32[:], uint32[:], \
                float64[:], float64[:], float64[:], \
                float64, float64, int32, \
                float64, float64, int32)')
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

            # Original index of the uppper and lower cell
            ir_lower = int(math.floor( r_cell ))
            iz_lower = int(math.floor( z_cell ))

            # Treat the boundary conditions
            # guard cells in lower r
            if ir_lower < 0:
                ir_lower = 0
            # absorbing in upper r
            if ir_lower > Nr-1:
                ir_lower = Nr-1
            # periodic boundaries in z
            if iz_lower < 0:
                iz_lower += Nz
            if iz_lower > Nz-1:
                iz_lower -= Nz

            # Reset sorted_idx array
            sorted_idx[i] = i
            # Calculate the 1D cell_idx by cell_idx_ir + cell_idx_iz * Nr
            cell_idx[i] = ir_lower + iz_lower * Nr


@cuda.jit('void(int32[:], int32[:])')
def incl_prefix_sum(cell_idx, prefix_sum):
    """
    Perform an inclusive parallel prefix sum on the sorted
    cell index array. The prefix sum array represents the
    cumulative sum of the number of particles per cell
    for each cell index.

    Parameters
    ----------
    cell_idx : 1darray of integers
        The cell index of the particle

    prefix_sum : 1darray of integers
        Represents the cumulative sum of
        the particles per cell
    """
    # i is the index of the macroparticle
    i = cuda.grid(1)
    if i < cell_idx.shape[0]-1:
        # ci: index of the cell of the present macroparticle
        ci = cell_idx[i]
        # ci_next: index of the cell of the next macroparticle
        ci_next = cell_idx[i+1]
        # Fill all the cells between ci and ci_next with the
        # inclusive cumulative sum of the number particles until ci
        while ci < ci_next:
            # The cumulative sum of the number of particle per cell
            # until ci is i+1 (since i obeys python index, starting at 0)
            prefix_sum[ci] = i+1
            ci += 1
    # The last "macroparticle" of the cell_idx array fills up the 
    # rest of the prefix sum array
    if i == cell_idx.shape[0]-1:
        # Get the cell_index of the last macroparticle
        ci = cell_idx[i]
        # Fill all the remaining entries of the prefix sum array
        for empty_index in range(ci, prefix_sum.shape[0]):
            prefix_sum[empty_index] = i+1

@cuda.jit('void(int32[:])')
def reset_prefix_sum(prefix_sum):
    """
    Resets the prefix sum. Sets all the values
    to zero.

    Parameters
    ----------
    prefix_sum : 1darray of integers
        Represents the cumulative sum of
        the particles per cell
    """
    i = cuda.grid(1)
    if i < prefix_sum.shape[0]:
        prefix_sum[i] = 0

@cuda.jit('void(uint32[:], float64[:], float64[:])')
def write_sorting_buffer(sorted_idx, val, buf):
    """
    Writes the values of a particle array to a buffer,
    while rearranging them to match the sorted cell index array.

    Parameters
    ----------
    sorted_idx : 1darray of integers
        Represents the original index of the
        particle before the sorting

    val : 1d array of floats
        A particle data array

    buf : 1d array of floats
        A buffer array to temporarily store the
        sorted particle data array
    """
    i = cuda.grid(1)
    if i < val.shape[0]:
        buf[i] = val[sorted_idx[i]]
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda


import math


@cuda.jit('void(int32[:], uint32[:], \
                float64[:], float64[:], float64[:], \
                float64, float64, int32, \
                float64, float64, int32)')
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

            # Original index of the uppper and lower cell
            ir_lower = int(math.floor( r_cell ))
            iz_lower = int(math.floor( z_cell ))

            # Treat the boundary conditions
            # guard cells in lower r
            if ir_lower < 0:
                ir_lower = 0
            # absorbing in upper r
            if ir_lower > Nr-1:
                ir_lower = Nr-1
            # periodic boundaries in z
            if iz_lower < 0:
                iz_lower += Nz
            if iz_lower > Nz-1:
                iz_lower -= Nz

            # Reset sorted_idx array
            sorted_idx[i] = i
            # Calculate the 1D cell_idx by cell_idx_ir + cell_idx_iz * Nr
            cell_idx[i] = ir_lower + iz_lower * Nr


@cuda.jit('void(int32[:], int32[:])')
def incl_prefix_sum(cell_idx, prefix_sum):
    """
    Perform an inclusive parallel prefix sum on the sorted
    cell index array. The prefix sum array represents the
    cumulative sum of the number of particles per cell
    for each cell index.

    Parameters
    ----------
    cell_idx : 1darray of integers
        The cell index of the particle

    prefix_sum : 1darray of integers
        Represents the cumulative sum of
        the particles per cell
    """
    # i is the index of the macroparticle
    i = cuda.grid(1)
    if i < cell_idx.shape[0]-1:
        # ci: index of the cell of the present macroparticle
        ci = cell_idx[i]
        # ci_next: index of the cell of the next macroparticle
        ci_next = cell_idx[i+1]
        # Fill all the cells between ci and ci_next with the
        # inclusive cumulative sum of the number particles until ci
        while ci < ci_next:
            # The cumulative sum of the number of particle per cell
            # until ci is i+1 (since i obeys python index, starting at 0)
            prefix_sum[ci] = i+1
            ci += 1
    # The last "macroparticle" of the cell_idx array fills up the 
    # rest of the prefix sum array
    if i == cell_idx.shape[0]-1:
        # Get the cell_index of the last macroparticle
        ci = cell_idx[i]
        # Fill all the remaining entries of the prefix sum array
        for empty_index in range(ci, prefix_sum.shape[0]):
            prefix_sum[empty_index] = i+1

@cuda.jit('void(int32[:])')
def reset_prefix_sum(prefix_sum):
    """
    Resets the prefix sum. Sets all the values
    to zero.

    Parameters
    ----------
    prefix_sum : 1darray of integers
        Represents the cumulative sum of
        the particles per cell
    """
    i = cuda.grid(1)
    if i < prefix_sum.shape[0]:
        prefix_sum[i] = 0

@cuda.jit('void(uint32[:], float64[:], float64[:])')
def write_sorting_buffer(sorted_idx, val, buf):
    """
    Writes the values of a particle array to a buffer,
    while rearranging them to match the sorted cell index array.

    Parameters
    ----------
    sorted_idx : 1darray of integers
        Represents the original index of the
        particle before the sorting

    val : 1d array of floats
        A particle data array

    buf : 1d array of floats
        A buffer array to temporarily store the
        sorted particle data array
    """
    i = cuda.grid(1)
    if i < val.shape[0]:
        buf[i] = val[sorted_idx[i]]


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


NZ, NR = 10, 6


def make_args(rng):
    n = 200
    x = rng.uniform(-1.0, 1.0, n)
    y = rng.uniform(-1.0, 1.0, n)
    z = rng.uniform(-0.2, 5.2, n)
    return [np.zeros(n, dtype=np.int32), np.zeros(n, dtype=np.uint32), x, y, z, 2.0, 0.0, NZ, 4.0, 0.0, NR,
            np.full(NZ * NR, 7, dtype=np.int32), rng.standard_normal(n), np.zeros(n)]


def reference(cell_idx, sorted_idx, x, y, z, invdz, zmin, Nz, invdr, rmin, Nr, prefix_sum, val, buf):
    r = np.sqrt(x**2 + y**2)
    ir = np.clip(np.floor(invdr * (r - rmin) - 0.5).astype(np.int64), 0, Nr - 1)
    iz = np.floor(invdz * (z - zmin) - 0.5).astype(np.int64)
    iz = np.where(iz < 0, iz + Nz, iz)
    iz = np.where(iz > Nz - 1, iz - Nz, iz)
    ci = (ir + iz * Nr).astype(np.int32)
    order = np.argsort(ci, kind="stable")
    s = ci[order]
    return {"cell_idx": s, "sorted_idx": order.astype(np.uint32),
            "prefix_sum": np.searchsorted(s, np.arange(Nz * Nr), side="right").astype(np.int32), "buf": val[order]}


def run(cell_idx, sorted_idx, x, y, z, invdz, zmin, Nz, invdr, rmin, Nr, prefix_sum, val, buf):
    n = cell_idx.shape[0]
    get_cell_idx_per_particle[n // 256 + 1, 256](cell_idx, sorted_idx, x, y, z, invdz, zmin, Nz, invdr, rmin, Nr)
    # sort_particles_per_cell: accelerate's RadixSort there (stable sort of cell_idx, carrying sorted_idx)
    order = np.argsort(cell_idx, kind="stable")
    cell_idx[:] = cell_idx[order]
    sorted_idx[:] = sorted_idx[order]
    reset_prefix_sum[prefix_sum.shape[0] // 256 + 1, 256](prefix_sum)
    incl_prefix_sum[n // 256 + 1, 256](cell_idx, prefix_sum)
    write_sorting_buffer[n // 256 + 1, 256](sorted_idx, val, buf)


CASE = dict(kernel="get_cell_idx_per_particle", griddim=1, blockdim=256,
            args=["cell_idx", "sorted_idx", "x", "y", "z", "invdz", "zmin", "Nz", "invdr", "rmin", "Nr",
                  "prefix_sum", "val", "buf"],
            outputs=["cell_idx", "sorted_idx", "prefix_sum", "buf"])
