# =============================================================================
# Source : Malyadeep/pylabolt, pylabolt/parallel/gpu/compute_residues_kernels.py, kernels `compute_residue_scalar`,
#          `reduce_residue_scalar`, `compute_residue_vector`, `reduce_residue_vector`; constant REDUCE_BLOCK_SIZE
#          from pylabolt/parallel/backend.py (line 15, verbatim; replaces its `from pylabolt.parallel.backend import`)
#          https://github.com/Malyadeep/pylabolt/blob/1872e9dbe6f8ac06386556b7feb9fceb0c317691/pylabolt/parallel/gpu/compute_residues_kernels.py
# License: BSD-3-Clause
# Project: PyLaBolt (real)
# What   : block tree reductions of residue sums in float64 shared arrays (1-D and (N, 2)), while-loop stride halving.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda
from numba import float64

REDUCE_BLOCK_SIZE = 256


@cuda.jit
def compute_residue_scalar(
    size,
    solid,
    ghost_node,
    field,
    field_old,
    partial_numerator,
    partial_denominator
):
    """
    Kernel to compute residue for scalar fields
    Residues always accumulated in float64
    Args:

    Returns:

    """
    ind = cuda.grid(1)
    thread_idx = cuda.threadIdx.x
    block_idx = cuda.blockIdx.x
    block_dim = cuda.blockDim.x

    shared_numerator = cuda.shared.array(REDUCE_BLOCK_SIZE, float64)
    shared_denominator = cuda.shared.array(REDUCE_BLOCK_SIZE, float64)

    numerator = 0.
    denominator = 0.

    if ind < size:
        if not solid[ind] and not ghost_node[ind]:
            field_old_local = field_old[ind]
            field_local = field[ind]
            diff_field = field_local - field_old_local
            numerator = diff_field * diff_field
            denominator = field_old_local * field_old_local
            field_old[ind] = field_local

    shared_numerator[thread_idx] = numerator
    shared_denominator[thread_idx] = denominator

    cuda.syncthreads()

    stride = block_dim // 2
    while stride > 0:
        if thread_idx < stride:
            shared_numerator[thread_idx] +=\
                shared_numerator[thread_idx + stride]
            shared_denominator[thread_idx] +=\
                shared_denominator[thread_idx + stride]

        cuda.syncthreads()

        stride = stride // 2

    if thread_idx == 0:
        partial_numerator[block_idx] = shared_numerator[0]
        partial_denominator[block_idx] = shared_denominator[0]


@cuda.jit
def reduce_residue_scalar(
    partial_size,
    partial_numerator,
    partial_denominator
):
    """
    Reduction kernel to recursively compute residues
    Residues always accumulated in float64
    Args:

    Returns:

    """
    ind = cuda.grid(1)
    thread_idx = cuda.threadIdx.x
    block_idx = cuda.blockIdx.x
    block_dim = cuda.blockDim.x

    shared_numerator = cuda.shared.array(REDUCE_BLOCK_SIZE, float64)
    shared_denominator = cuda.shared.array(REDUCE_BLOCK_SIZE, float64)

    if ind < partial_size:
        shared_numerator[thread_idx] = partial_numerator[ind]
        shared_denominator[thread_idx] = partial_denominator[ind]
    else:
        shared_numerator[thread_idx] = 0.0
        shared_denominator[thread_idx] = 0.0

    cuda.syncthreads()

    stride = block_dim // 2
    while stride > 0:
        if thread_idx < stride:
            shared_numerator[thread_idx] +=\
                shared_numerator[thread_idx + stride]
            shared_denominator[thread_idx] +=\
                shared_denominator[thread_idx + stride]

        cuda.syncthreads()

        stride = stride // 2

    if thread_idx == 0:
        partial_numerator[block_idx] = shared_numerator[0]
        partial_denominator[block_idx] = shared_denominator[0]


@cuda.jit
def compute_residue_vector(
    size,
    solid,
    ghost_node,
    field,
    field_old,
    partial_numerator,
    partial_denominator
):
    """
    Kernel to compute residue for vector fields
    Residues always accumulated in float64
    Args:

    Returns:

    """
    ind = cuda.grid(1)
    thread_idx = cuda.threadIdx.x
    block_idx = cuda.blockIdx.x
    block_dim = cuda.blockDim.x

    shared_numerator = cuda.shared.array((REDUCE_BLOCK_SIZE, 2), float64)
    shared_denominator = cuda.shared.array((REDUCE_BLOCK_SIZE, 2), float64)

    numerator_x = 0.
    denominator_x = 0.
    numerator_y = 0.
    denominator_y = 0.

    if ind < size:
        if not solid[ind] and not ghost_node[ind]:
            field_old_local_x = field_old[ind, 0]
            field_old_local_y = field_old[ind, 1]
            field_local_x = field[ind, 0]
            field_local_y = field[ind, 1]
            diff_field_x = field_local_x - field_old_local_x
            diff_field_y = field_local_y - field_old_local_y
            numerator_x = diff_field_x * diff_field_x
            numerator_y = diff_field_y * diff_field_y
            denominator_x = field_old_local_x * field_old_local_x
            denominator_y = field_old_local_y * field_old_local_y
            field_old[ind, 0] = field_local_x
            field_old[ind, 1] = field_local_y

    shared_numerator[thread_idx, 0] = numerator_x
    shared_denominator[thread_idx, 0] = denominator_x
    shared_numerator[thread_idx, 1] = numerator_y
    shared_denominator[thread_idx, 1] = denominator_y

    cuda.syncthreads()

    stride = block_dim // 2
    while stride > 0:
        if thread_idx < stride:
            shared_numerator[thread_idx, 0] +=\
                shared_numerator[thread_idx + stride, 0]
            shared_denominator[thread_idx, 0] +=\
                shared_denominator[thread_idx + stride, 0]
            shared_numerator[thread_idx, 1] +=\
                shared_numerator[thread_idx + stride, 1]
            shared_denominator[thread_idx, 1] +=\
                shared_denominator[thread_idx + stride, 1]

        cuda.syncthreads()

        stride = stride // 2

    if thread_idx == 0:
        partial_numerator[block_idx, 0] = shared_numerator[0, 0]
        partial_denominator[block_idx, 0] = shared_denominator[0, 0]
        partial_numerator[block_idx, 1] = shared_numerator[0, 1]
        partial_denominator[block_idx, 1] = shared_denominator[0, 1]


@cuda.jit
def reduce_residue_vector(
    partial_size,
    partial_numerator,
    partial_denominator
):
    """
    Reduction kernel to recursively compute residues for vectors
    Residues always accumulated in float64
    Args:

    Returns:

    """
    ind = cuda.grid(1)
    thread_idx = cuda.threadIdx.x
    block_idx = cuda.blockIdx.x
    block_dim = cuda.blockDim.x

    shared_numerator = cuda.shared.array((REDUCE_BLOCK_SIZE, 2), float64)
    shared_denominator = cuda.shared.array((REDUCE_BLOCK_SIZE, 2), float64)

    if ind < partial_size:
        shared_numerator[thread_idx, 0] = partial_numerator[ind, 0]
        shared_denominator[thread_idx, 0] = partial_denominator[ind, 0]
        shared_numerator[thread_idx, 1] = partial_numerator[ind, 1]
        shared_denominator[thread_idx, 1] = partial_denominator[ind, 1]
    else:
        shared_numerator[thread_idx, 0] = 0.0
        shared_denominator[thread_idx, 0] = 0.0
        shared_numerator[thread_idx, 1] = 0.0
        shared_denominator[thread_idx, 1] = 0.0

    cuda.syncthreads()

    stride = block_dim // 2
    while stride > 0:
        if thread_idx < stride:
            shared_numerator[thread_idx, 0] +=\
                shared_numerator[thread_idx + stride, 0]
            shared_denominator[thread_idx, 0] +=\
                shared_denominator[thread_idx + stride, 0]
            shared_numerator[thread_idx, 1] +=\
                shared_numerator[thread_idx + stride, 1]
            shared_denominator[thread_idx, 1] +=\
                shared_denominator[thread_idx + stride, 1]

        cuda.syncthreads()

        stride = stride // 2

    if thread_idx == 0:
        partial_numerator[block_idx, 0] = shared_numerator[0, 0]
        partial_denominator[block_idx, 0] = shared_denominator[0, 0]
        partial_numerator[block_idx, 1] = shared_numerator[0, 1]
        partial_denominator[block_idx, 1] = shared_denominator[0, 1]
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda
from hybrid_runtime import float64

REDUCE_BLOCK_SIZE = 256


@cuda.jit
def compute_residue_scalar(
    size,
    solid,
    ghost_node,
    field,
    field_old,
    partial_numerator,
    partial_denominator
):
    """
    Kernel to compute residue for scalar fields
    Residues always accumulated in float64
    Args:

    Returns:

    """
    ind = cuda.grid(1)
    thread_idx = cuda.threadIdx.x
    block_idx = cuda.blockIdx.x
    block_dim = cuda.blockDim.x

    shared_numerator = cuda.shared.array(REDUCE_BLOCK_SIZE, float64)
    shared_denominator = cuda.shared.array(REDUCE_BLOCK_SIZE, float64)

    numerator = 0.
    denominator = 0.

    if ind < size:
        if not solid[ind] and not ghost_node[ind]:
            field_old_local = field_old[ind]
            field_local = field[ind]
            diff_field = field_local - field_old_local
            numerator = diff_field * diff_field
            denominator = field_old_local * field_old_local
            field_old[ind] = field_local

    shared_numerator[thread_idx] = numerator
    shared_denominator[thread_idx] = denominator

    cuda.syncthreads()

    stride = block_dim // 2
    while stride > 0:
        if thread_idx < stride:
            shared_numerator[thread_idx] +=\
                shared_numerator[thread_idx + stride]
            shared_denominator[thread_idx] +=\
                shared_denominator[thread_idx + stride]

        cuda.syncthreads()

        stride = stride // 2

    if thread_idx == 0:
        partial_numerator[block_idx] = shared_numerator[0]
        partial_denominator[block_idx] = shared_denominator[0]


@cuda.jit
def reduce_residue_scalar(
    partial_size,
    partial_numerator,
    partial_denominator
):
    """
    Reduction kernel to recursively compute residues
    Residues always accumulated in float64
    Args:

    Returns:

    """
    ind = cuda.grid(1)
    thread_idx = cuda.threadIdx.x
    block_idx = cuda.blockIdx.x
    block_dim = cuda.blockDim.x

    shared_numerator = cuda.shared.array(REDUCE_BLOCK_SIZE, float64)
    shared_denominator = cuda.shared.array(REDUCE_BLOCK_SIZE, float64)

    if ind < partial_size:
        shared_numerator[thread_idx] = partial_numerator[ind]
        shared_denominator[thread_idx] = partial_denominator[ind]
    else:
        shared_numerator[thread_idx] = 0.0
        shared_denominator[thread_idx] = 0.0

    cuda.syncthreads()

    stride = block_dim // 2
    while stride > 0:
        if thread_idx < stride:
            shared_numerator[thread_idx] +=\
                shared_numerator[thread_idx + stride]
            shared_denominator[thread_idx] +=\
                shared_denominator[thread_idx + stride]

        cuda.syncthreads()

        stride = stride // 2

    if thread_idx == 0:
        partial_numerator[block_idx] = shared_numerator[0]
        partial_denominator[block_idx] = shared_denominator[0]


@cuda.jit
def compute_residue_vector(
    size,
    solid,
    ghost_node,
    field,
    field_old,
    partial_numerator,
    partial_denominator
):
    """
    Kernel to compute residue for vector fields
    Residues always accumulated in float64
    Args:

    Returns:

    """
    ind = cuda.grid(1)
    thread_idx = cuda.threadIdx.x
    block_idx = cuda.blockIdx.x
    block_dim = cuda.blockDim.x

    shared_numerator = cuda.shared.array((REDUCE_BLOCK_SIZE, 2), float64)
    shared_denominator = cuda.shared.array((REDUCE_BLOCK_SIZE, 2), float64)

    numerator_x = 0.
    denominator_x = 0.
    numerator_y = 0.
    denominator_y = 0.

    if ind < size:
        if not solid[ind] and not ghost_node[ind]:
            field_old_local_x = field_old[ind, 0]
            field_old_local_y = field_old[ind, 1]
            field_local_x = field[ind, 0]
            field_local_y = field[ind, 1]
            diff_field_x = field_local_x - field_old_local_x
            diff_field_y = field_local_y - field_old_local_y
            numerator_x = diff_field_x * diff_field_x
            numerator_y = diff_field_y * diff_field_y
            denominator_x = field_old_local_x * field_old_local_x
            denominator_y = field_old_local_y * field_old_local_y
            field_old[ind, 0] = field_local_x
            field_old[ind, 1] = field_local_y

    shared_numerator[thread_idx, 0] = numerator_x
    shared_denominator[thread_idx, 0] = denominator_x
    shared_numerator[thread_idx, 1] = numerator_y
    shared_denominator[thread_idx, 1] = denominator_y

    cuda.syncthreads()

    stride = block_dim // 2
    while stride > 0:
        if thread_idx < stride:
            shared_numerator[thread_idx, 0] +=\
                shared_numerator[thread_idx + stride, 0]
            shared_denominator[thread_idx, 0] +=\
                shared_denominator[thread_idx + stride, 0]
            shared_numerator[thread_idx, 1] +=\
                shared_numerator[thread_idx + stride, 1]
            shared_denominator[thread_idx, 1] +=\
                shared_denominator[thread_idx + stride, 1]

        cuda.syncthreads()

        stride = stride // 2

    if thread_idx == 0:
        partial_numerator[block_idx, 0] = shared_numerator[0, 0]
        partial_denominator[block_idx, 0] = shared_denominator[0, 0]
        partial_numerator[block_idx, 1] = shared_numerator[0, 1]
        partial_denominator[block_idx, 1] = shared_denominator[0, 1]


@cuda.jit
def reduce_residue_vector(
    partial_size,
    partial_numerator,
    partial_denominator
):
    """
    Reduction kernel to recursively compute residues for vectors
    Residues always accumulated in float64
    Args:

    Returns:

    """
    ind = cuda.grid(1)
    thread_idx = cuda.threadIdx.x
    block_idx = cuda.blockIdx.x
    block_dim = cuda.blockDim.x

    shared_numerator = cuda.shared.array((REDUCE_BLOCK_SIZE, 2), float64)
    shared_denominator = cuda.shared.array((REDUCE_BLOCK_SIZE, 2), float64)

    if ind < partial_size:
        shared_numerator[thread_idx, 0] = partial_numerator[ind, 0]
        shared_denominator[thread_idx, 0] = partial_denominator[ind, 0]
        shared_numerator[thread_idx, 1] = partial_numerator[ind, 1]
        shared_denominator[thread_idx, 1] = partial_denominator[ind, 1]
    else:
        shared_numerator[thread_idx, 0] = 0.0
        shared_denominator[thread_idx, 0] = 0.0
        shared_numerator[thread_idx, 1] = 0.0
        shared_denominator[thread_idx, 1] = 0.0

    cuda.syncthreads()

    stride = block_dim // 2
    while stride > 0:
        if thread_idx < stride:
            shared_numerator[thread_idx, 0] +=\
                shared_numerator[thread_idx + stride, 0]
            shared_denominator[thread_idx, 0] +=\
                shared_denominator[thread_idx + stride, 0]
            shared_numerator[thread_idx, 1] +=\
                shared_numerator[thread_idx + stride, 1]
            shared_denominator[thread_idx, 1] +=\
                shared_denominator[thread_idx + stride, 1]

        cuda.syncthreads()

        stride = stride // 2

    if thread_idx == 0:
        partial_numerator[block_idx, 0] = shared_numerator[0, 0]
        partial_denominator[block_idx, 0] = shared_denominator[0, 0]
        partial_numerator[block_idx, 1] = shared_numerator[0, 1]
        partial_denominator[block_idx, 1] = shared_denominator[0, 1]

# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    size = 600
    solid = rng.random(size) < 0.1
    ghost = np.zeros(size, dtype=np.bool_)
    ghost[:7] = True
    f = rng.random(size)
    f_old = rng.random(size)
    v = rng.random((size, 2))
    v_old = rng.random((size, 2))
    return [size, solid, ghost, f, f_old, np.zeros(3), np.zeros(3), v, v_old, np.zeros((3, 2)), np.zeros((3, 2))]


def reference(size, solid, ghost, f, f_old, pn, pd, v, v_old, vn, vd):
    m = ~solid & ~ghost
    sn = np.where(m, (f - f_old) ** 2, 0.0)
    sd = np.where(m, f_old ** 2, 0.0)
    tn = np.where(m[:, None], (v - v_old) ** 2, 0.0)
    td = np.where(m[:, None], v_old ** 2, 0.0)
    for b in range(1, 3):  # rows 1, 2 keep the first kernel's block partials
        pn[b], pd[b] = sn[256 * b:256 * (b + 1)].sum(), sd[256 * b:256 * (b + 1)].sum()
        vn[b], vd[b] = tn[256 * b:256 * (b + 1)].sum(axis=0), td[256 * b:256 * (b + 1)].sum(axis=0)
    pn[0], pd[0] = sn.sum(), sd.sum()
    vn[0], vd[0] = tn.sum(axis=0), td.sum(axis=0)
    f_old[m] = f[m]
    v_old[m] = v[m]
    return {"pn": pn, "pd": pd, "f_old": f_old, "vn": vn, "vd": vd, "v_old": v_old}


def run(size, solid, ghost, f, f_old, pn, pd, v, v_old, vn, vd):
    compute_residue_scalar[3, REDUCE_BLOCK_SIZE](size, solid, ghost, f, f_old, pn, pd)
    reduce_residue_scalar[1, REDUCE_BLOCK_SIZE](3, pn, pd)
    compute_residue_vector[3, REDUCE_BLOCK_SIZE](size, solid, ghost, v, v_old, vn, vd)
    reduce_residue_vector[1, REDUCE_BLOCK_SIZE](3, vn, vd)


CASE = dict(kernel="compute_residue_scalar",
            args=["size", "solid", "ghost", "f", "f_old", "pn", "pd", "v", "v_old", "vn", "vd"],
            outputs=["pn", "pd", "f_old", "vn", "vd", "v_old"], rtol=1e-12, atol=1e-14)
