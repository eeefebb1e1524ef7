# =============================================================================
# Source : fbpic/fbpic, fbpic/fields/spectral_transform/cuda_methods.py, kernels `cuda_rt_to_pm`, `cuda_pm_to_rt`
#          https://github.com/fbpic/fbpic/blob/9022006d980a022aa4d3ca7394203efc413bbef2/fbpic/fields/spectral_transform/cuda_methods.py
# License: BSD-3-Clause-LBNL (FBPIC)
# Project: FBPIC (real)
# What   : combine r/theta field components into +/- components (complex) and back, in place-safe.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda


@cuda.jit
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


@cuda.jit
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


@cuda.jit
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


@cuda.jit
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


def make_args(rng):
    Nz, Nr = 8, 20
    c = lambda: rng.standard_normal((Nz, Nr)) + 1j * rng.standard_normal((Nz, Nr))
    z = lambda: np.zeros((Nz, Nr), dtype=np.complex128)
    return [c(), c(), z(), z(), c(), c(), z(), z()]


def reference(r, t, p, m, p2, m2, r2, t2):
    return {"p": 0.5 * (r - 1j * t), "m": 0.5 * (r + 1j * t), "r2": p2 + m2, "t2": 1j * (p2 - m2)}


def run(r, t, p, m, p2, m2, r2, t2):
    Nz, Nr = r.shape
    bpg, tpb = (Nz + 1, Nr // 16 + 1), (1, 16)
    cuda_rt_to_pm[bpg, tpb](r, t, p, m)
    cuda_pm_to_rt[bpg, tpb](p2, m2, r2, t2)


CASE = dict(kernel="cuda_rt_to_pm", griddim=(9, 2), blockdim=(1, 16), args=["r", "t", "p", "m", "p2", "m2", "r2", "t2"],
            outputs=["p", "m", "r2", "t2"], rtol=1e-15)
