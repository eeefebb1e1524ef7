# ruff: noqa: F841 - the tutorial computes bin_width and never uses it
"""The histogram of Anaconda's numba CUDA tutorial (cuda.atomic.add in a grid-stride loop), and
numba's documentation example of cuda.atomic.max.

Ported from ``from numba import cuda`` / ``@cuda.jit`` (``@numba.jit`` for the helper) / unannotated
parameters; one more change: ``compute_bin`` returns -1 instead of None (kernels have no None)."""

import numpy as np
from hybrid_runtime import Array, cuda, f32, f64, i32, kernel


def compute_bin(x, n, xmin, xmax):
    # special case to mirror NumPy behavior for last bin
    if x == xmax:
        return n - 1 # a_max always in last bin

    # SPEEDTIP: Remove the float64 casts if you don't need to exactly reproduce NumPy
    # hybrid: ignore[f64-in-f32-kernel]
    bin = np.int32(n * (np.float64(x) - np.float64(xmin)) / (np.float64(xmax) - np.float64(xmin)))

    if bin < 0 or bin >= n:
        return -1
    else:
        return bin


@kernel
def histogram(x: Array[f32], xmin: f32, xmax: f32, histogram_out: Array[i32]):
    '''Increment bin counts in histogram_out, given histogram range [xmin, xmax).'''
    # Set useful variables
    nbins = histogram_out.shape[0]
    bin_width = (xmax - xmin) / nbins

    # This is a grid-stride loop
    start = cuda.grid(1)
    stride = cuda.gridsize(1)

    for i in range(start, x.shape[0], stride):
        # note that calling a numba.jit function from CUDA automatically
        # compiles an equivalent CUDA device function!
        bin_number = compute_bin(x[i], nbins, xmin, xmax)

        if bin_number >= 0 and bin_number < histogram_out.shape[0]:
            cuda.atomic.add(histogram_out, bin_number, 1)


@kernel
def max_example(result: Array[f64], values: Array[f64]):
    """Find the maximum value in values and store in result[0]"""
    tid = cuda.threadIdx.x
    bid = cuda.blockIdx.x
    bdim = cuda.blockDim.x
    i = (bid * bdim) + tid
    cuda.atomic.max(result, 0, values[i])
