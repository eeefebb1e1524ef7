# =============================================================================
# Source : fbpic/fbpic, fbpic/particles/deposition/cuda_methods.py, kernel `deposit_rho_gpu_linear`, device functions `z_shape_linear`, `r_shape_linear`
#          https://github.com/fbpic/fbpic/blob/9022006d980a022aa4d3ca7394203efc413bbef2/fbpic/particles/deposition/cuda_methods.py
# License: BSD-3-Clause-LBNL (FBPIC)
# Project: FBPIC (real)
# What   : per-cell charge deposition (modes 0/1) of sorted particles; cuda.atomic.add on `.real`/`.imag` views of complex grids.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda
import math


import numpy as np


# Linear shapes
@cuda.jit(device=True, inline=True)
def z_shape_linear(cell_position, index):
    iz = int(math.ceil(cell_position)) - 1
    s = 0.
    if index == 0:
        s = iz+1.-cell_position
    elif index == 1:
        s = cell_position - iz
    return s

@cuda.jit(device=True, inline=True)
def r_shape_linear(cell_position, index):
    flip_factor = 1.
    ir = int(math.ceil(cell_position)) - 1
    s = 0.
    if index == 0:
        if ir < 0:
            flip_factor = -1.
        s = flip_factor*(ir+1.-cell_position)
    elif index == 1:
        s = flip_factor*(cell_position - ir)
    return s


@cuda.jit
def deposit_rho_gpu_linear(x, y, z, w, q,
                           invdz, zmin, Nz,
                           invdr, rmin, Nr,
                           rho_m0, rho_m1,
                           cell_idx, prefix_sum):
    """
    Deposition of the charge density rho using numba on the GPU.
    Iterates over the cells and over the particles per cell.
    Calculates the weighted amount of rho that is deposited to the
    4 cells surounding the particle based on its shape (linear).

    The particles are sorted by their cell index (the lower cell
    in r and z that they deposit to) and the deposited field
    is split into 4 variables (one for each possible direction,
    e.g. upper in z, lower in r) to maintain parallelism while
    avoiding any race conditions.

    Parameters
    ----------
    x, y, z : 1darray of floats (in meters)
        The position of the particles

    w : 1d array of floats
        The weights of the particles
        (For ionizable atoms: weight times the ionization level)

    q : float
        Charge of the species
        (For ionizable atoms: this is always the elementary charge e)

    rho_m0, rho_m1 : 2darrays of complexs
        The charge density on the interpolation grid for
        mode 0 and 1. (is modified by this function)

    invdz, invdr : float (in meters^-1)
        Inverse of the grid step along the considered direction

    zmin, rmin : float (in meters)
        Position of the edge of the simulation box,
        along the considered direction

    Nz, Nr : int
        Number of gridpoints along the considered direction

    cell_idx : 1darray of integers
        The cell index of the particle

    prefix_sum : 1darray of integers
        Represents the cumulative sum of
        the particles per cell
    """
    # Get the 1D CUDA grid
    i = cuda.grid(1)
    # Deposit the field per cell in parallel (for threads < number of cells)
    if i < prefix_sum.shape[0]:
        # Retrieve index of upper grid point (in z and r) from prefix-sum index
        # (See calculation of prefix-sum index in `get_cell_idx_per_particle`)
        iz_upper = int( i / (Nr+1) )
        ir_upper = int( i - iz_upper * (Nr+1) )
        # Calculate the inclusive offset for the current cell
        # It represents the number of particles contained in all other cells
        # with an index smaller than i + the total number of particles in the
        # current cell (inclusive).
        incl_offset = np.int32(prefix_sum[i])
        # Calculate the frequency per cell from the offset and the previous
        # offset (prefix_sum[i-1]).
        if i > 0:
            frequency_per_cell = np.int32(incl_offset - prefix_sum[i - 1])
        if i == 0:
            frequency_per_cell = np.int32(incl_offset)

        # Declare local field arrays
        R_m0_00 = 0.
        R_m0_01 = 0.
        R_m0_10 = 0.
        R_m0_11 = 0.
        R_m1_00 = 0. + 0.j
        R_m1_01 = 0. + 0.j
        R_m1_10 = 0. + 0.j
        R_m1_11 = 0. + 0.j

        for j in range(frequency_per_cell):
            # Get the particle index before the sorting
            # --------------------------------------------
            # (Since incl_offset is a cumulative sum of particle number,
            # and since python index starts at 0, one has to add -1)
            ptcl_idx = incl_offset-1-j

            # Preliminary arrays for the cylindrical conversion
            # --------------------------------------------
            # Position
            xj = x[ptcl_idx]
            yj = y[ptcl_idx]
            zj = z[ptcl_idx]
            # Weights
            wj = q * w[ptcl_idx]

            # Cylindrical conversion
            rj = math.sqrt(xj**2 + yj**2)
            # Avoid division by 0.
            if (rj != 0.):
                invr = 1./rj
                cos = xj*invr  # Cosine
                sin = yj*invr  # Sine
            else:
                cos = 1.
                sin = 0.
            exptheta_m0 = 1.
            exptheta_m1 = cos + 1.j*sin

            # Positions of the particles, in the cell unit
            r_cell = invdr*(rj - rmin) - 0.5
            z_cell = invdz*(zj - zmin) - 0.5

            # Calculate rho
            # --------------------------------------------
            # Mode 0
            R_m0_scal = wj * exptheta_m0
            # Mode 1
            R_m1_scal = wj * exptheta_m1

            R_m0_00 += r_shape_linear(r_cell, 0)*z_shape_linear(z_cell, 0) * R_m0_scal
            R_m0_01 += r_shape_linear(r_cell, 0)*z_shape_linear(z_cell, 1) * R_m0_scal
            R_m1_00 += r_shape_linear(r_cell, 0)*z_shape_linear(z_cell, 0) * R_m1_scal
            R_m1_01 += r_shape_linear(r_cell, 0)*z_shape_linear(z_cell, 1) * R_m1_scal
            R_m0_10 += r_shape_linear(r_cell, 1)*z_shape_linear(z_cell, 0) * R_m0_scal
            R_m0_11 += r_shape_linear(r_cell, 1)*z_shape_linear(z_cell, 1) * R_m0_scal
            R_m1_10 += r_shape_linear(r_cell, 1)*z_shape_linear(z_cell, 0) * R_m1_scal
            R_m1_11 += r_shape_linear(r_cell, 1)*z_shape_linear(z_cell, 1) * R_m1_scal

        # Calculate longitudinal indices at which to add charge
        iz0 = iz_upper - 1
        iz1 = iz_upper
        if iz0 < 0:
            iz0 += Nz
        # Calculate radial indices at which to add charge
        ir0 = ir_upper - 1
        ir1 = min( ir_upper, Nr-1 )
        if ir0 < 0:
            # Deposition below the axis: fold index into physical region
            ir0 = -(1 + ir0)

        # Atomically add the registers to global memory
        if frequency_per_cell > 0:
            # Mode 0
            cuda.atomic.add(rho_m0.real, (iz0, ir0), R_m0_00.real)
            cuda.atomic.add(rho_m0.real, (iz0, ir1), R_m0_10.real)
            cuda.atomic.add(rho_m0.real, (iz1, ir0), R_m0_01.real)
            cuda.atomic.add(rho_m0.real, (iz1, ir1), R_m0_11.real)
            # Mode 1
            cuda.atomic.add(rho_m1.real, (iz0, ir0), R_m1_00.real)
            cuda.atomic.add(rho_m1.imag, (iz0, ir0), R_m1_00.imag)
            cuda.atomic.add(rho_m1.real, (iz0, ir1), R_m1_10.real)
            cuda.atomic.add(rho_m1.imag, (iz0, ir1), R_m1_10.imag)
            cuda.atomic.add(rho_m1.real, (iz1, ir0), R_m1_01.real)
            cuda.atomic.add(rho_m1.imag, (iz1, ir0), R_m1_01.imag)
            cuda.atomic.add(rho_m1.real, (iz1, ir1), R_m1_11.real)
            cuda.atomic.add(rho_m1.imag, (iz1, ir1), R_m1_11.imag)
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda
import math


import numpy as np


# Linear shapes
@cuda.jit(device=True, inline=True)
def z_shape_linear(cell_position, index):
    iz = int(math.ceil(cell_position)) - 1
    s = 0.
    if index == 0:
        s = iz+1.-cell_position
    elif index == 1:
        s = cell_position - iz
    return s

@cuda.jit(device=True, inline=True)
def r_shape_linear(cell_position, index):
    flip_factor = 1.
    ir = int(math.ceil(cell_position)) - 1
    s = 0.
    if index == 0:
        if ir < 0:
            flip_factor = -1.
        s = flip_factor*(ir+1.-cell_position)
    elif index == 1:
        s = flip_factor*(cell_position - ir)
    return s


@cuda.jit
def deposit_rho_gpu_linear(x, y, z, w, q,
                           invdz, zmin, Nz,
                           invdr, rmin, Nr,
                           rho_m0, rho_m1,
                           cell_idx, prefix_sum):
    """
    Deposition of the charge density rho using numba on the GPU.
    Iterates over the cells and over the particles per cell.
    Calculates the weighted amount of rho that is deposited to the
    4 cells surounding the particle based on its shape (linear).

    The particles are sorted by their cell index (the lower cell
    in r and z that they deposit to) and the deposited field
    is split into 4 variables (one for each possible direction,
    e.g. upper in z, lower in r) to maintain parallelism while
    avoiding any race conditions.

    Parameters
    ----------
    x, y, z : 1darray of floats (in meters)
        The position of the particles

    w : 1d array of floats
        The weights of the particles
        (For ionizable atoms: weight times the ionization level)

    q : float
        Charge of the species
        (For ionizable atoms: this is always the elementary charge e)

    rho_m0, rho_m1 : 2darrays of complexs
        The charge density on the interpolation grid for
        mode 0 and 1. (is modified by this function)

    invdz, invdr : float (in meters^-1)
        Inverse of the grid step along the considered direction

    zmin, rmin : float (in meters)
        Position of the edge of the simulation box,
        along the considered direction

    Nz, Nr : int
        Number of gridpoints along the considered direction

    cell_idx : 1darray of integers
        The cell index of the particle

    prefix_sum : 1darray of integers
        Represents the cumulative sum of
        the particles per cell
    """
    # Get the 1D CUDA grid
    i = cuda.grid(1)
    # Deposit the field per cell in parallel (for threads < number of cells)
    if i < prefix_sum.shape[0]:
        # Retrieve index of upper grid point (in z and r) from prefix-sum index
        # (See calculation of prefix-sum index in `get_cell_idx_per_particle`)
        iz_upper = int( i / (Nr+1) )
        ir_upper = int( i - iz_upper * (Nr+1) )
        # Calculate the inclusive offset for the current cell
        # It represents the number of particles contained in all other cells
        # with an index smaller than i + the total number of particles in the
        # current cell (inclusive).
        incl_offset = np.int32(prefix_sum[i])
        # Calculate the frequency per cell from the offset and the previous
        # offset (prefix_sum[i-1]).
        if i > 0:
            frequency_per_cell = np.int32(incl_offset - prefix_sum[i - 1])
        if i == 0:
            frequency_per_cell = np.int32(incl_offset)

        # Declare local field arrays
        R_m0_00 = 0.
        R_m0_01 = 0.
        R_m0_10 = 0.
        R_m0_11 = 0.
        R_m1_00 = 0. + 0.j
        R_m1_01 = 0. + 0.j
        R_m1_10 = 0. + 0.j
        R_m1_11 = 0. + 0.j

        for j in range(frequency_per_cell):
            # Get the particle index before the sorting
            # --------------------------------------------
            # (Since incl_offset is a cumulative sum of particle number,
            # and since python index starts at 0, one has to add -1)
            ptcl_idx = incl_offset-1-j

            # Preliminary arrays for the cylindrical conversion
            # --------------------------------------------
            # Position
            xj = x[ptcl_idx]
            yj = y[ptcl_idx]
            zj = z[ptcl_idx]
            # Weights
            wj = q * w[ptcl_idx]

            # Cylindrical conversion
            rj = math.sqrt(xj**2 + yj**2)
            # Avoid division by 0.
            if (rj != 0.):
                invr = 1./rj
                cos = xj*invr  # Cosine
                sin = yj*invr  # Sine
            else:
                cos = 1.
                sin = 0.
            exptheta_m0 = 1.
            exptheta_m1 = cos + 1.j*sin

            # Positions of the particles, in the cell unit
            r_cell = invdr*(rj - rmin) - 0.5
            z_cell = invdz*(zj - zmin) - 0.5

            # Calculate rho
            # --------------------------------------------
            # Mode 0
            R_m0_scal = wj * exptheta_m0
            # Mode 1
            R_m1_scal = wj * exptheta_m1

            R_m0_00 += r_shape_linear(r_cell, 0)*z_shape_linear(z_cell, 0) * R_m0_scal
            R_m0_01 += r_shape_linear(r_cell, 0)*z_shape_linear(z_cell, 1) * R_m0_scal
            R_m1_00 += r_shape_linear(r_cell, 0)*z_shape_linear(z_cell, 0) * R_m1_scal
            R_m1_01 += r_shape_linear(r_cell, 0)*z_shape_linear(z_cell, 1) * R_m1_scal
            R_m0_10 += r_shape_linear(r_cell, 1)*z_shape_linear(z_cell, 0) * R_m0_scal
            R_m0_11 += r_shape_linear(r_cell, 1)*z_shape_linear(z_cell, 1) * R_m0_scal
            R_m1_10 += r_shape_linear(r_cell, 1)*z_shape_linear(z_cell, 0) * R_m1_scal
            R_m1_11 += r_shape_linear(r_cell, 1)*z_shape_linear(z_cell, 1) * R_m1_scal

        # Calculate longitudinal indices at which to add charge
        iz0 = iz_upper - 1
        iz1 = iz_upper
        if iz0 < 0:
            iz0 += Nz
        # Calculate radial indices at which to add charge
        ir0 = ir_upper - 1
        ir1 = min( ir_upper, Nr-1 )
        if ir0 < 0:
            # Deposition below the axis: fold index into physical region
            ir0 = -(1 + ir0)

        # Atomically add the registers to global memory
        if frequency_per_cell > 0:
            # Mode 0
            cuda.atomic.add(rho_m0.real, (iz0, ir0), R_m0_00.real)
            cuda.atomic.add(rho_m0.real, (iz0, ir1), R_m0_10.real)
            cuda.atomic.add(rho_m0.real, (iz1, ir0), R_m0_01.real)
            cuda.atomic.add(rho_m0.real, (iz1, ir1), R_m0_11.real)
            # Mode 1
            cuda.atomic.add(rho_m1.real, (iz0, ir0), R_m1_00.real)
            cuda.atomic.add(rho_m1.imag, (iz0, ir0), R_m1_00.imag)
            cuda.atomic.add(rho_m1.real, (iz0, ir1), R_m1_10.real)
            cuda.atomic.add(rho_m1.imag, (iz0, ir1), R_m1_10.imag)
            cuda.atomic.add(rho_m1.real, (iz1, ir0), R_m1_01.real)
            cuda.atomic.add(rho_m1.imag, (iz1, ir0), R_m1_01.imag)
            cuda.atomic.add(rho_m1.real, (iz1, ir1), R_m1_11.real)
            cuda.atomic.add(rho_m1.imag, (iz1, ir1), R_m1_11.imag)


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


NZ, NR = 8, 6
INVDZ, INVDR, ZMIN, RMIN = 2.0, 3.0, 0.0, 0.0


def _cell_idx(x, y, z):
    r = np.sqrt(x**2 + y**2)
    ir = np.minimum(np.ceil(INVDR * (r - RMIN) - 0.5).astype(np.int64), NR)
    iz = np.ceil(INVDZ * (z - ZMIN) - 0.5).astype(np.int64)
    iz = np.where(iz < 0, iz + NZ, np.where(iz > NZ - 1, iz - NZ, iz))
    return ir + iz * (NR + 1)


def make_args(rng):
    n = 240
    r = rng.uniform(0.0, (NR - 0.6) / INVDR, n)
    th = rng.uniform(0, 2 * np.pi, n)
    x, y = r * np.cos(th), r * np.sin(th)
    z = rng.uniform(ZMIN, ZMIN + NZ / INVDZ, n)
    w = rng.uniform(0.5, 1.5, n)
    # fbpic sorts the particles by cell before depositing (get_cell_idx_per_particle, argsort, prefix sum)
    ci = _cell_idx(x, y, z)
    order = np.argsort(ci, kind="stable")
    x, y, z, w, ci = x[order], y[order], z[order], w[order], ci[order]
    prefix_sum = np.searchsorted(ci, np.arange(NZ * (NR + 1)), side="right").astype(np.int32)
    return [x, y, z, w, -1.5, INVDZ, ZMIN, NZ, INVDR, RMIN, NR,
            np.zeros((NZ, NR), dtype=np.complex128), np.zeros((NZ, NR), dtype=np.complex128),
            ci.astype(np.int32), prefix_sum]


def reference(x, y, z, w, q, invdz, zmin, Nz, invdr, rmin, Nr, rho_m0, rho_m1, cell_idx, prefix_sum):
    for p in range(x.size):
        rj = np.hypot(x[p], y[p])
        cos, sin = (x[p] / rj, y[p] / rj) if rj != 0 else (1.0, 0.0)
        r_cell = invdr * (rj - rmin) - 0.5
        z_cell = invdz * (z[p] - zmin) - 0.5
        ir = int(np.ceil(r_cell)) - 1
        iz = int(np.ceil(z_cell)) - 1
        sr = [(-1.0 if ir < 0 else 1.0) * (ir + 1.0 - r_cell), r_cell - ir]
        sz = [iz + 1.0 - z_cell, z_cell - iz]
        ir_upper = min(ir + 1, Nr)
        iz_upper = iz + 1
        if iz_upper < 0:
            iz_upper += Nz
        elif iz_upper > Nz - 1:
            iz_upper -= Nz
        izs = [iz_upper - 1 + (Nz if iz_upper - 1 < 0 else 0), iz_upper]
        irs = [ir_upper - 1 if ir_upper - 1 >= 0 else -ir_upper, min(ir_upper, Nr - 1)]
        wq = q * w[p]
        for a in range(2):
            for b in range(2):
                rho_m0[izs[b], irs[a]] += sr[a] * sz[b] * wq
                rho_m1[izs[b], irs[a]] += sr[a] * sz[b] * wq * (cos + 1j * sin)
    return {"rho_m0": rho_m0, "rho_m1": rho_m1}


CASE = dict(kernel="deposit_rho_gpu_linear", griddim=1, blockdim=64,
            args=["x", "y", "z", "w", "q", "invdz", "zmin", "Nz", "invdr", "rmin", "Nr", "rho_m0", "rho_m1",
                  "cell_idx", "prefix_sum"],
            outputs=["rho_m0", "rho_m1"], rtol=1e-11, atol=1e-11)
