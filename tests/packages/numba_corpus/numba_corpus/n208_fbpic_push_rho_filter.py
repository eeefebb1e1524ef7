# =============================================================================
# Source : fbpic/fbpic, fbpic/fields/cuda_methods.py, kernels `cuda_push_rho`, `cuda_filter_scalar`, `cuda_filter_vector`
#          https://github.com/fbpic/fbpic/blob/9022006d980a022aa4d3ca7394203efc413bbef2/fbpic/fields/cuda_methods.py
# License: BSD-3-Clause-LBNL (FBPIC)
# Project: FBPIC (real)
# What   : rotate rho_next into rho_prev (zeroing rho_next); separable real k-space filter of complex fields.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda


@cuda.jit
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

@cuda.jit
def cuda_filter_scalar( field, Nz, Nr, filter_array_z, filter_array_r ) :
    """
    Multiply the input field by the filter_array

    Parameters :
    ------------
    field : 2darray of complexs
        An array that represent the fields in spectral space

    filter_array_z, filter_array_r : 1darray of reals
        An array that damps the fields at high k, in z and r respectively

    Nz, Nr : ints
        Dimensions of the arrays
    """

    # Cuda 2D grid
    iz, ir = cuda.grid(2)

    # Filter the field
    if (iz < Nz) and (ir < Nr) :

        field[iz, ir] = filter_array_z[iz]*filter_array_r[ir]*field[iz, ir]

@cuda.jit
def cuda_filter_vector( fieldr, fieldt, fieldz, Nz, Nr,
                        filter_array_z, filter_array_r ):
    """
    Multiply the input field by the filter_array

    Parameters :
    ------------
    field : 2darray of complexs
        An array that represent the fields in spectral space

    filter_array_z, filter_array_r : 1darray of reals
        An array that damps the fields at high k, in z and r respectively

    Nz, Nr : ints
        Dimensions of the arrays
    """

    # Cuda 2D grid
    iz, ir = cuda.grid(2)

    # Filter the field
    if (iz < Nz) and (ir < Nr) :

        fieldr[iz, ir] = filter_array_z[iz]*filter_array_r[ir]*fieldr[iz, ir]
        fieldt[iz, ir] = filter_array_z[iz]*filter_array_r[ir]*fieldt[iz, ir]
        fieldz[iz, ir] = filter_array_z[iz]*filter_array_r[ir]*fieldz[iz, ir]
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda


@cuda.jit
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

@cuda.jit
def cuda_filter_scalar( field, Nz, Nr, filter_array_z, filter_array_r ) :
    """
    Multiply the input field by the filter_array

    Parameters :
    ------------
    field : 2darray of complexs
        An array that represent the fields in spectral space

    filter_array_z, filter_array_r : 1darray of reals
        An array that damps the fields at high k, in z and r respectively

    Nz, Nr : ints
        Dimensions of the arrays
    """

    # Cuda 2D grid
    iz, ir = cuda.grid(2)

    # Filter the field
    if (iz < Nz) and (ir < Nr) :

        field[iz, ir] = filter_array_z[iz]*filter_array_r[ir]*field[iz, ir]

@cuda.jit
def cuda_filter_vector( fieldr, fieldt, fieldz, Nz, Nr,
                        filter_array_z, filter_array_r ):
    """
    Multiply the input field by the filter_array

    Parameters :
    ------------
    field : 2darray of complexs
        An array that represent the fields in spectral space

    filter_array_z, filter_array_r : 1darray of reals
        An array that damps the fields at high k, in z and r respectively

    Nz, Nr : ints
        Dimensions of the arrays
    """

    # Cuda 2D grid
    iz, ir = cuda.grid(2)

    # Filter the field
    if (iz < Nz) and (ir < Nr) :

        fieldr[iz, ir] = filter_array_z[iz]*filter_array_r[ir]*fieldr[iz, ir]
        fieldt[iz, ir] = filter_array_z[iz]*filter_array_r[ir]*fieldt[iz, ir]
        fieldz[iz, ir] = filter_array_z[iz]*filter_array_r[ir]*fieldz[iz, ir]


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    Nz, Nr = 10, 20
    c = lambda: rng.standard_normal((Nz, Nr)) + 1j * rng.standard_normal((Nz, Nr))
    return [c(), c(), c(), c(), c(), c(), rng.random(Nz), rng.random(Nr)]


def reference(rp, rn, f, fr, ft, fz, filz, filr):
    w = filz[:, None] * filr[None, :]
    return {"rp": rn.copy(), "rn": np.zeros_like(rn), "f": w * f, "fr": w * fr, "ft": w * ft, "fz": w * fz}


def run(rp, rn, f, fr, ft, fz, filz, filr):
    Nz, Nr = rp.shape
    bpg, tpb = (Nz + 1, Nr // 16 + 1), (1, 16)
    cuda_push_rho[bpg, tpb](rp, rn, Nz, Nr)
    cuda_filter_scalar[bpg, tpb](f, Nz, Nr, filz, filr)
    cuda_filter_vector[bpg, tpb](fr, ft, fz, Nz, Nr, filz, filr)


CASE = dict(kernel="cuda_push_rho", griddim=(11, 2), blockdim=(1, 16),
            args=["rp", "rn", "f", "fr", "ft", "fz", "filz", "filr"],
            outputs=["rp", "rn", "f", "fr", "ft", "fz"], rtol=1e-15)
