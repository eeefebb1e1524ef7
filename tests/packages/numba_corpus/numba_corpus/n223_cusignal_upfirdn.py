# =============================================================================
# Source : rapidsai/cusignal, python/cusignal/_upfirdn.py, kernels `_apply` (2-D), `_apply_1d`
#          https://github.com/rapidsai/cusignal/blob/c18a66b81c8cd879c57790ff4f42c4a3d49b0e39/python/cusignal/_upfirdn.py
# License: Apache-2.0 (cuSignal)
# Project: cuSignal (real)
# What   : polyphase upsample-FIR-downsample; kernel default argument `axis=-1`, len(array), x.shape[axis] with a runtime axis.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from numba import cuda


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


UP, DOWN = 3, 2


def _pad_h(h, up):
    h_full = np.zeros(len(h) + (-len(h) % up), h.dtype)
    h_full[:len(h)] = h
    return np.ascontiguousarray(h_full.reshape(-1, up).T[:, ::-1].ravel())


def _output_len(len_h, in_len, up, down):
    nt = (in_len + (len_h + (-len_h % up)) // up - 1) * up
    return nt // down + (1 if nt % down else 0)


def _upfirdn(h, x, up, down):
    n = _output_len(len(h), len(x), up, down)
    xu = np.zeros(len(x) * up)
    xu[::up] = x
    y = np.convolve(xu, h)
    y = np.concatenate([y, np.zeros(max(0, n * down - len(y)))])
    return y[::down][:n]


def make_args(rng):
    h = rng.standard_normal(7)
    x1 = rng.standard_normal(40)
    x2 = rng.standard_normal((4, 25))
    n1 = _output_len(len(h), 40, UP, DOWN)
    n2 = _output_len(len(h), 25, UP, DOWN)
    return [h, x1, np.zeros(n1), x2, np.zeros((4, n2))]


def reference(h, x1, out1, x2, out2):
    return {"out1": _upfirdn(h, x1, UP, DOWN), "out2": np.array([_upfirdn(h, r, UP, DOWN) for r in x2])}


def run(h, x1, out1, x2, out2):
    # cuSignal's _UpFIRDn.apply_filter launches (axis = axis % x.ndim)
    h_trans_flip = _pad_h(h, UP)
    _apply_1d[2, 64](x1, h_trans_flip, out1, UP, DOWN, 0)
    threadsperblock = (16, 16)
    blockspergrid = ((out2.shape[0] + 15) // 16, (out2.shape[1] + 15) // 16)
    _apply[blockspergrid, threadsperblock](x2, h_trans_flip, out2, UP, DOWN, 1)


CASE = dict(kernel="_apply_1d", griddim=2, blockdim=64, args=["h", "x1", "out1", "x2", "out2"],
            outputs=["out1", "out2"], rtol=1e-12, atol=1e-12)
