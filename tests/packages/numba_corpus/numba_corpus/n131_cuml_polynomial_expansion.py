# =============================================================================
# Source : rapidsai/cuml, python/cuml/cuml/thirdparty_adapters/sparsefuncs_fast.py, kernel `perform_expansion`,
#          device functions `_deg2_column`, `_deg3_column` (inline=True)
#          https://github.com/rapidsai/cuml/blob/342457bcb82bbdd6aadab6dc37fb808a838b1c31/python/cuml/cuml/thirdparty_adapters/sparsefuncs_fast.py
# License: Apache-2.0 (cuML)
# Project: cuML (real)
# What   : sparse CSR polynomial features (degree 2 and 3): 2-D grid, early returns, nested loop with break, int() of float division.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda


@cuda.jit(device=True, inline=True)
def _deg2_column(d, i, j, interaction_only):
    """Compute the index of the column for a degree 2 expansion

    d is the dimensionality of the input data, i and j are the indices
    for the columns involved in the expansion.
    """
    if interaction_only:
        return int(d * i - (i**2 + 3 * i) / 2 - 1 + j)
    else:
        return int(d * i - (i**2 + i) / 2 + j)


@cuda.jit(device=True, inline=True)
def _deg3_column(d, i, j, k, interaction_only):
    """Compute the index of the column for a degree 3 expansion

    d is the dimensionality of the input data, i, j and k are the indices
    for the columns involved in the expansion.
    """
    if interaction_only:
        return int(
            (3 * d**2 * i - 3 * d * i**2 + i**3 + 11 * i - 3 * j**2 - 9 * j)
            / 6
            + i**2
            - 2 * d * i
            + d * j
            - d
            + k
        )
    else:
        return int(
            (3 * d**2 * i - 3 * d * i**2 + i**3 - i - 3 * j**2 - 3 * j) / 6
            + d * j
            + k
        )


@cuda.jit
def perform_expansion(
    indptr,
    indices,
    data,
    expanded_data,
    expanded_indices,
    d,
    interaction_only,
    degree,
    expanded_indptr,
):
    """Kernel applying polynomial expansion on CSR matrix"""
    row_i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    inrow_idx = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y

    if row_i >= indptr.shape[0] - 1:
        return

    expanded_index = expanded_indptr[row_i] + inrow_idx
    if expanded_index >= expanded_indptr[row_i + 1]:
        return

    row_starts = indptr[row_i]
    row_ends = indptr[row_i + 1]

    i_ptr = row_starts
    j_ptr = -1
    k_ptr = inrow_idx

    if degree == 2:
        j_ptr = inrow_idx
        for i in range(row_starts, row_ends):
            diff = row_ends - i - interaction_only
            if j_ptr >= diff:
                j_ptr -= diff
            else:
                i_ptr = i
                break
        j_ptr += i_ptr + interaction_only
    else:
        # degree == 3
        diff = 0
        for i in range(row_starts, row_ends):
            for j in range(i + interaction_only, row_ends):
                diff = row_ends - j - interaction_only
                if k_ptr >= diff:
                    k_ptr -= diff
                else:
                    j_ptr = j
                    i_ptr = i
                    break
            if j_ptr != -1:
                break

        k_ptr += j_ptr + interaction_only

    i = indices[i_ptr]
    j = indices[j_ptr]

    if degree == 2:
        col = _deg2_column(d, i, j, interaction_only)
        expanded_indices[expanded_index] = col
        expanded_data[expanded_index] = data[i_ptr] * data[j_ptr]
    else:
        # degree == 3
        k = indices[k_ptr]
        col = _deg3_column(d, i, j, k, interaction_only)
        expanded_indices[expanded_index] = col
        expanded_data[expanded_index] = data[i_ptr] * data[j_ptr] * data[k_ptr]
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda


@cuda.jit(device=True, inline=True)
def _deg2_column(d, i, j, interaction_only):
    """Compute the index of the column for a degree 2 expansion

    d is the dimensionality of the input data, i and j are the indices
    for the columns involved in the expansion.
    """
    if interaction_only:
        return int(d * i - (i**2 + 3 * i) / 2 - 1 + j)
    else:
        return int(d * i - (i**2 + i) / 2 + j)


@cuda.jit(device=True, inline=True)
def _deg3_column(d, i, j, k, interaction_only):
    """Compute the index of the column for a degree 3 expansion

    d is the dimensionality of the input data, i, j and k are the indices
    for the columns involved in the expansion.
    """
    if interaction_only:
        return int(
            (3 * d**2 * i - 3 * d * i**2 + i**3 + 11 * i - 3 * j**2 - 9 * j)
            / 6
            + i**2
            - 2 * d * i
            + d * j
            - d
            + k
        )
    else:
        return int(
            (3 * d**2 * i - 3 * d * i**2 + i**3 - i - 3 * j**2 - 3 * j) / 6
            + d * j
            + k
        )


@cuda.jit
def perform_expansion(
    indptr,
    indices,
    data,
    expanded_data,
    expanded_indices,
    d,
    interaction_only,
    degree,
    expanded_indptr,
):
    """Kernel applying polynomial expansion on CSR matrix"""
    row_i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    inrow_idx = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y

    if row_i >= indptr.shape[0] - 1:
        return

    expanded_index = expanded_indptr[row_i] + inrow_idx
    if expanded_index >= expanded_indptr[row_i + 1]:
        return

    row_starts = indptr[row_i]
    row_ends = indptr[row_i + 1]

    i_ptr = row_starts
    j_ptr = -1
    k_ptr = inrow_idx

    if degree == 2:
        j_ptr = inrow_idx
        for i in range(row_starts, row_ends):
            diff = row_ends - i - interaction_only
            if j_ptr >= diff:
                j_ptr -= diff
            else:
                i_ptr = i
                break
        j_ptr += i_ptr + interaction_only
    else:
        # degree == 3
        diff = 0
        for i in range(row_starts, row_ends):
            for j in range(i + interaction_only, row_ends):
                diff = row_ends - j - interaction_only
                if k_ptr >= diff:
                    k_ptr -= diff
                else:
                    j_ptr = j
                    i_ptr = i
                    break
            if j_ptr != -1:
                break

        k_ptr += j_ptr + interaction_only

    i = indices[i_ptr]
    j = indices[j_ptr]

    if degree == 2:
        col = _deg2_column(d, i, j, interaction_only)
        expanded_indices[expanded_index] = col
        expanded_data[expanded_index] = data[i_ptr] * data[j_ptr]
    else:
        # degree == 3
        k = indices[k_ptr]
        col = _deg3_column(d, i, j, k, interaction_only)
        expanded_indices[expanded_index] = col
        expanded_data[expanded_index] = data[i_ptr] * data[j_ptr] * data[k_ptr]


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


import itertools  # noqa: E402


def _csr(rng, nrows, d):
    dense = np.where(rng.random((nrows, d)) < 0.55, rng.integers(1, 9, (nrows, d)), 0).astype(np.float64)
    indptr = np.concatenate([[0], np.cumsum((dense != 0).sum(1))]).astype(np.int32)
    indices = np.concatenate([np.nonzero(r)[0] for r in dense]).astype(np.int32)
    data = np.concatenate([r[r != 0] for r in dense])
    return indptr, indices, data


def _expanded_indptr(indptr, degree, io):
    # host side of csr_polynomial_expansion
    nnz = np.diff(indptr)
    if degree == 2:
        total = (nnz ** 2 + nnz) // 2 - io * nnz
    else:
        total = (nnz ** 3 + 3 * nnz ** 2 + 2 * nnz) // 6 - io * nnz ** 2
    return np.concatenate([[indptr[0]], np.cumsum(total)]).astype(np.int32), int(total.sum()), int(total.max())


def make_args(rng):
    d = 5
    indptr, indices, data = _csr(rng, 9, d)
    ip2, n2, _ = _expanded_indptr(indptr, 2, 1)
    ip3, n3, _ = _expanded_indptr(indptr, 3, 0)
    return [indptr, indices, data, d,
            np.zeros(n2), np.zeros(n2, np.int32), ip2,
            np.zeros(n3), np.zeros(n3, np.int32), ip3]


def _ref(indptr, indices, data, d, degree, io):
    combos = (itertools.combinations if io else itertools.combinations_with_replacement)(range(d), degree)
    colnum = {c: n for n, c in enumerate(combos)}
    vals, cols = [], []
    for r in range(len(indptr) - 1):
        pos = range(indptr[r], indptr[r + 1])
        picks = (itertools.combinations if io else itertools.combinations_with_replacement)(pos, degree)
        for p in picks:
            cols.append(colnum[tuple(int(indices[q]) for q in p)])
            vals.append(np.prod([data[q] for q in p]))
    return np.array(vals), np.array(cols, np.int32)


def reference(indptr, indices, data, d, ed2, ei2, ip2, ed3, ei3, ip3):
    v2, c2 = _ref(indptr, indices, data, d, 2, 1)
    v3, c3 = _ref(indptr, indices, data, d, 3, 0)
    return {"ed2": v2, "ei2": c2, "ed3": v3, "ei3": c3}


def run(indptr, indices, data, d, ed2, ei2, ip2, ed3, ei3, ip3):
    # as published (csr_polynomial_expansion): tpb (32, 32), bpg (ceil(len(indptr) / 32), ceil(max_row_nnz / 32))
    tpb = (32, 32)
    for degree, io, ed, ei, ip in ((2, 1, ed2, ei2, ip2), (3, 0, ed3, ei3, ip3)):
        total_nnz_max = int(np.max(np.diff(np.asarray(ip))))
        bpg = (-(-indptr.shape[0] // tpb[0]), -(-total_nnz_max // tpb[1]))
        perform_expansion[bpg, tpb](indptr, indices, data, ed, ei, d, io, degree, ip)


CASE = dict(kernel="perform_expansion", args=["indptr", "indices", "data", "d", "ed2", "ei2", "ip2", "ed3", "ei3", "ip3"],
            outputs=["ed2", "ei2", "ed3", "ei3"])
