# =============================================================================
# 046_warp_add_kernel.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA/warp, docs/user_guide/runtime.rst ("Kernels"), kernel `add_kernel`
#          https://github.com/NVIDIA/warp/blob/9934a4eb2c503399140daab09d256ccc7236d1d8/docs/user_guide/runtime.rst
# License: Apache-2.0 (NVIDIA Warp)
# What   : Warp's minimal kernel: c[tid] = a[tid] + b[tid] over wp.launch(dim=n).
# Port   : spelling only -- YES (@wp.kernel -> @kernel, wp.array[float] -> Array[f32],
#          wp.tid() -> gpu.global_tid_x())
# =============================================================================
# Original text: docs/user_guide/runtime.rst lines 20-23 @ 9934a4eb2c50 (dedented)

ORIGINAL = r'''
@wp.kernel
def add_kernel(a: wp.array[float], b: wp.array[float], c: wp.array[float]):
    tid = wp.tid()
    c[tid] = a[tid] + b[tid]
'''

# ---- PORT --------------------------------------------------------------------
import numpy as np
from hybrid_runtime import kernel, gpu, Array, f32


@kernel
def add_kernel(a: Array[f32], b: Array[f32], c: Array[f32]):
    tid = gpu.global_tid_x()
    c[tid] = a[tid] + b[tid]


# ---- REFERENCE ---------------------------------------------------------------
N = 1024                             # docs: wp.launch(add_kernel, dim=1024, ...)


def make_args(rng):
    return [rng.random(N).astype(np.float32), rng.random(N).astype(np.float32),
            np.zeros(N, dtype=np.float32)]


def reference(a, b, c):
    return {"c": a + b}


CASE = dict(
    threads=256, blocks=N // 256, shared_bytes=0,
    args=["a", "b", "c"], outputs=["c"],
    rtol=0.0, atol=0.0,
    note=("Warp launches exactly `dim` threads and its kernels carry no bounds check; the "
          "CUDA-style launch must therefore cover N exactly (N multiple of threads)."),
)
