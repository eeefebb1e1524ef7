# =============================================================================
# 033_transpose_naive.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA-developer-blog/code-samples, series/cuda-cpp/transpose/transpose.cu, kernel
#          `transposeNaive` -- "An Efficient Matrix Transpose in CUDA C/C++"
#          https://github.com/NVIDIA-developer-blog/code-samples/blob/72d62ec464442786a36754508bcb1094d197d6a5/series/cuda-cpp/transpose/transpose.cu
# License: BSD-3-Clause (NVIDIA, header of the file)
# What   : naive square transpose, coalesced reads / strided writes, 4 rows per thread.
# Port   : spelling only -- NO
# NEEDS MORE THAN SPELLING: CUDA C source; translated line-for-line (flat indexing kept).
# =============================================================================
# Original text: series/cuda-cpp/transpose/transpose.cu lines 45-46 @ 72d62ec46444 (dedented)
# Original text: series/cuda-cpp/transpose/transpose.cu lines 95-106 @ 72d62ec46444 (dedented)

ORIGINAL = r'''
const int TILE_DIM = 32;
const int BLOCK_ROWS = 8;

# ...

// naive transpose
// Simplest transpose; doesn't use shared memory.
// Global memory reads are coalesced but writes are not.
__global__ void transposeNaive(float *odata, const float *idata)
{
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  int width = gridDim.x * TILE_DIM;

  for (int j = 0; j < TILE_DIM; j+= BLOCK_ROWS)
    odata[x*width + (y+j)] = idata[(y+j)*width + x];
}
'''

# ---- PORT (line-for-line translation) ------------------------------------------
import numpy as np
from hybrid_runtime import kernel, gpu, Array, f32

TILE_DIM = 32
BLOCK_ROWS = 8


@kernel
def transposeNaive(odata: Array[f32], idata: Array[f32]):
    x = gpu.block_idx_x() * TILE_DIM + gpu.thread_idx_x()
    y = gpu.block_idx_y() * TILE_DIM + gpu.thread_idx_y()
    width = gpu.grid_dim_x() * TILE_DIM

    for j in range(0, TILE_DIM, BLOCK_ROWS):
        odata[x * width + (y + j)] = idata[(y + j) * width + x]


# ---- REFERENCE ---------------------------------------------------------------
NX = NY = 128                     # square only: width is derived from gridDim.x


def make_args(rng):
    return [np.zeros(NX * NY, dtype=np.float32), rng.random(NX * NY).astype(np.float32)]


def reference(odata, idata):
    return {"odata": idata.reshape(NY, NX).T.ravel().copy()}


CASE = dict(
    threads=(TILE_DIM, BLOCK_ROWS), blocks=(NX // TILE_DIM, NY // TILE_DIM), shared_bytes=0,
    args=["odata", "idata"], outputs=["odata"],
    rtol=0.0, atol=0.0,
)
