# =============================================================================
# 039_simple_atomic_intrinsics.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA/cuda-samples, Samples/0_Introduction/simpleAtomicIntrinsics/
#          simpleAtomicIntrinsics_kernel.cuh, kernel `testKernel` (launch in simpleAtomicIntrinsics.cu,
#          checker computeGold in simpleAtomicIntrinsics_cpu.cpp)
#          https://github.com/NVIDIA/cuda-samples/tree/c94ff366aed18c797b8a85dfaac7817b0228b420/Samples/0_Introduction/simpleAtomicIntrinsics
# License: BSD-3-Clause (NVIDIA cuda-samples LICENSE)
# What   : every thread hits 11 global int slots with add/sub/exch/max/min/inc/dec/cas/and/or/xor.
# Port   : line for line (CUDA C): atomicX -> gpu.atomic_x, `const unsigned int tid` ->
#   `tid = u32(...)`, and `int *g_odata` annotated Array[u32]: atomicInc/atomicDec take unsigned ints
#   (the C casts the int array to `unsigned int *`; numba's atomic.inc/dec likewise take u32 and
#   u64 arrays only), and every other operation leaves the same bits in an int or unsigned array.
#   `1 << tid` for tid >= 32 is undefined in C (PTX gives 0, as NumPy and hatch-hybrid do).
# =============================================================================
# Original text: Samples/0_Introduction/simpleAtomicIntrinsics/simpleAtomicIntrinsics_kernel.cuh lines 38-81 @ c94ff366aed1 (dedented)
# Original text: Samples/0_Introduction/simpleAtomicIntrinsics/simpleAtomicIntrinsics.cu lines 94-118 @ c94ff366aed1 (dedented)

ORIGINAL = r'''
__global__ void testKernel(int *g_odata)
{
    // access thread id
    const unsigned int tid = blockDim.x * blockIdx.x + threadIdx.x;

    // Test various atomic instructions

    // Arithmetic atomic instructions

    // Atomic addition
    atomicAdd(&g_odata[0], 10);

    // Atomic subtraction (final should be 0)
    atomicSub(&g_odata[1], 10);

    // Atomic exchange
    atomicExch(&g_odata[2], tid);

    // Atomic maximum
    atomicMax(&g_odata[3], tid);

    // Atomic minimum
    atomicMin(&g_odata[4], tid);

    // Atomic increment (modulo 17+1)
    atomicInc((unsigned int *)&g_odata[5], 17);

    // Atomic decrement
    atomicDec((unsigned int *)&g_odata[6], 137);

    // Atomic compare-and-swap
    atomicCAS(&g_odata[7], tid - 1, tid);

    // Bitwise atomic instructions

    // Atomic AND
    atomicAnd(&g_odata[8], 2 * tid + 7);

    // Atomic OR
    atomicOr(&g_odata[9], 1 << tid);

    // Atomic XOR
    atomicXor(&g_odata[10], tid);
}

# ...

unsigned int numThreads = 256;
unsigned int numBlocks  = 64;
unsigned int numData    = 11;
unsigned int memSize    = sizeof(int) * numData;

// allocate mem for the result on host side
int *hOData;
checkCudaErrors(cudaMallocHost(&hOData, memSize));

// initialize the memory
for (unsigned int i = 0; i < numData; i++)
    hOData[i] = 0;

// To make the AND and XOR tests generate something other than 0...
hOData[8] = hOData[10] = 0xff;

checkCudaErrors(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
// allocate device memory for result
int *dOData;
checkCudaErrors(cudaMalloc((void **)&dOData, memSize));
// copy host memory to device to initialize to zero
checkCudaErrors(cudaMemcpyAsync(dOData, hOData, memSize, cudaMemcpyHostToDevice, stream));

// execute the kernel
testKernel<<<numBlocks, numThreads, 0, stream>>>(dOData);
'''

# ---- PORT (line-for-line translation) ------------------------------------------
import numpy as np
from hybrid_runtime import kernel, gpu, Array, i32, u32


@kernel
def testKernel(g_odata: Array[u32]):
    tid = u32(gpu.block_dim_x() * gpu.block_idx_x() + gpu.thread_idx_x())
    gpu.atomic_add(g_odata, 0, 10)
    gpu.atomic_sub(g_odata, 1, 10)
    gpu.atomic_exch(g_odata, 2, tid)
    gpu.atomic_max(g_odata, 3, tid)
    gpu.atomic_min(g_odata, 4, tid)
    gpu.atomic_inc(g_odata, 5, 17)
    gpu.atomic_dec(g_odata, 6, 137)
    gpu.atomic_cas(g_odata, 7, tid - 1, tid)
    gpu.atomic_and(g_odata, 8, 2 * tid + 7)
    gpu.atomic_or(g_odata, 9, 1 << tid)
    gpu.atomic_xor(g_odata, 10, tid)


# ---- REFERENCE ---------------------------------------------------------------
THREADS, BLOCKS = 256, 64
LEN = THREADS * BLOCKS


def make_args(rng):
    g = np.zeros(11, dtype=np.int32)
    g[8] = g[10] = 0xFF
    return [g.view(np.uint32)]                 # the int array, as the kernel's unsigned ints


def reference(g_odata):
    t = np.arange(LEN, dtype=np.int64)
    exp = np.array([
        10 * LEN, -10 * LEN,
        -1,                                   # slot 2: exch -- any tid, see CASE
        LEN - 1, 0,
        LEN % 18,                             # atomicInc(.., 17) from 0
        137 - ((LEN - 1) % 138),              # atomicDec(.., 137) from 0
        -1,                                   # slot 7: CAS chain -- any tid, see CASE
        0xFF & int(np.bitwise_and.reduce(2 * t + 7)),
        -1,                                   # OR of 1<<tid over tid 0..31 = 0xFFFFFFFF
        0xFF ^ int(np.bitwise_xor.reduce(t)),
    ], dtype=np.int64).astype(np.int32)
    return {"g_odata": exp.view(np.uint32)}


CASE = dict(
    threads=THREADS, blocks=BLOCKS, shared_bytes=0,      # testKernel<<<64, 256>>>
    args=["g_odata"], outputs=["g_odata"],
    rtol=0.0, atol=0.0,
    any_of={"g_odata": {2: (0, LEN), 7: (0, LEN)}},   # exch and the CAS chain: any tid, as computeGold checks
)
