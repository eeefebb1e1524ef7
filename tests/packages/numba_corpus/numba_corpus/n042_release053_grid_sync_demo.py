# =============================================================================
# Source : numba/numba-examples, notebooks/Numba_053_CUDA_Release_Demo.ipynb, cells 1 and 37:
#          kernel `sequential_rows` (cooperative groups)
#          https://github.com/numba/numba-examples/blob/c423f5419a459f5ab8874fda6d39bb5ea05d04b2/notebooks/Numba_053_CUDA_Release_Demo.ipynb
# License: BSD-2-Clause (numba-examples)
# Project: numba CUDA release demo notebooks (tutorial)
# What   : grid-wide barrier g = cuda.cg.this_grid(); g.sync() between rows: each row is the previous
#          row reversed plus one (an implicit cooperative launch); eager void(int32[:,::1]).
# Port   : import line only (host cells dropped)
# =============================================================================

ORIGINAL = r'''
from collections import namedtuple
from numba import cuda, void, int32
import math
import numpy as np

@cuda.jit(void(int32[:,::1]))
def sequential_rows(M):
    col = cuda.grid(1)
    g = cuda.cg.this_grid()

    rows = M.shape[0]
    cols = M.shape[1]

    for row in range(1, rows):
        opposite = cols - col - 1
        # Each row's elements are one greater than the previous row
        M[row, col] = M[row - 1, opposite] + 1
        # Wait until all threads have written their column element,
        # and that the write is visible to all other threads
        g.sync()
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from collections import namedtuple
from hybrid_runtime import cuda, void, int32
import math
import numpy as np

@cuda.jit(void(int32[:,::1]))
def sequential_rows(M):
    col = cuda.grid(1)
    g = cuda.cg.this_grid()

    rows = M.shape[0]
    cols = M.shape[1]

    for row in range(1, rows):
        opposite = cols - col - 1
        # Each row's elements are one greater than the previous row
        M[row, col] = M[row - 1, opposite] + 1
        # Wait until all threads have written their column element,
        # and that the write is visible to all other threads
        g.sync()


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
def make_args(rng):
    # the notebook uses (1024, 1024); blockdim = 32; griddim = A.shape[1] // blockdim
    return [np.zeros((16, 64), dtype=np.int32)]


def reference(A):
    A = A.copy()
    for row in range(1, A.shape[0]):
        A[row] = A[row - 1, ::-1] + 1
    return {"A": A}


CASE = dict(kernel="sequential_rows", griddim=64 // 32, blockdim=32, args=["A"], outputs=["A"])
