# =============================================================================
# 032_transpose_copy.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA-developer-blog/code-samples, series/cuda-cpp/transpose/transpose.cu, kernel
#          `copy` -- code for the NVIDIA blog post "An Efficient Matrix Transpose in CUDA C/C++"
#          https://github.com/NVIDIA-developer-blog/code-samples/blob/72d62ec464442786a36754508bcb1094d197d6a5/series/cuda-cpp/transpose/transpose.cu
# License: BSD-3-Clause (NVIDIA, header of the file)
# What   : bandwidth baseline: 32x8 threads copy a 32x32 tile (each thread 4 rows, BLOCK_ROWS stride).
# Port   : spelling only -- NO
# NEEDS MORE THAN SPELLING: CUDA C source; translated line-for-line (flat float* indexing kept
#   as 1-D Array[f32] indexing; C `for` -> range with step).
# =============================================================================
# Original text: series/cuda-cpp/transpose/transpose.cu lines 45-46 @ 72d62ec46444 (dedented)
# Original text: series/cuda-cpp/transpose/transpose.cu lines 64-74 @ 72d62ec46444 (dedented)
# Original text: series/cuda-cpp/transpose/transpose.cu lines 161-162 @ 72d62ec46444 (dedented)

ORIGINAL = r'''
const int TILE_DIM = 32;
const int BLOCK_ROWS = 8;

# ...

// simple copy kernel
// Used as reference case representing best effective bandwidth.
__global__ void copy(float *odata, const float *idata)
{
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  int width = gridDim.x * TILE_DIM;

  for (int j = 0; j < TILE_DIM; j+= BLOCK_ROWS)
    odata[(y+j)*width + x] = idata[(y+j)*width + x];
}

# ...

dim3 dimGrid(nx/TILE_DIM, ny/TILE_DIM, 1);
dim3 dimBlock(TILE_DIM, BLOCK_ROWS, 1);
'''

# ---- PORT (line-for-line translation) ------------------------------------------
import numpy as np
from hybrid_runtime import kernel, gpu, Array, f32

TILE_DIM = 32
BLOCK_ROWS = 8


@kernel
def copy(odata: Array[f32], idata: Array[f32]):
    x = gpu.block_idx_x() * TILE_DIM + gpu.thread_idx_x()
    y = gpu.block_idx_y() * TILE_DIM + gpu.thread_idx_y()
    width = gpu.grid_dim_x() * TILE_DIM

    for j in range(0, TILE_DIM, BLOCK_ROWS):
        odata[(y + j) * width + x] = idata[(y + j) * width + x]


# ---- REFERENCE ---------------------------------------------------------------
NX = NY = 128                     # blog: 1024 x 1024; must be multiples of TILE_DIM


def make_args(rng):
    return [np.zeros(NX * NY, dtype=np.float32), rng.random(NX * NY).astype(np.float32)]


def reference(odata, idata):
    return {"odata": idata.copy()}


CASE = dict(
    threads=(TILE_DIM, BLOCK_ROWS), blocks=(NX // TILE_DIM, NY // TILE_DIM), shared_bytes=0,
    args=["odata", "idata"], outputs=["odata"],
    rtol=0.0, atol=0.0,
)
