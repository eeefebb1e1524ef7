# =============================================================================
# Source : rapidsai/cusignal, python/cusignal/_upfirdn.py, kernel `_apply_1d`
#          https://github.com/rapidsai/cusignal/blob/c18a66b81c8cd879c57790ff4f42c4a3d49b0e39/python/cusignal/_upfirdn.py
# License: Apache-2.0 (cuSignal at that commit)
# Project: cuSignal (real)
# What   : 1-D upsample/FIR/downsample (polyphase), grid-stride loop, loop variable reused as range start, x.shape[axis].
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda
import math


# Custom Numba kernel implementing upsample, filter, downsample operation
# Matthew Nicely - mnicely@nvidia.com
@cuda.jit(fastmath=True)
def _apply_1d(x, h_trans_flip, out, up, down, axis=-1):

    X = cuda.grid(1)
    strideX = cuda.gridsize(1)

    for i in range(X, out.shape[0], strideX):

        h_per_phase = len(h_trans_flip) // up
        padded_len = x.shape[axis] + h_per_phase - 1

        x_idx = ((i * down) // up) % padded_len
        h_idx = (i * down) % up * h_per_phase

        x_conv_idx = x_idx - h_per_phase + 1
        if x_conv_idx < 0:
            h_idx -= x_conv_idx
            x_conv_idx = 0

        # If axis = 0, we need to know each column in x.
        for x_conv_idx in range(x_conv_idx, x_idx + 1):
            if x_conv_idx < x.shape[axis] and x_conv_idx >= 0:
                out[i] = out[i] + x[x_conv_idx] * h_trans_flip[h_idx]
            h_idx += 1
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from hybrid_runtime import cuda
import math


# Custom Numba kernel implementing upsample, filter, downsample operation
# Matthew Nicely - mnicely@nvidia.com
@cuda.jit(fastmath=True)
def _apply_1d(x, h_trans_flip, out, up, down, axis=-1):

    X = cuda.grid(1)
    strideX = cuda.gridsize(1)

    for i in range(X, out.shape[0], strideX):

        h_per_phase = len(h_trans_flip) // up
        padded_len = x.shape[axis] + h_per_phase - 1

        x_idx = ((i * down) // up) % padded_len
        h_idx = (i * down) % up * h_per_phase

        x_conv_idx = x_idx - h_per_phase + 1
        if x_conv_idx < 0:
            h_idx -= x_conv_idx
            x_conv_idx = 0

        # If axis = 0, we need to know each column in x.
        for x_conv_idx in range(x_conv_idx, x_idx + 1):
            if x_conv_idx < x.shape[axis] and x_conv_idx >= 0:
                out[i] = out[i] + x[x_conv_idx] * h_trans_flip[h_idx]
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
    up, down = 4, 3
    h = rng.standard_normal(13)
    x = rng.standard_normal(60)
    h_trans_flip = _pad_h_np(h, up)
    need = len(_upfirdn_ref(h, x, up, down))
    out = np.zeros(need)
    return [x, h_trans_flip, out, up, down, 0, h]


def reference(x, h_trans_flip, out, up, down, axis, h):
    return {"out": _upfirdn_ref(h, x, up, down)}


def run(x, h_trans_flip, out, up, down, axis, h):
    # published launch: (numSM * 10) blocks of 256 threads, axis = axis % x.ndim
    _apply_1d[4, 32](x, h_trans_flip, out, up, down, axis)


CASE = dict(kernel="_apply_1d", args=["x", "h_trans_flip", "out", "up", "down", "axis", "h"], outputs=["out"],
            rtol=1e-12, atol=1e-12)
