# =============================================================================
# 044_convolution_rows.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA/cuda-samples, Samples/2_Concepts_and_Techniques/convolutionSeparable/
#          convolutionSeparable.cu, kernel `convolutionRowsKernel` (+ KERNEL_RADIUS from
#          convolutionSeparable_common.h)
#          https://github.com/NVIDIA/cuda-samples/blob/c94ff366aed18c797b8a85dfaac7817b0228b420/Samples/2_Concepts_and_Techniques/convolutionSeparable/convolutionSeparable.cu
# License: BSD-3-Clause (NVIDIA cuda-samples LICENSE)
# What   : separable-filter row pass, radius 8; a block stages 8 result tiles + 1 halo tile each
#          side in shared memory (zero-padded at the image edge) then convolves.
# Port   : spelling only -- NO
# NEEDS MORE THAN SPELLING: CUDA C source, translated; the filter taps are a __constant__ array
#   set by cudaMemcpyToSymbol -- passed here as an extra Array[f32] argument; `d_Src += ...`
#   pointer bumps become an integer base offset; baseX must be SIGNED (C: `const int`), hence
#   the i32(...) casts.
# =============================================================================

# Original text: Samples/2_Concepts_and_Techniques/convolutionSeparable/convolutionSeparable.cu lines 38-38 @ c94ff366aed1 (dedented)
# Original text: Samples/2_Concepts_and_Techniques/convolutionSeparable/convolutionSeparable.cu lines 48-104 @ c94ff366aed1 (dedented)

ORIGINAL = r'''
__constant__ float c_Kernel[KERNEL_LENGTH];

# ...

#define ROWS_BLOCKDIM_X   16
#define ROWS_BLOCKDIM_Y   4
#define ROWS_RESULT_STEPS 8
#define ROWS_HALO_STEPS   1

__global__ void convolutionRowsKernel(float *d_Dst, float *d_Src, int imageW, int imageH, int pitch)
{
    // Handle to thread block group
    cg::thread_block cta = cg::this_thread_block();
    __shared__ float s_Data[ROWS_BLOCKDIM_Y][(ROWS_RESULT_STEPS + 2 * ROWS_HALO_STEPS) * ROWS_BLOCKDIM_X];

    // Offset to the left halo edge
    const int baseX = (blockIdx.x * ROWS_RESULT_STEPS - ROWS_HALO_STEPS) * ROWS_BLOCKDIM_X + threadIdx.x;
    const int baseY = blockIdx.y * ROWS_BLOCKDIM_Y + threadIdx.y;

    d_Src += baseY * pitch + baseX;
    d_Dst += baseY * pitch + baseX;

// Load main data
#pragma unroll

    for (int i = ROWS_HALO_STEPS; i < ROWS_HALO_STEPS + ROWS_RESULT_STEPS; i++) {
        s_Data[threadIdx.y][threadIdx.x + i * ROWS_BLOCKDIM_X] = d_Src[i * ROWS_BLOCKDIM_X];
    }

// Load left halo
#pragma unroll

    for (int i = 0; i < ROWS_HALO_STEPS; i++) {
        s_Data[threadIdx.y][threadIdx.x + i * ROWS_BLOCKDIM_X] =
            (baseX >= -i * ROWS_BLOCKDIM_X) ? d_Src[i * ROWS_BLOCKDIM_X] : 0;
    }

// Load right halo
#pragma unroll

    for (int i = ROWS_HALO_STEPS + ROWS_RESULT_STEPS; i < ROWS_HALO_STEPS + ROWS_RESULT_STEPS + ROWS_HALO_STEPS; i++) {
        s_Data[threadIdx.y][threadIdx.x + i * ROWS_BLOCKDIM_X] =
            (imageW - baseX > i * ROWS_BLOCKDIM_X) ? d_Src[i * ROWS_BLOCKDIM_X] : 0;
    }

    // Compute and store results
    cg::sync(cta);
#pragma unroll

    for (int i = ROWS_HALO_STEPS; i < ROWS_HALO_STEPS + ROWS_RESULT_STEPS; i++) {
        float sum = 0;

#pragma unroll

        for (int j = -KERNEL_RADIUS; j <= KERNEL_RADIUS; j++) {
            sum += c_Kernel[KERNEL_RADIUS - j] * s_Data[threadIdx.y][threadIdx.x + i * ROWS_BLOCKDIM_X + j];
        }

        d_Dst[i * ROWS_BLOCKDIM_X] = sum;
    }
}
'''

# ---- PORT (translation) ----------------------------------------------------------
import numpy as np
from hybrid_runtime import kernel, gpu, Array, f32, i32

KERNEL_RADIUS = 8
KERNEL_LENGTH = 2 * KERNEL_RADIUS + 1
ROWS_BLOCKDIM_X = 16
ROWS_BLOCKDIM_Y = 4
ROWS_RESULT_STEPS = 8
ROWS_HALO_STEPS = 1


@kernel
def convolutionRowsKernel(d_Dst: Array[f32], d_Src: Array[f32], imageW: i32, imageH: i32,
                          pitch: i32, c_Kernel: Array[f32]):
    s_Data = gpu.shared_array(f32, (ROWS_BLOCKDIM_Y,
                                    (ROWS_RESULT_STEPS + 2 * ROWS_HALO_STEPS) * ROWS_BLOCKDIM_X))
    tx = i32(gpu.thread_idx_x())
    ty = i32(gpu.thread_idx_y())

    # Offset to the left halo edge
    baseX = (i32(gpu.block_idx_x()) * ROWS_RESULT_STEPS - ROWS_HALO_STEPS) * ROWS_BLOCKDIM_X + tx
    baseY = i32(gpu.block_idx_y()) * ROWS_BLOCKDIM_Y + ty
    base = baseY * pitch + baseX                     # d_Src += ...; d_Dst += ...

    # Load main data
    for i in range(ROWS_HALO_STEPS, ROWS_HALO_STEPS + ROWS_RESULT_STEPS):
        s_Data[ty, tx + i * ROWS_BLOCKDIM_X] = d_Src[base + i * ROWS_BLOCKDIM_X]

    # Load left halo
    for i in range(ROWS_HALO_STEPS):
        s_Data[ty, tx + i * ROWS_BLOCKDIM_X] = (
            d_Src[base + i * ROWS_BLOCKDIM_X] if baseX >= -i * ROWS_BLOCKDIM_X else 0)

    # Load right halo
    for i in range(ROWS_HALO_STEPS + ROWS_RESULT_STEPS,
                   ROWS_HALO_STEPS + ROWS_RESULT_STEPS + ROWS_HALO_STEPS):
        s_Data[ty, tx + i * ROWS_BLOCKDIM_X] = (
            d_Src[base + i * ROWS_BLOCKDIM_X] if imageW - baseX > i * ROWS_BLOCKDIM_X else 0)

    # Compute and store results
    gpu.syncthreads()
    for i in range(ROWS_HALO_STEPS, ROWS_HALO_STEPS + ROWS_RESULT_STEPS):
        sum = f32(0)
        for j in range(-KERNEL_RADIUS, KERNEL_RADIUS + 1):
            sum += c_Kernel[KERNEL_RADIUS - j] * s_Data[ty, tx + i * ROWS_BLOCKDIM_X + j]
        d_Dst[base + i * ROWS_BLOCKDIM_X] = sum


# ---- REFERENCE ---------------------------------------------------------------
W, H = 256, 16          # W % (8*16) == 0, H % 4 == 0 (sample: 3072 x 3072)


def make_args(rng):
    src = rng.random(W * H).astype(np.float32)
    taps = rng.random(KERNEL_LENGTH).astype(np.float32)
    taps /= taps.sum()
    return [np.zeros_like(src), src, W, H, W, taps]


def reference(d_Dst, d_Src, imageW, imageH, pitch, c_Kernel):
    img = d_Src.reshape(imageH, imageW).astype(np.float64)
    pad = np.pad(img, ((0, 0), (KERNEL_RADIUS, KERNEL_RADIUS)))       # zeros outside the row
    out = sum(float(c_Kernel[KERNEL_RADIUS - j]) * pad[:, KERNEL_RADIUS + j:KERNEL_RADIUS + j + imageW]
              for j in range(-KERNEL_RADIUS, KERNEL_RADIUS + 1))
    return {"d_Dst": out.ravel().astype(np.float32)}


CASE = dict(
    threads=(ROWS_BLOCKDIM_X, ROWS_BLOCKDIM_Y),
    blocks=(W // (ROWS_RESULT_STEPS * ROWS_BLOCKDIM_X), H // ROWS_BLOCKDIM_Y),
    shared_bytes=0,
    args=["d_Dst", "d_Src", "imageW", "imageH", "pitch", "c_Kernel"], outputs=["d_Dst"],
    rtol=1e-5, atol=1e-6,
)
