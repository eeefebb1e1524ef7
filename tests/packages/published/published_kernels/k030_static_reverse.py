# =============================================================================
# 030_static_reverse.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA-developer-blog/code-samples, series/cuda-cpp/shared-memory/shared-memory.cu,
#          kernel `staticReverse` -- code for the NVIDIA blog post "Using Shared Memory in CUDA C/C++"
#          https://github.com/NVIDIA-developer-blog/code-samples/blob/72d62ec464442786a36754508bcb1094d197d6a5/series/cuda-cpp/shared-memory/shared-memory.cu
# License: BSD-3-Clause (NVIDIA, header of the file)
# What   : reverse a 64-element int array in one block through a static 64-int shared array.
# Port   : spelling only -- NO
# NEEDS MORE THAN SPELLING: CUDA C source; translated line-for-line to the Python dialect
#   (`__shared__ int s[64]` -> gpu.shared_array(i32, 64); otherwise mechanical).
# =============================================================================
# Original text: series/cuda-cpp/shared-memory/shared-memory.cu lines 29-37 @ 72d62ec46444 (dedented)
# Original text: series/cuda-cpp/shared-memory/shared-memory.cu lines 63-65 @ 72d62ec46444 (dedented)

ORIGINAL = r'''
__global__ void staticReverse(int *d, int n)
{
  __shared__ int s[64];
  int t = threadIdx.x;
  int tr = n-t-1;
  s[t] = d[t];
  __syncthreads();
  d[t] = s[tr];
}

# ...

// run version with static shared memory
cudaMemcpy(d_d, a, n*sizeof(int), cudaMemcpyHostToDevice);
staticReverse<<<1,n>>>(d_d, n);
'''

# ---- PORT (line-for-line translation) ------------------------------------------
import numpy as np
from hybrid_runtime import kernel, gpu, Array, i32


@kernel
def staticReverse(d: Array[i32], n: i32):
    s = gpu.shared_array(i32, 64)
    t = gpu.thread_idx_x()
    tr = n - t - 1
    s[t] = d[t]
    gpu.syncthreads()
    d[t] = s[tr]


# ---- REFERENCE ---------------------------------------------------------------
N = 64


def make_args(rng):
    return [np.arange(N, dtype=np.int32), N]


def reference(d, n):
    return {"d": d[::-1].copy()}


CASE = dict(
    threads=N, blocks=1, shared_bytes=0,          # staticReverse<<<1, n>>>(d_d, n)
    args=["d", "n"], outputs=["d"],
    rtol=0.0, atol=0.0,
)
