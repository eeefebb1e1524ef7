import numpy as np
from hybrid_runtime import Array, f32, gpu, kernel

TPB = 256  # threads per block
WARPS = 8  # warps per block: TPB // 32 (shared-array shapes take literals or literal constants)


def warp_sum(v: f32) -> f32:
    offset = 16
    while offset > 0:
        v += gpu.shfl_down(v, offset)
        offset //= 2
    return v


@kernel
def sum_kernel(x: Array[f32], total: Array[f32]):
    partial = gpu.shared_array(f32, WARPS)
    i = gpu.global_tid_x()
    stride = gpu.global_size_x()
    acc = f32(0.0)
    while i < x.size:  # grid-stride loop
        acc += x[i]
        i += stride
    acc = warp_sum(acc)
    lane = gpu.lane_id()
    warp = gpu.thread_idx_x() // 32
    if lane == 0:
        partial[warp] = acc
    gpu.syncthreads()
    if warp == 0:
        acc = partial[lane] if lane < gpu.block_dim_x() // 32 else f32(0.0)
        acc = warp_sum(acc)
        if lane == 0:
            gpu.atomic_add(total, 0, acc)


def array_sum(x: np.ndarray, blocks: int = 120, device: str | None = None) -> np.float32:
    total = np.zeros(1, np.float32)
    sum_kernel.launch(TPB, blocks, x, total, device=device)
    return total[0]
