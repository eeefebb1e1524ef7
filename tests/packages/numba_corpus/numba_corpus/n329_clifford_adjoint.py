# =============================================================================
# Source : pygae/clifford, clifford/tools/g3c/cuda.py, kernel `adjoint_kernel`, device function `adjoint_device`
#          https://github.com/pygae/clifford/blob/c773d09eca0a08a5845e1ad837637a6f69beca55/clifford/tools/g3c/cuda.py
# License: BSD-3-Clause
# Project: clifford (real)
# What   : reversion (adjoint) of 32-component conformal-GA multivectors, one row per thread;
#          `import numba.cuda` + `import numba`, `@numba.cuda.jit`, row slices `value[i, :]`.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
import numpy as np
import numba.cuda
import numba
import math


@numba.cuda.jit(device=True)
def adjoint_device(value, output):
    for j in range(0, 6):
        output[j] = value[j]
    output[6] = -value[6]
    output[7] = -value[7]
    output[8] = -value[8]
    output[9] = -value[9]
    output[10] = -value[10]
    output[11] = -value[11]
    output[12] = -value[12]
    output[13] = -value[13]
    output[14] = -value[14]
    output[15] = -value[15]
    output[16] = -value[16]
    output[17] = -value[17]
    output[18] = -value[18]
    output[19] = -value[19]
    output[20] = -value[20]
    output[21] = -value[21]
    output[22] = -value[22]
    output[23] = -value[23]
    output[24] = -value[24]
    output[25] = -value[25]
    for j in range(26, 32):
        output[j] = value[j]


@numba.cuda.jit
def adjoint_kernel(value, output):
    i = numba.cuda.grid(1)
    if i < value.shape[0]:
        adjoint_device(value[i, :], output[i, :])
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
import numpy as np
import hybrid_runtime.cuda
import hybrid_runtime as numba
import math


@numba.cuda.jit(device=True)
def adjoint_device(value, output):
    for j in range(0, 6):
        output[j] = value[j]
    output[6] = -value[6]
    output[7] = -value[7]
    output[8] = -value[8]
    output[9] = -value[9]
    output[10] = -value[10]
    output[11] = -value[11]
    output[12] = -value[12]
    output[13] = -value[13]
    output[14] = -value[14]
    output[15] = -value[15]
    output[16] = -value[16]
    output[17] = -value[17]
    output[18] = -value[18]
    output[19] = -value[19]
    output[20] = -value[20]
    output[21] = -value[21]
    output[22] = -value[22]
    output[23] = -value[23]
    output[24] = -value[24]
    output[25] = -value[25]
    for j in range(26, 32):
        output[j] = value[j]


@numba.cuda.jit
def adjoint_kernel(value, output):
    i = numba.cuda.grid(1)
    if i < value.shape[0]:
        adjoint_device(value[i, :], output[i, :])

# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402

GRADE = np.array([0] + [1] * 5 + [2] * 10 + [3] * 10 + [4] * 5 + [5])


def make_args(rng):
    return [rng.standard_normal((100, 32)), np.zeros((100, 32))]


def reference(value, output):
    sign = np.where((GRADE * (GRADE - 1) // 2) % 2 == 1, -1.0, 1.0)  # reversion sign (-1)^(k(k-1)/2)
    return {"output": value * sign}


CASE = dict(kernel="adjoint_kernel", griddim=2, blockdim=64, args=["value", "output"], outputs=["output"])
