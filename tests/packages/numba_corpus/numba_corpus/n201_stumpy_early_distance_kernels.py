# =============================================================================
# Source : TDAmeritrade/stumpy, stumpy/gpu_stump.py (first numba-cuda port), kernels `_get_QT_kernel`,
#          `_calculate_squared_distance_kernel`, `_ignore_trivial`, `_get_PI_kernel`
#          https://github.com/TDAmeritrade/stumpy/blob/28be9f7977a9d9ca7fcdcdc4d3e8909368972514/stumpy/gpu_stump.py
# License: BSD-3-Clause (STUMPY)
# Project: STUMPY (real)
# What   : rolling sliding-dot-product update, z-normalized squared distance profile, exclusion zone.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
import numpy as np
from numba import cuda, int64
import math


@cuda.jit
def _get_QT_kernel(i, T_A, T_B, m, QT_even, QT_odd, k):  # pragma: no gpu cover
    """
    A Numba implementation for GPU computation of the squared
    distance profile according to:

    `DOI: 10.1109/ICDM.2016.0179 \
    <https://www.cs.ucr.edu/~eamonn/PID4481997_extend_Matrix%20Profile_I.pdf>`__

    See Equation on Page 4

    Parameters
    ----------
    QT : ndarray
        Dot product between the query sequence,`Q`, and time series, `T`

    μ_Q : ndarray
        Mean of the query sequence, `Q`

    σ_Q : ndarray
        Standard deviation of the query sequence, `Q`

    M_T : ndarray
        Sliding mean of time series, `T`

    Σ_T : ndarray
        Sliding standard deviation of time series, `T`

    Returns
    -------
    D_squared : ndarray
        Squared z-normalized Eucldiean distances. The normal distances can
        be obtained by calculating taking the square root.
    """
    start = cuda.grid(1)
    stride = cuda.gridsize(1)

    for j in range(start, k, stride):
        if j >= 1:
            if i % 2 == 0:
                QT_even[j] = (
                    QT_odd[j - 1]
                    - T_B[i - 1] * T_A[j - 1]
                    + T_B[i + m - 1] * T_A[j + m - 1]
                )
            else:
                QT_odd[j] = (
                    QT_even[j - 1]
                    - T_B[i - 1] * T_A[j - 1]
                    + T_B[i + m - 1] * T_A[j + m - 1]
                )


@cuda.jit
def _calculate_squared_distance_kernel(
    i, m, M_T, Σ_T, QT, QT_first, μ_Q, σ_Q, D, denom
):  # pragma: no gpu cover
    """
    A Numba implementation for GPU computation of the squared
    distance profile according to:

    `DOI: 10.1109/ICDM.2016.0179 \
    <https://www.cs.ucr.edu/~eamonn/PID4481997_extend_Matrix%20Profile_I.pdf>`__

    See Equation on Page 4

    Parameters
    ----------
    QT : ndarray
        Dot product between the query sequence,`Q`, and time series, `T`

    μ_Q : ndarray
        Mean of the query sequence, `Q`

    σ_Q : ndarray
        Standard deviation of the query sequence, `Q`

    M_T : ndarray
        Sliding mean of time series, `T`

    Σ_T : ndarray
        Sliding standard deviation of time series, `T`

    Returns
    -------
    D_squared : ndarray
        Squared z-normalized Eucldiean distances. The normal distances can
        be obtained by calculating taking the square root.
    """
    start = cuda.grid(1)
    stride = cuda.gridsize(1)

    for j in range(start, D.shape[0], stride):
        denom[j] = m * σ_Q[i] * Σ_T[j]
        if denom[j] == 0:
            denom[j] = 1e-10

        QT[0] = QT_first[i]
        D[j] = abs(2 * m * (1.0 - (QT[j] - m * μ_Q[i] * M_T[j]) / denom[j]))


@cuda.jit
def _ignore_trivial(k, D, zone_start, zone_stop):  # pragma: no gpu cover
    start = cuda.grid(1)
    stride = cuda.gridsize(1)

    for j in range(start, k, stride):
        if j >= zone_start and j < zone_stop:
            D[j] = np.inf


@cuda.jit
def _get_PI_kernel(
    i, D, ignore_trivial, zone_start, zone_stop, profile, indices
):  # pragma: no gpu cover
    IL = cuda.local.array(1, dtype=int64)
    IR = cuda.local.array(1, dtype=int64)

    IL[0] = -1
    IR[0] = -1

    start = cuda.grid(1)
    stride = cuda.gridsize(1)

    for j in range(start, D.shape[0], stride):
        pass
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
import numpy as np
from hybrid_runtime import cuda, int64
import math


@cuda.jit
def _get_QT_kernel(i, T_A, T_B, m, QT_even, QT_odd, k):  # pragma: no gpu cover
    """
    A Numba implementation for GPU computation of the squared
    distance profile according to:

    `DOI: 10.1109/ICDM.2016.0179 \
    <https://www.cs.ucr.edu/~eamonn/PID4481997_extend_Matrix%20Profile_I.pdf>`__

    See Equation on Page 4

    Parameters
    ----------
    QT : ndarray
        Dot product between the query sequence,`Q`, and time series, `T`

    μ_Q : ndarray
        Mean of the query sequence, `Q`

    σ_Q : ndarray
        Standard deviation of the query sequence, `Q`

    M_T : ndarray
        Sliding mean of time series, `T`

    Σ_T : ndarray
        Sliding standard deviation of time series, `T`

    Returns
    -------
    D_squared : ndarray
        Squared z-normalized Eucldiean distances. The normal distances can
        be obtained by calculating taking the square root.
    """
    start = cuda.grid(1)
    stride = cuda.gridsize(1)

    for j in range(start, k, stride):
        if j >= 1:
            if i % 2 == 0:
                QT_even[j] = (
                    QT_odd[j - 1]
                    - T_B[i - 1] * T_A[j - 1]
                    + T_B[i + m - 1] * T_A[j + m - 1]
                )
            else:
                QT_odd[j] = (
                    QT_even[j - 1]
                    - T_B[i - 1] * T_A[j - 1]
                    + T_B[i + m - 1] * T_A[j + m - 1]
                )


@cuda.jit
def _calculate_squared_distance_kernel(
    i, m, M_T, Σ_T, QT, QT_first, μ_Q, σ_Q, D, denom
):  # pragma: no gpu cover
    """
    A Numba implementation for GPU computation of the squared
    distance profile according to:

    `DOI: 10.1109/ICDM.2016.0179 \
    <https://www.cs.ucr.edu/~eamonn/PID4481997_extend_Matrix%20Profile_I.pdf>`__

    See Equation on Page 4

    Parameters
    ----------
    QT : ndarray
        Dot product between the query sequence,`Q`, and time series, `T`

    μ_Q : ndarray
        Mean of the query sequence, `Q`

    σ_Q : ndarray
        Standard deviation of the query sequence, `Q`

    M_T : ndarray
        Sliding mean of time series, `T`

    Σ_T : ndarray
        Sliding standard deviation of time series, `T`

    Returns
    -------
    D_squared : ndarray
        Squared z-normalized Eucldiean distances. The normal distances can
        be obtained by calculating taking the square root.
    """
    start = cuda.grid(1)
    stride = cuda.gridsize(1)

    for j in range(start, D.shape[0], stride):
        denom[j] = m * σ_Q[i] * Σ_T[j]
        if denom[j] == 0:
            denom[j] = 1e-10

        QT[0] = QT_first[i]
        D[j] = abs(2 * m * (1.0 - (QT[j] - m * μ_Q[i] * M_T[j]) / denom[j]))


@cuda.jit
def _ignore_trivial(k, D, zone_start, zone_stop):  # pragma: no gpu cover
    start = cuda.grid(1)
    stride = cuda.gridsize(1)

    for j in range(start, k, stride):
        if j >= zone_start and j < zone_stop:
            D[j] = np.inf


@cuda.jit
def _get_PI_kernel(
    i, D, ignore_trivial, zone_start, zone_stop, profile, indices
):  # pragma: no gpu cover
    IL = cuda.local.array(1, dtype=int64)
    IR = cuda.local.array(1, dtype=int64)

    IL[0] = -1
    IR[0] = -1

    start = cuda.grid(1)
    stride = cuda.gridsize(1)

    for j in range(start, D.shape[0], stride):
        pass


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


M = 6


def make_args(rng):
    T = rng.standard_normal(40)
    k = T.shape[0] - M + 1
    return [T, np.zeros((k, k))]


def _windows(T):
    return np.lib.stride_tricks.sliding_window_view(T, M)


def reference(T, Dall):
    W = _windows(T)
    k = W.shape[0]
    excl_zone = int(np.ceil(M / 4))
    mu, sig = W.mean(axis=1), W.std(axis=1)
    for i in range(1, k):
        QT = W @ W[i]
        D = np.abs(2 * M * (1.0 - (QT - M * mu[i] * mu) / (M * sig[i] * sig)))
        D[max(0, i - excl_zone):min(k, i + excl_zone)] = np.inf
        Dall[i] = D
    return {"Dall": Dall}


def run(T, Dall):
    # the published _gpu_stump host loop (self-join, range_start=1, range_stop=k)
    W = _windows(T)
    k = W.shape[0]
    m = M
    excl_zone = int(np.ceil(m / 4))
    M_T, Σ_T = W.mean(axis=1), W.std(axis=1)
    QT = W @ W[0]
    QT_first = W @ W[0]
    device_T_A = cuda.to_device(T)
    device_T_B = cuda.to_device(T)
    device_M_T = cuda.to_device(M_T)
    device_Σ_T = cuda.to_device(Σ_T)
    device_QT_odd = cuda.to_device(QT)
    device_QT_even = cuda.to_device(QT)
    device_QT_first = cuda.to_device(QT_first)
    device_μ_Q = cuda.to_device(M_T)
    device_σ_Q = cuda.to_device(Σ_T)
    device_D_even = cuda.device_array(k, dtype=np.float64)
    device_D_odd = cuda.device_array(k, dtype=np.float64)
    device_denom_even = cuda.device_array(QT.shape, dtype=np.float64)
    device_denom_odd = cuda.device_array(QT.shape, dtype=np.float64)
    device_profile = cuda.to_device(np.full(k, np.inf))
    device_indices = cuda.to_device(np.full((k, 3), -1.0))
    threads_per_block = 64
    blocks_per_grid = int(np.ceil(k / threads_per_block))
    for i in range(1, k):
        zone_start = max(0, i - excl_zone)
        zone_stop = min(k, i + excl_zone)
        if i % 2 == 0:
            device_QT, device_D, device_denom = device_QT_even, device_D_even, device_denom_even
        else:
            device_QT, device_D, device_denom = device_QT_odd, device_D_odd, device_denom_odd
        _get_QT_kernel[blocks_per_grid, threads_per_block](
            i, device_T_A, device_T_B, m, device_QT_even, device_QT_odd, k
        )
        _calculate_squared_distance_kernel[blocks_per_grid, threads_per_block](
            i, m, device_M_T, device_Σ_T, device_QT, device_QT_first, device_μ_Q, device_σ_Q, device_D, device_denom,
        )
        _ignore_trivial[blocks_per_grid, threads_per_block](k, device_D, zone_start, zone_stop)
        _get_PI_kernel[blocks_per_grid, threads_per_block](
            i, device_D, True, zone_start, zone_stop, device_profile, device_indices,
        )
        Dall[i] = device_D.copy_to_host()


CASE = dict(kernel="_calculate_squared_distance_kernel", griddim=1, blockdim=64, args=["T", "Dall"],
            outputs=["Dall"], rtol=1e-7, atol=1e-9)
