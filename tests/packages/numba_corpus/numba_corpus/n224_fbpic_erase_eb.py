# =============================================================================
# Source : fbpic/fbpic, fbpic/particles/gathering/cuda_methods_one_mode.py, kernel `erase_eb_cuda`
#          https://github.com/fbpic/fbpic/blob/9022006d980a022aa4d3ca7394203efc413bbef2/fbpic/particles/gathering/cuda_methods_one_mode.py
# License: BSD-3-Clause-LBNL (FBPIC)
# Project: FBPIC (real)
# What   : reset the six per-particle field arrays to 0 (integer literal stored into float arrays).
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda, float64, int64


@cuda.jit
def erase_eb_cuda( Ex, Ey, Ez, Bx, By, Bz, Ntot ):
    """
    Reset the arrays of fields (i.e. set them to 0)

    Parameters
    ----------
    Ex, Ey, Ez, Bx, By, Bz: 1d arrays of floats
        (One element per macroparticle)
        Represents the fields on the macroparticles
    """
    i = cuda.grid(1)
    if i < Ntot:
        Ex[i] = 0
        Ey[i] = 0
        Ez[i] = 0
        Bx[i] = 0
        By[i] = 0
        Bz[i] = 0
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda, float64, int64


@cuda.jit
def erase_eb_cuda( Ex, Ey, Ez, Bx, By, Bz, Ntot ):
    """
    Reset the arrays of fields (i.e. set them to 0)

    Parameters
    ----------
    Ex, Ey, Ez, Bx, By, Bz: 1d arrays of floats
        (One element per macroparticle)
        Represents the fields on the macroparticles
    """
    i = cuda.grid(1)
    if i < Ntot:
        Ex[i] = 0
        Ey[i] = 0
        Ez[i] = 0
        Bx[i] = 0
        By[i] = 0
        Bz[i] = 0


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    n = 300
    return [rng.standard_normal(n) for _ in range(6)] + [250]


def reference(Ex, Ey, Ez, Bx, By, Bz, Ntot):
    out = {}
    for k, a in zip(["Ex", "Ey", "Ez", "Bx", "By", "Bz"], [Ex, Ey, Ez, Bx, By, Bz]):
        a[:Ntot] = 0.0
        out[k] = a
    return out


CASE = dict(kernel="erase_eb_cuda", griddim=2, blockdim=256, args=["Ex", "Ey", "Ez", "Bx", "By", "Bz", "Ntot"],
            outputs=["Ex", "Ey", "Ez", "Bx", "By", "Bz"])
