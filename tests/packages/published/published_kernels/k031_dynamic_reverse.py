# =============================================================================
# 031_dynamic_reverse.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA-developer-blog/code-samples, series/cuda-cpp/shared-memory/shared-memory.cu,
#          kernel `dynamicReverse` -- code for the NVIDIA blog post "Using Shared Memory in CUDA C/C++"
#          https://github.com/NVIDIA-developer-blog/code-samples/blob/72d62ec464442786a36754508bcb1094d197d6a5/series/cuda-cpp/shared-memory/shared-memory.cu
# License: BSD-3-Clause (NVIDIA, header of the file)
# What   : same reversal through an `extern __shared__` array sized at launch (n*sizeof(int)).
# Port   : spelling only -- NO
# NEEDS MORE THAN SPELLING: CUDA C source; translated line-for-line
#   (`extern __shared__ int s[]` -> gpu.dynamic_shared_array(i32)).
# =============================================================================
# Original text: series/cuda-cpp/shared-memory/shared-memory.cu lines 39-47 @ 72d62ec46444 (dedented)
# Original text: series/cuda-cpp/shared-memory/shared-memory.cu lines 70-72 @ 72d62ec46444 (dedented)

ORIGINAL = r'''
__global__ void dynamicReverse(int *d, int n)
{
  extern __shared__ int s[];
  int t = threadIdx.x;
  int tr = n-t-1;
  s[t] = d[t];
  __syncthreads();
  d[t] = s[tr];
}

# ...

// run dynamic shared memory version
cudaMemcpy(d_d, a, n*sizeof(int), cudaMemcpyHostToDevice);
dynamicReverse<<<1,n,n*sizeof(int)>>>(d_d, n);
'''

# ---- PORT (line-for-line translation) ------------------------------------------
import numpy as np
from hybrid_runtime import kernel, gpu, Array, i32


@kernel
def dynamicReverse(d: Array[i32], n: i32):
    s = gpu.dynamic_shared_array(i32)
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
    threads=N, blocks=1, shared_bytes=N * 4,      # dynamicReverse<<<1, n, n*sizeof(int)>>>
    args=["d", "n"], outputs=["d"],
    rtol=0.0, atol=0.0,
)
