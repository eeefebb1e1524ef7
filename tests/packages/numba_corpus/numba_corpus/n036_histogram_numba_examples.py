# =============================================================================
# Source : numba/numba-examples, examples/density_estimation/histogram/gpu.py, kernels `histogram`,
#          `min_max` and the @numba.jit function `compute_bin` called from the kernel (basis of
#          numba_ports/histogram.py)
#          https://github.com/numba/numba-examples/blob/c423f5419a459f5ab8874fda6d39bb5ea05d04b2/examples/density_estimation/histogram/gpu.py
# License: BSD-2-Clause (numba-examples)
# Project: numba-examples (samples)
# What   : grid-stride min/max with cuda.atomic.min/max, then a grid-stride histogram with
#          cuda.atomic.add; a CPU @numba.jit function returning int or None is called from the kernel.
# Port   : import line only (the host functions dtype_min_max, get_bin_edges, numba_gpu_histogram
#          dropped -- one holds a ''' docstring; run() does what numba_gpu_histogram does)
# =============================================================================

ORIGINAL = r'''
import numpy as np

import numba
from numba import cuda

@numba.jit(nopython=True)
def compute_bin(x, n, xmin, xmax):
    # special case to mirror NumPy behavior for last bin
    if x == xmax:
        return n - 1 # a_max always in last bin

    # SPEEDTIP: Remove the float64 casts if you don't need to exactly reproduce NumPy
    bin = np.int32(n * (np.float64(x) - np.float64(xmin)) / (np.float64(xmax) - np.float64(xmin)))

    if bin < 0 or bin >= n:
        return None
    else:
        return bin

@cuda.jit
def histogram(x, xmin, xmax, histogram_out):
    nbins = histogram_out.shape[0]
    bin_width = (xmax - xmin) / nbins

    start = cuda.grid(1)
    stride = cuda.gridsize(1)

    for i in range(start, x.shape[0], stride):
        # note that calling a numba.jit function from CUDA automatically
        # compiles an equivalent CUDA device function!
        bin_number = compute_bin(x[i], nbins, xmin, xmax)

        if bin_number >= 0 and bin_number < histogram_out.shape[0]:
            cuda.atomic.add(histogram_out, bin_number, 1)

@cuda.jit
def min_max(x, min_max_array):
    nelements = x.shape[0]

    start = cuda.grid(1)
    stride = cuda.gridsize(1)

    # Array already seeded with starting values appropriate for x's dtype
    # Not a problem if this array has already been updated
    local_min = min_max_array[0]
    local_max = min_max_array[1]

    for i in range(start, x.shape[0], stride):
        element = x[i]
        local_min = min(element, local_min)
        local_max = max(element, local_max)

    # Now combine each thread local min and max
    cuda.atomic.min(min_max_array, 0, local_min)
    cuda.atomic.max(min_max_array, 1, local_max)
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
import numpy as np

import hybrid_runtime as numba
from hybrid_runtime import cuda

@numba.jit(nopython=True)
def compute_bin(x, n, xmin, xmax):
    # special case to mirror NumPy behavior for last bin
    if x == xmax:
        return n - 1 # a_max always in last bin

    # SPEEDTIP: Remove the float64 casts if you don't need to exactly reproduce NumPy
    bin = np.int32(n * (np.float64(x) - np.float64(xmin)) / (np.float64(xmax) - np.float64(xmin)))

    if bin < 0 or bin >= n:
        return None
    else:
        return bin

@cuda.jit
def histogram(x, xmin, xmax, histogram_out):
    nbins = histogram_out.shape[0]
    bin_width = (xmax - xmin) / nbins

    start = cuda.grid(1)
    stride = cuda.gridsize(1)

    for i in range(start, x.shape[0], stride):
        # note that calling a numba.jit function from CUDA automatically
        # compiles an equivalent CUDA device function!
        bin_number = compute_bin(x[i], nbins, xmin, xmax)

        if bin_number >= 0 and bin_number < histogram_out.shape[0]:
            cuda.atomic.add(histogram_out, bin_number, 1)

@cuda.jit
def min_max(x, min_max_array):
    nelements = x.shape[0]

    start = cuda.grid(1)
    stride = cuda.gridsize(1)

    # Array already seeded with starting values appropriate for x's dtype
    # Not a problem if this array has already been updated
    local_min = min_max_array[0]
    local_max = min_max_array[1]

    for i in range(start, x.shape[0], stride):
        element = x[i]
        local_min = min(element, local_min)
        local_max = max(element, local_max)

    # Now combine each thread local min and max
    cuda.atomic.min(min_max_array, 0, local_min)
    cuda.atomic.max(min_max_array, 1, local_max)


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
BINS = 50


def make_args(rng):
    return [rng.standard_normal(3000), np.zeros(BINS, dtype=np.int64), np.zeros(BINS + 1)]


def reference(a, hist, edges):
    h, e = np.histogram(a, BINS)
    return {"hist": h, "edges": e}


def run(a, hist, edges):
    # numba_gpu_histogram(a, bins) of the same file: min/max on the GPU, edges on the host, then histogram
    a_gpu = cuda.to_device(a)
    info = np.finfo(a.dtype)
    min_max_array_gpu = cuda.to_device(np.array([info.max, info.min], dtype=a.dtype))
    min_max[64, 64](a_gpu, min_max_array_gpu)
    a_min, a_max = min_max_array_gpu.copy_to_host()
    edges[:] = np.linspace(a_min, a_max, BINS + 1)
    histogram_out = cuda.to_device(np.zeros(shape=(BINS,), dtype=np.int32))
    histogram[64, 64](a_gpu, a_min, a_max, histogram_out)
    hist[:] = histogram_out.copy_to_host()


CASE = dict(kernel="histogram", griddim=64, blockdim=64, args=["a", "hist", "edges"], outputs=["hist", "edges"],
            rtol=1e-12)
