# =============================================================================
# 021_atomic_max_double_shared.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_atomics.py,
#          `atomic_double_shared` from the template in gen_atomic_extreme_funcs(), instantiated
#          as `atomic_max_double_shared` with func="cuda.atomic.max" (test_atomic_max_double_shared)
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/numba_cuda/numba/cuda/tests/cudapy/test_atomics.py
# License: BSD-2-Clause (numba-cuda)
# What   : atomic max into a one-element float64 SHARED array, then thread 0 copies it out.
# Port   : spelling only -- YES, after expanding the `{func}` template placeholder by hand
#          (the test builds the function with textwrap.dedent + exec).
# =============================================================================
# Original text: numba_cuda/numba/cuda/tests/cudapy/test_atomics.py lines 512-556 @ b18b944b2f88 (dedented)

ORIGINAL = r'''
def gen_atomic_extreme_funcs(func):
    fns = dedent("""
    def atomic(res, ary):
        tx = cuda.threadIdx.x
        bx = cuda.blockIdx.x
        {func}(res, 0, ary[tx, bx])

    def atomic_double_normalizedindex(res, ary):
        tx = cuda.threadIdx.x
        bx = cuda.blockIdx.x
        {func}(res, 0, ary[tx, uint64(bx)])

    def atomic_double_oneindex(res, ary):
        tx = cuda.threadIdx.x
        {func}(res, 0, ary[tx])

    def atomic_double_shared(res, ary):
        tid = cuda.threadIdx.x
        smary = cuda.shared.array(32, float64)
        smary[tid] = ary[tid]
        smres = cuda.shared.array(1, float64)
        if tid == 0:
            smres[0] = res[0]
        cuda.syncthreads()
        {func}(smres, 0, smary[tid])
        cuda.syncthreads()
        if tid == 0:
            res[0] = smres[0]
    """).format(func=func)
    ld = {}
    exec(fns, {"cuda": cuda, "float64": float64, "uint64": uint64}, ld)
    return (
        ld["atomic"],
        ld["atomic_double_normalizedindex"],
        ld["atomic_double_oneindex"],
        ld["atomic_double_shared"],
    )


(
    atomic_max,
    atomic_max_double_normalizedindex,
    atomic_max_double_oneindex,
    atomic_max_double_shared,
) = gen_atomic_extreme_funcs("cuda.atomic.max")
'''

# ---- PORT ({func} = cuda.atomic.max) ---------------------------------------------
import numpy as np
from hybrid_runtime import kernel, gpu, Array, f64


@kernel
def atomic_max_double_shared(res: Array[f64], ary: Array[f64]):
    tid = gpu.thread_idx_x()
    smary = gpu.shared_array(f64, 32)
    smary[tid] = ary[tid]
    smres = gpu.shared_array(f64, 1)
    if tid == 0:
        smres[0] = res[0]
    gpu.syncthreads()
    gpu.atomic_max(smres, 0, smary[tid])
    gpu.syncthreads()
    if tid == 0:
        res[0] = smres[0]


# ---- REFERENCE ---------------------------------------------------------------
def make_args(rng):
    vals = rng.integers(0, 32, size=32).astype(np.float64)
    return [np.zeros(1, np.float64), vals]


def reference(res, ary):
    return {"res": np.array([max(res[0], ary.max())])}


CASE = dict(
    threads=32, blocks=1, shared_bytes=0,      # cuda_func[1, 32](res, vals)
    args=["res", "ary"], outputs=["res"],
    rtol=0.0, atol=0.0,
    note="Two separate static shared arrays in one kernel; atomic on shared memory (float64).",
)
