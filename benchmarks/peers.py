"""saxpy (bandwidth) and Mandelbrot (compute): hatch-hybrid vs numba-cuda vs CUDA C through NVRTC.

Run on a GPU machine with the example wheel installed:  python benchmarks/peers.py
Every result is checked before timing; times are CUDA-event medians after warm-up.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

import numpy as np

if not hasattr(np, "row_stack"):  # numba-cuda 0.30 still calls it; NumPy 2.5 removed it
    np.row_stack = np.vstack  # type: ignore[attr-defined]

import cupy as cp  # noqa: E402
from hybrid_demo import mandelbrot_kernel, saxpy  # noqa: E402
from numba import cuda  # noqa: E402

NVRTC_SRC = r"""
extern "C" __global__ void saxpy(float a, const float* x, float* y, long long n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void mandelbrot(int* out, int h, int w, float x0, float y0, float dx, float dy, int max_iter) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < h && col < w) {
        float cr = x0 + dx * (float)col, ci = y0 + dy * (float)row;
        float zr = 0.f, zi = 0.f; int n = 0;
        while (n < max_iter) {
            float zr2 = zr * zr, zi2 = zi * zi;
            if (zr2 + zi2 > 4.0f) break;
            zi = 2.0f * zr * zi + ci;
            zr = zr2 - zi2 + cr;
            n++;
        }
        out[row * w + col] = n;
    }
}
"""


@cuda.jit
def numba_saxpy(a, x, y):
    i = cuda.grid(1)
    if i < y.size:
        y[i] = a * x[i] + y[i]


@cuda.jit
def numba_mandelbrot(out, x0, y0, dx, dy, max_iter):
    col, row = cuda.grid(2)
    if row < out.shape[0] and col < out.shape[1]:
        cr = x0 + dx * np.float32(col)
        ci = y0 + dy * np.float32(row)
        zr = np.float32(0.0)
        zi = np.float32(0.0)
        n = 0
        while n < max_iter:
            zr2 = zr * zr
            zi2 = zi * zi
            if zr2 + zi2 > np.float32(4.0):
                break
            zi = np.float32(2.0) * zr * zi + ci
            zr = zr2 - zi2 + cr
            n += 1
        out[row, col] = n


def time_ms(fn, reps: int, warmup: int = 3, batch: int = 10) -> float:
    """Median over ``reps`` event pairs, each around ``batch`` back-to-back launches (so the host-side
    cost of one launch overlaps the previous kernel, as in any real loop), per launch."""
    for _ in range(warmup):
        fn()
    cp.cuda.Device().synchronize()
    times = []
    for _ in range(reps):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        for _ in range(batch):
            fn()
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop) / batch)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--saxpy-log2", type=int, default=27)
    parser.add_argument("--size", type=int, default=4096)
    parser.add_argument("--max-iter", type=int, default=512)
    parser.add_argument("--reps", type=int, default=30)
    args = parser.parse_args()
    rows = []

    # ---------------------------------------------------------------- saxpy
    n = 1 << args.saxpy_log2
    a = np.float32(2.0)
    x = cp.random.random(n, dtype=cp.float32)
    y0 = cp.random.random(n, dtype=cp.float32)
    expected = (a * cp.asnumpy(x) + cp.asnumpy(y0)).astype(np.float32)
    mod = cp.RawModule(code=NVRTC_SRC, options=("--std=c++17",))
    mod_nofma = cp.RawModule(code=NVRTC_SRC, options=("--std=c++17", "--fmad=false"))
    blocks = (n + 255) // 256
    runs = {
        "hatch-hybrid": lambda y: saxpy[blocks, 256](a, x, y),
        "numba-cuda": lambda y: numba_saxpy[blocks, 256](a, x, y),
        "NVRTC": lambda y: mod.get_function("saxpy")((blocks,), (256,), (a, x, y, np.int64(n))),
    }
    for name, run in runs.items():
        y = y0.copy()
        run(y)
        ok = np.array_equal(cp.asnumpy(y), expected)
        ms = time_ms(lambda: run(y), args.reps)
        rows.append((f"saxpy 2^{args.saxpy_log2} f32", name, ms, f"{3 * 4 * n / ms / 1e6:.0f} GB/s", ok))

    # ----------------------------------------------------------- mandelbrot
    size, it = args.size, np.int32(args.max_iter)
    x0, y0_, dx, dy = np.float32(-2.2), np.float32(-1.2), np.float32(3.2 / size), np.float32(2.4 / size)
    grid = (math.ceil(size / 16), math.ceil(size / 16))
    outs = {}
    mruns = {
        "hatch-hybrid": lambda o: mandelbrot_kernel[grid, (16, 16)](o, x0, y0_, dx, dy, it),
        "numba-cuda": lambda o: numba_mandelbrot[grid, (16, 16)](o, x0, y0_, dx, dy, it),
        "NVRTC": lambda o: mod.get_function("mandelbrot")(
            grid, (16, 16), (o, np.int32(size), np.int32(size), x0, y0_, dx, dy, it)
        ),
        "NVRTC --fmad=false": lambda o: mod_nofma.get_function("mandelbrot")(
            grid, (16, 16), (o, np.int32(size), np.int32(size), x0, y0_, dx, dy, it)
        ),
    }
    for name, run in mruns.items():
        o = cp.zeros((size, size), dtype=cp.int32)
        run(o)
        outs[name] = cp.asnumpy(o)
        ms = time_ms(lambda: run(o), max(5, args.reps // 3))
        rows.append((f"mandelbrot {size}^2 x{args.max_iter}", name, ms, "", None))
    # the CPU path of the same kernel on a corner of the image must agree bit for bit
    crop = np.zeros((48, 64), dtype=np.int32)
    mandelbrot_kernel.launch((16, 16), (4, 3), crop, x0, y0_, dx, dy, it, device="cpu")
    ref = outs["hatch-hybrid"]
    for k, r in enumerate(rows):
        if r[0].startswith("mandelbrot"):
            same = np.array_equal(outs[r[1]], ref)
            rows[k] = (*r[:4], same if r[1] != "hatch-hybrid" else np.array_equal(ref[:48, :64], crop))

    # ------------------------------------------------------- launch overhead
    xs, ys = cp.ones(256, dtype=cp.float32), cp.ones(256, dtype=cp.float32)
    small = {
        "hatch-hybrid": lambda: saxpy[1, 256](a, xs, ys),
        "numba-cuda": lambda: numba_saxpy[1, 256](a, xs, ys),
        "NVRTC": lambda: mod.get_function("saxpy")((1,), (256,), (a, xs, ys, np.int64(256))),
    }
    for name, run in small.items():
        for _ in range(100):
            run()
        cp.cuda.Device().synchronize()
        best = []
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(2000):
                run()
            cp.cuda.Device().synchronize()
            best.append((time.perf_counter() - t0) / 2000 * 1e6)
        rows.append(("launch, 3 args (CuPy arrays)", name, min(best) / 1000, f"{min(best):.1f} us", None))

    print(f"\nGPU: {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}")
    print(f"{'benchmark':28} {'implementation':20} {'median ms':>10} {'rate':>12}  check")
    for bench, name, ms, rate, ok in rows:
        note = {True: "ok", False: "MISMATCH", None: ""}[ok]
        print(f"{bench:28} {name:20} {ms:10.3f} {rate:>12}  {note}")
    print("(mandelbrot check: hatch-hybrid vs its own CPU path on a 64x48 corner; the others vs hatch-hybrid)")


if __name__ == "__main__":
    main()
