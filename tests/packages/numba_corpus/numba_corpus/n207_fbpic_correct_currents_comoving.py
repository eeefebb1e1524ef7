# =============================================================================
# Source : fbpic/fbpic, fbpic/fields/cuda_methods.py, kernels `cuda_correct_currents_curlfree_comoving`, `cuda_correct_currents_crossdeposition_comoving`
#          https://github.com/fbpic/fbpic/blob/9022006d980a022aa4d3ca7394203efc413bbef2/fbpic/fields/cuda_methods.py
# License: BSD-3-Clause-LBNL (FBPIC)
# Project: FBPIC (real)
# What   : Galilean/comoving spectral current correction: complex coefficient arrays, divisions guarded by k != 0.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda


@cuda.jit
def cuda_correct_currents_curlfree_comoving( rho_prev, rho_next, Jp, Jm, Jz,
                            kz, kr, inv_k2,
                            j_corr_coef, T_eb, T_cc,
                            inv_dt, Nz, Nr ) :
    """
    Correct the currents in spectral space, using the curl-free correction
    which is adapted to the galilean/comoving-currents assumption
    """
    # Cuda 2D grid
    iz, ir = cuda.grid(2)

    # Perform the current correction
    if (iz < Nz) and (ir < Nr) :

        # Calculate the intermediate variable F
        F = - inv_k2[iz, ir] * ( T_cc[iz, ir]*j_corr_coef[iz, ir] \
            * (rho_next[iz, ir] - rho_prev[iz, ir]*T_eb[iz, ir]) \
            + 1.j*kz[iz, ir]*Jz[iz, ir] \
            + kr[iz, ir]*( Jp[iz, ir] - Jm[iz, ir] ) )

        # Correct the currents accordingly
        Jp[iz, ir] +=  0.5 * kr[iz, ir] * F
        Jm[iz, ir] += -0.5 * kr[iz, ir] * F
        Jz[iz, ir] += -1.j * kz[iz, ir] * F

@cuda.jit
def cuda_correct_currents_crossdeposition_comoving(
        rho_prev, rho_next, rho_next_z, rho_next_xy, Jp, Jm, Jz,
        kz, kr, j_corr_coef, T_eb, T_cc, inv_dt, Nz, Nr ) :
    """
    Correct the currents in spectral space, using the cross-deposition
    algorithm adapted to the galilean/comoving-currents assumption.
    """
    # Cuda 2D grid
    iz, ir = cuda.grid(2)

    # Perform the current correction
    if (iz < Nz) and (ir < Nr) :

        # Calculate the intermediate variable Dz and Dxy
        # (Such that Dz + Dxy is the error in the continuity equation)
        Dz = 1.j*kz[iz, ir]*Jz[iz, ir] \
            + 0.5 * T_cc[iz, ir]*j_corr_coef[iz, ir] * \
            ( rho_next[iz, ir] - T_eb[iz, ir] * rho_next_xy[iz, ir] \
              + rho_next_z[iz, ir] - T_eb[iz, ir] * rho_prev[iz, ir] )
        Dxy = kr[iz, ir]*( Jp[iz, ir] - Jm[iz, ir] ) \
            + 0.5 * T_cc[iz, ir]*j_corr_coef[iz, ir] * \
            ( rho_next[iz, ir] + T_eb[iz, ir] * rho_next_xy[iz, ir] \
            - rho_next_z[iz, ir] -  T_eb[iz, ir] * rho_prev[iz, ir] )

        # Correct the currents accordingly
        if kr[iz, ir] != 0:
            inv_kr = 1./kr[iz, ir]
            Jp[iz, ir] += -0.5 * Dxy * inv_kr
            Jm[iz, ir] +=  0.5 * Dxy * inv_kr
        if kz[iz, ir] != 0:
            inv_kz = 1./kz[iz, ir]
            Jz[iz, ir] += 1.j * Dz * inv_kz
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda


@cuda.jit
def cuda_correct_currents_curlfree_comoving( rho_prev, rho_next, Jp, Jm, Jz,
                            kz, kr, inv_k2,
                            j_corr_coef, T_eb, T_cc,
                            inv_dt, Nz, Nr ) :
    """
    Correct the currents in spectral space, using the curl-free correction
    which is adapted to the galilean/comoving-currents assumption
    """
    # Cuda 2D grid
    iz, ir = cuda.grid(2)

    # Perform the current correction
    if (iz < Nz) and (ir < Nr) :

        # Calculate the intermediate variable F
        F = - inv_k2[iz, ir] * ( T_cc[iz, ir]*j_corr_coef[iz, ir] \
            * (rho_next[iz, ir] - rho_prev[iz, ir]*T_eb[iz, ir]) \
            + 1.j*kz[iz, ir]*Jz[iz, ir] \
            + kr[iz, ir]*( Jp[iz, ir] - Jm[iz, ir] ) )

        # Correct the currents accordingly
        Jp[iz, ir] +=  0.5 * kr[iz, ir] * F
        Jm[iz, ir] += -0.5 * kr[iz, ir] * F
        Jz[iz, ir] += -1.j * kz[iz, ir] * F

@cuda.jit
def cuda_correct_currents_crossdeposition_comoving(
        rho_prev, rho_next, rho_next_z, rho_next_xy, Jp, Jm, Jz,
        kz, kr, j_corr_coef, T_eb, T_cc, inv_dt, Nz, Nr ) :
    """
    Correct the currents in spectral space, using the cross-deposition
    algorithm adapted to the galilean/comoving-currents assumption.
    """
    # Cuda 2D grid
    iz, ir = cuda.grid(2)

    # Perform the current correction
    if (iz < Nz) and (ir < Nr) :

        # Calculate the intermediate variable Dz and Dxy
        # (Such that Dz + Dxy is the error in the continuity equation)
        Dz = 1.j*kz[iz, ir]*Jz[iz, ir] \
            + 0.5 * T_cc[iz, ir]*j_corr_coef[iz, ir] * \
            ( rho_next[iz, ir] - T_eb[iz, ir] * rho_next_xy[iz, ir] \
              + rho_next_z[iz, ir] - T_eb[iz, ir] * rho_prev[iz, ir] )
        Dxy = kr[iz, ir]*( Jp[iz, ir] - Jm[iz, ir] ) \
            + 0.5 * T_cc[iz, ir]*j_corr_coef[iz, ir] * \
            ( rho_next[iz, ir] + T_eb[iz, ir] * rho_next_xy[iz, ir] \
            - rho_next_z[iz, ir] -  T_eb[iz, ir] * rho_prev[iz, ir] )

        # Correct the currents accordingly
        if kr[iz, ir] != 0:
            inv_kr = 1./kr[iz, ir]
            Jp[iz, ir] += -0.5 * Dxy * inv_kr
            Jm[iz, ir] +=  0.5 * Dxy * inv_kr
        if kz[iz, ir] != 0:
            inv_kz = 1./kz[iz, ir]
            Jz[iz, ir] += 1.j * Dz * inv_kz


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    Nz, Nr = 8, 20
    c = lambda: rng.standard_normal((Nz, Nr)) + 1j * rng.standard_normal((Nz, Nr))
    r = lambda: rng.standard_normal((Nz, Nr))
    kz, kr = r(), r()
    kz[1, :] = 0.0
    kr[:, 2] = 0.0
    inv_k2 = 1.0 / (1.0 + kz**2 + kr**2)
    return [c(), c(), c(), c(), c(), kz, kr, inv_k2, c(), c(), c(), 0.7,
            c(), c(), c(), c(), c(), c(), c()]


def reference(rp, rn, Jp, Jm, Jz, kz, kr, inv_k2, jc, Teb, Tcc, inv_dt, rp2, rn2, rnz, rnxy, Jp2, Jm2, Jz2):
    F = -inv_k2 * (Tcc * jc * (rn - rp * Teb) + 1j * kz * Jz + kr * (Jp - Jm))
    out = {"Jp": Jp + 0.5 * kr * F, "Jm": Jm - 0.5 * kr * F, "Jz": Jz - 1j * kz * F}
    Dz = 1j * kz * Jz2 + 0.5 * Tcc * jc * (rn2 - Teb * rnxy + rnz - Teb * rp2)
    Dxy = kr * (Jp2 - Jm2) + 0.5 * Tcc * jc * (rn2 + Teb * rnxy - rnz - Teb * rp2)
    with np.errstate(divide="ignore", invalid="ignore"):
        out["Jp2"] = np.where(kr != 0, Jp2 - 0.5 * Dxy / kr, Jp2)
        out["Jm2"] = np.where(kr != 0, Jm2 + 0.5 * Dxy / kr, Jm2)
        out["Jz2"] = np.where(kz != 0, Jz2 + 1j * Dz / kz, Jz2)
    return out


def run(rp, rn, Jp, Jm, Jz, kz, kr, inv_k2, jc, Teb, Tcc, inv_dt, rp2, rn2, rnz, rnxy, Jp2, Jm2, Jz2):
    Nz, Nr = rp.shape
    bpg, tpb = (Nz + 1, Nr // 16 + 1), (1, 16)
    cuda_correct_currents_curlfree_comoving[bpg, tpb](rp, rn, Jp, Jm, Jz, kz, kr, inv_k2, jc, Teb, Tcc, inv_dt, Nz, Nr)
    cuda_correct_currents_crossdeposition_comoving[bpg, tpb](rp2, rn2, rnz, rnxy, Jp2, Jm2, Jz2, kz, kr, jc, Teb, Tcc,
                                                            inv_dt, Nz, Nr)


CASE = dict(kernel="cuda_correct_currents_curlfree_comoving", griddim=(9, 2), blockdim=(1, 16),
            args=["rp", "rn", "Jp", "Jm", "Jz", "kz", "kr", "inv_k2", "jc", "Teb", "Tcc", "inv_dt",
                  "rp2", "rn2", "rnz", "rnxy", "Jp2", "Jm2", "Jz2"],
            outputs=["Jp", "Jm", "Jz", "Jp2", "Jm2", "Jz2"], rtol=1e-12, atol=1e-12)
