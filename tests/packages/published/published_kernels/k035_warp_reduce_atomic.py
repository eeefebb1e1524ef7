# =============================================================================
# 035_warp_reduce_atomic.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA-developer-blog/code-samples, posts/parallel_reduction_with_shfl/
#          warp_reduce.h (`warpReduceSum`) + device_reduce_warp_atomic.h
#          (`device_reduce_warp_atomic_kernel` and its host launcher) -- code for the NVIDIA
#          blog post "Faster Parallel Reductions on Kepler"
#          https://github.com/NVIDIA-developer-blog/code-samples/tree/72d62ec464442786a36754508bcb1094d197d6a5/posts/parallel_reduction_with_shfl
# License: BSD-3-Clause (NVIDIA, header of the files)
# What   : grid-stride partial sums, warp shuffle-down tree reduction, one atomicAdd per warp.
# Port   : spelling only -- NO
# NEEDS MORE THAN SPELLING: CUDA C source, translated line-for-line; `warpReduceSum` is a
#   __device__ helper (no device-function spelling in the table -> left undecorated);
#   parameter `in` is a Python keyword (renamed in_); warpSize -> literal 32.
# =============================================================================
# Original text: posts/parallel_reduction_with_shfl/warp_reduce.h lines 31-36 @ 72d62ec46444 (dedented)
# Original text: posts/parallel_reduction_with_shfl/device_reduce_warp_atomic.h lines 33-49 @ 72d62ec46444 (dedented)

ORIGINAL = r'''
__inline__ __device__
int warpReduceSum(int val) {
  for (int offset = warpSize/2; offset > 0; offset /= 2)
    val += __shfl_down(val,offset);
  return val;
}

# ...

__global__ void device_reduce_warp_atomic_kernel(int *in, int* out, int N) {
  int sum=int(0);
  for(int i=blockIdx.x*blockDim.x+threadIdx.x;i<N;i+=blockDim.x*gridDim.x) {
    sum+=in[i];
  }
  sum=warpReduceSum(sum);
  if(threadIdx.x%warpSize==0)
    atomicAdd(out,sum);
}

void device_reduce_warp_atomic(int *in, int* out, int N) {
  int threads=256;
  int blocks=min((N+threads-1)/threads,2048);

  cudaMemsetAsync(out,0,sizeof(int));
  device_reduce_warp_atomic_kernel<<<blocks,threads>>>(in,out,N); 
}
'''

# ---- PORT (line-for-line translation) ------------------------------------------
import numpy as np
from hybrid_runtime import kernel, gpu, Array, i32


def warpReduceSum(val: i32) -> i32:            # __inline__ __device__ helper
    offset = 32 // 2                           # warpSize/2
    while offset > 0:
        val += gpu.shfl_down(val, offset)
        offset //= 2
    return val


@kernel
def device_reduce_warp_atomic_kernel(in_: Array[i32], out: Array[i32], N: i32):
    sum = i32(0)
    for i in range(gpu.block_idx_x() * gpu.block_dim_x() + gpu.thread_idx_x(), N,
                   gpu.block_dim_x() * gpu.grid_dim_x()):
        sum += in_[i]
    sum = warpReduceSum(sum)
    if gpu.thread_idx_x() % 32 == 0:
        gpu.atomic_add(out, 0, sum)


# ---- REFERENCE ---------------------------------------------------------------
N = 20_000


def make_args(rng):
    vals = rng.integers(0, 100, N).astype(np.int32)
    return [vals, np.zeros(1, dtype=np.int32), N]      # host does cudaMemsetAsync(out, 0)


def reference(in_, out, N):
    return {"out": np.array([in_[:N].sum(dtype=np.int64)], dtype=np.int32)}


CASE = dict(
    threads=256, blocks=min((N + 255) // 256, 2048), shared_bytes=0,
    args=["in_", "out", "N"], outputs=["out"],
    rtol=0.0, atol=0.0,
    note="Variant: blocks=8 makes every thread loop many times (grid-stride path).",
)
