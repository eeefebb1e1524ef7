# =============================================================================
# Source : rapidsai/cusignal, python/cusignal/_upfirdn.py, kernel `_apply`
#          https://github.com/rapidsai/cusignal/blob/c18a66b81c8cd879c57790ff4f42c4a3d49b0e39/python/cusignal/_upfirdn.py
# License: Apache-2.0 (cuSignal at that commit)
# Project: cuSignal (real)
# What   : upsample/FIR/downsample along axis 1 of a 2-D signal (2-D grid, default arg axis=-1, x.shape[axis], len()).
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda
import math


# Custom Numba kernel implementing upsample, filter, downsample operation
# Matthew Nicely - mnicely@nvidia.com
@cuda.jit(fastmath=True)
def _apply(x, h_trans_flip, out, up, down, axis=-1):

    num_loops = 1
    for i in range(out.ndim - 1):
        if i != axis:
            num_loops *= out.shape[i]

    X, Y = cuda.grid(2)

    if X < out.shape[0] and Y < out.shape[1]:

        i = X
        y_idx = Y

        h_per_phase = len(h_trans_flip) // up
        padded_len = x.shape[axis] + h_per_phase - 1

        if axis == 1:
            x_idx = ((Y * down) // up) % padded_len
            h_idx = (Y * down) % up * h_per_phase
        else:
            x_idx = ((i * down) // up) % padded_len
            h_idx = (i * down) % up * h_per_phase

        x_conv_idx = x_idx - h_per_phase + 1
        if x_conv_idx < 0:
            h_idx -= x_conv_idx
            x_conv_idx = 0

        # If axis = 0, we need to know each column in x.
        for x_conv_idx in range(x_conv_idx, x_idx + 1):
            if x_conv_idx < x.shape[axis] and x_conv_idx >= 0:
                # if multi-dimenstional array
                if num_loops > 1:   # a loop is an additional column
                    out[i, y_idx] = (
                        out[i, y_idx] +
                        x[i, x_conv_idx] * h_trans_flip[h_idx]
                    )
                else:
                    out[i, y_idx] = (
                        out[i, y_idx] +
                        x[x_conv_idx, y_idx] * h_trans_flip[h_idx]
                    )

            h_idx += 1
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda
import math


# Custom Numba kernel implementing upsample, filter, downsample operation
# Matthew Nicely - mnicely@nvidia.com
@cuda.jit(fastmath=True)
def _apply(x, h_trans_flip, out, up, down, axis=-1):

    num_loops = 1
    for i in range(out.ndim - 1):
        if i != axis:
            num_loops *= out.shape[i]

    X, Y = cuda.grid(2)

    if X < out.shape[0] and Y < out.shape[1]:

        i = X
        y_idx = Y

        h_per_phase = len(h_trans_flip) // up
        padded_len = x.shape[axis] + h_per_phase - 1

        if axis == 1:
            x_idx = ((Y * down) // up) % padded_len
            h_idx = (Y * down) % up * h_per_phase
        else:
            x_idx = ((i * down) // up) % padded_len
            h_idx = (i * down) % up * h_per_phase

        x_conv_idx = x_idx - h_per_phase + 1
        if x_conv_idx < 0:
            h_idx -= x_conv_idx
            x_conv_idx = 0

        # If axis = 0, we need to know each column in x.
        for x_conv_idx in range(x_conv_idx, x_idx + 1):
            if x_conv_idx < x.shape[axis] and x_conv_idx >= 0:
                # if multi-dimenstional array
                if num_loops > 1:   # a loop is an additional column
                    out[i, y_idx] = (
                        out[i, y_idx] +
                        x[i, x_conv_idx] * h_trans_flip[h_idx]
                    )
                else:
                    out[i, y_idx] = (
                        out[i, y_idx] +
                        x[x_conv_idx, y_idx] * h_trans_flip[h_idx]
                    )

            h_idx += 1


# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def _pad_h_np(h, up):
    # host-side coefficient layout of the published _pad_h (CuPy there, NumPy here)
    h_padlen = len(h) + (-len(h) % up)
    h_full = np.zeros(h_padlen, h.dtype)
    h_full[: len(h)] = h
    return np.ascontiguousarray(h_full.reshape(-1, up).T[:, ::-1].ravel())


def _upfirdn_ref(h, x, up, down):
    # textbook upfirdn: zero-stuff by `up`, full FIR convolution, keep every `down`-th sample
    len_h = len(h)
    nt = (len(x) + (len_h + (-len_h % up)) // up - 1) * up
    xu = np.zeros(max(nt, len(x) * up))
    xu[::up][: len(x)] = x
    return np.convolve(xu, h)[:nt][::down]


def make_args(rng):
    up, down = 3, 2
    h = rng.standard_normal(11).astype(np.float32)
    x = rng.standard_normal((6, 40)).astype(np.float32)
    h_trans_flip = _pad_h_np(h, up)
    need = len(_upfirdn_ref(h.astype(np.float64), x[0].astype(np.float64), up, down))
    out = np.zeros((6, need), np.float32)
    return [x, h_trans_flip, out, up, down, 1, h]


def reference(x, h_trans_flip, out, up, down, axis, h):
    want = np.stack([_upfirdn_ref(h.astype(np.float64), row.astype(np.float64), up, down) for row in x])
    return {"out": want}


def run(x, h_trans_flip, out, up, down, axis, h):
    threadsperblock = (16, 16)
    blockspergrid = (math.ceil(out.shape[0] / threadsperblock[0]), math.ceil(out.shape[1] / threadsperblock[1]))
    _apply[blockspergrid, threadsperblock](x, h_trans_flip, out, up, down, axis)


CASE = dict(kernel="_apply", args=["x", "h_trans_flip", "out", "up", "down", "axis", "h"], outputs=["out"],
            rtol=1e-5, atol=1e-5)
