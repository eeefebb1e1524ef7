# =============================================================================
# Source : fbpic/fbpic, fbpic/boundaries/cuda_methods.py, kernels `copy_scal_to_gpu_buffer`, `replace_scal_from_gpu_buffer`, `add_scal_from_gpu_buffer`
#          https://github.com/fbpic/fbpic/blob/9022006d980a022aa4d3ca7394203efc413bbef2/fbpic/boundaries/cuda_methods.py
# License: BSD-3-Clause-LBNL (FBPIC)
# Project: FBPIC (real)
# What   : MPI guard-cell exchange for a complex scalar field: pack into per-mode buffers, replace/add back.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda


@cuda.jit
def copy_scal_to_gpu_buffer( scal_buffer_l, scal_buffer_r, grid, m,
                             copy_left, copy_right, nz_start, nz_end ):
    """
    Copy the ng inner domain cells of grid_0, ..., grid_1
    to the GPU buffer scal_buffer_l and scal_buffer_r.

    Parameters
    ----------
    scal_buffer_l, scal_buffer_r: ndarrays of complexs (device arrays)
        Arrays of shape (Nm, nz_end-nz_start, Nr), which serve as buffer
        for transmission to CPU, and then sending via MPI. They hold the
        values of a scalar field in either the ng inner cells of the domain
        or the ng outer + ng inner cells of the domain, to the left and right.

    grid: ndarray of complexs (device arrays)
        Arrays of shape (Nz, Nr), which contain the mode m of the scalar field.

    m: int
        The index of the azimuthal mode involved

    copy_left, copy_right: bool
        Whether to copy the buffers to the left and right of the local domain
        (Buffers are not copied at the left end and right end of the
        global simulation box.)

    nz_start: int
        The start index in z, of the cell region which is copied to the
        buffers. The start is defined as an offset from the most outer cell
        on either the left or the right side of the enlarged domain.

    nz_end: int
        The end index in z, of the cell region which is copied to the
        buffers. The end is defined as an offset from the most outer cell
        on either the left or the right side of the enlarged domain.
    """
    # Dimension of the arrays
    Nz, Nr = grid.shape

    # Obtain Cuda grid
    iz, ir = cuda.grid(2)

    # Copy the inner regions of the domain to the buffer
    if ir < Nr:
        if iz < (nz_end - nz_start):
            # At the left end
            if copy_left:
                iz_left = nz_start + iz
                scal_buffer_l[m, iz, ir] = grid[ iz_left, ir ]
            # At the right end
            if copy_right:
                iz_right = Nz - nz_end + iz
                scal_buffer_r[m, iz, ir] = grid[ iz_right, ir ]


@cuda.jit
def replace_scal_from_gpu_buffer( scal_buffer_l, scal_buffer_r, grid, m,
                                 copy_left, copy_right, nz_start, nz_end ):
    """
    Replace a region (guard region) of grid_0, ..., grid_1
    by the GPU buffer scal_buffer_l and scal_buffer_r.

    Parameters
    ----------
    scal_buffer_l, scal_buffer_r: ndarrays of complexs (device arrays)
        Arrays of shape (2, nz_end-nz_start, Nr), which are the buffers
        sent via MPI and received by the CPU.

    grid: ndarray of complexs (device arrays)
        Arrays of shape (Nz, Nr), which contain the mode m of the scalar field.

    m: int
        The index of the azimuthal mode involved

    copy_left, copy_right: bool
        Whether to copy the buffers to the left and right of the local domain
        (Buffers are not copied at the left end and right end of the
        global simulation box.)

    nz_start: int
        The start index in z, of the cell region which is copied to the
        buffers. The start is defined as an offset from the most outer cell
        on either the left or the right side of the enlarged domain.

    nz_end: int
        The end index in z, of the cell region which is copied to the
        buffers. The end is defined as an offset from the most outer cell
        on either the left or the right side of the enlarged domain.
    """
    # Dimension of the arrays
    Nz, Nr = grid.shape

    # Obtain Cuda grid
    iz, ir = cuda.grid(2)

    # Copy the inner regions of the domain to the buffer
    if ir < Nr:
        if iz < (nz_end - nz_start):
            # At the left end
            if copy_left:
                iz_left = iz
                grid[ iz_left, ir ] = scal_buffer_l[m, iz, ir]
            # At the right end
            if copy_right:
                iz_right = Nz - (nz_end - nz_start) + iz
                grid[ iz_right, ir ] = scal_buffer_r[m, iz, ir]


@cuda.jit
def add_scal_from_gpu_buffer( scal_buffer_l, scal_buffer_r, grid, m,
                              copy_left, copy_right, nz_start, nz_end ):
    """
    Add the the GPU buffer scal_buffer_l and scal_buffer_r
    to the scalar field grids, grid_r, ..., grid_z.

    Parameters
    ----------
    scal_buffer_l, scal_buffer_r: ndarrays of complexs (device arrays)
        Arrays of shape (Nm, nz_end-nz_start, Nr), which are the buffers
        sent via MPI and received by the CPU.

    grid: ndarray of complexs (device arrays)
        Arrays of shape (Nz, Nr), which contain the mode m of the scalar field.

    m: int
        The index of the azimuthal mode involved

    copy_left, copy_right: bool
        Whether to copy the buffers to the left and right of the local domain
        (Buffers are not copied at the left end and right end of the
        global simulation box.)

    nz_start: int
        The start index in z, of the cell region which is copied to the
        buffers. The start is defined as an offset from the most outer cell
        on either the left or the right side of the enlarged domain.

    nz_end: int
        The end index in z, of the cell region which is copied to the
        buffers. The end is defined as an offset from the most outer cell
        on either the left or the right side of the enlarged domain.
    """
    # Dimension of the arrays
    Nz, Nr = grid.shape

    # Obtain Cuda grid
    iz, ir = cuda.grid(2)

    # Copy the inner regions of the domain to the buffer
    if ir < Nr:
        if iz < (nz_end - nz_start):
            # At the left end
            if copy_left:
                iz_left = iz
                grid[ iz_left, ir ] += scal_buffer_l[m, iz, ir]
            # At the right end
            if copy_right:
                iz_right = Nz - (nz_end - nz_start) + iz
                grid[ iz_right, ir ] += scal_buffer_r[m, iz, ir]
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda


@cuda.jit
def copy_scal_to_gpu_buffer( scal_buffer_l, scal_buffer_r, grid, m,
                             copy_left, copy_right, nz_start, nz_end ):
    """
    Copy the ng inner domain cells of grid_0, ..., grid_1
    to the GPU buffer scal_buffer_l and scal_buffer_r.

    Parameters
    ----------
    scal_buffer_l, scal_buffer_r: ndarrays of complexs (device arrays)
        Arrays of shape (Nm, nz_end-nz_start, Nr), which serve as buffer
        for transmission to CPU, and then sending via MPI. They hold the
        values of a scalar field in either the ng inner cells of the domain
        or the ng outer + ng inner cells of the domain, to the left and right.

    grid: ndarray of complexs (device arrays)
        Arrays of shape (Nz, Nr), which contain the mode m of the scalar field.

    m: int
        The index of the azimuthal mode involved

    copy_left, copy_right: bool
        Whether to copy the buffers to the left and right of the local domain
        (Buffers are not copied at the left end and right end of the
        global simulation box.)

    nz_start: int
        The start index in z, of the cell region which is copied to the
        buffers. The start is defined as an offset from the most outer cell
        on either the left or the right side of the enlarged domain.

    nz_end: int
        The end index in z, of the cell region which is copied to the
        buffers. The end is defined as an offset from the most outer cell
        on either the left or the right side of the enlarged domain.
    """
    # Dimension of the arrays
    Nz, Nr = grid.shape

    # Obtain Cuda grid
    iz, ir = cuda.grid(2)

    # Copy the inner regions of the domain to the buffer
    if ir < Nr:
        if iz < (nz_end - nz_start):
            # At the left end
            if copy_left:
                iz_left = nz_start + iz
                scal_buffer_l[m, iz, ir] = grid[ iz_left, ir ]
            # At the right end
            if copy_right:
                iz_right = Nz - nz_end + iz
                scal_buffer_r[m, iz, ir] = grid[ iz_right, ir ]


@cuda.jit
def replace_scal_from_gpu_buffer( scal_buffer_l, scal_buffer_r, grid, m,
                                 copy_left, copy_right, nz_start, nz_end ):
    """
    Replace a region (guard region) of grid_0, ..., grid_1
    by the GPU buffer scal_buffer_l and scal_buffer_r.

    Parameters
    ----------
    scal_buffer_l, scal_buffer_r: ndarrays of complexs (device arrays)
        Arrays of shape (2, nz_end-nz_start, Nr), which are the buffers
        sent via MPI and received by the CPU.

    grid: ndarray of complexs (device arrays)
        Arrays of shape (Nz, Nr), which contain the mode m of the scalar field.

    m: int
        The index of the azimuthal mode involved

    copy_left, copy_right: bool
        Whether to copy the buffers to the left and right of the local domain
        (Buffers are not copied at the left end and right end of the
        global simulation box.)

    nz_start: int
        The start index in z, of the cell region which is copied to the
        buffers. The start is defined as an offset from the most outer cell
        on either the left or the right side of the enlarged domain.

    nz_end: int
        The end index in z, of the cell region which is copied to the
        buffers. The end is defined as an offset from the most outer cell
        on either the left or the right side of the enlarged domain.
    """
    # Dimension of the arrays
    Nz, Nr = grid.shape

    # Obtain Cuda grid
    iz, ir = cuda.grid(2)

    # Copy the inner regions of the domain to the buffer
    if ir < Nr:
        if iz < (nz_end - nz_start):
            # At the left end
            if copy_left:
                iz_left = iz
                grid[ iz_left, ir ] = scal_buffer_l[m, iz, ir]
            # At the right end
            if copy_right:
                iz_right = Nz - (nz_end - nz_start) + iz
                grid[ iz_right, ir ] = scal_buffer_r[m, iz, ir]


@cuda.jit
def add_scal_from_gpu_buffer( scal_buffer_l, scal_buffer_r, grid, m,
                              copy_left, copy_right, nz_start, nz_end ):
    """
    Add the the GPU buffer scal_buffer_l and scal_buffer_r
    to the scalar field grids, grid_r, ..., grid_z.

    Parameters
    ----------
    scal_buffer_l, scal_buffer_r: ndarrays of complexs (device arrays)
        Arrays of shape (Nm, nz_end-nz_start, Nr), which are the buffers
        sent via MPI and received by the CPU.

    grid: ndarray of complexs (device arrays)
        Arrays of shape (Nz, Nr), which contain the mode m of the scalar field.

    m: int
        The index of the azimuthal mode involved

    copy_left, copy_right: bool
        Whether to copy the buffers to the left and right of the local domain
        (Buffers are not copied at the left end and right end of the
        global simulation box.)

    nz_start: int
        The start index in z, of the cell region which is copied to the
        buffers. The start is defined as an offset from the most outer cell
        on either the left or the right side of the enlarged domain.

    nz_end: int
        The end index in z, of the cell region which is copied to the
        buffers. The end is defined as an offset from the most outer cell
        on either the left or the right side of the enlarged domain.
    """
    # Dimension of the arrays
    Nz, Nr = grid.shape

    # Obtain Cuda grid
    iz, ir = cuda.grid(2)

    # Copy the inner regions of the domain to the buffer
    if ir < Nr:
        if iz < (nz_end - nz_start):
            # At the left end
            if copy_left:
                iz_left = iz
                grid[ iz_left, ir ] += scal_buffer_l[m, iz, ir]
            # At the right end
            if copy_right:
                iz_right = Nz - (nz_end - nz_start) + iz
                grid[ iz_right, ir ] += scal_buffer_r[m, iz, ir]


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


NZ, NR, NM, M_, ZS, ZE = 14, 20, 3, 2, 1, 4


def make_args(rng):
    c = lambda *s: rng.standard_normal(s) + 1j * rng.standard_normal(s)
    z = lambda *s: np.zeros(s, dtype=np.complex128)
    return [z(NM, ZE - ZS, NR), z(NM, ZE - ZS, NR), c(NZ, NR),
            c(NM, ZE - ZS, NR), c(NM, ZE - ZS, NR), c(NZ, NR),
            c(NM, ZE - ZS, NR), c(NM, ZE - ZS, NR), c(NZ, NR)]


def reference(bl, br, g, rbl, rbr, rg, abl, abr, ag):
    n = ZE - ZS
    bl[M_] = g[ZS:ZS + n]
    br[M_] = g[NZ - ZE:NZ - ZE + n]
    rg[NZ - n:] = rbr[M_]                          # copy_right only
    ag[:n] += abl[M_]
    ag[NZ - n:] += abr[M_]
    return {"bl": bl, "br": br, "rg": rg, "ag": ag}


def run(bl, br, g, rbl, rbr, rg, abl, abr, ag):
    bpg, tpb = (ZE - ZS + 1, NR // 16 + 1), (1, 16)
    copy_scal_to_gpu_buffer[bpg, tpb](bl, br, g, M_, True, True, ZS, ZE)
    replace_scal_from_gpu_buffer[bpg, tpb](rbl, rbr, rg, M_, False, True, ZS, ZE)
    add_scal_from_gpu_buffer[bpg, tpb](abl, abr, ag, M_, True, True, ZS, ZE)


CASE = dict(kernel="copy_scal_to_gpu_buffer", griddim=(4, 2), blockdim=(1, 16),
            args=["bl", "br", "g", "rbl", "rbr", "rg", "abl", "abr", "ag"], outputs=["bl", "br", "rg", "ag"])
