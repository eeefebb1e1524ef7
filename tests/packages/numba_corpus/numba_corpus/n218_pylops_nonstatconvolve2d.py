# =============================================================================
# Source : PyLops/pylops, pylops/signalprocessing/_nonstatconvolve2d_cuda.py, kernel `_matvec_rmatvec`
#          https://github.com/PyLops/pylops/blob/cca7184e80da3af1ec27173df7905b676799ec23/pylops/signalprocessing/_nonstatconvolve2d_cuda.py
# License: LGPL-3.0-only (PyLops)
# Project: PyLops (real)
# What   : 2-D non-stationary convolution (bilinearly interpolated filters); tuple args, zip(range, range), atomic.add with a tuple index.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from math import floor

from numba import cuda


@cuda.jit(max_registers=40)
def _matvec_rmatvec(x, y, hs, hshape, xdims, ohx, ohz, dhx, dhz, nhx, nhz, rmatvec):
    """Cuda kernels for NonStationaryConvolve2D operator

    Cuda implementation of matvec and rmatvec for NonStationaryConvolve2D operator. See
    :class:`pylops.signalprocessing.NonStationaryConvolve2D` for details about input parameters.

    """
    ix, iz = cuda.grid(2)

    if ix < xdims[0] and iz < xdims[1]:
        # find and interpolate h
        ihx_l = int(floor((ix - ohx) / dhx))
        ihz_t = int(floor((iz - ohz) / dhz))
        dhx_r = (ix - ohx) / dhx - ihx_l
        dhz_b = (iz - ohz) / dhz - ihz_t
        if ihx_l < 0:
            ihx_l = ihx_r = 0
            dhx_l = dhx_r = 0.5
        elif ihx_l >= nhx - 1:
            ihx_l = ihx_r = nhx - 1
            dhx_l = dhx_r = 0.5
        else:
            ihx_r = ihx_l + 1
            dhx_l = 1.0 - dhx_r

        if ihz_t < 0:
            ihz_t = ihz_b = 0
            dhz_t = dhz_b = 0.5
        elif ihz_t >= nhz - 1:
            ihz_t = ihz_b = nhz - 1
            dhz_t = dhz_b = 0.5
        else:
            ihz_b = ihz_t + 1
            dhz_t = 1.0 - dhz_b

        h_tl = hs[ihx_l, ihz_t]
        h_bl = hs[ihx_l, ihz_b]
        h_tr = hs[ihx_r, ihz_t]
        h_br = hs[ihx_r, ihz_b]

        # find extremes of model where to apply h (in case h is going out of model)
        xextremes = (
            int(max(0, ix - hshape[0] // 2)),
            int(min(ix + hshape[0] // 2 + 1, xdims[0])),
        )
        zextremes = (
            int(max(0, iz - hshape[1] // 2)),
            int(min(iz + hshape[1] // 2 + 1, xdims[1])),
        )
        # find extremes of h (in case h is going out of model)
        hxextremes = (
            int(max(0, -ix + hshape[0] // 2)),
            int(min(hshape[0], hshape[0] // 2 + (xdims[0] - ix))),
        )
        hzextremes = (
            int(max(0, -iz + hshape[1] // 2)),
            int(min(hshape[1], hshape[1] // 2 + (xdims[1] - iz))),
        )
        # place filter in output
        for ixx, hxx in zip(
            range(xextremes[0], xextremes[1]), range(hxextremes[0], hxextremes[1])
        ):
            for izz, hzz in zip(
                range(zextremes[0], zextremes[1]),
                range(hzextremes[0], hzextremes[1]),
            ):
                h = (
                    dhz_t * dhx_l * h_tl[hxx, hzz]
                    + dhz_b * dhx_l * h_bl[hxx, hzz]
                    + dhz_t * dhx_r * h_tr[hxx, hzz]
                    + dhz_b * dhx_r * h_br[hxx, hzz]
                )
                if rmatvec:
                    y[ix, iz] += h * x[ixx, izz]
                else:
                    cuda.atomic.add(y, (ixx, izz), x[ix, iz] * h)
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from math import floor

from hybrid_runtime import cuda


@cuda.jit(max_registers=40)
def _matvec_rmatvec(x, y, hs, hshape, xdims, ohx, ohz, dhx, dhz, nhx, nhz, rmatvec):
    """Cuda kernels for NonStationaryConvolve2D operator

    Cuda implementation of matvec and rmatvec for NonStationaryConvolve2D operator. See
    :class:`pylops.signalprocessing.NonStationaryConvolve2D` for details about input parameters.

    """
    ix, iz = cuda.grid(2)

    if ix < xdims[0] and iz < xdims[1]:
        # find and interpolate h
        ihx_l = int(floor((ix - ohx) / dhx))
        ihz_t = int(floor((iz - ohz) / dhz))
        dhx_r = (ix - ohx) / dhx - ihx_l
        dhz_b = (iz - ohz) / dhz - ihz_t
        if ihx_l < 0:
            ihx_l = ihx_r = 0
            dhx_l = dhx_r = 0.5
        elif ihx_l >= nhx - 1:
            ihx_l = ihx_r = nhx - 1
            dhx_l = dhx_r = 0.5
        else:
            ihx_r = ihx_l + 1
            dhx_l = 1.0 - dhx_r

        if ihz_t < 0:
            ihz_t = ihz_b = 0
            dhz_t = dhz_b = 0.5
        elif ihz_t >= nhz - 1:
            ihz_t = ihz_b = nhz - 1
            dhz_t = dhz_b = 0.5
        else:
            ihz_b = ihz_t + 1
            dhz_t = 1.0 - dhz_b

        h_tl = hs[ihx_l, ihz_t]
        h_bl = hs[ihx_l, ihz_b]
        h_tr = hs[ihx_r, ihz_t]
        h_br = hs[ihx_r, ihz_b]

        # find extremes of model where to apply h (in case h is going out of model)
        xextremes = (
            int(max(0, ix - hshape[0] // 2)),
            int(min(ix + hshape[0] // 2 + 1, xdims[0])),
        )
        zextremes = (
            int(max(0, iz - hshape[1] // 2)),
            int(min(iz + hshape[1] // 2 + 1, xdims[1])),
        )
        # find extremes of h (in case h is going out of model)
        hxextremes = (
            int(max(0, -ix + hshape[0] // 2)),
            int(min(hshape[0], hshape[0] // 2 + (xdims[0] - ix))),
        )
        hzextremes = (
            int(max(0, -iz + hshape[1] // 2)),
            int(min(hshape[1], hshape[1] // 2 + (xdims[1] - iz))),
        )
        # place filter in output
        for ixx, hxx in zip(
            range(xextremes[0], xextremes[1]), range(hxextremes[0], hxextremes[1])
        ):
            for izz, hzz in zip(
                range(zextremes[0], zextremes[1]),
                range(hzextremes[0], hzextremes[1]),
            ):
                h = (
                    dhz_t * dhx_l * h_tl[hxx, hzz]
                    + dhz_b * dhx_l * h_bl[hxx, hzz]
                    + dhz_t * dhx_r * h_tr[hxx, hzz]
                    + dhz_b * dhx_r * h_br[hxx, hzz]
                )
                if rmatvec:
                    y[ix, iz] += h * x[ixx, izz]
                else:
                    cuda.atomic.add(y, (ixx, izz), x[ix, iz] * h)


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def _interp(i, o, d, n):
    il = int(np.floor((i - o) / d))
    wr = (i - o) / d - il
    if il < 0:
        return 0, 0, 0.5, 0.5
    if il >= n - 1:
        return n - 1, n - 1, 0.5, 0.5
    return il, il + 1, 1.0 - wr, wr


def _nonstat(x, hs, hshape, xdims, origins, steps, counts, adjoint):
    y = np.zeros_like(x)
    nd = len(xdims)
    for idx in np.ndindex(*xdims):
        parts = [_interp(i, o, d, n) for i, o, d, n in zip(idx, origins, steps, counts)]
        h = np.zeros(hshape)
        for corner in np.ndindex(*([2] * nd)):
            w = np.prod([parts[k][2 + corner[k]] for k in range(nd)])
            h = h + w * hs[tuple(parts[k][corner[k]] for k in range(nd))]
        for off in np.ndindex(*hshape):
            tgt = tuple(idx[k] - hshape[k] // 2 + off[k] for k in range(nd))
            if all(0 <= tgt[k] < xdims[k] for k in range(nd)):
                if adjoint:
                    y[idx] += h[off] * x[tgt]
                else:
                    y[tgt] += x[idx] * h[off]
    return y


HSHAPE, XDIMS = (5, 3), (20, 18)


def make_args(rng):
    hs = rng.standard_normal((3, 2) + HSHAPE)
    x = rng.standard_normal(XDIMS)
    x2 = rng.standard_normal(XDIMS)
    return [x, np.zeros(XDIMS), x2, np.zeros(XDIMS), hs, HSHAPE, XDIMS]


def reference(x, y, x2, y2, hs, hshape, xdims):
    return {"y": _nonstat(x, hs, hshape, xdims, (3, 2), (6, 8), (3, 2), False),
            "y2": _nonstat(x2, hs, hshape, xdims, (3, 2), (6, 8), (3, 2), True)}


def run(x, y, x2, y2, hs, hshape, xdims):
    # NonStationaryConvolve2D(engine="cuda"): ihx=(3, 9, 15), ihz=(2, 10); _matvec_rmatvec_call's launch
    num_threads_per_blocks = (8, 8)
    num_blocks = ((xdims[0] + 7) // 8, (xdims[1] + 7) // 8)
    _matvec_rmatvec[num_blocks, num_threads_per_blocks](x, y, hs, hshape, xdims, 3, 2, 6, 8, 3, 2, False)
    _matvec_rmatvec[num_blocks, num_threads_per_blocks](x2, y2, hs, hshape, xdims, 3, 2, 6, 8, 3, 2, True)


CASE = dict(kernel="_matvec_rmatvec", griddim=(3, 3), blockdim=(8, 8),
            args=["x", "y", "x2", "y2", "hs", "hshape", "xdims"], outputs=["y", "y2"], rtol=1e-12, atol=1e-12)
