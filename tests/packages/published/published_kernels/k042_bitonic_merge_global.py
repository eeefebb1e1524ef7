# =============================================================================
# 042_bitonic_merge_global.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA/cuda-samples, Samples/2_Concepts_and_Techniques/sortingNetworks/bitonicSort.cu,
#          kernel `bitonicMergeGlobal` + `Comparator` (sortingNetworks_common.cuh)
#          https://github.com/NVIDIA/cuda-samples/blob/c94ff366aed18c797b8a85dfaac7817b0228b420/Samples/2_Concepts_and_Techniques/sortingNetworks/bitonicSort.cu
# License: BSD-3-Clause (NVIDIA cuda-samples LICENSE)
# What   : one global-memory step (size, stride) of a bitonic sorting network on key/value pairs.
# Port   : spelling only -- NO
# NEEDS MORE THAN SPELLING: CUDA C source, translated; `Comparator` takes its four operands by
#   C++ reference and swaps them -- inlined into the kernel. Mixes bool and uint
#   (`dir ^ (... != 0)`, `(keyA > keyB) == dir`) the way C's integer promotion allows.
# =============================================================================
# Original text: Samples/2_Concepts_and_Techniques/sortingNetworks/sortingNetworks_common.cuh lines 40-52 @ c94ff366aed1 (dedented)
# Original text: Samples/2_Concepts_and_Techniques/sortingNetworks/bitonicSort.cu lines 144-171 @ c94ff366aed1 (dedented)
# Original text: Samples/2_Concepts_and_Techniques/sortingNetworks/bitonicSort.cu lines 260-261 @ c94ff366aed1 (dedented)

ORIGINAL = r'''
__device__ inline void Comparator(uint &keyA, uint &valA, uint &keyB, uint &valB, uint dir)
{
    uint t;

    if ((keyA > keyB) == dir) {
        t    = keyA;
        keyA = keyB;
        keyB = t;
        t    = valA;
        valA = valB;
        valB = t;
    }
}

# ...

__global__ void bitonicMergeGlobal(uint *d_DstKey,
                                   uint *d_DstVal,
                                   uint *d_SrcKey,
                                   uint *d_SrcVal,
                                   uint  arrayLength,
                                   uint  size,
                                   uint  stride,
                                   uint  dir)
{
    uint global_comparatorI = blockIdx.x * blockDim.x + threadIdx.x;
    uint comparatorI        = global_comparatorI & (arrayLength / 2 - 1);

    // Bitonic merge
    uint ddd = dir ^ ((comparatorI & (size / 2)) != 0);
    uint pos = 2 * global_comparatorI - (global_comparatorI & (stride - 1));

    uint keyA = d_SrcKey[pos + 0];
    uint valA = d_SrcVal[pos + 0];
    uint keyB = d_SrcKey[pos + stride];
    uint valB = d_SrcVal[pos + stride];

    Comparator(keyA, valA, keyB, valB, ddd);

    d_DstKey[pos + 0]      = keyA;
    d_DstVal[pos + 0]      = valA;
    d_DstKey[pos + stride] = keyB;
    d_DstVal[pos + stride] = valB;
}

# ...

bitonicMergeGlobal<<<(batchSize * arrayLength) / 512, 256>>>(
    d_DstKey, d_DstVal, d_DstKey, d_DstVal, arrayLength, size, stride, dir);
'''

# ---- PORT (translation, Comparator inlined) ---------------------------------------
import numpy as np
from hybrid_runtime import kernel, gpu, Array, u32


@kernel
def bitonicMergeGlobal(d_DstKey: Array[u32], d_DstVal: Array[u32], d_SrcKey: Array[u32],
                       d_SrcVal: Array[u32], arrayLength: u32, size: u32, stride: u32, dir: u32):
    global_comparatorI = gpu.block_idx_x() * gpu.block_dim_x() + gpu.thread_idx_x()
    comparatorI = global_comparatorI & (arrayLength // 2 - 1)

    # Bitonic merge
    ddd = dir ^ ((comparatorI & (size // 2)) != 0)
    pos = 2 * global_comparatorI - (global_comparatorI & (stride - 1))

    keyA = d_SrcKey[pos + 0]
    valA = d_SrcVal[pos + 0]
    keyB = d_SrcKey[pos + stride]
    valB = d_SrcVal[pos + stride]

    # Comparator(keyA, valA, keyB, valB, ddd)
    if (keyA > keyB) == ddd:
        t = keyA
        keyA = keyB
        keyB = t
        t = valA
        valA = valB
        valB = t

    d_DstKey[pos + 0] = keyA
    d_DstVal[pos + 0] = valA
    d_DstKey[pos + stride] = keyB
    d_DstVal[pos + stride] = valB


# ---- REFERENCE ---------------------------------------------------------------
L = 1024                          # arrayLength (power of two), batchSize = 1
SIZE, STRIDE, DIR = L, L // 4, 1  # one mid-network step


def make_args(rng):
    key = rng.integers(0, 2**32, L, dtype=np.uint64).astype(np.uint32)
    val = np.arange(L, dtype=np.uint32)
    return [key.copy(), val.copy(), key, val, L, SIZE, STRIDE, DIR]


def reference(dk, dv, sk, sv, arrayLength, size, stride, dir):
    g = np.arange(arrayLength // 2)
    ddd = (dir ^ ((g & (arrayLength // 2 - 1)) & (size // 2) != 0)).astype(bool)
    pos = 2 * g - (g & (stride - 1))
    ka, kb, va, vb = sk[pos], sk[pos + stride], sv[pos], sv[pos + stride]
    swap = (ka > kb) == ddd
    k, v = sk.copy(), sv.copy()
    k[pos], k[pos + stride] = np.where(swap, kb, ka), np.where(swap, ka, kb)
    v[pos], v[pos + stride] = np.where(swap, vb, va), np.where(swap, va, vb)
    return {"d_DstKey": k, "d_DstVal": v}


# Independent end-to-end check: running every step of this schedule in place
# (Dst is Src) must give np.sort(key) and the matching permutation of val (DIR = 1).
SCHEDULE = [(s, t) for s in (2 ** e for e in range(1, L.bit_length())) for t in
            (s >> k for k in range(1, s.bit_length()))]

CASE = dict(
    threads=256, blocks=L // 512, shared_bytes=0,    # <<<(batchSize*arrayLength)/512, 256>>>
    args=["d_DstKey", "d_DstVal", "d_SrcKey", "d_SrcVal", "arrayLength", "size", "stride", "dir"],
    outputs=["d_DstKey", "d_DstVal"],
    rtol=0.0, atol=0.0,
    note="Keys should be distinct for the end-to-end check (ties make val order ambiguous).",
)
