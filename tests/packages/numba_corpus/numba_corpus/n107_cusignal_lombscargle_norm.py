# =============================================================================
# Source : rapidsai/cusignal, python/cusignal/_spectral.py, kernel `_lombscargle_norm`
#          https://github.com/rapidsai/cusignal/blob/c18a66b81c8cd879c57790ff4f42c4a3d49b0e39/python/cusignal/_spectral.py
# License: Apache-2.0 (cuSignal at that commit)
# Project: cuSignal (real)
# What   : normalised Lomb-Scargle periodogram (scaled by 2 / y.y), grid-stride loop, math sin/cos/atan2.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda

# These cupy math functions aren't yet supported in numba
from math import sin, cos, atan2


@cuda.jit(fastmath=True)
def _lombscargle_norm(x, y, freqs, pgram, y_dot):
    """
    _lombscargle(x, y, freqs)
    Computes the Lomb-Scargle periodogram.
    Parameters
    ----------
    x : array_like
        Sample times.
    y : array_like
        Measurement values (must be registered so the mean is zero).
    freqs : array_like
        Angular frequencies for output periodogram.
    Returns
    -------
    pgram : array_like
        Lomb-Scargle periodogram.
    Raises
    ------
    ValueError
        If the input arrays `x` and `y` do not have the same shape.
    See also
    --------
    lombscargle
    """

    F = cuda.grid(1)
    strideF = cuda.gridsize(1)

    for i in range(F, freqs.shape[0], strideF):

        # Copy data to registers
        temp = 0.0
        freq = freqs[i]
        yD = 2.0 / y_dot[0]

        xc = 0.
        xs = 0.
        cc = 0.
        ss = 0.
        cs = 0.

        # cuda.syncthreads()

        for j in range(x.shape[0]):

            c = cos(freq * x[j])
            s = sin(freq * x[j])

            xc += y[j] * c
            xs += y[j] * s
            cc += c * c
            ss += s * s
            cs += c * s

        tau = atan2(2.0 * cs, cc - ss) / (2.0 * freq)
        c_tau = cos(freq * tau)
        s_tau = sin(freq * tau)
        c_tau2 = c_tau * c_tau
        s_tau2 = s_tau * s_tau
        cs_tau = 2.0 * c_tau * s_tau

        temp = 0.5 * (
            ((c_tau * xc + s_tau * xs)**2 /
             (c_tau2 * cc + cs_tau * cs + s_tau2 * ss)) +
            ((c_tau * xs - s_tau * xc)**2 /
             (c_tau2 * ss - cs_tau * cs + s_tau2 * cc))
        )

        pgram[i] = temp * yD
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda

# These cupy math functions aren't yet supported in numba
from math import sin, cos, atan2


@cuda.jit(fastmath=True)
def _lombscargle_norm(x, y, freqs, pgram, y_dot):
    """
    _lombscargle(x, y, freqs)
    Computes the Lomb-Scargle periodogram.
    Parameters
    ----------
    x : array_like
        Sample times.
    y : array_like
        Measurement values (must be registered so the mean is zero).
    freqs : array_like
        Angular frequencies for output periodogram.
    Returns
    -------
    pgram : array_like
        Lomb-Scargle periodogram.
    Raises
    ------
    ValueError
        If the input arrays `x` and `y` do not have the same shape.
    See also
    --------
    lombscargle
    """

    F = cuda.grid(1)
    strideF = cuda.gridsize(1)

    for i in range(F, freqs.shape[0], strideF):

        # Copy data to registers
        temp = 0.0
        freq = freqs[i]
        yD = 2.0 / y_dot[0]

        xc = 0.
        xs = 0.
        cc = 0.
        ss = 0.
        cs = 0.

        # cuda.syncthreads()

        for j in range(x.shape[0]):

            c = cos(freq * x[j])
            s = sin(freq * x[j])

            xc += y[j] * c
            xs += y[j] * s
            cc += c * c
            ss += s * s
            cs += c * s

        tau = atan2(2.0 * cs, cc - ss) / (2.0 * freq)
        c_tau = cos(freq * tau)
        s_tau = sin(freq * tau)
        c_tau2 = c_tau * c_tau
        s_tau2 = s_tau * s_tau
        cs_tau = 2.0 * c_tau * s_tau

        temp = 0.5 * (
            ((c_tau * xc + s_tau * xs)**2 /
             (c_tau2 * cc + cs_tau * cs + s_tau2 * ss)) +
            ((c_tau * xs - s_tau * xc)**2 /
             (c_tau2 * ss - cs_tau * cs + s_tau2 * cc))
        )

        pgram[i] = temp * yD


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def _lomb(x, y, freqs):
    # Lomb-Scargle periodogram (Townsend / SciPy formulation), vectorised over frequencies
    wx = np.outer(freqs, x)
    c, s = np.cos(wx), np.sin(wx)
    xc, xs = c @ y, s @ y
    cc, ss, cs = (c * c).sum(1), (s * s).sum(1), (c * s).sum(1)
    tau = np.arctan2(2 * cs, cc - ss) / (2 * freqs)
    ct, st = np.cos(freqs * tau), np.sin(freqs * tau)
    return 0.5 * ((ct * xc + st * xs) ** 2 / (ct * ct * cc + 2 * ct * st * cs + st * st * ss)
                  + (ct * xs - st * xc) ** 2 / (ct * ct * ss - 2 * ct * st * cs + st * st * cc))


def make_args(rng):
    x = np.sort(rng.uniform(0.0, 10.0, 50))
    y = np.cos(2.3 * x) + 0.3 * rng.standard_normal(50)
    freqs = np.linspace(0.1, 5.0, 100)
    pgram = np.zeros(100)
    y_dot = np.array([np.dot(y, y)])
    return [x, y, freqs, pgram, y_dot]


def reference(x, y, freqs, pgram, y_dot):
    return {"pgram": _lomb(x, y, freqs) * (2.0 / np.dot(y, y))}


CASE = dict(kernel="_lombscargle_norm", griddim=2, blockdim=32, args=["x", "y", "freqs", "pgram", "y_dot"],
            outputs=["pgram"], rtol=1e-9, atol=1e-12)
