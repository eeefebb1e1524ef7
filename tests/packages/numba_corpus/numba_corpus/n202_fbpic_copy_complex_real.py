# =============================================================================
# Source : fbpic/fbpic, fbpic/fields/spectral_transform/cuda_methods.py, kernels `cuda_copy_2dC_to_2dR`, `cuda_copy_2dR_to_2dC`
#          https://github.com/fbpic/fbpic/blob/9022006d980a022aa4d3ca7394203efc413bbef2/fbpic/fields/spectral_transform/cuda_methods.py
# License: BSD-3-Clause-LBNL (FBPIC)
# Project: FBPIC (real)
# What   : split a complex (Nz, Nr) field into a real (2Nz, Nr) array and rebuild a complex one from it.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda


@cuda.jit
def cuda_copy_2dC_to_2dR( array_in, array_out ) :
    """
    Store the complex Nz x Nr array `array_in`
    into the real 2Nz x Nr array `array_out`,
    by storing the real part in the first Nz elements of `array_out` along z,
    and the imaginary part in the next Nz elements.

    Parameters :
    ------------
    array_in: 2darray of complexs
        Array of shape (Nz, Nr)
    array_out: 2darray of reals
        Array of shape (2*Nz, Nr)
    """
    # Set up cuda grid
    iz, ir = cuda.grid(2)
    Nz, Nr = array_in.shape

    # Copy from array_in to array_out
    if (iz < Nz) and (ir < Nr) :
        array_out[iz, ir] = array_in[iz, ir].real
        array_out[iz+Nz, ir] = array_in[iz, ir].imag

@cuda.jit
def cuda_copy_2dR_to_2dC( array_in, array_out ) :
    """
    Reconstruct the complex Nz x Nr array `array_out`,
    from the real 2Nz x Nr array `array_in`,
    by interpreting the first Nz elements of `array_in` along z as
    the real part, and the next Nz elements as the imaginary part.

    Parameters :
    ------------
    array_in: 2darray of reals
        Array of shape (2*Nz, Nr)
    array_out: 2darray of complexs
        Array of shape (Nz, Nr)
    """
    # Set up cuda grid
    iz, ir = cuda.grid(2)
    Nz, Nr = array_out.shape

    # Copy from array_in to array_out
    if (iz < Nz) and (ir < Nr) :
        array_out[iz, ir] = array_in[iz, ir] + 1.j*array_in[iz+Nz, ir]
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda


@cuda.jit
def cuda_copy_2dC_to_2dR( array_in, array_out ) :
    """
    Store the complex Nz x Nr array `array_in`
    into the real 2Nz x Nr array `array_out`,
    by storing the real part in the first Nz elements of `array_out` along z,
    and the imaginary part in the next Nz elements.

    Parameters :
    ------------
    array_in: 2darray of complexs
        Array of shape (Nz, Nr)
    array_out: 2darray of reals
        Array of shape (2*Nz, Nr)
    """
    # Set up cuda grid
    iz, ir = cuda.grid(2)
    Nz, Nr = array_in.shape

    # Copy from array_in to array_out
    if (iz < Nz) and (ir < Nr) :
        array_out[iz, ir] = array_in[iz, ir].real
        array_out[iz+Nz, ir] = array_in[iz, ir].imag

@cuda.jit
def cuda_copy_2dR_to_2dC( array_in, array_out ) :
    """
    Reconstruct the complex Nz x Nr array `array_out`,
    from the real 2Nz x Nr array `array_in`,
    by interpreting the first Nz elements of `array_in` along z as
    the real part, and the next Nz elements as the imaginary part.

    Parameters :
    ------------
    array_in: 2darray of reals
        Array of shape (2*Nz, Nr)
    array_out: 2darray of complexs
        Array of shape (Nz, Nr)
    """
    # Set up cuda grid
    iz, ir = cuda.grid(2)
    Nz, Nr = array_out.shape

    # Copy from array_in to array_out
    if (iz < Nz) and (ir < Nr) :
        array_out[iz, ir] = array_in[iz, ir] + 1.j*array_in[iz+Nz, ir]


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    Nz, Nr = 10, 20
    a = rng.standard_normal((Nz, Nr)) + 1j * rng.standard_normal((Nz, Nr))
    r = rng.standard_normal((2 * Nz, Nr))
    return [a, np.zeros((2 * Nz, Nr)), r, np.zeros((Nz, Nr), dtype=np.complex128)]


def reference(a, a_out, r, r_out):
    return {"a_out": np.concatenate([a.real, a.imag]), "r_out": r[:10] + 1j * r[10:]}


def run(a, a_out, r, r_out):
    Nz, Nr = a.shape
    bpg, tpb = (Nz + 1, Nr // 16 + 1), (1, 16)   # fbpic's cuda_tpb_bpg_2d(Nz, Nr, 1, 16)
    cuda_copy_2dC_to_2dR[bpg, tpb](a, a_out)
    cuda_copy_2dR_to_2dC[bpg, tpb](r, r_out)


CASE = dict(kernel="cuda_copy_2dC_to_2dR", griddim=(11, 2), blockdim=(1, 16), args=["a", "a_out", "r", "r_out"],
            outputs=["a_out", "r_out"])
