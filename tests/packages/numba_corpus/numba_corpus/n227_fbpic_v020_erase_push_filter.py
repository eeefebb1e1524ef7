# =============================================================================
# Source : fbpic/fbpic, fbpic/fields/cuda_methods.py, kernels `cuda_erase_scalar`, `cuda_push_rho`, `cuda_filter_scalar`, `cuda_filter_vector` (fbpic 0.2.0)
#          https://github.com/fbpic/fbpic/blob/1288419d44407aead8a111c4e4e19be5b86da072/fbpic/fields/cuda_methods.py
# License: BSD-3-Clause-LBNL (FBPIC)
# Project: FBPIC (real)
# What   : eager-signature complex field kernels with int32 scalar dims: erase, rho rotation, 2-D real filter.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda


@cuda.jit('void(complex128[:,:], complex128[:,:])')
def cuda_erase_scalar( mode0, mode1 ) :
    """
    Set the two input arrays to 0

    These arrays are typically interpolation grid arrays, and they
    are set to zero before depositing the currents

    Parameters :
    ------------
    mode0, mode1 : 2darrays of complexs
       Arrays that represent the fields on the grid
       (The first axis corresponds to z and the second axis to r) d
    """

    # Cuda 2D grid
    iz, ir = cuda.grid(2)

    # Set the elements of the array to 0
    if (iz < mode0.shape[0]) and (ir < mode0.shape[1]) :
        mode0[iz, ir] = 0
        mode1[iz, ir] = 0


@cuda.jit('void(complex128[:,:], complex128[:,:], int32, int32)')
def cuda_push_rho( rho_prev, rho_next, Nz, Nr ) :
    """
    Transfer the values of rho_next to rho_prev,
    and set rho_next to zero

    Parameters :
    ------------
    rho_prev, rho_next : 2darrays
        Arrays that represent rho in spectral space

    Nz, Nr : ints
        Dimensions of the arrays
    """

    # Cuda 2D grid
    iz, ir = cuda.grid(2)

    # Push the fields
    if (iz < Nz) and (ir < Nr) :

        rho_prev[iz, ir] = rho_next[iz, ir]
        rho_next[iz, ir] = 0.

@cuda.jit('void(complex128[:,:], float64[:,:], int32, int32)')
def cuda_filter_scalar( field, filter_array, Nz, Nr) :
    """
    Multiply the input field by the filter_array

    Parameters :
    ------------
    field : 2darray of complexs
        An array that represent the fields in spectral space

    filter_array : 2darray of reals
        An array that damps the fields at high k

    Nz, Nr : ints
        Dimensions of the arrays
    """

    # Cuda 2D grid
    iz, ir = cuda.grid(2)

    # Filter the field
    if (iz < Nz) and (ir < Nr) :

        field[iz, ir] = filter_array[iz, ir]*field[iz, ir]

@cuda.jit('void(complex128[:,:], complex128[:,:], complex128[:,:], \
           float64[:,:], int32, int32)')
def cuda_filter_vector( fieldr, fieldt, fieldz, filter_array, Nz, Nr) :
    """
    Multiply the input field by the filter_array

    Parameters :
    ------------
    field : 2darray of complexs
        An array that represent the fields in spectral space

    filter_array : 2darray of reals
        An array that damps the fields at high k

    Nz, Nr : ints
        Dimensions of the arrays
    """

    # Cuda 2D grid
    iz, ir = cuda.grid(2)

    # Filter the field
    if (iz < Nz) and (ir < Nr) :

        fieldr[iz, ir] = filter_array[iz, ir]*fieldr[iz, ir]
        fieldt[iz, ir] = filter_array[iz, ir]*fieldt[iz, ir]
        fieldz[iz, ir] = filter_array[iz, ir]*fieldz[iz, ir]
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda


@cuda.jit('void(complex128[:,:], complex128[:,:])')
def cuda_erase_scalar( mode0, mode1 ) :
    """
    Set the two input arrays to 0

    These arrays are typically interpolation grid arrays, and they
    are set to zero before depositing the currents

    Parameters :
    ------------
    mode0, mode1 : 2darrays of complexs
       Arrays that represent the fields on the grid
       (The first axis corresponds to z and the second axis to r) d
    """

    # Cuda 2D grid
    iz, ir = cuda.grid(2)

    # Set the elements of the array to 0
    if (iz < mode0.shape[0]) and (ir < mode0.shape[1]) :
        mode0[iz, ir] = 0
        mode1[iz, ir] = 0


@cuda.jit('void(complex128[:,:], complex128[:,:], int32, int32)')
def cuda_push_rho( rho_prev, rho_next, Nz, Nr ) :
    """
    Transfer the values of rho_next to rho_prev,
    and set rho_next to zero

    Parameters :
    ------------
    rho_prev, rho_next : 2darrays
        Arrays that represent rho in spectral space

    Nz, Nr : ints
        Dimensions of the arrays
    """

    # Cuda 2D grid
    iz, ir = cuda.grid(2)

    # Push the fields
    if (iz < Nz) and (ir < Nr) :

        rho_prev[iz, ir] = rho_next[iz, ir]
        rho_next[iz, ir] = 0.

@cuda.jit('void(complex128[:,:], float64[:,:], int32, int32)')
def cuda_filter_scalar( field, filter_array, Nz, Nr) :
    """
    Multiply the input field by the filter_array

    Parameters :
    ------------
    field : 2darray of complexs
        An array that represent the fields in spectral space

    filter_array : 2darray of reals
        An array that damps the fields at high k

    Nz, Nr : ints
        Dimensions of the arrays
    """

    # Cuda 2D grid
    iz, ir = cuda.grid(2)

    # Filter the field
    if (iz < Nz) and (ir < Nr) :

        field[iz, ir] = filter_array[iz, ir]*field[iz, ir]

@cuda.jit('void(complex128[:,:], complex128[:,:], complex128[:,:], \
           float64[:,:], int32, int32)')
def cuda_filter_vector( fieldr, fieldt, fieldz, filter_array, Nz, Nr) :
    """
    Multiply the input field by the filter_array

    Parameters :
    ------------
    field : 2darray of complexs
        An array that represent the fields in spectral space

    filter_array : 2darray of reals
        An array that damps the fields at high k

    Nz, Nr : ints
        Dimensions of the arrays
    """

    # Cuda 2D grid
    iz, ir = cuda.grid(2)

    # Filter the field
    if (iz < Nz) and (ir < Nr) :

        fieldr[iz, ir] = filter_array[iz, ir]*fieldr[iz, ir]
        fieldt[iz, ir] = filter_array[iz, ir]*fieldt[iz, ir]
        fieldz[iz, ir] = filter_array[iz, ir]*fieldz[iz, ir]


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


NZ, NR = 9, 20


def make_args(rng):
    c = lambda: rng.standard_normal((NZ, NR)) + 1j * rng.standard_normal((NZ, NR))
    return [c(), c(), c(), c(), c(), c(), c(), c(), rng.random((NZ, NR))]


def reference(m0, m1, rp, rn, f, fr, ft, fz, filt):
    z = np.zeros_like(m0)
    return {"m0": z, "m1": z, "rp": rn.copy(), "rn": z, "f": filt * f, "fr": filt * fr, "ft": filt * ft,
            "fz": filt * fz}


def run(m0, m1, rp, rn, f, fr, ft, fz, filt):
    bpg, tpb = (NZ + 1, NR // 16 + 1), (1, 16)
    cuda_erase_scalar[bpg, tpb](m0, m1)
    cuda_push_rho[bpg, tpb](rp, rn, NZ, NR)
    cuda_filter_scalar[bpg, tpb](f, filt, NZ, NR)
    cuda_filter_vector[bpg, tpb](fr, ft, fz, filt, NZ, NR)


CASE = dict(kernel="cuda_push_rho", griddim=(10, 2), blockdim=(1, 16),
            args=["m0", "m1", "rp", "rn", "f", "fr", "ft", "fz", "filt"],
            outputs=["m0", "m1", "rp", "rn", "f", "fr", "ft", "fz"], rtol=1e-15)
