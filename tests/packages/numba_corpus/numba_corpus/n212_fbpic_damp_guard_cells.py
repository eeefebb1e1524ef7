# =============================================================================
# Source : fbpic/fbpic, fbpic/boundaries/cuda_methods.py, kernels `cuda_damp_EB_left`, `cuda_damp_EB_left_pml`, `cuda_damp_EB_right`, `cuda_damp_EB_right_pml`
#          https://github.com/fbpic/fbpic/blob/9022006d980a022aa4d3ca7394203efc413bbef2/fbpic/boundaries/cuda_methods.py
# License: BSD-3-Clause-LBNL (FBPIC)
# Project: FBPIC (real)
# What   : multiply complex E/B fields (and PML components) in the left/right guard cells by real damping factors.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda


@cuda.jit
def cuda_damp_EB_left( Er, Et, Ez, Br, Bt, Bz, damp_array, nd ):
    """
    Multiply the E and B fields in the left guard cells
    by damp_array.

    Parameters :
    ------------
    Er, Et, Ez, Br, Bt, Bz: 2darrays of complexs
        Contain the fields to be damped
        The first axis corresponds to z and the second to r

    damp_array : 1darray of floats
        An array of length n_guard+nz_damp+n_inject,
        which contains the damping factors.

    nd: int
        Number of damping and guard cells
    """
    # Obtain Cuda grid
    iz, ir = cuda.grid(2)

    # Obtain the size of the array along z and r
    Nz, Nr = Er.shape

    # Modify the fields
    if ir < Nr :
        # Apply the damping arrays
        if iz < nd:
            damp_factor_left = damp_array[iz]

            # At the left end
            Er[iz, ir] *= damp_factor_left
            Et[iz, ir] *= damp_factor_left
            Ez[iz, ir] *= damp_factor_left
            Br[iz, ir] *= damp_factor_left
            Bt[iz, ir] *= damp_factor_left
            Bz[iz, ir] *= damp_factor_left

@cuda.jit
def cuda_damp_EB_left_pml( Er_pml, Et_pml, Br_pml, Bt_pml, damp_array, nd ):
    """
    Multiply the E and B fields in the left guard cells
    by damp_array.

    Parameters :
    ------------
    Er_pml, Et_pml, Br_pml, Bt_pml: 2darrays of complexs
        Contain the fields to be damped
        The first axis corresponds to z and the second to r

    damp_array : 1darray of floats
        An array of length n_guard+nz_damp+n_inject,
        which contains the damping factors.

    nd: int
        Number of damping and guard cells
    """
    # Obtain Cuda grid
    iz, ir = cuda.grid(2)

    # Obtain the size of the array along z and r
    Nz, Nr = Er_pml.shape

    # Modify the fields
    if ir < Nr :
        # Apply the damping arrays
        if iz < nd:
            damp_factor_left = damp_array[iz]

            # At the left end
            Er_pml[iz, ir] *= damp_factor_left
            Et_pml[iz, ir] *= damp_factor_left
            Br_pml[iz, ir] *= damp_factor_left
            Bt_pml[iz, ir] *= damp_factor_left

@cuda.jit
def cuda_damp_EB_right( Er, Et, Ez, Br, Bt, Bz, damp_array, nd ):
    """
    Multiply the E and B fields in the right guard cells
    by damp_array.

    Parameters :
    ------------
    Er, Et, Ez, Br, Bt, Bz : 2darrays of complexs
        Contain the fields to be damped
        The first axis corresponds to z and the second to r

    damp_array : 1darray of floats
        An array of length n_guard+nz_damp+n_inject,
        which contains the damping factors.

    nd: int
        Number of damping and guard cells
    """
    # Obtain Cuda grid
    iz, ir = cuda.grid(2)

    # Obtain the size of the array along z and r
    Nz, Nr = Er.shape

    # Modify the fields
    if ir < Nr :
        # Apply the damping arrays
        if iz < nd:
            damp_factor_right = damp_array[iz]

            # At the right end
            iz_right = Nz - iz - 1
            Er[iz_right, ir] *= damp_factor_right
            Et[iz_right, ir] *= damp_factor_right
            Ez[iz_right, ir] *= damp_factor_right
            Br[iz_right, ir] *= damp_factor_right
            Bt[iz_right, ir] *= damp_factor_right
            Bz[iz_right, ir] *= damp_factor_right


@cuda.jit
def cuda_damp_EB_right_pml( Er_pml, Et_pml, Br_pml, Bt_pml, damp_array, nd ):
    """
    Multiply the E and B fields in the right guard cells
    by damp_array.

    Parameters :
    ------------
    Er_pml, Et_pml, Br_pml, Bt_pml: 2darrays of complexs
        Contain the fields to be damped
        The first axis corresponds to z and the second to r

    damp_array : 1darray of floats
        An array of length n_guard+nz_damp+n_inject,
        which contains the damping factors.

    nd: int
        Number of damping and guard cells
    """
    # Obtain Cuda grid
    iz, ir = cuda.grid(2)

    # Obtain the size of the array along z and r
    Nz, Nr = Er_pml.shape

    # Modify the fields
    if ir < Nr :
        # Apply the damping arrays
        if iz < nd:
            damp_factor_right = damp_array[iz]

            # At the right end
            iz_right = Nz - iz - 1
            Er_pml[iz_right, ir] *= damp_factor_right
            Et_pml[iz_right, ir] *= damp_factor_right
            Br_pml[iz_right, ir] *= damp_factor_right
            Bt_pml[iz_right, ir] *= damp_factor_right
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda


@cuda.jit
def cuda_damp_EB_left( Er, Et, Ez, Br, Bt, Bz, damp_array, nd ):
    """
    Multiply the E and B fields in the left guard cells
    by damp_array.

    Parameters :
    ------------
    Er, Et, Ez, Br, Bt, Bz: 2darrays of complexs
        Contain the fields to be damped
        The first axis corresponds to z and the second to r

    damp_array : 1darray of floats
        An array of length n_guard+nz_damp+n_inject,
        which contains the damping factors.

    nd: int
        Number of damping and guard cells
    """
    # Obtain Cuda grid
    iz, ir = cuda.grid(2)

    # Obtain the size of the array along z and r
    Nz, Nr = Er.shape

    # Modify the fields
    if ir < Nr :
        # Apply the damping arrays
        if iz < nd:
            damp_factor_left = damp_array[iz]

            # At the left end
            Er[iz, ir] *= damp_factor_left
            Et[iz, ir] *= damp_factor_left
            Ez[iz, ir] *= damp_factor_left
            Br[iz, ir] *= damp_factor_left
            Bt[iz, ir] *= damp_factor_left
            Bz[iz, ir] *= damp_factor_left

@cuda.jit
def cuda_damp_EB_left_pml( Er_pml, Et_pml, Br_pml, Bt_pml, damp_array, nd ):
    """
    Multiply the E and B fields in the left guard cells
    by damp_array.

    Parameters :
    ------------
    Er_pml, Et_pml, Br_pml, Bt_pml: 2darrays of complexs
        Contain the fields to be damped
        The first axis corresponds to z and the second to r

    damp_array : 1darray of floats
        An array of length n_guard+nz_damp+n_inject,
        which contains the damping factors.

    nd: int
        Number of damping and guard cells
    """
    # Obtain Cuda grid
    iz, ir = cuda.grid(2)

    # Obtain the size of the array along z and r
    Nz, Nr = Er_pml.shape

    # Modify the fields
    if ir < Nr :
        # Apply the damping arrays
        if iz < nd:
            damp_factor_left = damp_array[iz]

            # At the left end
            Er_pml[iz, ir] *= damp_factor_left
            Et_pml[iz, ir] *= damp_factor_left
            Br_pml[iz, ir] *= damp_factor_left
            Bt_pml[iz, ir] *= damp_factor_left

@cuda.jit
def cuda_damp_EB_right( Er, Et, Ez, Br, Bt, Bz, damp_array, nd ):
    """
    Multiply the E and B fields in the right guard cells
    by damp_array.

    Parameters :
    ------------
    Er, Et, Ez, Br, Bt, Bz : 2darrays of complexs
        Contain the fields to be damped
        The first axis corresponds to z and the second to r

    damp_array : 1darray of floats
        An array of length n_guard+nz_damp+n_inject,
        which contains the damping factors.

    nd: int
        Number of damping and guard cells
    """
    # Obtain Cuda grid
    iz, ir = cuda.grid(2)

    # Obtain the size of the array along z and r
    Nz, Nr = Er.shape

    # Modify the fields
    if ir < Nr :
        # Apply the damping arrays
        if iz < nd:
            damp_factor_right = damp_array[iz]

            # At the right end
            iz_right = Nz - iz - 1
            Er[iz_right, ir] *= damp_factor_right
            Et[iz_right, ir] *= damp_factor_right
            Ez[iz_right, ir] *= damp_factor_right
            Br[iz_right, ir] *= damp_factor_right
            Bt[iz_right, ir] *= damp_factor_right
            Bz[iz_right, ir] *= damp_factor_right


@cuda.jit
def cuda_damp_EB_right_pml( Er_pml, Et_pml, Br_pml, Bt_pml, damp_array, nd ):
    """
    Multiply the E and B fields in the right guard cells
    by damp_array.

    Parameters :
    ------------
    Er_pml, Et_pml, Br_pml, Bt_pml: 2darrays of complexs
        Contain the fields to be damped
        The first axis corresponds to z and the second to r

    damp_array : 1darray of floats
        An array of length n_guard+nz_damp+n_inject,
        which contains the damping factors.

    nd: int
        Number of damping and guard cells
    """
    # Obtain Cuda grid
    iz, ir = cuda.grid(2)

    # Obtain the size of the array along z and r
    Nz, Nr = Er_pml.shape

    # Modify the fields
    if ir < Nr :
        # Apply the damping arrays
        if iz < nd:
            damp_factor_right = damp_array[iz]

            # At the right end
            iz_right = Nz - iz - 1
            Er_pml[iz_right, ir] *= damp_factor_right
            Et_pml[iz_right, ir] *= damp_factor_right
            Br_pml[iz_right, ir] *= damp_factor_right
            Bt_pml[iz_right, ir] *= damp_factor_right


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


NZ, NR, ND = 16, 12, 5


def make_args(rng):
    c = lambda: rng.standard_normal((NZ, NR)) + 1j * rng.standard_normal((NZ, NR))
    return [c() for _ in range(6)] + [c() for _ in range(4)] + [rng.random(ND)]


def reference(Er, Et, Ez, Br, Bt, Bz, Pr, Pt, Qr, Qt, damp):
    out = {}
    for name, f in zip(["Er", "Et", "Ez", "Br", "Bt", "Bz"], [Er, Et, Ez, Br, Bt, Bz]):
        f[:ND] *= damp[:, None]
        f[NZ - ND:] *= damp[::-1, None]
        out[name] = f
    for name, f in zip(["Pr", "Pt", "Qr", "Qt"], [Pr, Pt, Qr, Qt]):
        f[:ND] *= damp[:, None]
        f[NZ - ND:] *= damp[::-1, None]
        out[name] = f
    return out


def run(Er, Et, Ez, Br, Bt, Bz, Pr, Pt, Qr, Qt, damp):
    bpg, tpb = (NZ + 1, NR // 16 + 1), (1, 16)
    cuda_damp_EB_left[bpg, tpb](Er, Et, Ez, Br, Bt, Bz, damp, ND)
    cuda_damp_EB_right[bpg, tpb](Er, Et, Ez, Br, Bt, Bz, damp, ND)
    cuda_damp_EB_left_pml[bpg, tpb](Pr, Pt, Qr, Qt, damp, ND)
    cuda_damp_EB_right_pml[bpg, tpb](Pr, Pt, Qr, Qt, damp, ND)


CASE = dict(kernel="cuda_damp_EB_left", griddim=(17, 1), blockdim=(1, 16),
            args=["Er", "Et", "Ez", "Br", "Bt", "Bz", "Pr", "Pt", "Qr", "Qt", "damp"],
            outputs=["Er", "Et", "Ez", "Br", "Bt", "Bz", "Pr", "Pt", "Qr", "Qt"])
