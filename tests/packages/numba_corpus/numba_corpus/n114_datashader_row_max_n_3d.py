# =============================================================================
# Source : holoviz/datashader, datashader/transfer_functions/_cuda_utils.py, kernel `cuda_row_max_n_in_place_3d`,
#          device functions `_cuda_row_max_n_impl`, `cuda_shift_and_insert`
#          https://github.com/holoviz/datashader/blob/b7ac59c5ad20412edbf9b12ee9dc6ff62d563f01/datashader/transfer_functions/_cuda_utils.py
# License: BSD-3-Clause (datashader)
# Project: datashader (real)
# What   : merge two per-pixel max-n row-index lists (int64, -1 padded), 2-D grid, device fns returning ints.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from math import ceil, isnan

from numba import cuda


@cuda.jit(device=True)
def cuda_shift_and_insert(target, value, index):
    """Insert a value into a 1D array at a particular index, but before doing
    that shift the previous values along one to make room. For use in
    ``FloatingNReduction`` classes such as ``max_n`` and ``first_n`` which
    store ``n`` values per pixel.

    Parameters
    ----------
    target : 1d numpy array
        Target pixel array.

    value : float
        Value to insert into target pixel array.

    index : int
        Index to insert at.

    Returns
    -------
    Index beyond insertion, i.e. where the first shifted value now sits.
    """
    n = len(target)
    for i in range(n-1, index, -1):
        target[i] = target[i-1]
    target[index] = value
    return index + 1


@cuda.jit(device=True)
def _cuda_row_max_n_impl(ret_pixel, other_pixel):
    """Single pixel implementation of row_max_n_in_place.
    ret_pixel and other_pixel are both 1D arrays of the same length.

    Walk along other_pixel a value at a time, find insertion index in
    ret_pixel and shift values along to insert.  Next other_pixel value is
    inserted at a higher index, so this walks the two pixel arrays just once
    each.
    """
    n = len(ret_pixel)
    istart = 0
    for other_value in other_pixel:
        if other_value == -1:
            break
        else:
            for i in range(istart, n):
                if ret_pixel[i] == -1 or other_value > ret_pixel[i]:
                    istart = cuda_shift_and_insert(ret_pixel, other_value, i)
                    break


@cuda.jit
def cuda_row_max_n_in_place_3d(ret, other):
    """CUDA equivalent of row_max_n_in_place_3d.
    """
    ny, nx, _n = ret.shape
    x, y = cuda.grid(2)
    if x < nx and y < ny:
        _cuda_row_max_n_impl(ret[y, x], other[y, x])
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from math import ceil, isnan

from hybrid_runtime import cuda


@cuda.jit(device=True)
def cuda_shift_and_insert(target, value, index):
    """Insert a value into a 1D array at a particular index, but before doing
    that shift the previous values along one to make room. For use in
    ``FloatingNReduction`` classes such as ``max_n`` and ``first_n`` which
    store ``n`` values per pixel.

    Parameters
    ----------
    target : 1d numpy array
        Target pixel array.

    value : float
        Value to insert into target pixel array.

    index : int
        Index to insert at.

    Returns
    -------
    Index beyond insertion, i.e. where the first shifted value now sits.
    """
    n = len(target)
    for i in range(n-1, index, -1):
        target[i] = target[i-1]
    target[index] = value
    return index + 1


@cuda.jit(device=True)
def _cuda_row_max_n_impl(ret_pixel, other_pixel):
    """Single pixel implementation of row_max_n_in_place.
    ret_pixel and other_pixel are both 1D arrays of the same length.

    Walk along other_pixel a value at a time, find insertion index in
    ret_pixel and shift values along to insert.  Next other_pixel value is
    inserted at a higher index, so this walks the two pixel arrays just once
    each.
    """
    n = len(ret_pixel)
    istart = 0
    for other_value in other_pixel:
        if other_value == -1:
            break
        else:
            for i in range(istart, n):
                if ret_pixel[i] == -1 or other_value > ret_pixel[i]:
                    istart = cuda_shift_and_insert(ret_pixel, other_value, i)
                    break


@cuda.jit
def cuda_row_max_n_in_place_3d(ret, other):
    """CUDA equivalent of row_max_n_in_place_3d.
    """
    ny, nx, _n = ret.shape
    x, y = cuda.grid(2)
    if x < nx and y < ny:
        _cuda_row_max_n_impl(ret[y, x], other[y, x])


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def _pixels(rng, shape, n, fill_ratio):
    # each pixel: its valid row indices (>= 0) sorted descending, then -1 padding (the layout of *_n_row_index)
    a = np.full(shape + (n,), -1, np.int64)
    for idx in np.ndindex(*shape):
        k = rng.integers(0, n + 1)
        vals = np.sort(rng.choice(200, k, replace=False))
        a[idx][:k] = vals[::-1] if True else vals
    return a


def _merge(r, o, n):
    vals = np.sort(np.concatenate([r[r != -1], o[o != -1]]))
    if True:
        vals = vals[::-1]
    out = np.full(n, -1, np.int64)
    out[: min(n, len(vals))] = vals[:n]
    return out


def make_args(rng):
    n = 4
    ret = _pixels(rng, (10, 12), n, True)
    other = _pixels(rng, (10, 12), n, True)
    return [ret, other]


def reference(ret, other):
    want = ret.copy()
    n = ret.shape[-1]
    for idx in np.ndindex(*ret.shape[:-1]):
        want[idx] = _merge(ret[idx], other[idx], n)
    return {"ret": want}


CASE = dict(kernel="cuda_row_max_n_in_place_3d", griddim=(1, 1), blockdim=(16, 16), args=["ret", "other"], outputs=["ret"])
