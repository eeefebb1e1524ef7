# =============================================================================
# 034_transpose_no_bank_conflicts.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA-developer-blog/code-samples, series/cuda-cpp/transpose/transpose.cu, kernel
#          `transposeNoBankConflicts` -- "An Efficient Matrix Transpose in CUDA C/C++"
#          https://github.com/NVIDIA-developer-blog/code-samples/blob/72d62ec464442786a36754508bcb1094d197d6a5/series/cuda-cpp/transpose/transpose.cu
# License: BSD-3-Clause (NVIDIA, header of the file)
# What   : coalesced transpose through a TILE_DIM x (TILE_DIM+1) padded shared tile.
# Port   : spelling only -- NO
# NEEDS MORE THAN SPELLING: CUDA C source; translated line-for-line
#   (`__shared__ float tile[TILE_DIM][TILE_DIM+1]` -> gpu.shared_array(f32, (TILE_DIM, TILE_DIM + 1))).
# =============================================================================
# Original text: series/cuda-cpp/transpose/transpose.cu lines 45-46 @ 72d62ec46444 (dedented)
# Original text: series/cuda-cpp/transpose/transpose.cu lines 132-153 @ 72d62ec46444 (dedented)

ORIGINAL = r'''
const int TILE_DIM = 32;
const int BLOCK_ROWS = 8;

# ...

// No bank-conflict transpose
// Same as transposeCoalesced except the first tile dimension is padded 
// to avoid shared memory bank conflicts.
__global__ void transposeNoBankConflicts(float *odata, const float *idata)
{
  __shared__ float tile[TILE_DIM][TILE_DIM+1];

  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  int width = gridDim.x * TILE_DIM;

  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
     tile[threadIdx.y+j][threadIdx.x] = idata[(y+j)*width + x];

  __syncthreads();

  x = blockIdx.y * TILE_DIM + threadIdx.x;  // transpose block offset
  y = blockIdx.x * TILE_DIM + threadIdx.y;

  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
     odata[(y+j)*width + x] = tile[threadIdx.x][threadIdx.y + j];
}
'''

# ---- PORT (line-for-line translation) ------------------------------------------
import numpy as np
from hybrid_runtime import kernel, gpu, Array, f32

TILE_DIM = 32
BLOCK_ROWS = 8


@kernel
def transposeNoBankConflicts(odata: Array[f32], idata: Array[f32]):
    tile = gpu.shared_array(f32, (TILE_DIM, TILE_DIM + 1))

    x = gpu.block_idx_x() * TILE_DIM + gpu.thread_idx_x()
    y = gpu.block_idx_y() * TILE_DIM + gpu.thread_idx_y()
    width = gpu.grid_dim_x() * TILE_DIM

    for j in range(0, TILE_DIM, BLOCK_ROWS):
        tile[gpu.thread_idx_y() + j, gpu.thread_idx_x()] = idata[(y + j) * width + x]

    gpu.syncthreads()

    x = gpu.block_idx_y() * TILE_DIM + gpu.thread_idx_x()  # transpose block offset
    y = gpu.block_idx_x() * TILE_DIM + gpu.thread_idx_y()

    for j in range(0, TILE_DIM, BLOCK_ROWS):
        odata[(y + j) * width + x] = tile[gpu.thread_idx_x(), gpu.thread_idx_y() + j]


# ---- REFERENCE ---------------------------------------------------------------
NX = NY = 128


def make_args(rng):
    return [np.zeros(NX * NY, dtype=np.float32), rng.random(NX * NY).astype(np.float32)]


def reference(odata, idata):
    return {"odata": idata.reshape(NY, NX).T.ravel().copy()}


CASE = dict(
    threads=(TILE_DIM, BLOCK_ROWS), blocks=(NX // TILE_DIM, NY // TILE_DIM), shared_bytes=0,
    args=["odata", "idata"], outputs=["odata"],
    rtol=0.0, atol=0.0,
    note="Sibling kernels transposeCoalesced (unpadded tile) and copySharedMem are in the same file.",
)
