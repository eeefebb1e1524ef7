# =============================================================================
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_cooperative_groups.py,
#          kernels `this_grid`, `sync_group`, `no_sync`, `sequential_rows` (the last compiled by the test with cuda.jit(sig)(func))
#          https://github.com/NVIDIA/numba-cuda/blob/124e6d050a7427ddac9cfeb8a2a395b8179ef906/numba_cuda/numba/cuda/tests/cudapy/test_cooperative_groups.py
# License: BSD-2-Clause (numba-cuda)
# Project: numba-cuda tests (tests)
# What   : cooperative groups: cuda.cg.this_grid() and g.sync() between rows written by different blocks.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda, int32


@cuda.jit
def this_grid(A):
    cuda.cg.this_grid()
    A[0] = 1.0


@cuda.jit
def sync_group(A):
    g = cuda.cg.this_grid()
    g.sync()
    A[0] = 1.0


@cuda.jit
def no_sync(A):
    A[0] = cuda.grid(1)


def sequential_rows(M):
    # The grid writes rows one at a time. Each thread reads an element from
    # the previous row written by its "opposite" thread.
    #
    # A failure to sync the grid at each row would result in an incorrect
    # result as some threads could run ahead of threads in other blocks, or
    # fail to see the update to the previous row from their opposite thread.

    col = cuda.grid(1)
    g = cuda.cg.this_grid()

    rows = M.shape[0]
    cols = M.shape[1]

    for row in range(1, rows):
        opposite = cols - col - 1
        M[row, col] = M[row - 1, opposite] + 1
        g.sync()
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda, int32


@cuda.jit
def this_grid(A):
    cuda.cg.this_grid()
    A[0] = 1.0


@cuda.jit
def sync_group(A):
    g = cuda.cg.this_grid()
    g.sync()
    A[0] = 1.0


@cuda.jit
def no_sync(A):
    A[0] = cuda.grid(1)


def sequential_rows(M):
    # The grid writes rows one at a time. Each thread reads an element from
    # the previous row written by its "opposite" thread.
    #
    # A failure to sync the grid at each row would result in an incorrect
    # result as some threads could run ahead of threads in other blocks, or
    # fail to see the update to the previous row from their opposite thread.

    col = cuda.grid(1)
    g = cuda.cg.this_grid()

    rows = M.shape[0]
    cols = M.shape[1]

    for row in range(1, rows):
        opposite = cols - col - 1
        M[row, col] = M[row - 1, opposite] + 1
        g.sync()


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    return [np.full(1, np.nan), np.full(1, np.nan), np.full(1, np.nan), np.zeros((32, 32), np.int32)]


def reference(a1, a2, a3, M):
    return {"a1": np.ones(1), "a2": np.ones(1), "a3": np.zeros(1),
            "M": np.tile(np.arange(32), (32, 1)).T.astype(np.int32)}


def run(a1, a2, a3, M):
    # as test_this_grid, test_sync_group, test_false_cooperative_doesnt_link_cudadevrt, test_sync_at_matrix_row
    # (its simulator shape (32, 32): blockdim 32, griddim 1)
    this_grid[1, 1](a1)
    sync_group[1, 1](a2)
    no_sync[1, 1](a3)
    sig = (int32[:, ::1],)
    c_sequential_rows = cuda.jit(sig)(sequential_rows)
    c_sequential_rows[M.shape[1] // 32, 32](M)


CASE = dict(kernel="this_grid", griddim=1, blockdim=1, args=["a1", "a2", "a3", "M"], outputs=["a1", "a2", "a3", "M"])
