# =============================================================================
# Source : fbpic/fbpic, fbpic/boundaries/cuda_methods.py, kernels `copy_EB_to_gpu_buffers`, `copy_EB_from_gpu_buffers` (fbpic 0.2.0)
#          https://github.com/fbpic/fbpic/blob/1288419d44407aead8a111c4e4e19be5b86da072/fbpic/boundaries/cuda_methods.py
# License: BSD-3-Clause-LBNL (FBPIC)
# Project: FBPIC (real)
# What   : eager 17-argument signature (complex128 3-D buffers, twelve 2-D fields, int32 flags): pack/unpack E,B guard cells.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda


@cuda.jit('void( complex128[:,:,:], complex128[:,:,:], \
                 complex128[:,:], complex128[:,:], complex128[:,:], \
                 complex128[:,:], complex128[:,:], complex128[:,:], \
                 complex128[:,:], complex128[:,:], complex128[:,:], \
                 complex128[:,:], complex128[:,:], complex128[:,:], \
                 int32, int32, int32 )')
def copy_EB_to_gpu_buffers( EB_left, EB_right,
                            Er0, Et0, Ez0, Br0, Bt0, Bz0,
                            Er1, Et1, Ez1, Br1, Bt1, Bz1,
                            copy_left, copy_right, ng ):
    """
    Copy the ng inner domain cells of Er0, ..., Bz1
    to the GPU buffer EB_left and EB_right

    Parameters
    ----------
    EB_left, EB_right: ndarrays of complexs (device arrays)
        Arrays of shape (12, ng, Nr), which serve as buffer for transmission
        to CPU, and then sending via MPI. They are to hold the values of
        E&B in the ng inner cells of the domain, to the left and right.

    Er0, Et0, Ez0, Er1, Et1, Ez1: ndarrays of complexs (device arrays)
        Arrays of shape (Nz, Nr), which contain the different component
        of the E field, in the modes 0 and 1.

    Br0, Bt0, Bz0, Br1, Bt1, Bz1: ndarrays of complexs (device arrays)
        Arrays of shape (Nz, Nr), which contain the different component
        of the B field, in the modes 0 and 1.

    copy_left, copy_right: bool
        Whether to copy the buffers to the left and right of the local domain
        (Buffers are not copied at the left end and right end of the
        global simulation box.)

    ng: int
        Number of guard cells in the longitudinal direction
    """
    # Dimension of the arrays
    Nz, Nr = Er0.shape

    # Obtain Cuda grid
    iz, ir = cuda.grid(2)

    # Offset between modes, for the EB buffer
    offset = 6
    
    # Copy the inner regions of the domain to the buffer
    if ir < Nr:
        if iz < ng:
            # At the left end
            if copy_left:
                iz_left = ng + iz
                EB_left[0, iz, ir] = Er0[ iz_left, ir ]
                EB_left[1, iz, ir] = Et0[ iz_left, ir ]
                EB_left[2, iz, ir] = Ez0[ iz_left, ir ]
                EB_left[3, iz, ir] = Br0[ iz_left, ir ]
                EB_left[4, iz, ir] = Bt0[ iz_left, ir ]
                EB_left[5, iz, ir] = Bz0[ iz_left, ir ]
                EB_left[0+offset, iz, ir] = Er1[ iz_left, ir ]
                EB_left[1+offset, iz, ir] = Et1[ iz_left, ir ]
                EB_left[2+offset, iz, ir] = Ez1[ iz_left, ir ]
                EB_left[3+offset, iz, ir] = Br1[ iz_left, ir ]
                EB_left[4+offset, iz, ir] = Bt1[ iz_left, ir ]
                EB_left[5+offset, iz, ir] = Bz1[ iz_left, ir ]
            # At the right end
            if copy_right:
                iz_right = Nz - 2*ng + iz
                EB_right[0, iz, ir] = Er0[ iz_right, ir ]
                EB_right[1, iz, ir] = Et0[ iz_right, ir ]
                EB_right[2, iz, ir] = Ez0[ iz_right, ir ]
                EB_right[3, iz, ir] = Br0[ iz_right, ir ]
                EB_right[4, iz, ir] = Bt0[ iz_right, ir ]
                EB_right[5, iz, ir] = Bz0[ iz_right, ir ]
                EB_right[0+offset, iz, ir] = Er1[ iz_right, ir ]
                EB_right[1+offset, iz, ir] = Et1[ iz_right, ir ]
                EB_right[2+offset, iz, ir] = Ez1[ iz_right, ir ]
                EB_right[3+offset, iz, ir] = Br1[ iz_right, ir ]
                EB_right[4+offset, iz, ir] = Bt1[ iz_right, ir ]
                EB_right[5+offset, iz, ir] = Bz1[ iz_right, ir ]

        
@cuda.jit('void( complex128[:,:,:], complex128[:,:,:], \
                 complex128[:,:], complex128[:,:], complex128[:,:], \
                 complex128[:,:], complex128[:,:], complex128[:,:], \
                 complex128[:,:], complex128[:,:], complex128[:,:], \
                 complex128[:,:], complex128[:,:], complex128[:,:], \
                 int32, int32, int32 )')
def copy_EB_from_gpu_buffers( EB_left, EB_right,
                            Er0, Et0, Ez0, Br0, Bt0, Bz0,
                            Er1, Et1, Ez1, Br1, Bt1, Bz1,
                            copy_left, copy_right, ng ):
    """
    Copy the GPU buffer EB_left and EB_right to the ng guards
    cells of Er0, ..., Bz1

    Parameters
    ----------
    EB_left, EB_right: ndarrays of complexs (device arrays)
        Arrays of shape (12, ng, Nr), which serve as buffer for transmission
        from CPU, and after receiving via MPI. They hold the values of
        E&B in the ng inner cells of the domain, to the left and right.

    Er0, Et0, Ez0, Er1, Et1, Ez1: ndarrays of complexs (device arrays)
        Arrays of shape (Nz, Nr), which contain the different components
        of the E field, in the modes 0 and 1.

    Br0, Bt0, Bz0, Br1, Bt1, Bz1: ndarrays of complexs (device arrays)
        Arrays of shape (Nz, Nr), which contain the different components
        of the B field, in the modes 0 and 1.

    copy_left, copy_right: bool
        Whether to copy the buffers to the left and right of the local domain
        (Buffers are not copied at the left end and right end of the
        global simulation box.)

    ng: int
        Number of guard cells in the longitudinal direction
    """
    # Dimension of the arrays
    Nz, Nr = Er0.shape

    # Obtain Cuda grid
    iz, ir = cuda.grid(2)

    # Offset between modes, for the EB buffer
    offset = 6
    
    # Copy the GPU buffers to the guard cells of the domain
    if ir < Nr:
        if iz < ng:
            # At the left end
            if copy_left:
                iz_left = iz
                Er0[ iz_left, ir ] = EB_left[0, iz, ir]
                Et0[ iz_left, ir ] = EB_left[1, iz, ir]
                Ez0[ iz_left, ir ] = EB_left[2, iz, ir]
                Br0[ iz_left, ir ] = EB_left[3, iz, ir]
                Bt0[ iz_left, ir ] = EB_left[4, iz, ir]
                Bz0[ iz_left, ir ] = EB_left[5, iz, ir]
                Er1[ iz_left, ir ] = EB_left[0+offset, iz, ir]
                Et1[ iz_left, ir ] = EB_left[1+offset, iz, ir]
                Ez1[ iz_left, ir ] = EB_left[2+offset, iz, ir]
                Br1[ iz_left, ir ] = EB_left[3+offset, iz, ir]
                Bt1[ iz_left, ir ] = EB_left[4+offset, iz, ir]
                Bz1[ iz_left, ir ] = EB_left[5+offset, iz, ir]
            # At the right end
            if copy_right:
                iz_right = Nz - ng + iz
                Er0[ iz_right, ir ] = EB_right[0, iz, ir]
                Et0[ iz_right, ir ] = EB_right[1, iz, ir]
                Ez0[ iz_right, ir ] = EB_right[2, iz, ir]
                Br0[ iz_right, ir ] = EB_right[3, iz, ir]
                Bt0[ iz_right, ir ] = EB_right[4, iz, ir]
                Bz0[ iz_right, ir ] = EB_right[5, iz, ir]
                Er1[ iz_right, ir ] = EB_right[0+offset, iz, ir]
                Et1[ iz_right, ir ] = EB_right[1+offset, iz, ir]
                Ez1[ iz_right, ir ] = EB_right[2+offset, iz, ir]
                Br1[ iz_right, ir ] = EB_right[3+offset, iz, ir]
                Bt1[ iz_right, ir ] = EB_right[4+offset, iz, ir]
                Bz1[ iz_right, ir ] = EB_right[5+offset, iz, ir]
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda


@cuda.jit('void( complex128[:,:,:], complex128[:,:,:], \
                 complex128[:,:], complex128[:,:], complex128[:,:], \
                 complex128[:,:], complex128[:,:], complex128[:,:], \
                 complex128[:,:], complex128[:,:], complex128[:,:], \
                 complex128[:,:], complex128[:,:], complex128[:,:], \
                 int32, int32, int32 )')
def copy_EB_to_gpu_buffers( EB_left, EB_right,
                            Er0, Et0, Ez0, Br0, Bt0, Bz0,
                            Er1, Et1, Ez1, Br1, Bt1, Bz1,
                            copy_left, copy_right, ng ):
    """
    Copy the ng inner domain cells of Er0, ..., Bz1
    to the GPU buffer EB_left and EB_right

    Parameters
    ----------
    EB_left, EB_right: ndarrays of complexs (device arrays)
        Arrays of shape (12, ng, Nr), which serve as buffer for transmission
        to CPU, and then sending via MPI. They are to hold the values of
        E&B in the ng inner cells of the domain, to the left and right.

    Er0, Et0, Ez0, Er1, Et1, Ez1: ndarrays of complexs (device arrays)
        Arrays of shape (Nz, Nr), which contain the different component
        of the E field, in the modes 0 and 1.

    Br0, Bt0, Bz0, Br1, Bt1, Bz1: ndarrays of complexs (device arrays)
        Arrays of shape (Nz, Nr), which contain the different component
        of the B field, in the modes 0 and 1.

    copy_left, copy_right: bool
        Whether to copy the buffers to the left and right of the local domain
        (Buffers are not copied at the left end and right end of the
        global simulation box.)

    ng: int
        Number of guard cells in the longitudinal direction
    """
    # Dimension of the arrays
    Nz, Nr = Er0.shape

    # Obtain Cuda grid
    iz, ir = cuda.grid(2)

    # Offset between modes, for the EB buffer
    offset = 6
    
    # Copy the inner regions of the domain to the buffer
    if ir < Nr:
        if iz < ng:
            # At the left end
            if copy_left:
                iz_left = ng + iz
                EB_left[0, iz, ir] = Er0[ iz_left, ir ]
                EB_left[1, iz, ir] = Et0[ iz_left, ir ]
                EB_left[2, iz, ir] = Ez0[ iz_left, ir ]
                EB_left[3, iz, ir] = Br0[ iz_left, ir ]
                EB_left[4, iz, ir] = Bt0[ iz_left, ir ]
                EB_left[5, iz, ir] = Bz0[ iz_left, ir ]
                EB_left[0+offset, iz, ir] = Er1[ iz_left, ir ]
                EB_left[1+offset, iz, ir] = Et1[ iz_left, ir ]
                EB_left[2+offset, iz, ir] = Ez1[ iz_left, ir ]
                EB_left[3+offset, iz, ir] = Br1[ iz_left, ir ]
                EB_left[4+offset, iz, ir] = Bt1[ iz_left, ir ]
                EB_left[5+offset, iz, ir] = Bz1[ iz_left, ir ]
            # At the right end
            if copy_right:
                iz_right = Nz - 2*ng + iz
                EB_right[0, iz, ir] = Er0[ iz_right, ir ]
                EB_right[1, iz, ir] = Et0[ iz_right, ir ]
                EB_right[2, iz, ir] = Ez0[ iz_right, ir ]
                EB_right[3, iz, ir] = Br0[ iz_right, ir ]
                EB_right[4, iz, ir] = Bt0[ iz_right, ir ]
                EB_right[5, iz, ir] = Bz0[ iz_right, ir ]
                EB_right[0+offset, iz, ir] = Er1[ iz_right, ir ]
                EB_right[1+offset, iz, ir] = Et1[ iz_right, ir ]
                EB_right[2+offset, iz, ir] = Ez1[ iz_right, ir ]
                EB_right[3+offset, iz, ir] = Br1[ iz_right, ir ]
                EB_right[4+offset, iz, ir] = Bt1[ iz_right, ir ]
                EB_right[5+offset, iz, ir] = Bz1[ iz_right, ir ]

        
@cuda.jit('void( complex128[:,:,:], complex128[:,:,:], \
                 complex128[:,:], complex128[:,:], complex128[:,:], \
                 complex128[:,:], complex128[:,:], complex128[:,:], \
                 complex128[:,:], complex128[:,:], complex128[:,:], \
                 complex128[:,:], complex128[:,:], complex128[:,:], \
                 int32, int32, int32 )')
def copy_EB_from_gpu_buffers( EB_left, EB_right,
                            Er0, Et0, Ez0, Br0, Bt0, Bz0,
                            Er1, Et1, Ez1, Br1, Bt1, Bz1,
                            copy_left, copy_right, ng ):
    """
    Copy the GPU buffer EB_left and EB_right to the ng guards
    cells of Er0, ..., Bz1

    Parameters
    ----------
    EB_left, EB_right: ndarrays of complexs (device arrays)
        Arrays of shape (12, ng, Nr), which serve as buffer for transmission
        from CPU, and after receiving via MPI. They hold the values of
        E&B in the ng inner cells of the domain, to the left and right.

    Er0, Et0, Ez0, Er1, Et1, Ez1: ndarrays of complexs (device arrays)
        Arrays of shape (Nz, Nr), which contain the different components
        of the E field, in the modes 0 and 1.

    Br0, Bt0, Bz0, Br1, Bt1, Bz1: ndarrays of complexs (device arrays)
        Arrays of shape (Nz, Nr), which contain the different components
        of the B field, in the modes 0 and 1.

    copy_left, copy_right: bool
        Whether to copy the buffers to the left and right of the local domain
        (Buffers are not copied at the left end and right end of the
        global simulation box.)

    ng: int
        Number of guard cells in the longitudinal direction
    """
    # Dimension of the arrays
    Nz, Nr = Er0.shape

    # Obtain Cuda grid
    iz, ir = cuda.grid(2)

    # Offset between modes, for the EB buffer
    offset = 6
    
    # Copy the GPU buffers to the guard cells of the domain
    if ir < Nr:
        if iz < ng:
            # At the left end
            if copy_left:
                iz_left = iz
                Er0[ iz_left, ir ] = EB_left[0, iz, ir]
                Et0[ iz_left, ir ] = EB_left[1, iz, ir]
                Ez0[ iz_left, ir ] = EB_left[2, iz, ir]
                Br0[ iz_left, ir ] = EB_left[3, iz, ir]
                Bt0[ iz_left, ir ] = EB_left[4, iz, ir]
                Bz0[ iz_left, ir ] = EB_left[5, iz, ir]
                Er1[ iz_left, ir ] = EB_left[0+offset, iz, ir]
                Et1[ iz_left, ir ] = EB_left[1+offset, iz, ir]
                Ez1[ iz_left, ir ] = EB_left[2+offset, iz, ir]
                Br1[ iz_left, ir ] = EB_left[3+offset, iz, ir]
                Bt1[ iz_left, ir ] = EB_left[4+offset, iz, ir]
                Bz1[ iz_left, ir ] = EB_left[5+offset, iz, ir]
            # At the right end
            if copy_right:
                iz_right = Nz - ng + iz
                Er0[ iz_right, ir ] = EB_right[0, iz, ir]
                Et0[ iz_right, ir ] = EB_right[1, iz, ir]
                Ez0[ iz_right, ir ] = EB_right[2, iz, ir]
                Br0[ iz_right, ir ] = EB_right[3, iz, ir]
                Bt0[ iz_right, ir ] = EB_right[4, iz, ir]
                Bz0[ iz_right, ir ] = EB_right[5, iz, ir]
                Er1[ iz_right, ir ] = EB_right[0+offset, iz, ir]
                Et1[ iz_right, ir ] = EB_right[1+offset, iz, ir]
                Ez1[ iz_right, ir ] = EB_right[2+offset, iz, ir]
                Br1[ iz_right, ir ] = EB_right[3+offset, iz, ir]
                Bt1[ iz_right, ir ] = EB_right[4+offset, iz, ir]
                Bz1[ iz_right, ir ] = EB_right[5+offset, iz, ir]


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


NZ, NR, NG = 14, 10, 3
NAMES = ["Er0", "Et0", "Ez0", "Br0", "Bt0", "Bz0", "Er1", "Et1", "Ez1", "Br1", "Bt1", "Bz1"]


def make_args(rng):
    c = lambda *s: rng.standard_normal(s) + 1j * rng.standard_normal(s)
    z = lambda *s: np.zeros(s, dtype=np.complex128)
    return ([z(12, NG, NR), z(12, NG, NR)] + [c(NZ, NR) for _ in NAMES] +
            [c(12, NG, NR), c(12, NG, NR)] + [c(NZ, NR) for _ in NAMES])


def reference(*a):
    bl, br, src, cl, cr, dst = a[0], a[1], a[2:14], a[14], a[15], a[16:28]
    for k, f in enumerate(src):
        bl[k] = f[NG:2 * NG]
        br[k] = f[NZ - 2 * NG:NZ - NG]
    for k, f in enumerate(dst):
        f[:NG] = cl[k]
        f[NZ - NG:] = cr[k]
    out = {"bl": bl, "br": br}
    out.update({"d" + n: f for n, f in zip(NAMES, dst)})
    return out


def run(*a):
    bpg, tpb = (NG + 1, NR // 16 + 1), (1, 16)
    copy_EB_to_gpu_buffers[bpg, tpb](a[0], a[1], *a[2:14], 1, 1, NG)
    copy_EB_from_gpu_buffers[bpg, tpb](a[14], a[15], *a[16:28], 1, 1, NG)


CASE = dict(kernel="copy_EB_to_gpu_buffers", griddim=(4, 1), blockdim=(1, 16),
            args=["bl", "br"] + ["s" + n for n in NAMES] + ["cl", "cr"] + ["d" + n for n in NAMES],
            outputs=["bl", "br"] + ["d" + n for n in NAMES])
