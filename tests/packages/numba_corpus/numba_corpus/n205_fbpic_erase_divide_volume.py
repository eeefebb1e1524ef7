# =============================================================================
# Source : fbpic/fbpic, fbpic/fields/cuda_methods.py, kernels `cuda_erase_scalar`, `cuda_erase_vector`, `cuda_divide_scalar_by_volume`, `cuda_divide_vector_by_volume`
#          https://github.com/fbpic/fbpic/blob/9022006d980a022aa4d3ca7394203efc413bbef2/fbpic/fields/cuda_methods.py
# License: BSD-3-Clause-LBNL (FBPIC)
# Project: FBPIC (real)
# What   : zero complex interpolation-grid fields, and scale them by the inverse cell volume along r.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda


@cuda.jit
def cuda_erase_scalar( array ):
    """
    Set input array to 0

    The array is typically an interpolation grid array, and it
    is set to zero before depositing the currents

    Parameters:
    ------------
    array: 2darrays of complexs
       Array that represent the fields on the grid
       (The first axis corresponds to z and the second axis to r) d
    """

    # Cuda 2D grid
    iz, ir = cuda.grid(2)

    # Set the elements of the array to 0
    if (iz < array.shape[0]) and (ir < array.shape[1]):
        array[iz, ir] = 0

@cuda.jit
def cuda_erase_vector( array_r, array_t, array_z ):
    """
    Set the input arrays to 0

    These arrays are typically interpolation grid arrays, and they
    are set to zero before depositing the currents

    Parameters:
    ------------
    array_r, array_t, array_z: 2darrays of complexs
       Arrays that represent the fields on the grid
       (The first axis corresponds to z and the second axis to r)
    """

    # Cuda 2D grid
    iz, ir = cuda.grid(2)

    # Set the elements of the array to 0
    if (iz < array_r.shape[0]) and (ir < array_r.shape[1]):
        array_r[iz, ir] = 0
        array_t[iz, ir] = 0
        array_z[iz, ir] = 0

# ---------------------------
# Divide by volume functions
# ---------------------------

@cuda.jit
def cuda_divide_scalar_by_volume( array, invvol ):
    """
    Multiply the input array by the corresponding invvol

    Parameters:
    ------------
    array: 2darray of complexs
       Array that represent the fields on the grid
       (The first axis corresponds to z and the second axis to r)

    invvol: 1darray of floats
       Array that contain the inverse of the volume of the cell
       The axis corresponds to r
    """

    # Cuda 2D grid
    iz, ir = cuda.grid(2)

    # Multiply by inverse volume
    if (iz < array.shape[0]) and (ir < array.shape[1]):
        array[iz, ir] = array[iz, ir] * invvol[ir]


@cuda.jit
def cuda_divide_vector_by_volume( array_r, array_t, array_z, invvol ):
    """
    Multiply the input arrays by the corresponding invvol

    Parameters:
    ------------
    array_r, array_t, array_z: 2darrays of complexs
       Arrays that represent the fields on the grid
       (The first axis corresponds to z and the second axis to r)

    invvol: 1darray of floats
       Arrays that contain the inverse of the volume of the cell
       The axis corresponds to r
    """

    # Cuda 2D grid
    iz, ir = cuda.grid(2)

    # Multiply by inverse volume
    if (iz < array_r.shape[0]) and (ir < array_r.shape[1]):
        array_r[iz, ir] = array_r[iz, ir] * invvol[ir]
        array_t[iz, ir] = array_t[iz, ir] * invvol[ir]
        array_z[iz, ir] = array_z[iz, ir] * invvol[ir]
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda


@cuda.jit
def cuda_erase_scalar( array ):
    """
    Set input array to 0

    The array is typically an interpolation grid array, and it
    is set to zero before depositing the currents

    Parameters:
    ------------
    array: 2darrays of complexs
       Array that represent the fields on the grid
       (The first axis corresponds to z and the second axis to r) d
    """

    # Cuda 2D grid
    iz, ir = cuda.grid(2)

    # Set the elements of the array to 0
    if (iz < array.shape[0]) and (ir < array.shape[1]):
        array[iz, ir] = 0

@cuda.jit
def cuda_erase_vector( array_r, array_t, array_z ):
    """
    Set the input arrays to 0

    These arrays are typically interpolation grid arrays, and they
    are set to zero before depositing the currents

    Parameters:
    ------------
    array_r, array_t, array_z: 2darrays of complexs
       Arrays that represent the fields on the grid
       (The first axis corresponds to z and the second axis to r)
    """

    # Cuda 2D grid
    iz, ir = cuda.grid(2)

    # Set the elements of the array to 0
    if (iz < array_r.shape[0]) and (ir < array_r.shape[1]):
        array_r[iz, ir] = 0
        array_t[iz, ir] = 0
        array_z[iz, ir] = 0

# ---------------------------
# Divide by volume functions
# ---------------------------

@cuda.jit
def cuda_divide_scalar_by_volume( array, invvol ):
    """
    Multiply the input array by the corresponding invvol

    Parameters:
    ------------
    array: 2darray of complexs
       Array that represent the fields on the grid
       (The first axis corresponds to z and the second axis to r)

    invvol: 1darray of floats
       Array that contain the inverse of the volume of the cell
       The axis corresponds to r
    """

    # Cuda 2D grid
    iz, ir = cuda.grid(2)

    # Multiply by inverse volume
    if (iz < array.shape[0]) and (ir < array.shape[1]):
        array[iz, ir] = array[iz, ir] * invvol[ir]


@cuda.jit
def cuda_divide_vector_by_volume( array_r, array_t, array_z, invvol ):
    """
    Multiply the input arrays by the corresponding invvol

    Parameters:
    ------------
    array_r, array_t, array_z: 2darrays of complexs
       Arrays that represent the fields on the grid
       (The first axis corresponds to z and the second axis to r)

    invvol: 1darray of floats
       Arrays that contain the inverse of the volume of the cell
       The axis corresponds to r
    """

    # Cuda 2D grid
    iz, ir = cuda.grid(2)

    # Multiply by inverse volume
    if (iz < array_r.shape[0]) and (ir < array_r.shape[1]):
        array_r[iz, ir] = array_r[iz, ir] * invvol[ir]
        array_t[iz, ir] = array_t[iz, ir] * invvol[ir]
        array_z[iz, ir] = array_z[iz, ir] * invvol[ir]


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    Nz, Nr = 9, 20
    c = lambda: rng.standard_normal((Nz, Nr)) + 1j * rng.standard_normal((Nz, Nr))
    return [c(), c(), c(), c(), c(), c(), c(), c(), 1.0 / (1.0 + np.arange(Nr))]


def reference(e, er, et, ez, d, dr, dt, dz, invvol):
    z = np.zeros_like(e)
    return {"e": z, "er": z, "et": z, "ez": z, "d": d * invvol, "dr": dr * invvol, "dt": dt * invvol,
            "dz": dz * invvol}


def run(e, er, et, ez, d, dr, dt, dz, invvol):
    Nz, Nr = e.shape
    bpg, tpb = (Nz + 1, Nr // 16 + 1), (1, 16)
    cuda_erase_scalar[bpg, tpb](e)
    cuda_erase_vector[bpg, tpb](er, et, ez)
    cuda_divide_scalar_by_volume[bpg, tpb](d, invvol)
    cuda_divide_vector_by_volume[bpg, tpb](dr, dt, dz, invvol)


CASE = dict(kernel="cuda_erase_scalar", griddim=(10, 2), blockdim=(1, 16),
            args=["e", "er", "et", "ez", "d", "dr", "dt", "dz", "invvol"],
            outputs=["e", "er", "et", "ez", "d", "dr", "dt", "dz"])
