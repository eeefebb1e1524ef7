# =============================================================================
# Source : fbpic/fbpic, fbpic/fields/spectral_transform/cuda_methods.py, kernels `cuda_copy_2d_to_2d`, `cuda_copy_2d_to_1d`, `cuda_copy_1d_to_2d`, `cuda_rt_to_pm`, `cuda_pm_to_rt` (fbpic 0.2.0)
#          https://github.com/fbpic/fbpic/blob/1288419d44407aead8a111c4e4e19be5b86da072/fbpic/fields/spectral_transform/cuda_methods.py
# License: BSD-3-Clause-LBNL (FBPIC)
# Project: FBPIC (real)
# What   : eager-signature ('void(complex128[:,:], ...)', with backslash-continued strings) complex copies C->Fortran order, 2-D<->1-D, r/t<->p/m.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda


@cuda.jit('void(complex128[:,:], complex128[:,:])')
def cuda_copy_2d_to_2d( array_in, array_out ) :
    """
    Copy array_in to array_out, on the GPU
    
    This is typically done in cases where one of the two
    arrays is in C-order and the other one is in Fortran order.
    This conversion from C order to Fortran order is needed
    before using cuBlas functions.
        
    Parameters :
    ------------
    array_in, array_out : 2darray of complexs
        Arrays of shape (Nz, Nr)
    """

    # Set up cuda grid
    iz, ir = cuda.grid(2)
    
    # Copy from array_in to array_out
    if (iz < array_in.shape[0]) and (ir < array_in.shape[1]) :
        array_out[iz, ir] = array_in[iz, ir]

@cuda.jit('void(complex128[:,:], complex128[:])')
def cuda_copy_2d_to_1d( array_2d, array_1d ) :
    """
    Copy array_2d to array_1d, so that the first axis of array_2d
    is contiguous in array_1d
    
    This is typically done before using the cuFFT API,
    which requires 1d arrays to do FFT in only one dimension.
        
    Parameters :
    ------------
    array_2d : 2darray of complexs
        Array of shape (Nz, Nr)

    array_1d : 1d array of complexs
        Array of shape (Nz*Nr,)
    """

    # Set up cuda grid
    iz, ir = cuda.grid(2)
    
    # Copy from array_2d to array_1d
    if (iz < array_2d.shape[0]) and (ir < array_2d.shape[1]) :
        i = iz + array_2d.shape[0]*ir
        array_1d[i] = array_2d[iz, ir]

@cuda.jit('void(complex128[:], complex128[:,:])')
def cuda_copy_1d_to_2d( array_1d, array_2d ) :
    """
    Copy array_1d to array_2d, so that the first axis of array_2d
    is contiguous in array_1d
    
    This is typically done after using the cuFFT API,
    since the the output of cuFFT is a 1d array
        
    Parameters :
    ------------
    array_2d : 2darray of complexs
        Array of shape (Nz, Nr)

    array_1d : 1d array of complexs
        Array of shape (Nz*Nr,)
    """

    # Set up cuda grid
    iz, ir = cuda.grid(2)
    
    # Copy from array_1d to array_2d
    if (iz < array_2d.shape[0]) and (ir < array_2d.shape[1]) :
        i = iz + array_2d.shape[0]*ir
        array_2d[iz, ir] = array_1d[i]

# ----------------------------------------------------
# Functions that combine components in spectral space
# ----------------------------------------------------

@cuda.jit('void(complex128[:,:], complex128[:,:], \
                complex128[:,:], complex128[:,:])')
def cuda_rt_to_pm( buffer_r, buffer_t, buffer_p, buffer_m ) :
    """
    Combine the arrays buffer_r and buffer_t to produce the
    arrays buffer_p and buffer_m, according to the rules of
    the Fourier-Hankel decomposition (see associated paper)
    """
    # Set up cuda grid
    iz, ir = cuda.grid(2)

    if (iz < buffer_r.shape[0]) and (ir < buffer_r.shape[1]) :
        # Use intermediate variables, as the arrays
        # buffer_r and buffer_t may actually point to the same
        # object as buffer_p and buffer_m, for economy of memory
        value_r = buffer_r[iz, ir]
        value_t = buffer_t[iz, ir]
        # Combine the values
        buffer_p[iz, ir] = 0.5*( value_r - 1.j*value_t )
        buffer_m[iz, ir] = 0.5*( value_r + 1.j*value_t )


@cuda.jit('void(complex128[:,:], complex128[:,:], \
                complex128[:,:], complex128[:,:])')
def cuda_pm_to_rt( buffer_p, buffer_m, buffer_r, buffer_t ) :
    """
    Combine the arrays buffer_p and buffer_m to produce the
    arrays buffer_r and buffer_t, according to the rules of
    the Fourier-Hankel decomposition (see associated paper)
    """
    # Set up cuda grid
    iz, ir = cuda.grid(2)

    if (iz < buffer_p.shape[0]) and (ir < buffer_p.shape[1]) :
        # Use intermediate variables, as the arrays
        # buffer_r and buffer_t may actually point to the same
        # object as buffer_p and buffer_m, for economy of memory
        value_p = buffer_p[iz, ir]
        value_m = buffer_m[iz, ir]
        # Combine the values
        buffer_r[iz, ir] =     ( value_p + value_m )
        buffer_t[iz, ir] = 1.j*( value_p - value_m )
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda


@cuda.jit('void(complex128[:,:], complex128[:,:])')
def cuda_copy_2d_to_2d( array_in, array_out ) :
    """
    Copy array_in to array_out, on the GPU
    
    This is typically done in cases where one of the two
    arrays is in C-order and the other one is in Fortran order.
    This conversion from C order to Fortran order is needed
    before using cuBlas functions.
        
    Parameters :
    ------------
    array_in, array_out : 2darray of complexs
        Arrays of shape (Nz, Nr)
    """

    # Set up cuda grid
    iz, ir = cuda.grid(2)
    
    # Copy from array_in to array_out
    if (iz < array_in.shape[0]) and (ir < array_in.shape[1]) :
        array_out[iz, ir] = array_in[iz, ir]

@cuda.jit('void(complex128[:,:], complex128[:])')
def cuda_copy_2d_to_1d( array_2d, array_1d ) :
    """
    Copy array_2d to array_1d, so that the first axis of array_2d
    is contiguous in array_1d
    
    This is typically done before using the cuFFT API,
    which requires 1d arrays to do FFT in only one dimension.
        
    Parameters :
    ------------
    array_2d : 2darray of complexs
        Array of shape (Nz, Nr)

    array_1d : 1d array of complexs
        Array of shape (Nz*Nr,)
    """

    # Set up cuda grid
    iz, ir = cuda.grid(2)
    
    # Copy from array_2d to array_1d
    if (iz < array_2d.shape[0]) and (ir < array_2d.shape[1]) :
        i = iz + array_2d.shape[0]*ir
        array_1d[i] = array_2d[iz, ir]

@cuda.jit('void(complex128[:], complex128[:,:])')
def cuda_copy_1d_to_2d( array_1d, array_2d ) :
    """
    Copy array_1d to array_2d, so that the first axis of array_2d
    is contiguous in array_1d
    
    This is typically done after using the cuFFT API,
    since the the output of cuFFT is a 1d array
        
    Parameters :
    ------------
    array_2d : 2darray of complexs
        Array of shape (Nz, Nr)

    array_1d : 1d array of complexs
        Array of shape (Nz*Nr,)
    """

    # Set up cuda grid
    iz, ir = cuda.grid(2)
    
    # Copy from array_1d to array_2d
    if (iz < array_2d.shape[0]) and (ir < array_2d.shape[1]) :
        i = iz + array_2d.shape[0]*ir
        array_2d[iz, ir] = array_1d[i]

# ----------------------------------------------------
# Functions that combine components in spectral space
# ----------------------------------------------------

@cuda.jit('void(complex128[:,:], complex128[:,:], \
                complex128[:,:], complex128[:,:])')
def cuda_rt_to_pm( buffer_r, buffer_t, buffer_p, buffer_m ) :
    """
    Combine the arrays buffer_r and buffer_t to produce the
    arrays buffer_p and buffer_m, according to the rules of
    the Fourier-Hankel decomposition (see associated paper)
    """
    # Set up cuda grid
    iz, ir = cuda.grid(2)

    if (iz < buffer_r.shape[0]) and (ir < buffer_r.shape[1]) :
        # Use intermediate variables, as the arrays
        # buffer_r and buffer_t may actually point to the same
        # object as buffer_p and buffer_m, for economy of memory
        value_r = buffer_r[iz, ir]
        value_t = buffer_t[iz, ir]
        # Combine the values
        buffer_p[iz, ir] = 0.5*( value_r - 1.j*value_t )
        buffer_m[iz, ir] = 0.5*( value_r + 1.j*value_t )


@cuda.jit('void(complex128[:,:], complex128[:,:], \
                complex128[:,:], complex128[:,:])')
def cuda_pm_to_rt( buffer_p, buffer_m, buffer_r, buffer_t ) :
    """
    Combine the arrays buffer_p and buffer_m to produce the
    arrays buffer_r and buffer_t, according to the rules of
    the Fourier-Hankel decomposition (see associated paper)
    """
    # Set up cuda grid
    iz, ir = cuda.grid(2)

    if (iz < buffer_p.shape[0]) and (ir < buffer_p.shape[1]) :
        # Use intermediate variables, as the arrays
        # buffer_r and buffer_t may actually point to the same
        # object as buffer_p and buffer_m, for economy of memory
        value_p = buffer_p[iz, ir]
        value_m = buffer_m[iz, ir]
        # Combine the values
        buffer_r[iz, ir] =     ( value_p + value_m )
        buffer_t[iz, ir] = 1.j*( value_p - value_m )


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


NZ, NR = 9, 20


def make_args(rng):
    c = lambda *s: rng.standard_normal(s) + 1j * rng.standard_normal(s)
    z = lambda *s: np.zeros(s, dtype=np.complex128)
    return [c(NZ, NR), np.asfortranarray(z(NZ, NR)), c(NZ, NR), z(NZ * NR), c(NZ * NR), z(NZ, NR),
            c(NZ, NR), c(NZ, NR), z(NZ, NR), z(NZ, NR), c(NZ, NR), c(NZ, NR), z(NZ, NR), z(NZ, NR)]


def reference(a, aF, b, b1, c1, c2, r, t, p, m, p2, m2, r2, t2):
    return {"aF": a, "b1": b.T.reshape(-1), "c2": c1.reshape(NR, NZ).T, "p": 0.5 * (r - 1j * t),
            "m": 0.5 * (r + 1j * t), "r2": p2 + m2, "t2": 1j * (p2 - m2)}


def run(a, aF, b, b1, c1, c2, r, t, p, m, p2, m2, r2, t2):
    bpg, tpb = (NZ + 1, NR // 16 + 1), (1, 16)
    cuda_copy_2d_to_2d[bpg, tpb](a, aF)
    cuda_copy_2d_to_1d[bpg, tpb](b, b1)
    cuda_copy_1d_to_2d[bpg, tpb](c1, c2)
    cuda_rt_to_pm[bpg, tpb](r, t, p, m)
    cuda_pm_to_rt[bpg, tpb](p2, m2, r2, t2)


CASE = dict(kernel="cuda_copy_2d_to_2d", griddim=(10, 2), blockdim=(1, 16),
            args=["a", "aF", "b", "b1", "c1", "c2", "r", "t", "p", "m", "p2", "m2", "r2", "t2"],
            outputs=["aF", "b1", "c2", "p", "m", "r2", "t2"], rtol=1e-15)
