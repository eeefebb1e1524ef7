# =============================================================================
# Source : fbpic/fbpic, fbpic/particles/utilities/cuda_sorting.py, kernels `incl_prefix_sum`, `prefill_prefix_sum`, `write_sorting_buffer`
#          https://github.com/fbpic/fbpic/blob/9022006d980a022aa4d3ca7394203efc413bbef2/fbpic/particles/utilities/cuda_sorting.py
# License: BSD-3-Clause-LBNL (FBPIC)
# Project: FBPIC (real)
# What   : per-cell particle counts as an inclusive prefix sum over sorted cell indices (while-loop fill); gather by sort index.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda


@cuda.jit
def incl_prefix_sum(cell_idx, prefix_sum):
    """
    Perform an inclusive parallel prefix sum on the sorted
    cell index array. The prefix sum array represents the
    cumulative sum of the number of particles per cell
    for each cell index.

    Parameters
    ----------
    cell_idx : 1darray of integers
        The cell index of the particle

    prefix_sum : 1darray of integers
        Represents the cumulative sum of
        the particles per cell
    """
    # i is the index of the macroparticle
    i = cuda.grid(1)
    if i < cell_idx.shape[0]-1:
        # ci: index of the cell of the present macroparticle
        ci = cell_idx[i]
        # ci_next: index of the cell of the next macroparticle
        ci_next = cell_idx[i+1]
        # Fill all the cells between ci and ci_next with the
        # inclusive cumulative sum of the number particles until ci
        while ci < ci_next:
            # The cumulative sum of the number of particle per cell
            # until ci is i+1 (since i obeys python index, starting at 0)
            prefix_sum[ci] = i+1
            ci += 1


@cuda.jit
def prefill_prefix_sum(cell_idx, prefix_sum, Ntot):
    """
    Prefill the prefix sum array so that:
        - the cells that have a lower index than the cell that contains
        the first particle are set to 0
        - the cells that have a higher index than the cell that contains
        the last particle are set to the total number of particles (Ntot)

    All the cells in between will have their value set by `incl_prefix_sum`

    Parameters
    ----------
    cell_idx : 1darray of integers
        The cell index of the particles
    prefix_sum : 1darray of integers
        Represents the cumulative sum of
        the particles per cell
    Ntot: int
        The total number of particles in the current species
    """
    # One thread per cell
    i = cuda.grid(1)
    if i < prefix_sum.shape[0]:
        if Ntot > 0:
            # Fill the first cells with 0
            if i < cell_idx[0]:
                prefix_sum[i] = 0
            # Fill the last cells with Ntot
            elif i >= cell_idx[Ntot-1]:
                prefix_sum[i] = Ntot
        else:
            # If this species has no particles, fill all cells with 0
            prefix_sum[i] = 0

@cuda.jit
def write_sorting_buffer(sorted_idx, val, buf):
    """
    Writes the values of a particle array to a buffer,
    while rearranging them to match the sorted cell index array.

    Parameters
    ----------
    sorted_idx : 1darray of integers
        Represents the original index of the
        particle before the sorting

    val : 1d array of floats
        A particle data array

    buf : 1d array of floats
        A buffer array to temporarily store the
        sorted particle data array
    """
    i = cuda.grid(1)
    if i < val.shape[0]:
        buf[i] = val[sorted_idx[i]]
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda


@cuda.jit
def incl_prefix_sum(cell_idx, prefix_sum):
    """
    Perform an inclusive parallel prefix sum on the sorted
    cell index array. The prefix sum array represents the
    cumulative sum of the number of particles per cell
    for each cell index.

    Parameters
    ----------
    cell_idx : 1darray of integers
        The cell index of the particle

    prefix_sum : 1darray of integers
        Represents the cumulative sum of
        the particles per cell
    """
    # i is the index of the macroparticle
    i = cuda.grid(1)
    if i < cell_idx.shape[0]-1:
        # ci: index of the cell of the present macroparticle
        ci = cell_idx[i]
        # ci_next: index of the cell of the next macroparticle
        ci_next = cell_idx[i+1]
        # Fill all the cells between ci and ci_next with the
        # inclusive cumulative sum of the number particles until ci
        while ci < ci_next:
            # The cumulative sum of the number of particle per cell
            # until ci is i+1 (since i obeys python index, starting at 0)
            prefix_sum[ci] = i+1
            ci += 1


@cuda.jit
def prefill_prefix_sum(cell_idx, prefix_sum, Ntot):
    """
    Prefill the prefix sum array so that:
        - the cells that have a lower index than the cell that contains
        the first particle are set to 0
        - the cells that have a higher index than the cell that contains
        the last particle are set to the total number of particles (Ntot)

    All the cells in between will have their value set by `incl_prefix_sum`

    Parameters
    ----------
    cell_idx : 1darray of integers
        The cell index of the particles
    prefix_sum : 1darray of integers
        Represents the cumulative sum of
        the particles per cell
    Ntot: int
        The total number of particles in the current species
    """
    # One thread per cell
    i = cuda.grid(1)
    if i < prefix_sum.shape[0]:
        if Ntot > 0:
            # Fill the first cells with 0
            if i < cell_idx[0]:
                prefix_sum[i] = 0
            # Fill the last cells with Ntot
            elif i >= cell_idx[Ntot-1]:
                prefix_sum[i] = Ntot
        else:
            # If this species has no particles, fill all cells with 0
            prefix_sum[i] = 0

@cuda.jit
def write_sorting_buffer(sorted_idx, val, buf):
    """
    Writes the values of a particle array to a buffer,
    while rearranging them to match the sorted cell index array.

    Parameters
    ----------
    sorted_idx : 1darray of integers
        Represents the original index of the
        particle before the sorting

    val : 1d array of floats
        A particle data array

    buf : 1d array of floats
        A buffer array to temporarily store the
        sorted particle data array
    """
    i = cuda.grid(1)
    if i < val.shape[0]:
        buf[i] = val[sorted_idx[i]]


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


NCELLS = 60


def make_args(rng):
    n = 200
    cell_idx = rng.integers(5, NCELLS - 7, n).astype(np.int32)
    return [cell_idx, np.zeros(NCELLS, dtype=np.int32), rng.standard_normal(n), np.zeros(n)]


def reference(cell_idx, prefix_sum, val, buf):
    order = np.argsort(cell_idx, kind="stable")
    s = cell_idx[order]
    return {"cell_idx": s, "prefix_sum": np.searchsorted(s, np.arange(NCELLS), side="right").astype(np.int32),
            "buf": val[order]}


def run(cell_idx, prefix_sum, val, buf):
    # host side of fbpic's sort: argsort (thrust there), then the prefix-sum and buffer kernels
    sorted_idx = np.argsort(cell_idx, kind="stable").astype(np.uint32)
    cell_idx[:] = cell_idx[sorted_idx]
    Ntot = cell_idx.shape[0]
    prefill_prefix_sum[NCELLS // 256 + 1, 256](cell_idx, prefix_sum, Ntot)
    incl_prefix_sum[Ntot // 256 + 1, 256](cell_idx, prefix_sum)
    write_sorting_buffer[Ntot // 256 + 1, 256](sorted_idx, val, buf)


CASE = dict(kernel="incl_prefix_sum", griddim=1, blockdim=256, args=["cell_idx", "prefix_sum", "val", "buf"],
            outputs=["cell_idx", "prefix_sum", "buf"])
