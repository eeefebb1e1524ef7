# =============================================================================
# 014_mandel_complex.py -- hatch-hybrid kernel corpus candidate
# Source : NVIDIA/numba-cuda, numba_cuda/numba/cuda/tests/cudapy/test_mandel.py,
#          device function `mandel` (test_mandel; compiled with compile_ptx(..., device=True))
#          https://github.com/NVIDIA/numba-cuda/blob/b18b944b2f88a4e840424e49a1b0d29488263b40/numba_cuda/numba/cuda/tests/cudapy/test_mandel.py
# License: BSD-2-Clause (numba-cuda)
# What   : Mandelbrot escape-time for one pixel using Python complex arithmetic; early return.
# Port   : spelling only -- NO
# NEEDS MORE THAN SPELLING: (1) it is a device function (compile_ptx(device=True)) returning a
#   value, not a kernel -- a kernel wrapper is added below (NOT from the source); (2) uses
#   complex(...) / 0.0j / z.real / z.imag (complex scalar type); (3) `y = tid / width` is true
#   division of two uint32, giving a float64 row coordinate.
# =============================================================================
# Original text: numba_cuda/numba/cuda/tests/cudapy/test_mandel.py lines 14-43 @ b18b944b2f88 (dedented)

ORIGINAL = r'''
def mandel(tid, min_x, max_x, min_y, max_y, width, height, iters):
    pixel_size_x = (max_x - min_x) / width
    pixel_size_y = (max_y - min_y) / height

    x = tid % width
    y = tid / width

    real = min_x + x * pixel_size_x
    imag = min_y + y * pixel_size_y

    c = complex(real, imag)
    z = 0.0j

    for i in range(iters):
        z = z * z + c
        if (z.real * z.real + z.imag * z.imag) >= 4:
            return i
    return iters

args = (
    uint32,
    float64,
    float64,
    float64,
    float64,
    uint32,
    uint32,
    uint32,
)
compile_ptx(mandel, args, device=True)
'''

# ---- PORT --------------------------------------------------------------------
import numpy as np
from hybrid_runtime import kernel, gpu, Array, f64, u32


def mandel(tid: u32, min_x: f64, max_x: f64, min_y: f64, max_y: f64,
           width: u32, height: u32, iters: u32) -> u32:     # device helper (undecorated)
    pixel_size_x = (max_x - min_x) / width
    pixel_size_y = (max_y - min_y) / height

    x = tid % width
    y = tid / width

    real = min_x + x * pixel_size_x
    imag = min_y + y * pixel_size_y

    c = complex(real, imag)
    z = 0.0j

    for i in range(iters):
        z = z * z + c
        if (z.real * z.real + z.imag * z.imag) >= 4:
            return i
    return iters


@kernel
def mandel_kernel(out: Array[u32], min_x: f64, max_x: f64, min_y: f64, max_y: f64,
                  width: u32, height: u32, iters: u32):        # harness wrapper, not in source
    tid = gpu.global_tid_x()
    if tid < out.size:
        out[tid] = mandel(tid, min_x, max_x, min_y, max_y, width, height, iters)


# ---- REFERENCE ---------------------------------------------------------------
W, H, ITERS = 64, 48, 50
BOUNDS = (-2.0, 1.0, -1.0, 1.0)


def make_args(rng):
    return [np.zeros(W * H, dtype=np.uint32), *BOUNDS, W, H, ITERS]


def reference(out, min_x, max_x, min_y, max_y, width, height, iters):
    tid = np.arange(out.size)
    x = tid % width
    y = tid / width                                   # true division, as in the source
    c = (min_x + x * ((max_x - min_x) / width)) + 1j * (min_y + y * ((max_y - min_y) / height))
    z = np.zeros_like(c)
    res = np.full(out.size, iters, dtype=np.uint32)
    alive = np.ones(out.size, dtype=bool)
    for i in range(iters):
        z[alive] = z[alive] * z[alive] + c[alive]
        esc = alive & ((z.real * z.real + z.imag * z.imag) >= 4)
        res[esc] = i
        alive &= ~esc
    return {"out": res}


CASE = dict(
    threads=128, blocks=(W * H + 127) // 128, shared_bytes=0,
    args=["out", "min_x", "max_x", "min_y", "max_y", "width", "height", "iters"],
    outputs=["out"],
    rtol=0.0, atol=0.0,
    mismatch_fraction=0.005,   # FMA contraction can flip escape counts on the set's boundary
    note="Original test only checks that it compiles (compile_ptx with uint32/float64 args).",
)
