# =============================================================================
# Source : fbpic/fbpic, fbpic/particles/gathering/cuda_methods.py, kernel `gather_field_gpu_cubic`, device function `add_cubic_gather_for_mode` (from inline_functions.py, compiled with cuda.jit(f, device=True, inline=True))
#          https://github.com/fbpic/fbpic/blob/9022006d980a022aa4d3ca7394203efc413bbef2/fbpic/particles/gathering/cuda_methods.py
#          https://github.com/fbpic/fbpic/blob/9022006d980a022aa4d3ca7394203efc413bbef2/fbpic/particles/gathering/inline_functions.py
# License: BSD-3-Clause-LBNL (FBPIC)
# Project: FBPIC (real)
# What   : gather complex mode-0/1 fields with cubic shapes held in cuda.local.array((4,), float64); int64() casts.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda, float64, int64
import math


def add_cubic_gather_for_mode( m,
    Fr, Ft, Fz, exptheta_m, Fr_grid, Ft_grid, Fz_grid,
    ir_lowest, iz_lowest, Sr_arr, Sz_arr, Nr, Nz ):
    """
    Add the contribution of the gathered field from azimuthal mode `m` to the
    fields felt by one macroparticle (`Fr`, `Ft`, `Fz`), using cubic weights.

    Parameters:
    -----------
    m: int
        The index of the azimuthal mode that is added.

    Fr, Ft, Fz: floats
        The fields felt by one macroparticle, which represent either E or B
        (before the contribution of mode `m` has been added)

    exptheta_m: complex
        The complex azimuthal factor $e^{-i m \theta}$ where $\theta$ is
        the azimuthal position of the macroparticle considered.

    Fr_grid, Ft_grid, Fz_grid: 2darrays of complexs
        The fields on the interpolation grid for mode `m`

    ir_lowest, iz_lowest: ints
        The lowest indices in r and z from which the macroparticle
        considered should gather the fields (in the arrays F*_grid)
        These indices can in fact be negative and out-of-bound
        (e.g. for particles close to the axis) but get corrected within
        this function.

    Sr_arr, Sz_arr: 1darrays containing 4 floats
        The weights in r and z with which the macroparticle
        considered should gather the fields (in the arrays F*_grid)

    Nr, Nz: ints
        Dimensions of the field arrays.

    Returns:
    --------
    Fr, Ft, Fz: floats
        The fields felt by one macroparticle, which represent either E or B
        (after the contribution of mode `m` has been added)
    """
    # Create temporary variables
    # for the "per mode" gathering
    Fr_m = 0.j
    Ft_m = 0.j
    Fz_m = 0.j

    # Loop over the 4x4 cells from which to gather fields
    for index_r in range(4):

        # Radial index
        ir = ir_lowest + index_r
        # Calculate shape factor for the longitudinal
        # and transverse components of the field
        Sr_long = Sr_arr[ index_r ]
        Sr_perp = Sr_long
        if ir < 0:
            Sr_long *= (-1)**m
            Sr_perp *= -(-1)**m
        # Adjust radial index to avoid out of bound
        if ir < 0:
            ir = abs(ir) - 1
        elif ir > Nr - 1:
            ir = Nr - 1

        for index_z in range(4):

            # Longitudinal index
            iz = iz_lowest + index_z
            # Get shape factor
            Sz = Sz_arr[index_z]
            # Adjust longitudinal index to avoid out of bound
            if iz < 0:
                iz += Nz
            elif iz > Nz-1:
                iz -= Nz

            # Get the fields
            Fr_m += Sz*Sr_perp*Fr_grid[iz, ir]
            Ft_m += Sz*Sr_perp*Ft_grid[iz, ir]
            Fz_m += Sz*Sr_long*Fz_grid[iz, ir]

    # Add the contribution from mode m to Fr, Ft, Fz
    # (Take into account factor 2 in the definition of azimuthal modes)
    if m == 0:
        factor = 1.
    else:
        factor = 2.
    Fr += factor*(Fr_m*exptheta_m).real
    Ft += factor*(Ft_m*exptheta_m).real
    Fz += factor*(Fz_m*exptheta_m).real

    return(Fr, Ft, Fz)


add_cubic_gather_for_mode = cuda.jit( add_cubic_gather_for_mode,
                                        device=True, inline=True )


@cuda.jit
def gather_field_gpu_cubic(x, y, z,
                    rmax_gather,
                    invdz, zmin, Nz,
                    invdr, rmin, Nr,
                    Er_m0, Et_m0, Ez_m0,
                    Er_m1, Et_m1, Ez_m1,
                    Br_m0, Bt_m0, Bz_m0,
                    Br_m1, Bt_m1, Bz_m1,
                    Ex, Ey, Ez,
                    Bx, By, Bz):
    """
    Gathering of the fields (E and B) using numba on the GPU.
    Iterates over the particles, calculates the weighted amount
    of fields acting on each particle based on its shape (cubic).
    Fields are gathered in cylindrical coordinates and then
    transformed to cartesian coordinates.
    Supports only mode 0 and 1.

    Parameters
    ----------
    x, y, z : 1darray of floats (in meters)
        The position of the particles

    rmax_gather: float (in meters)
        The radius above which particle do not gather anymore

    invdz, invdr : float (in meters^-1)
        Inverse of the grid step along the considered direction

    zmin, rmin : float (in meters)
        Position of the edge of the simulation box along the
        direction considered

    Nz, Nr : int
        Number of gridpoints along the considered direction

    Er_m0, Et_m0, Ez_m0 : 2darray of complexs
        The electric fields on the interpolation grid for the mode 0

    Er_m1, Et_m1, Ez_m1 : 2darray of complexs
        The electric fields on the interpolation grid for the mode 1

    Br_m0, Bt_m0, Bz_m0 : 2darray of complexs
        The magnetic fields on the interpolation grid for the mode 0

    Br_m1, Bt_m1, Bz_m1 : 2darray of complexs
        The magnetic fields on the interpolation grid for the mode 1

    Ex, Ey, Ez : 1darray of floats
        The electric fields acting on the particles
        (is modified by this function)

    Bx, By, Bz : 1darray of floats
        The magnetic fields acting on the particles
        (is modified by this function)
    """

    # Get the 1D CUDA grid
    i = cuda.grid(1)
    # Deposit the field per cell in parallel
    # (for threads < number of particles)
    if i < x.shape[0]:
        # Preliminary arrays for the cylindrical conversion
        # --------------------------------------------
        # Position
        xj = x[i]
        yj = y[i]
        zj = z[i]

        # Cylindrical conversion
        rj = math.sqrt(xj**2 + yj**2)
        if (rj != 0.):
            invr = 1./rj
            cos = xj*invr  # Cosine
            sin = yj*invr  # Sine
        else:
            cos = 1.
            sin = 0.
        exptheta_m0 = 1.
        exptheta_m1 = cos - 1.j*sin

        # Get weights for the deposition
        # --------------------------------------------
        # Positions of the particle, in the cell unit
        r_cell = invdr*(rj - rmin) - 0.5
        z_cell = invdz*(zj - zmin) - 0.5

        # Calculate the shape factors
        Sr = cuda.local.array((4,), dtype=float64)
        ir_lowest = int64(math.floor(r_cell)) - 1
        r_local = r_cell-ir_lowest
        Sr[0] = -1./6. * (r_local-2.)**3
        Sr[1] = 1./6. * (3.*(r_local-1.)**3 - 6.*(r_local-1.)**2 + 4.)
        Sr[2] = 1./6. * (3.*(2.-r_local)**3 - 6.*(2.-r_local)**2 + 4.)
        Sr[3] = -1./6. * (1.-r_local)**3
        Sz = cuda.local.array((4,), dtype=float64)
        iz_lowest = int64(math.floor(z_cell)) - 1
        z_local = z_cell-iz_lowest
        Sz[0] = -1./6. * (z_local-2.)**3
        Sz[1] = 1./6. * (3.*(z_local-1.)**3 - 6.*(z_local-1.)**2 + 4.)
        Sz[2] = 1./6. * (3.*(2.-z_local)**3 - 6.*(2.-z_local)**2 + 4.)
        Sz[3] = -1./6. * (1.-z_local)**3

        # E-Field
        # -------
        Fr = 0.
        Ft = 0.
        Fz = 0.
        # Only perform gathering for particles that are below rmax_gather
        if rj < rmax_gather:
            # Add contribution from mode 0
            Fr, Ft, Fz = add_cubic_gather_for_mode( 0,
                Fr, Ft, Fz, exptheta_m0, Er_m0, Et_m0, Ez_m0,
                ir_lowest, iz_lowest, Sr, Sz, Nr, Nz )
            # Add contribution from mode 1
            Fr, Ft, Fz = add_cubic_gather_for_mode( 1,
                Fr, Ft, Fz, exptheta_m1, Er_m1, Et_m1, Ez_m1,
                ir_lowest, iz_lowest, Sr, Sz, Nr, Nz )
        # Convert to Cartesian coordinates
        # and write to particle field arrays
        Ex[i] = cos*Fr - sin*Ft
        Ey[i] = sin*Fr + cos*Ft
        Ez[i] = Fz

        # B-Field
        # -------
        # Clear the placeholders for the
        # gathered field for each coordinate
        Fr = 0.
        Ft = 0.
        Fz = 0.
        # Only perform gathering for particles that are below rmax_gather
        if rj < rmax_gather:
            # Add contribution from mode 0
            Fr, Ft, Fz =  add_cubic_gather_for_mode( 0,
                Fr, Ft, Fz, exptheta_m0, Br_m0, Bt_m0, Bz_m0,
                ir_lowest, iz_lowest, Sr, Sz, Nr, Nz )
            # Add contribution from mode 1
            Fr, Ft, Fz =  add_cubic_gather_for_mode( 1,
                Fr, Ft, Fz, exptheta_m1, Br_m1, Bt_m1, Bz_m1,
                ir_lowest, iz_lowest, Sr, Sz, Nr, Nz )
        # Convert to Cartesian coordinates
        # and write to particle field arrays
        Bx[i] = cos*Fr - sin*Ft
        By[i] = sin*Fr + cos*Ft
        Bz[i] = Fz
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda, float64, int64
import math


def add_cubic_gather_for_mode( m,
    Fr, Ft, Fz, exptheta_m, Fr_grid, Ft_grid, Fz_grid,
    ir_lowest, iz_lowest, Sr_arr, Sz_arr, Nr, Nz ):
    """
    Add the contribution of the gathered field from azimuthal mode `m` to the
    fields felt by one macroparticle (`Fr`, `Ft`, `Fz`), using cubic weights.

    Parameters:
    -----------
    m: int
        The index of the azimuthal mode that is added.

    Fr, Ft, Fz: floats
        The fields felt by one macroparticle, which represent either E or B
        (before the contribution of mode `m` has been added)

    exptheta_m: complex
        The complex azimuthal factor $e^{-i m \theta}$ where $\theta$ is
        the azimuthal position of the macroparticle considered.

    Fr_grid, Ft_grid, Fz_grid: 2darrays of complexs
        The fields on the interpolation grid for mode `m`

    ir_lowest, iz_lowest: ints
        The lowest indices in r and z from which the macroparticle
        considered should gather the fields (in the arrays F*_grid)
        These indices can in fact be negative and out-of-bound
        (e.g. for particles close to the axis) but get corrected within
        this function.

    Sr_arr, Sz_arr: 1darrays containing 4 floats
        The weights in r and z with which the macroparticle
        considered should gather the fields (in the arrays F*_grid)

    Nr, Nz: ints
        Dimensions of the field arrays.

    Returns:
    --------
    Fr, Ft, Fz: floats
        The fields felt by one macroparticle, which represent either E or B
        (after the contribution of mode `m` has been added)
    """
    # Create temporary variables
    # for the "per mode" gathering
    Fr_m = 0.j
    Ft_m = 0.j
    Fz_m = 0.j

    # Loop over the 4x4 cells from which to gather fields
    for index_r in range(4):

        # Radial index
        ir = ir_lowest + index_r
        # Calculate shape factor for the longitudinal
        # and transverse components of the field
        Sr_long = Sr_arr[ index_r ]
        Sr_perp = Sr_long
        if ir < 0:
            Sr_long *= (-1)**m
            Sr_perp *= -(-1)**m
        # Adjust radial index to avoid out of bound
        if ir < 0:
            ir = abs(ir) - 1
        elif ir > Nr - 1:
            ir = Nr - 1

        for index_z in range(4):

            # Longitudinal index
            iz = iz_lowest + index_z
            # Get shape factor
            Sz = Sz_arr[index_z]
            # Adjust longitudinal index to avoid out of bound
            if iz < 0:
                iz += Nz
            elif iz > Nz-1:
                iz -= Nz

            # Get the fields
            Fr_m += Sz*Sr_perp*Fr_grid[iz, ir]
            Ft_m += Sz*Sr_perp*Ft_grid[iz, ir]
            Fz_m += Sz*Sr_long*Fz_grid[iz, ir]

    # Add the contribution from mode m to Fr, Ft, Fz
    # (Take into account factor 2 in the definition of azimuthal modes)
    if m == 0:
        factor = 1.
    else:
        factor = 2.
    Fr += factor*(Fr_m*exptheta_m).real
    Ft += factor*(Ft_m*exptheta_m).real
    Fz += factor*(Fz_m*exptheta_m).real

    return(Fr, Ft, Fz)


add_cubic_gather_for_mode = cuda.jit( add_cubic_gather_for_mode,
                                        device=True, inline=True )


@cuda.jit
def gather_field_gpu_cubic(x, y, z,
                    rmax_gather,
                    invdz, zmin, Nz,
                    invdr, rmin, Nr,
                    Er_m0, Et_m0, Ez_m0,
                    Er_m1, Et_m1, Ez_m1,
                    Br_m0, Bt_m0, Bz_m0,
                    Br_m1, Bt_m1, Bz_m1,
                    Ex, Ey, Ez,
                    Bx, By, Bz):
    """
    Gathering of the fields (E and B) using numba on the GPU.
    Iterates over the particles, calculates the weighted amount
    of fields acting on each particle based on its shape (cubic).
    Fields are gathered in cylindrical coordinates and then
    transformed to cartesian coordinates.
    Supports only mode 0 and 1.

    Parameters
    ----------
    x, y, z : 1darray of floats (in meters)
        The position of the particles

    rmax_gather: float (in meters)
        The radius above which particle do not gather anymore

    invdz, invdr : float (in meters^-1)
        Inverse of the grid step along the considered direction

    zmin, rmin : float (in meters)
        Position of the edge of the simulation box along the
        direction considered

    Nz, Nr : int
        Number of gridpoints along the considered direction

    Er_m0, Et_m0, Ez_m0 : 2darray of complexs
        The electric fields on the interpolation grid for the mode 0

    Er_m1, Et_m1, Ez_m1 : 2darray of complexs
        The electric fields on the interpolation grid for the mode 1

    Br_m0, Bt_m0, Bz_m0 : 2darray of complexs
        The magnetic fields on the interpolation grid for the mode 0

    Br_m1, Bt_m1, Bz_m1 : 2darray of complexs
        The magnetic fields on the interpolation grid for the mode 1

    Ex, Ey, Ez : 1darray of floats
        The electric fields acting on the particles
        (is modified by this function)

    Bx, By, Bz : 1darray of floats
        The magnetic fields acting on the particles
        (is modified by this function)
    """

    # Get the 1D CUDA grid
    i = cuda.grid(1)
    # Deposit the field per cell in parallel
    # (for threads < number of particles)
    if i < x.shape[0]:
        # Preliminary arrays for the cylindrical conversion
        # --------------------------------------------
        # Position
        xj = x[i]
        yj = y[i]
        zj = z[i]

        # Cylindrical conversion
        rj = math.sqrt(xj**2 + yj**2)
        if (rj != 0.):
            invr = 1./rj
            cos = xj*invr  # Cosine
            sin = yj*invr  # Sine
        else:
            cos = 1.
            sin = 0.
        exptheta_m0 = 1.
        exptheta_m1 = cos - 1.j*sin

        # Get weights for the deposition
        # --------------------------------------------
        # Positions of the particle, in the cell unit
        r_cell = invdr*(rj - rmin) - 0.5
        z_cell = invdz*(zj - zmin) - 0.5

        # Calculate the shape factors
        Sr = cuda.local.array((4,), dtype=float64)
        ir_lowest = int64(math.floor(r_cell)) - 1
        r_local = r_cell-ir_lowest
        Sr[0] = -1./6. * (r_local-2.)**3
        Sr[1] = 1./6. * (3.*(r_local-1.)**3 - 6.*(r_local-1.)**2 + 4.)
        Sr[2] = 1./6. * (3.*(2.-r_local)**3 - 6.*(2.-r_local)**2 + 4.)
        Sr[3] = -1./6. * (1.-r_local)**3
        Sz = cuda.local.array((4,), dtype=float64)
        iz_lowest = int64(math.floor(z_cell)) - 1
        z_local = z_cell-iz_lowest
        Sz[0] = -1./6. * (z_local-2.)**3
        Sz[1] = 1./6. * (3.*(z_local-1.)**3 - 6.*(z_local-1.)**2 + 4.)
        Sz[2] = 1./6. * (3.*(2.-z_local)**3 - 6.*(2.-z_local)**2 + 4.)
        Sz[3] = -1./6. * (1.-z_local)**3

        # E-Field
        # -------
        Fr = 0.
        Ft = 0.
        Fz = 0.
        # Only perform gathering for particles that are below rmax_gather
        if rj < rmax_gather:
            # Add contribution from mode 0
            Fr, Ft, Fz = add_cubic_gather_for_mode( 0,
                Fr, Ft, Fz, exptheta_m0, Er_m0, Et_m0, Ez_m0,
                ir_lowest, iz_lowest, Sr, Sz, Nr, Nz )
            # Add contribution from mode 1
            Fr, Ft, Fz = add_cubic_gather_for_mode( 1,
                Fr, Ft, Fz, exptheta_m1, Er_m1, Et_m1, Ez_m1,
                ir_lowest, iz_lowest, Sr, Sz, Nr, Nz )
        # Convert to Cartesian coordinates
        # and write to particle field arrays
        Ex[i] = cos*Fr - sin*Ft
        Ey[i] = sin*Fr + cos*Ft
        Ez[i] = Fz

        # B-Field
        # -------
        # Clear the placeholders for the
        # gathered field for each coordinate
        Fr = 0.
        Ft = 0.
        Fz = 0.
        # Only perform gathering for particles that are below rmax_gather
        if rj < rmax_gather:
            # Add contribution from mode 0
            Fr, Ft, Fz =  add_cubic_gather_for_mode( 0,
                Fr, Ft, Fz, exptheta_m0, Br_m0, Bt_m0, Bz_m0,
                ir_lowest, iz_lowest, Sr, Sz, Nr, Nz )
            # Add contribution from mode 1
            Fr, Ft, Fz =  add_cubic_gather_for_mode( 1,
                Fr, Ft, Fz, exptheta_m1, Br_m1, Bt_m1, Bz_m1,
                ir_lowest, iz_lowest, Sr, Sz, Nr, Nz )
        # Convert to Cartesian coordinates
        # and write to particle field arrays
        Bx[i] = cos*Fr - sin*Ft
        By[i] = sin*Fr + cos*Ft
        Bz[i] = Fz


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


NZ, NR = 8, 6
INVDZ, INVDR, ZMIN, RMIN = 2.0, 3.0, 0.0, 0.0
FIELDS = ["Er_m0", "Et_m0", "Ez_m0", "Er_m1", "Et_m1", "Ez_m1", "Br_m0", "Bt_m0", "Bz_m0", "Br_m1", "Bt_m1", "Bz_m1"]
OUTS = ["Ex", "Ey", "Ez", "Bx", "By", "Bz"]


def make_args(rng):
    n = 150
    r = rng.uniform(0.0, (NR + 1.0) / INVDR, n)
    r[:3] = 0.0
    th = rng.uniform(0, 2 * np.pi, n)
    x, y = r * np.cos(th), r * np.sin(th)
    z = rng.uniform(ZMIN - 0.2, ZMIN + NZ / INVDZ + 0.2, n)
    fields = [rng.standard_normal((NZ, NR)) + 1j * rng.standard_normal((NZ, NR)) for _ in FIELDS]
    return [x, y, z, (NR - 0.5) / INVDR, INVDZ, ZMIN, NZ, INVDR, RMIN, NR] + fields + [np.zeros(n) for _ in OUTS]


def _polar(xj, yj):
    rj = np.sqrt(xj**2 + yj**2)
    if rj != 0.0:
        return rj, xj / rj, yj / rj
    return rj, 1.0, 0.0


def _shape(u):
    lo = int(np.floor(u)) - 1
    t = u - lo
    return lo, [-1. / 6. * (t - 2.)**3, 1. / 6. * (3. * (t - 1.)**3 - 6. * (t - 1.)**2 + 4.),
                1. / 6. * (3. * (2. - t)**3 - 6. * (2. - t)**2 + 4.), -1. / 6. * (1. - t)**3]


def _mode(m, F, exp_m, grids, irl, izl, Sr, Sz, Nr, Nz):
    acc = [0j, 0j, 0j]
    for a in range(4):
        ir = irl + a
        s_long = s_perp = Sr[a]
        if ir < 0:
            s_long = s_long * (-1) ** m
            s_perp = s_perp * -(-1) ** m
            ir = abs(ir) - 1
        elif ir > Nr - 1:
            ir = Nr - 1
        for b in range(4):
            iz = (izl + b) % Nz
            acc[0] += Sz[b] * s_perp * grids[0][iz, ir]
            acc[1] += Sz[b] * s_perp * grids[1][iz, ir]
            acc[2] += Sz[b] * s_long * grids[2][iz, ir]
    f = 1.0 if m == 0 else 2.0
    return [F[c] + f * (acc[c] * exp_m).real for c in range(3)]


def reference(x, y, z, rmax_gather, invdz, zmin, Nz, invdr, rmin, Nr, *rest):
    grids, outs = rest[:12], rest[12:]
    for i in range(x.size):
        rj, cos, sin = _polar(x[i], y[i])
        e1 = cos - 1j * sin
        irl, Sr = _shape(invdr * (rj - rmin) - 0.5)
        izl, Sz = _shape(invdz * (z[i] - zmin) - 0.5)
        for k in range(2):
            F = [0.0, 0.0, 0.0]
            if rj < rmax_gather:
                F = _mode(0, F, 1.0, grids[6 * k:6 * k + 3], irl, izl, Sr, Sz, Nr, Nz)
                F = _mode(1, F, e1, grids[6 * k + 3:6 * k + 6], irl, izl, Sr, Sz, Nr, Nz)
            outs[3 * k][i] = cos * F[0] - sin * F[1]
            outs[3 * k + 1][i] = sin * F[0] + cos * F[1]
            outs[3 * k + 2][i] = F[2]
    return dict(zip(OUTS, outs))


CASE = dict(kernel="gather_field_gpu_cubic", griddim=3, blockdim=64,
            args=["x", "y", "z", "rmax_gather", "invdz", "zmin", "Nz", "invdr", "rmin", "Nr"] + FIELDS + OUTS,
            outputs=OUTS, rtol=1e-11, atol=1e-11)
