# =============================================================================
# 040_reduce2_sequential.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA/cuda-samples, Samples/2_Concepts_and_Techniques/reduction/reduction_kernel.cu,
#          template kernel `reduce2<T>` (sequential addressing), instantiated for T = int
#          https://github.com/NVIDIA/cuda-samples/blob/c94ff366aed18c797b8a85dfaac7817b0228b420/Samples/2_Concepts_and_Techniques/reduction/reduction_kernel.cu
# License: BSD-3-Clause (NVIDIA cuda-samples LICENSE)
# What   : per-block tree reduction in dynamic shared memory, halving stride, partial sum per block.
# Port   : spelling only -- NO
# NEEDS MORE THAN SPELLING: CUDA C++ template source, translated for T=int; SharedMemory<T>
#   (extern __shared__ cast) -> gpu.dynamic_shared_array(i32); cg::sync(cta) -> gpu.syncthreads().
# =============================================================================
# Original text: Samples/2_Concepts_and_Techniques/reduction/reduction_kernel.cu lines 166-195 @ c94ff366aed1 (dedented)
# Original text: Samples/2_Concepts_and_Techniques/reduction/reduction_kernel.cu lines 640-640 @ c94ff366aed1 (dedented)
# Original text: Samples/2_Concepts_and_Techniques/reduction/reduction_kernel.cu lines 659-659 @ c94ff366aed1 (dedented)

ORIGINAL = r'''
/*
    This version uses sequential addressing -- no divergence or bank conflicts.
*/
template <class T> __global__ void reduce2(T *g_idata, T *g_odata, unsigned int n)
{
    // Handle to thread block group
    cg::thread_block cta   = cg::this_thread_block();
    T               *sdata = SharedMemory<T>();

    // load shared mem
    unsigned int tid = threadIdx.x;
    unsigned int i   = blockIdx.x * blockDim.x + threadIdx.x;

    sdata[tid] = (i < n) ? g_idata[i] : 0;

    cg::sync(cta);

    // do reduction in shared mem
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }

        cg::sync(cta);
    }

    // write result for this block to global mem
    if (tid == 0)
        g_odata[blockIdx.x] = sdata[0];
}

# ...

int smemSize = (threads <= 32) ? 2 * threads * sizeof(T) : threads * sizeof(T);

# ...

reduce2<T><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size);
'''

# ---- PORT (translation, T = int) ------------------------------------------------
import numpy as np
from hybrid_runtime import kernel, gpu, Array, i32, u32


@kernel
def reduce2(g_idata: Array[i32], g_odata: Array[i32], n: u32):
    sdata = gpu.dynamic_shared_array(i32)

    # load shared mem
    tid = gpu.thread_idx_x()
    i = gpu.block_idx_x() * gpu.block_dim_x() + gpu.thread_idx_x()

    sdata[tid] = g_idata[i] if i < n else 0

    gpu.syncthreads()

    # do reduction in shared mem
    s = gpu.block_dim_x() // 2
    while s > 0:
        if tid < s:
            sdata[tid] += sdata[tid + s]

        gpu.syncthreads()
        s >>= 1

    # write result for this block to global mem
    if tid == 0:
        g_odata[gpu.block_idx_x()] = sdata[0]


# ---- REFERENCE ---------------------------------------------------------------
N, THREADS = 1000, 256
BLOCKS = (N + THREADS - 1) // THREADS


def make_args(rng):
    x = rng.integers(-100, 100, N).astype(np.int32)
    return [x, np.zeros(BLOCKS, dtype=np.int32), N]


def reference(g_idata, g_odata, n):
    pad = np.zeros(BLOCKS * THREADS, dtype=np.int64)
    pad[:n] = g_idata[:n]
    return {"g_odata": pad.reshape(BLOCKS, THREADS).sum(axis=1).astype(np.int32)}


CASE = dict(
    threads=THREADS, blocks=BLOCKS, shared_bytes=THREADS * 4,   # smemSize = threads*sizeof(T)
    args=["g_idata", "g_odata", "n"], outputs=["g_odata"],
    rtol=0.0, atol=0.0,
    note=("blockDim must be a power of two. The C loop is `for (s = blockDim.x/2; s > 0; "
          "s >>= 1)`; written as a while loop here. Last block is partial (i < n guard)."),
)
