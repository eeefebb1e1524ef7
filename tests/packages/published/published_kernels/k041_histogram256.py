# =============================================================================
# 041_histogram256.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA/cuda-samples, Samples/2_Concepts_and_Techniques/histogram/histogram256.cu,
#          kernel `histogram256Kernel` + inline helpers addByte/addWord (constants from
#          histogram_common.h)
#          https://github.com/NVIDIA/cuda-samples/blob/c94ff366aed18c797b8a85dfaac7817b0228b420/Samples/2_Concepts_and_Techniques/histogram/histogram256.cu
# License: BSD-3-Clause (NVIDIA cuda-samples LICENSE)
# What   : byte histogram; per-warp 256-bin sub-histograms in shared memory updated with shared
#          atomics from a grid-stride loop over 32-bit words, merged per block to global.
# Port   : spelling only -- NO
# NEEDS MORE THAN SPELLING: CUDA C source, translated; the `uint *s_WarpHist = s_Hist + off`
#   pointer is replaced by an integer offset and the addWord/addByte helpers are inlined.
# =============================================================================

# Original text: Samples/2_Concepts_and_Techniques/histogram/histogram_common.h lines 35-36 @ c94ff366aed1 (dedented)
# Original text: Samples/2_Concepts_and_Techniques/histogram/histogram_common.h lines 43-44 @ c94ff366aed1 (dedented)
# Original text: Samples/2_Concepts_and_Techniques/histogram/histogram_common.h lines 54-63 @ c94ff366aed1 (dedented)
# Original text: Samples/2_Concepts_and_Techniques/histogram/histogram256.cu lines 43-91 @ c94ff366aed1 (dedented)

ORIGINAL = r'''
#define HISTOGRAM256_BIN_COUNT 256
#define UINT_BITS              32

# ...

#define LOG2_WARP_SIZE 5U
#define WARP_SIZE      (1U << LOG2_WARP_SIZE)

# ...

#define WARP_COUNT 6

// Threadblock size
#define HISTOGRAM256_THREADBLOCK_SIZE (WARP_COUNT * WARP_SIZE)

// Shared memory per threadblock
#define HISTOGRAM256_THREADBLOCK_MEMORY (WARP_COUNT * HISTOGRAM256_BIN_COUNT)

#define UMUL(a, b)    ((a) * (b))
#define UMAD(a, b, c) (UMUL((a), (b)) + (c))

# ...

#define TAG_MASK 0xFFFFFFFFU
inline __device__ void addByte(uint *s_WarpHist, uint data, uint threadTag) { atomicAdd(s_WarpHist + data, 1); }

inline __device__ void addWord(uint *s_WarpHist, uint data, uint tag)
{
    addByte(s_WarpHist, (data >> 0) & 0xFFU, tag);
    addByte(s_WarpHist, (data >> 8) & 0xFFU, tag);
    addByte(s_WarpHist, (data >> 16) & 0xFFU, tag);
    addByte(s_WarpHist, (data >> 24) & 0xFFU, tag);
}

__global__ void histogram256Kernel(uint *d_PartialHistograms, uint *d_Data, uint dataCount)
{
    // Handle to thread block group
    cg::thread_block cta = cg::this_thread_block();
    // Per-warp subhistogram storage
    __shared__ uint s_Hist[HISTOGRAM256_THREADBLOCK_MEMORY];
    uint           *s_WarpHist = s_Hist + (threadIdx.x >> LOG2_WARP_SIZE) * HISTOGRAM256_BIN_COUNT;

// Clear shared memory storage for current threadblock before processing
#pragma unroll

    for (uint i = 0; i < (HISTOGRAM256_THREADBLOCK_MEMORY / HISTOGRAM256_THREADBLOCK_SIZE); i++) {
        s_Hist[threadIdx.x + i * HISTOGRAM256_THREADBLOCK_SIZE] = 0;
    }

    // Cycle through the entire data set, update subhistograms for each warp
    const uint tag = threadIdx.x << (UINT_BITS - LOG2_WARP_SIZE);

    cg::sync(cta);

    for (uint pos = UMAD(blockIdx.x, blockDim.x, threadIdx.x); pos < dataCount; pos += UMUL(blockDim.x, gridDim.x)) {
        uint data = d_Data[pos];
        addWord(s_WarpHist, data, tag);
    }

    // Merge per-warp histograms into per-block and write to global memory
    cg::sync(cta);

    for (uint bin = threadIdx.x; bin < HISTOGRAM256_BIN_COUNT; bin += HISTOGRAM256_THREADBLOCK_SIZE) {
        uint sum = 0;

        for (uint i = 0; i < WARP_COUNT; i++) {
            sum += s_Hist[bin + i * HISTOGRAM256_BIN_COUNT] & TAG_MASK;
        }

        d_PartialHistograms[blockIdx.x * HISTOGRAM256_BIN_COUNT + bin] = sum;
    }
}
'''

# ---- PORT (translation) ----------------------------------------------------------
import numpy as np
from hybrid_runtime import kernel, gpu, Array, u32

HISTOGRAM256_BIN_COUNT = 256
UINT_BITS = 32
LOG2_WARP_SIZE = 5
WARP_COUNT = 6
HISTOGRAM256_THREADBLOCK_SIZE = WARP_COUNT * 32
HISTOGRAM256_THREADBLOCK_MEMORY = WARP_COUNT * HISTOGRAM256_BIN_COUNT
TAG_MASK = 0xFFFFFFFF


@kernel
def histogram256Kernel(d_PartialHistograms: Array[u32], d_Data: Array[u32], dataCount: u32):
    # Per-warp subhistogram storage
    s_Hist = gpu.shared_array(u32, HISTOGRAM256_THREADBLOCK_MEMORY)
    s_WarpHist = (gpu.thread_idx_x() >> LOG2_WARP_SIZE) * HISTOGRAM256_BIN_COUNT   # offset

    # Clear shared memory storage for current threadblock before processing
    for i in range(HISTOGRAM256_THREADBLOCK_MEMORY // HISTOGRAM256_THREADBLOCK_SIZE):
        s_Hist[gpu.thread_idx_x() + i * HISTOGRAM256_THREADBLOCK_SIZE] = 0

    # Cycle through the entire data set, update subhistograms for each warp
    tag = gpu.thread_idx_x() << (UINT_BITS - LOG2_WARP_SIZE)   # unused by addByte (kept)

    gpu.syncthreads()

    for pos in range(gpu.block_idx_x() * gpu.block_dim_x() + gpu.thread_idx_x(), dataCount,
                     gpu.block_dim_x() * gpu.grid_dim_x()):
        data = d_Data[pos]
        # addWord(s_WarpHist, data, tag) -> 4 x addByte -> atomicAdd(s_WarpHist + byte, 1)
        gpu.atomic_add(s_Hist, s_WarpHist + ((data >> 0) & 0xFF), 1)
        gpu.atomic_add(s_Hist, s_WarpHist + ((data >> 8) & 0xFF), 1)
        gpu.atomic_add(s_Hist, s_WarpHist + ((data >> 16) & 0xFF), 1)
        gpu.atomic_add(s_Hist, s_WarpHist + ((data >> 24) & 0xFF), 1)

    # Merge per-warp histograms into per-block and write to global memory
    gpu.syncthreads()

    for bin in range(gpu.thread_idx_x(), HISTOGRAM256_BIN_COUNT, HISTOGRAM256_THREADBLOCK_SIZE):
        sum = u32(0)

        for i in range(WARP_COUNT):
            sum += s_Hist[bin + i * HISTOGRAM256_BIN_COUNT] & TAG_MASK

        d_PartialHistograms[gpu.block_idx_x() * HISTOGRAM256_BIN_COUNT + bin] = sum


# ---- REFERENCE ---------------------------------------------------------------
NWORDS = 50_000
NBLOCKS = 240                         # PARTIAL_HISTOGRAM256_COUNT


def make_args(rng):
    data = rng.integers(0, 2**32, NWORDS, dtype=np.uint64).astype(np.uint32)
    return [np.zeros(NBLOCKS * 256, dtype=np.uint32), data, NWORDS]


def reference(d_PartialHistograms, d_Data, dataCount):
    T = HISTOGRAM256_THREADBLOCK_SIZE
    pos = np.arange(dataCount)
    blk = (pos % (T * NBLOCKS)) // T                       # which block's stride visits pos
    b = d_Data[:dataCount].view(np.uint8).reshape(-1, 4).astype(np.int64)   # little-endian bytes
    keys = (blk[:, None] * 256 + b).ravel()
    part = np.bincount(keys, minlength=NBLOCKS * 256).astype(np.uint32)
    return {"d_PartialHistograms": part}


CASE = dict(
    threads=HISTOGRAM256_THREADBLOCK_SIZE, blocks=NBLOCKS, shared_bytes=0,   # <<<240, 192>>>
    args=["d_PartialHistograms", "d_Data", "dataCount"], outputs=["d_PartialHistograms"],
    rtol=0.0, atol=0.0,
    note="Partials are deterministic; their column sums equal np.bincount of all bytes.",
)
