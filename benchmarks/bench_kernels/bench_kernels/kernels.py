"""The same algorithms as the numba-cuda and CUDA C versions in benchmarks/suite.py."""

from hybrid_runtime import Array, f32, gpu, i32, i64, kernel, u32

TILE = 16


@kernel
def saxpy(a: f32, x: Array[f32], y: Array[f32]):
    i = gpu.global_tid_x()
    if i < len(y):
        y[i] = a * x[i] + y[i]


@kernel
def block_sum(x: Array[f32], partial: Array[f32]):
    """Grid-stride partial sums, then a warp-shuffle tree and shared memory across warps."""
    warp_sums = gpu.shared_array(f32, 32)
    t = gpu.thread_idx_x()
    i = gpu.global_tid_x()
    stride = gpu.global_size_x()
    n = len(x)
    s = f32(0)
    while i < n:
        s += x[i]
        i += stride
    k = 16
    while k > 0:
        s += gpu.shfl_down(s, k)
        k //= 2
    if gpu.lane_id() == 0:
        warp_sums[t // 32] = s
    gpu.syncthreads()
    if t < 32:
        v = warp_sums[t] if t < gpu.block_dim_x() // 32 else f32(0)
        k = 16
        while k > 0:
            v += gpu.shfl_down(v, k)
            k //= 2
        if t == 0:
            partial[gpu.block_idx_x()] = v


def tiled_matmul(a, b, c):
    """C = A @ B with 16x16 shared-memory tiles (sizes multiples of 16); shared by both kernels below."""
    sa = gpu.shared_array(f32, (TILE, TILE))
    sb = gpu.shared_array(f32, (TILE, TILE))
    tx = gpu.thread_idx_x()
    ty = gpu.thread_idx_y()
    row = gpu.block_idx_y() * TILE + ty
    col = gpu.block_idx_x() * TILE + tx
    acc = f32(0)
    for t0 in range(0, a.shape[1], TILE):
        sa[ty, tx] = a[row, t0 + tx]
        sb[ty, tx] = b[t0 + ty, col]
        gpu.syncthreads()
        for k in range(TILE):
            acc += sa[ty, k] * sb[k, tx]
        gpu.syncthreads()
    c[row, col] = acc


@kernel
def matmul(a: Array[f32, 2], b: Array[f32, 2], c: Array[f32, 2]):
    tiled_matmul(a, b, c)


@kernel(fastmath=True)
def matmul_fast(a: Array[f32, 2], b: Array[f32, 2], c: Array[f32, 2]):
    """matmul with contraction allowed (one FMA per step, as CUDA C compiles it by default)."""
    tiled_matmul(a, b, c)


@kernel
def stencil(src: Array[f32, 2], dst: Array[f32, 2]):
    """5-point Laplacian-style update of the interior."""
    j = gpu.global_tid_x()
    i = gpu.global_tid_y()
    if 0 < i < src.shape[0] - 1 and 0 < j < src.shape[1] - 1:
        dst[i, j] = f32(0.25) * (src[i - 1, j] + src[i + 1, j] + src[i, j - 1] + src[i, j + 1]) - src[i, j]


@kernel
def bitonic_pass(x: Array[f32], j: i64, k: i64):
    """One compare-and-swap pass of a bitonic sort (ascending)."""
    i = gpu.global_tid_x()
    partner = i ^ j
    if partner > i and i < len(x):
        a = x[i]
        b = x[partner]
        up = (i & k) == 0
        if (up and a > b) or (not up and a < b):
            x[i] = b
            x[partner] = a


@kernel
def empty0():
    pass


@kernel
def empty3(x: Array[f32], y: Array[f32], n: i32):
    if n < 0:
        x[0] = y[0]


@kernel
def empty16(
    a0: Array[f32],
    a1: Array[f32],
    a2: Array[f32],
    a3: Array[f32],
    a4: Array[f32],
    a5: Array[f32],
    a6: Array[f32],
    a7: Array[f32],
    s0: i32,
    s1: i32,
    s2: i32,
    s3: i32,
    s4: f32,
    s5: f32,
    s6: f32,
    s7: f32,
):
    if s0 < 0:
        # hybrid: ignore[f64-in-f32-kernel] (s1..s3 are i32: f32 + i32 is f64)
        a0[0] = a1[0] + a2[0] + a3[0] + a4[0] + a5[0] + a6[0] + a7[0] + s4 + s5 + s6 + s7 + s1 + s2 + s3


@kernel
def blur(src: Array[f32, 2], dst: Array[f32, 2]):
    """5-point box blur of the interior through a shared tile, launched with 16x16 blocks: each thread
    loads its pixel into an 18x18 tile, the block's edge threads also the one-pixel halo beside them,
    then ``dst[i, j] = 0.2 * (centre + up + down + left + right)`` (f32, added in that order) for
    every pixel not on the image's border (those are left as they are)."""
    tile = gpu.shared_array(f32, (TILE + 2, TILE + 2))
    tx = gpu.thread_idx_x()
    ty = gpu.thread_idx_y()
    j = gpu.global_tid_x()
    i = gpu.global_tid_y()
    h = src.shape[0]
    w = src.shape[1]
    if i < h and j < w:
        tile[ty + 1, tx + 1] = src[i, j]
        if tx == 0 and j > 0:
            tile[ty + 1, 0] = src[i, j - 1]
        if tx == TILE - 1 and j + 1 < w:
            tile[ty + 1, TILE + 1] = src[i, j + 1]
        if ty == 0 and i > 0:
            tile[0, tx + 1] = src[i - 1, j]
        if ty == TILE - 1 and i + 1 < h:
            tile[TILE + 1, tx + 1] = src[i + 1, j]
    gpu.syncthreads()
    if 0 < i < h - 1 and 0 < j < w - 1:
        dst[i, j] = f32(0.2) * (
            tile[ty + 1, tx + 1] + tile[ty, tx + 1] + tile[ty + 2, tx + 1] + tile[ty + 1, tx] + tile[ty + 1, tx + 2]
        )


@kernel
def histogram(keys: Array[u32], bins: Array[u32]):
    """256-bin histogram of ``keys & 255``, launched with 256 threads per block: each block counts its
    grid-stride share into a shared histogram with atomics (CUDA's idiom), then adds its counts to the
    global bins, one atomic per bin."""
    counts = gpu.shared_array(u32, 256)
    t = gpu.thread_idx_x()
    counts[t] = u32(0)
    gpu.syncthreads()
    i = gpu.global_tid_x()
    stride = gpu.block_dim_x() * gpu.grid_dim_x()
    while i < len(keys):
        gpu.atomic_add(counts, keys[i] & u32(255), u32(1))
        i += stride
    gpu.syncthreads()
    gpu.atomic_add(bins, t, counts[t])


@kernel
def blur_loop_tile(src: Array[f32, 2], dst: Array[f32, 2]):
    """5-point box blur clamped at the image's edges, launched with 16x16 blocks, written the CUDA way:
    the block's 18x18 tile (its pixels and a one-pixel halo) loaded by the strided-loop idiom, each
    thread a cell in every 16th row and column of it, then ``dst[r, c] = 0.2 * (centre + up + down +
    left + right)`` (f32, added in that order) for every pixel, a neighbour outside the image being
    the nearest edge pixel."""
    tile = gpu.shared_array(f32, (TILE + 2, TILE + 2))
    tx = gpu.thread_idx_x()
    ty = gpu.thread_idx_y()
    r0 = gpu.block_idx_y() * TILE
    c0 = gpu.block_idx_x() * TILE
    h = src.shape[0]
    w = src.shape[1]
    for k in range(ty, TILE + 2, TILE):
        for m in range(tx, TILE + 2, TILE):
            tile[k, m] = src[min(max(r0 + k - 1, 0), h - 1), min(max(c0 + m - 1, 0), w - 1)]
    gpu.syncthreads()
    r = r0 + ty
    c = c0 + tx
    if r < h and c < w:
        dst[r, c] = f32(0.2) * (
            tile[ty + 1, tx + 1] + tile[ty, tx + 1] + tile[ty + 2, tx + 1] + tile[ty + 1, tx] + tile[ty + 1, tx + 2]
        )


@kernel
def blur_wrap_tile(src: Array[f32, 2], dst: Array[f32, 2]):
    """:func:`blur_loop_tile` on a torus: a neighbour outside the image is the pixel on the opposite
    edge (the tile loaded with the indices taken modulo the image's size)."""
    tile = gpu.shared_array(f32, (TILE + 2, TILE + 2))
    tx = gpu.thread_idx_x()
    ty = gpu.thread_idx_y()
    r0 = gpu.block_idx_y() * TILE
    c0 = gpu.block_idx_x() * TILE
    h = src.shape[0]
    w = src.shape[1]
    for k in range(ty, TILE + 2, TILE):
        for m in range(tx, TILE + 2, TILE):
            tile[k, m] = src[(r0 + k - 1) % h, (c0 + m - 1) % w]
    gpu.syncthreads()
    r = r0 + ty
    c = c0 + tx
    if r < h and c < w:
        dst[r, c] = f32(0.2) * (
            tile[ty + 1, tx + 1] + tile[ty, tx + 1] + tile[ty + 2, tx + 1] + tile[ty + 1, tx] + tile[ty + 1, tx + 2]
        )


BLOCK_1D = 256


@kernel
def smooth1d_tile(x: Array[f32], y: Array[f32]):
    """``y[i] = 0.25 * (x[i - 1] + 2 x[i] + x[i + 1])``, clamped at the ends, launched with 256-thread
    blocks: each thread loads its element into a shared tile of 258, the block's first and last
    threads the halo beside them."""
    tile = gpu.shared_array(f32, BLOCK_1D + 2)
    t = gpu.thread_idx_x()
    i = gpu.global_tid_x()
    n = len(x)
    if i < n:
        tile[t + 1] = x[i]
        if t == 0:
            tile[0] = x[max(i - 1, 0)]
        if t == gpu.block_dim_x() - 1 or i == n - 1:
            tile[t + 2] = x[min(i + 1, n - 1)]
    gpu.syncthreads()
    if i < n:
        y[i] = f32(0.25) * (tile[t] + f32(2) * tile[t + 1] + tile[t + 2])


@kernel
def sum_atomic(x: Array[f32], total: Array[f32]):
    """The sum of ``x`` into ``total[0]`` (zeroed by the caller), one thread an element, each adding
    its element with an atomic: the sum's order, and so its last bits, unspecified."""
    i = gpu.global_tid_x()
    if i < len(x):
        gpu.atomic_add(total, 0, x[i])
