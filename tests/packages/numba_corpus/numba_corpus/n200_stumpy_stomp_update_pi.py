# =============================================================================
# Source : TDAmeritrade/stumpy, stumpy/gpu_stump.py, kernel `_compute_and_update_PI_kernel`
#          https://github.com/TDAmeritrade/stumpy/blob/e2a520e6e709ab8fb5e6ee49e6b8773875c6cb28/stumpy/gpu_stump.py
# License: BSD-3-Clause (STUMPY)
# Project: STUMPY (real)
# What   : GPU-STOMP step: rolling QT update, z-normalized distance, matrix profile (+left/right) update.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
import math


import numpy as np
from numba import cuda


@cuda.jit(
    "(i8, f8[:], f8[:], i8,  f8[:], f8[:], f8[:], f8[:], f8[:],"
    "f8[:], f8[:], i8, b1, i8, f8[:, :], i8[:, :], b1)"
)
def _compute_and_update_PI_kernel(
    i,
    T_A,
    T_B,
    m,
    QT_even,
    QT_odd,
    QT_first,
    M_T,
    Σ_T,
    μ_Q,
    σ_Q,
    k,
    ignore_trivial,
    excl_zone,
    profile,
    indices,
    compute_QT,
):
    """
    A Numba CUDA kernel to update the matrix profile and matrix profile indices

    Parameters
    ----------
    i : int
        sliding window `i`

    T_A : ndarray
        The time series or sequence for which to compute the dot product

    T_B : ndarray
        The time series or sequence that contain your query subsequence
        of interest

    m : int
        Window size

    QT_even : ndarray
        The input QT array (dot product between the query sequence,`Q`, and
        time series, `T`) to use when `i` is even

    QT_odd : ndarray
        The input QT array (dot product between the query sequence,`Q`, and
        time series, `T`) to use when `i` is odd

    QT_first : ndarray
        Dot product between the first query sequence,`Q`, and time series, `T`

    M_T : ndarray
        Sliding mean of time series, `T`

    Σ_T : ndarray
        Sliding standard deviation of time series, `T`

    μ_Q : ndarray
        Mean of the query sequence, `Q`

    σ_Q : ndarray
        Standard deviation of the query sequence, `Q`

    k : int
        The total number of sliding windows to iterate over

    ignore_trivial : bool
        Set to `True` if this is a self-join. Otherwise, for AB-join, set this to
        `False`.

    excl_zone : int
        The half width for the exclusion zone relative to the current
        sliding window

    profile : ndarray
        Matrix profile. The first column consists of the global matrix profile,
        the second column consists of the left matrix profile, and the third
        column consists of the right matrix profile.

    indices : ndarray
        The first column consists of the matrix profile indices, the second
        column consists of the left matrix profile indices, and the third
        column consists of the right matrix profile indices.

    compute_QT : bool
        A boolean flag for whether or not to compute QT

    Returns
    -------
    None

    Notes
    -----
    `DOI: 10.1109/ICDM.2016.0085 \
    <https://www.cs.ucr.edu/~eamonn/STOMP_GPU_final_submission_camera_ready.pdf>`__

    See Table II, Figure 5, and Figure 6
    """
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    denom_threshold = 1e-14
    stddev_threshold = 1e-7
    D_threshold = 1e-14

    if i % 2 == 0:
        QT_out = QT_even
        QT_in = QT_odd
    else:
        QT_out = QT_odd
        QT_in = QT_even

    for j in range(start, QT_out.shape[0], stride):
        zone_start = max(0, j - excl_zone)
        zone_stop = min(k, j + excl_zone)

        if compute_QT:
            QT_out[j] = (
                QT_in[j - 1] - T_B[i - 1] * T_A[j - 1] + T_B[i + m - 1] * T_A[j + m - 1]
            )

            QT_out[0] = QT_first[i]
        if math.isinf(M_T[j]) or math.isinf(μ_Q[i]):
            D = np.inf
        else:
            if σ_Q[i] < stddev_threshold or Σ_T[j] < stddev_threshold:
                D = m
            else:
                denom = m * σ_Q[i] * Σ_T[j]
                if math.fabs(denom) < denom_threshold:  # pragma nocover
                    denom = denom_threshold
                D = abs(2 * m * (1.0 - (QT_out[j] - m * μ_Q[i] * M_T[j]) / denom))

            if (
                σ_Q[i] < stddev_threshold and Σ_T[j] < stddev_threshold
            ) or D < D_threshold:
                D = 0

        if ignore_trivial:
            if i <= zone_stop and i >= zone_start:
                D = np.inf
            if D < profile[j, 1] and i < j:
                profile[j, 1] = D
                indices[j, 1] = i
            if D < profile[j, 2] and i > j:
                profile[j, 2] = D
                indices[j, 2] = i

        if D < profile[j, 0]:
            profile[j, 0] = D
            indices[j, 0] = i
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
import math


import numpy as np
from hybrid_runtime import cuda


@cuda.jit(
    "(i8, f8[:], f8[:], i8,  f8[:], f8[:], f8[:], f8[:], f8[:],"
    "f8[:], f8[:], i8, b1, i8, f8[:, :], i8[:, :], b1)"
)
def _compute_and_update_PI_kernel(
    i,
    T_A,
    T_B,
    m,
    QT_even,
    QT_odd,
    QT_first,
    M_T,
    Σ_T,
    μ_Q,
    σ_Q,
    k,
    ignore_trivial,
    excl_zone,
    profile,
    indices,
    compute_QT,
):
    """
    A Numba CUDA kernel to update the matrix profile and matrix profile indices

    Parameters
    ----------
    i : int
        sliding window `i`

    T_A : ndarray
        The time series or sequence for which to compute the dot product

    T_B : ndarray
        The time series or sequence that contain your query subsequence
        of interest

    m : int
        Window size

    QT_even : ndarray
        The input QT array (dot product between the query sequence,`Q`, and
        time series, `T`) to use when `i` is even

    QT_odd : ndarray
        The input QT array (dot product between the query sequence,`Q`, and
        time series, `T`) to use when `i` is odd

    QT_first : ndarray
        Dot product between the first query sequence,`Q`, and time series, `T`

    M_T : ndarray
        Sliding mean of time series, `T`

    Σ_T : ndarray
        Sliding standard deviation of time series, `T`

    μ_Q : ndarray
        Mean of the query sequence, `Q`

    σ_Q : ndarray
        Standard deviation of the query sequence, `Q`

    k : int
        The total number of sliding windows to iterate over

    ignore_trivial : bool
        Set to `True` if this is a self-join. Otherwise, for AB-join, set this to
        `False`.

    excl_zone : int
        The half width for the exclusion zone relative to the current
        sliding window

    profile : ndarray
        Matrix profile. The first column consists of the global matrix profile,
        the second column consists of the left matrix profile, and the third
        column consists of the right matrix profile.

    indices : ndarray
        The first column consists of the matrix profile indices, the second
        column consists of the left matrix profile indices, and the third
        column consists of the right matrix profile indices.

    compute_QT : bool
        A boolean flag for whether or not to compute QT

    Returns
    -------
    None

    Notes
    -----
    `DOI: 10.1109/ICDM.2016.0085 \
    <https://www.cs.ucr.edu/~eamonn/STOMP_GPU_final_submission_camera_ready.pdf>`__

    See Table II, Figure 5, and Figure 6
    """
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    denom_threshold = 1e-14
    stddev_threshold = 1e-7
    D_threshold = 1e-14

    if i % 2 == 0:
        QT_out = QT_even
        QT_in = QT_odd
    else:
        QT_out = QT_odd
        QT_in = QT_even

    for j in range(start, QT_out.shape[0], stride):
        zone_start = max(0, j - excl_zone)
        zone_stop = min(k, j + excl_zone)

        if compute_QT:
            QT_out[j] = (
                QT_in[j - 1] - T_B[i - 1] * T_A[j - 1] + T_B[i + m - 1] * T_A[j + m - 1]
            )

            QT_out[0] = QT_first[i]
        if math.isinf(M_T[j]) or math.isinf(μ_Q[i]):
            D = np.inf
        else:
            if σ_Q[i] < stddev_threshold or Σ_T[j] < stddev_threshold:
                D = m
            else:
                denom = m * σ_Q[i] * Σ_T[j]
                if math.fabs(denom) < denom_threshold:  # pragma nocover
                    denom = denom_threshold
                D = abs(2 * m * (1.0 - (QT_out[j] - m * μ_Q[i] * M_T[j]) / denom))

            if (
                σ_Q[i] < stddev_threshold and Σ_T[j] < stddev_threshold
            ) or D < D_threshold:
                D = 0

        if ignore_trivial:
            if i <= zone_stop and i >= zone_start:
                D = np.inf
            if D < profile[j, 1] and i < j:
                profile[j, 1] = D
                indices[j, 1] = i
            if D < profile[j, 2] and i > j:
                profile[j, 2] = D
                indices[j, 2] = i

        if D < profile[j, 0]:
            profile[j, 0] = D
            indices[j, 0] = i


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


M = 8


def make_args(rng):
    T = rng.standard_normal(64)
    k = T.shape[0] - M + 1
    profile = np.full((k, 3), np.inf)
    indices = np.full((k, 3), -1, dtype=np.int64)
    return [T, profile, indices]


def _windows(T):
    return np.lib.stride_tricks.sliding_window_view(T, M)


def reference(T, profile, indices):
    W = _windows(T)
    k = W.shape[0]
    excl_zone = int(np.ceil(M / 4))
    mu = W.mean(axis=1)
    sig = W.std(axis=1)
    for j in range(k):
        zone_start, zone_stop = max(0, j - excl_zone), min(k, j + excl_zone)
        for i in range(k):
            qt = np.dot(W[i], W[j])
            D = abs(2 * M * (1.0 - (qt - M * mu[i] * mu[j]) / (M * sig[i] * sig[j])))
            if zone_start <= i <= zone_stop:
                D = np.inf
            if D < profile[j, 1] and i < j:
                profile[j, 1], indices[j, 1] = D, i
            if D < profile[j, 2] and i > j:
                profile[j, 2], indices[j, 2] = D, i
            if D < profile[j, 0]:
                profile[j, 0], indices[j, 0] = D, i
    return {"profile": np.sqrt(profile), "indices": indices}


def run(T, profile, indices):
    # gpu_stump's self-join host code (swap, preprocess, _get_QT(0, ...)) and _gpu_stump's launches
    W = _windows(T)
    k = W.shape[0]
    m = M
    excl_zone = int(np.ceil(m / 4))
    M_T = W.mean(axis=1)
    Σ_T = W.std(axis=1)
    QT = W @ W[0]              # Q = T_B[0:m] against every window of T_A
    QT_first = W @ W[0]        # T_A[0:m] against every window of T_B
    threads_per_block = 512
    blocks_per_grid = int(np.ceil(k / threads_per_block))
    device_T_A = cuda.to_device(T)
    device_QT_odd = cuda.to_device(QT)
    device_QT_even = cuda.to_device(QT)
    device_QT_first = cuda.to_device(QT_first)
    device_μ_Q = cuda.to_device(M_T)
    device_σ_Q = cuda.to_device(Σ_T)
    device_profile = cuda.to_device(profile)
    device_indices = cuda.to_device(indices)
    args = (device_T_A, device_T_A, m, device_QT_even, device_QT_odd, device_QT_first,
            device_μ_Q, device_σ_Q, device_μ_Q, device_σ_Q, k, True, excl_zone, device_profile, device_indices)
    _compute_and_update_PI_kernel[blocks_per_grid, threads_per_block](0, *args, False)
    for i in range(1, k):
        _compute_and_update_PI_kernel[blocks_per_grid, threads_per_block](i, *args, True)
    profile[:] = np.sqrt(device_profile.copy_to_host())
    indices[:] = device_indices.copy_to_host()


CASE = dict(kernel="_compute_and_update_PI_kernel", griddim=1, blockdim=512, args=["T", "profile", "indices"],
            outputs=["profile", "indices"], rtol=1e-7, atol=1e-9)
