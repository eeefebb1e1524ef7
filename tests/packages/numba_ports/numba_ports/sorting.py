"""A per-thread insertion sort in a cuda.local.array (each thread sorts one row), as numba kernels
write it. Ported from ``from numba import cuda, float32`` / ``@cuda.jit`` / unannotated parameters."""

from hybrid_runtime import Array, cuda, f32, kernel
from numpy import float32

ROW = 16


@kernel
def sort_rows(data: Array[f32, 2], out: Array[f32, 2]):
    row = cuda.grid(1)
    if row >= data.shape[0]:
        return
    buf = cuda.local.array(ROW, float32)
    for k in range(ROW):
        buf[k] = data[row, k]
    for k in range(1, ROW):
        key = buf[k]
        j = k - 1
        while j >= 0 and buf[j] > key:
            buf[j + 1] = buf[j]
            j -= 1
        buf[j + 1] = key
    for k in range(ROW):
        out[row, k] = buf[k]


@kernel
def warp_sums(values: Array[f32], sums: Array[f32]):
    """A warp reduction with cuda.shfl_down_sync: lane 0 of each warp writes its warp's sum."""
    i = cuda.grid(1)
    v = values[i] if i < values.shape[0] else float32(0)
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, offset)
        offset //= 2
    if cuda.laneid == 0:
        sums[i // cuda.warpsize] = v
