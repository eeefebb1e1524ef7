# =============================================================================
# Source : numba/numba-examples, notebooks/Numba_053_CUDA_Release_Demo.ipynb, cells 1, 47, 57, 59, 63, 67:
#          kernels `extract_tuple`, `extract_point`, `extract_nested`, `vector_magnitudes_soa`
#          https://github.com/numba/numba-examples/blob/c423f5419a459f5ab8874fda6d39bb5ea05d04b2/notebooks/Numba_053_CUDA_Release_Demo.ipynb
# License: BSD-2-Clause (numba-examples)
# Project: numba CUDA release demo notebooks (tutorial)
# What   : kernel arguments that are tuples: a heterogeneous tuple, a namedtuple (p.x, p.y), a nested
#          tuple with len(), and a tuple of two float64 arrays (structure of arrays).
# Port   : import line only (kernels and the namedtuple taken out of their cells; host lines dropped)
# =============================================================================

ORIGINAL = r'''
from collections import namedtuple
from numba import cuda, void, int32
import math
import numpy as np

@cuda.jit
def extract_tuple(r1, r2, x):
    r1[0] = x[0]
    r1[1] = x[1]
    r1[2] = x[2]
    r2[0] = x[3]
    r2[1] = x[4]
    r2[2] = x[5]

Point = namedtuple('Point', ('x', 'y'))

@cuda.jit
def extract_point(r, p):
    r[0] = p.x
    r[1] = p.y

@cuda.jit
def extract_nested(r, x):
    r[0] = len(x)
    r[1] = len(x[0])
    r[2] = x[0][0]
    r[3] = x[0][1]
    r[4] = x[0][2]
    r[5] = x[1]

@cuda.jit
def vector_magnitudes_soa(r, v):
    i = cuda.grid(1)
    if i >= len(r):
        return
    
    r[i] = math.sqrt(v[0][i] ** 2 + v[1][i] ** 2)
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from collections import namedtuple
from hybrid_runtime import cuda, void, int32
import math
import numpy as np

@cuda.jit
def extract_tuple(r1, r2, x):
    r1[0] = x[0]
    r1[1] = x[1]
    r1[2] = x[2]
    r2[0] = x[3]
    r2[1] = x[4]
    r2[2] = x[5]

Point = namedtuple('Point', ('x', 'y'))

@cuda.jit
def extract_point(r, p):
    r[0] = p.x
    r[1] = p.y

@cuda.jit
def extract_nested(r, x):
    r[0] = len(x)
    r[1] = len(x[0])
    r[2] = x[0][0]
    r[3] = x[0][1]
    r[4] = x[0][2]
    r[5] = x[1]

@cuda.jit
def vector_magnitudes_soa(r, v):
    i = cuda.grid(1)
    if i >= len(r):
        return
    
    r[i] = math.sqrt(v[0][i] ** 2 + v[1][i] ** 2)


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
N = 32


def make_args(rng):
    return [np.zeros(3, dtype=np.int64), np.zeros(3, dtype=np.float64), np.zeros(2, dtype=np.int64),
            np.ones(6, dtype=np.int64), np.zeros(N), rng.random(N), rng.random(N)]


def reference(r1, r2, rp, rn, r, vx, vy):
    return {"r1": [1, 2, 3], "r2": [4.5, 5.5, 6.5], "rp": [1, 2], "rn": [2, 3, 6, 5, 4, 7],
            "r": np.sqrt(vx ** 2 + vy ** 2)}


def run(r1, r2, rp, rn, r, vx, vy):
    # the notebook's launches
    x = (1, 2, 3, 4.5, 5.5, 6.5)
    extract_tuple[1, 1](r1, r2, x)
    extract_point[1, 1](rp, Point(1, 2))
    extract_nested[1, 1](rn, ((6, 5, 4), 7))
    v = (vx, vy)
    vector_magnitudes_soa[1, N](r, v)


CASE = dict(kernel="vector_magnitudes_soa", griddim=1, blockdim=N, args=["r1", "r2", "rp", "rn", "r", "vx", "vy"],
            outputs=["r1", "r2", "rp", "rn", "r"], rtol=1e-15)
