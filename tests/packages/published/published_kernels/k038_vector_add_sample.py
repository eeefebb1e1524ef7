# =============================================================================
# 038_vector_add_sample.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA/cuda-samples, Samples/0_Introduction/vectorAdd/vectorAdd.cu, kernel `vectorAdd`
#          https://github.com/NVIDIA/cuda-samples/blob/c94ff366aed18c797b8a85dfaac7817b0228b420/Samples/0_Introduction/vectorAdd/vectorAdd.cu
# License: BSD-3-Clause (NVIDIA cuda-samples LICENSE)
# What   : float32 C = A + B + 0.0f with a bounds check; 256-thread blocks.
# Port   : spelling only -- NO
# NEEDS MORE THAN SPELLING: CUDA C source; translated line-for-line (trivial).
# =============================================================================
# Original text: Samples/0_Introduction/vectorAdd/vectorAdd.cu lines 41-54 @ c94ff366aed1 (dedented)
# Original text: Samples/0_Introduction/vectorAdd/vectorAdd.cu lines 136-139 @ c94ff366aed1 (dedented)

ORIGINAL = r'''
/**
 * CUDA Kernel Device code
 *
 * Computes the vector addition of A and B into C. The 3 vectors have the same
 * number of elements numElements.
 */
__global__ void vectorAdd(const float *A, const float *B, float *C, int numElements)
{
    int i = blockDim.x * blockIdx.x + threadIdx.x;

    if (i < numElements) {
        C[i] = A[i] + B[i] + 0.0f;
    }
}

# ...

int threadsPerBlock = 256;
int blocksPerGrid   = (numElements + threadsPerBlock - 1) / threadsPerBlock;
printf("CUDA kernel launch with %d blocks of %d threads\n", blocksPerGrid, threadsPerBlock);
vectorAdd<<<blocksPerGrid, threadsPerBlock>>>(d_A, d_B, d_C, numElements);
'''

# ---- PORT (line-for-line translation) ------------------------------------------
import numpy as np
from hybrid_runtime import kernel, gpu, Array, f32, i32


@kernel
def vectorAdd(A: Array[f32], B: Array[f32], C: Array[f32], numElements: i32):
    i = gpu.block_dim_x() * gpu.block_idx_x() + gpu.thread_idx_x()

    if i < numElements:
        C[i] = A[i] + B[i] + f32(0.0)


# ---- REFERENCE ---------------------------------------------------------------
N = 50_000                 # numElements in the sample


def make_args(rng):
    A = rng.random(N).astype(np.float32)       # sample: rand() / (float)RAND_MAX
    B = rng.random(N).astype(np.float32)
    return [A, B, np.zeros(N, dtype=np.float32), N]


def reference(A, B, C, numElements):
    return {"C": (A + B).astype(np.float32)}


CASE = dict(
    threads=256, blocks=(N + 255) // 256, shared_bytes=0,
    args=["A", "B", "C", "numElements"], outputs=["C"],
    rtol=0.0, atol=0.0,                         # sample checks |A+B-C| <= 1e-5
)
