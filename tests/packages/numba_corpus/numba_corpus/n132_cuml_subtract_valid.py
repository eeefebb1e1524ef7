# =============================================================================
# Source : rapidsai/cuml, python/cuml/preprocessing/text/stem/porter_stemmer_utils/suffix_utils.py, kernel `subtract_valid`
#          https://github.com/rapidsai/cuml/blob/9cee2c8178a41f074183e2c6d803560f99e63030/python/cuml/preprocessing/text/stem/porter_stemmer_utils/suffix_utils.py
# License: Apache-2.0 (cuML)
# Project: cuML (real)
# What   : Porter stemmer: shorten string end offsets by the suffix length where a bool mask is set; eager string signature.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda


@cuda.jit("void(int32[:], boolean[:], int32)")
def subtract_valid(input_array, valid_bool_array, sub_val):
    pos = cuda.grid(1)
    if pos < input_array.size:
        if valid_bool_array[pos]:
            input_array[pos] = input_array[pos] - sub_val
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda


@cuda.jit("void(int32[:], boolean[:], int32)")
def subtract_valid(input_array, valid_bool_array, sub_val):
    pos = cuda.grid(1)
    if pos < input_array.size:
        if valid_bool_array[pos]:
            input_array[pos] = input_array[pos] - sub_val


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    lengths = rng.integers(3, 15, 300).astype(np.int32)
    valid = rng.random(300) < 0.4
    return [lengths, valid, 2]


def reference(input_array, valid_bool_array, sub_val):
    return {"input_array": np.where(valid_bool_array, input_array - sub_val, input_array).astype(np.int32)}


CASE = dict(kernel="subtract_valid", griddim=1, blockdim=1024, args=["input_array", "valid_bool_array", "sub_val"],
            outputs=["input_array"])
