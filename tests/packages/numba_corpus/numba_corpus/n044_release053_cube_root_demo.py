# =============================================================================
# Source : numba/numba-examples, notebooks/Numba_053_CUDA_Release_Demo.ipynb, cells 1 and 77:
#          kernels `cube_root` and `intrinsic_cube_root`
#          https://github.com/numba/numba-examples/blob/c423f5419a459f5ab8874fda6d39bb5ea05d04b2/notebooks/Numba_053_CUDA_Release_Demo.ipynb
# License: BSD-2-Clause (numba-examples)
# Project: numba CUDA release demo notebooks (tutorial)
# What   : float32 x ** (1.0 / 3.0) versus cuda.cbrt; the loop is written range(cuda.grid(1),
#          cuda.gridsize(1), len(r)), so each thread handles exactly its own index.
# Port   : import line only (host cells dropped)
# =============================================================================

ORIGINAL = r'''
from collections import namedtuple
from numba import cuda, void, int32
import math
import numpy as np

@cuda.jit
def cube_root(r, x):
    for i in range(cuda.grid(1), cuda.gridsize(1), len(r)):
        r[i] = x[i] ** (1.0 / 3.0)
    
@cuda.jit
def intrinsic_cube_root(r, x):
    for i in range(cuda.grid(1), cuda.gridsize(1), len(r)):
        r[i] = cuda.cbrt(x[i])
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from collections import namedtuple
from hybrid_runtime import cuda, void, int32
import math
import numpy as np

@cuda.jit
def cube_root(r, x):
    for i in range(cuda.grid(1), cuda.gridsize(1), len(r)):
        r[i] = x[i] ** (1.0 / 3.0)
    
@cuda.jit
def intrinsic_cube_root(r, x):
    for i in range(cuda.grid(1), cuda.gridsize(1), len(r)):
        r[i] = cuda.cbrt(x[i])


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
N = 2 ** 12
n_threads = 256
n_blocks = N // n_threads


def make_args(rng):
    x = rng.random(N).astype(np.float32) * 100
    return [np.zeros_like(x), np.zeros_like(x), x]


def reference(r_normal, r_fast, x):
    want = np.cbrt(x.astype(np.float64))
    return {"r_normal": want, "r_fast": want}


def run(r_normal, r_fast, x):
    cube_root[n_blocks, n_threads](r_normal, x)
    intrinsic_cube_root[n_blocks, n_threads](r_fast, x)


# the notebook checks the two agree to rtol=1.0e-6
CASE = dict(kernel="cube_root", griddim=n_blocks, blockdim=n_threads, args=["r_normal", "r_fast", "x"],
            outputs=["r_normal", "r_fast"], rtol=1e-6)
