"""hatch-hybrid vs numba-cuda vs CUDA C (NVRTC, through CuPy's RawModule) on one GPU.

Kernels: saxpy (bandwidth), Mandelbrot (compute), block reduction (shared memory + warp shuffles),
tiled matrix multiply (shared memory), 2-D stencil, one bitonic-sort pass; launch overhead with 0, 3
and 16 arguments; cold start (benchmarks/cold_start.py). Every result is checked against a NumPy
(or cuBLAS) reference before it is timed; kernels are timed with CUDA events around batches of
back-to-back launches after warm-up, median of many batches.
    python benchmarks/suite.py [--markdown docs/performance.md]
"""

from __future__ import annotations

import argparse
import ctypes
import datetime
import math
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

if not hasattr(np, "row_stack"):  # numba-cuda 0.30 still calls it; NumPy 2.5 removed it
    np.row_stack = np.vstack  # type: ignore[attr-defined]

import os  # noqa: E402

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # JAX: leave the GPU's memory to the others

import cupy as cp  # noqa: E402
import hybrid_runtime as hr  # noqa: E402
from bench_kernels import kernels as hk  # noqa: E402
from hybrid_demo import mandelbrot_kernel  # noqa: E402
from numba import cuda  # noqa: E402

CUDA_C = r"""
extern "C" __global__ void saxpy(float a, const float* x, float* y, long long n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void mandelbrot(int* out, int h, int w, float x0, float y0, float dx, float dy, int max_iter) {
    int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < h && col < w) {
        float cr = x0 + dx * (float)col, ci = y0 + dy * (float)row, zr = 0.f, zi = 0.f; int n = 0;
        while (n < max_iter) {
            float zr2 = zr * zr, zi2 = zi * zi;
            if (zr2 + zi2 > 4.0f) break;
            zi = 2.0f * zr * zi + ci; zr = zr2 - zi2 + cr; n++;
        }
        out[row * w + col] = n;
    }
}
extern "C" __global__ void block_sum(const float* x, float* partial, long long n) {
    __shared__ float warp_sums[32];
    int t = threadIdx.x;
    float s = 0.f;
    for (long long i = (long long)blockIdx.x * blockDim.x + t; i < n; i += (long long)gridDim.x * blockDim.x) s += x[i];
    for (int k = 16; k > 0; k /= 2) s += __shfl_down_sync(0xffffffff, s, k);
    if ((t & 31) == 0) warp_sums[t / 32] = s;
    __syncthreads();
    if (t < 32) {
        float v = t < blockDim.x / 32 ? warp_sums[t] : 0.f;
        for (int k = 16; k > 0; k /= 2) v += __shfl_down_sync(0xffffffff, v, k);
        if (t == 0) partial[blockIdx.x] = v;
    }
}
extern "C" __global__ void matmul(const float* a, const float* b, float* c, int n) {
    __shared__ float sa[16][16], sb[16][16];
    int tx = threadIdx.x, ty = threadIdx.y, row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
    float acc = 0.f;
    for (int t0 = 0; t0 < n; t0 += 16) {
        sa[ty][tx] = a[row * n + t0 + tx]; sb[ty][tx] = b[(t0 + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < 16; k++) acc += sa[ty][k] * sb[k][tx];
        __syncthreads();
    }
    c[row * n + col] = acc;
}
extern "C" __global__ void stencil(const float* src, float* dst, int h, int w) {
    int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
    if (0 < i && i < h - 1 && 0 < j && j < w - 1)
        dst[i * w + j] = 0.25f * (src[(i - 1) * w + j] + src[(i + 1) * w + j] + src[i * w + j - 1] + src[i * w + j + 1])
                         - src[i * w + j];
}
extern "C" __global__ void bitonic_pass(float* x, long long j, long long k, long long n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x, p = i ^ j;
    if (p > i && i < n) {
        float a = x[i], b = x[p]; bool up = (i & k) == 0;
        if ((up && a > b) || (!up && a < b)) { x[i] = b; x[p] = a; }
    }
}
extern "C" __global__ void empty0() {}
extern "C" __global__ void empty3(float* x, const float* y, int n) { if (n < 0) x[0] = y[0]; }
extern "C" __global__ void empty16(float* a0, float* a1, float* a2, float* a3, float* a4, float* a5, float* a6,
    float* a7, int s0, int s1, int s2, int s3, float s4, float s5, float s6, float s7) {
    if (s0 < 0) a0[0] = a1[0] + a2[0] + a3[0] + a4[0] + a5[0] + a6[0] + a7[0] + s4 + s5 + s6 + s7 + s1 + s2 + s3;
}
"""
F32 = np.float32


# ------------------------------------------------------------------ numba-cuda
@cuda.jit
def nb_saxpy(a, x, y):
    i = cuda.grid(1)
    if i < y.size:
        y[i] = a * x[i] + y[i]


@cuda.jit
def nb_mandelbrot(out, x0, y0, dx, dy, max_iter):
    col, row = cuda.grid(2)
    if row < out.shape[0] and col < out.shape[1]:
        cr = x0 + dx * F32(col)
        ci = y0 + dy * F32(row)
        zr = F32(0.0)
        zi = F32(0.0)
        n = 0
        while n < max_iter:
            zr2 = zr * zr
            zi2 = zi * zi
            if zr2 + zi2 > F32(4.0):
                break
            zi = F32(2.0) * zr * zi + ci
            zr = zr2 - zi2 + cr
            n += 1
        out[row, col] = n


@cuda.jit
def nb_block_sum(x, partial):
    warp_sums = cuda.shared.array(32, dtype=np.float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    s = F32(0.0)
    while i < x.size:
        s += x[i]
        i += stride
    k = 16
    while k > 0:
        s += cuda.shfl_down_sync(0xFFFFFFFF, s, k)
        k //= 2
    if t % 32 == 0:
        warp_sums[t // 32] = s
    cuda.syncthreads()
    if t < 32:
        v = warp_sums[t] if t < cuda.blockDim.x // 32 else F32(0.0)
        k = 16
        while k > 0:
            v += cuda.shfl_down_sync(0xFFFFFFFF, v, k)
            k //= 2
        if t == 0:
            partial[cuda.blockIdx.x] = v


@cuda.jit
def nb_matmul(a, b, c):
    sa = cuda.shared.array((16, 16), dtype=np.float32)
    sb = cuda.shared.array((16, 16), dtype=np.float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    row = cuda.blockIdx.y * 16 + ty
    col = cuda.blockIdx.x * 16 + tx
    acc = F32(0.0)
    for t0 in range(0, a.shape[1], 16):
        sa[ty, tx] = a[row, t0 + tx]
        sb[ty, tx] = b[t0 + ty, col]
        cuda.syncthreads()
        for k in range(16):
            acc += sa[ty, k] * sb[k, tx]
        cuda.syncthreads()
    c[row, col] = acc


@cuda.jit
def nb_stencil(src, dst):
    j, i = cuda.grid(2)
    if 0 < i < src.shape[0] - 1 and 0 < j < src.shape[1] - 1:
        dst[i, j] = F32(0.25) * (src[i - 1, j] + src[i + 1, j] + src[i, j - 1] + src[i, j + 1]) - src[i, j]


@cuda.jit
def nb_bitonic_pass(x, j, k):
    i = cuda.grid(1)
    p = i ^ j
    if p > i and i < x.size:
        a = x[i]
        b = x[p]
        up = (i & k) == 0
        if (up and a > b) or (not up and a < b):
            x[i] = b
            x[p] = a


@cuda.jit
def nb_empty0():
    pass


@cuda.jit
def nb_empty3(x, y, n):
    if n < 0:
        x[0] = y[0]


@cuda.jit
def nb_empty16(a0, a1, a2, a3, a4, a5, a6, a7, s0, s1, s2, s3, s4, s5, s6, s7):
    if s0 < 0:
        a0[0] = a1[0] + a2[0] + a3[0] + a4[0] + a5[0] + a6[0] + a7[0] + s4 + s5 + s6 + s7 + s1 + s2 + s3


# ---------------------------------------------------------------------- timing
def time_ms(fn, reps: int = 30, batch: int = 10) -> float:
    for _ in range(3):
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


def interleaved(runs: dict[str, object], n: int = 3000, rounds: int = 7) -> dict[str, float]:
    """Per-launch host time of each, best of ``rounds``, the implementations taking turns in every
    round so that drift in the machine's speed affects all of them alike."""
    best = {name: math.inf for name in runs}
    for fn in runs.values():
        for _ in range(200):
            fn()  # type: ignore[operator]
    cp.cuda.Device().synchronize()
    for _ in range(rounds):
        for name, fn in runs.items():
            t0 = time.perf_counter()
            for _ in range(n):
                fn()  # type: ignore[operator]
            cp.cuda.Device().synchronize()
            best[name] = min(best[name], (time.perf_counter() - t0) / n * 1e6)
    return best


class Results:
    def __init__(self) -> None:
        self.rows: list[tuple[str, str, float, str, str]] = []

    def add(self, bench: str, impl: str, ms: float, rate: str, ok: bool | None) -> None:
        self.rows.append((bench, impl, ms, rate, {True: "ok", False: "MISMATCH", None: ""}[ok]))
        print(f"  {bench:34} {impl:26} {ms:9.4f} ms {rate:>14} {self.rows[-1][4]}", flush=True)


def kernels(res: Results, mod, mod_exact, quick: bool) -> None:
    a = F32(2.0)
    # saxpy -------------------------------------------------------------------------------------------
    n = 1 << (24 if quick else 27)
    x = cp.random.random(n, dtype=cp.float32)
    y0 = cp.random.random(n, dtype=cp.float32)
    expected = a * cp.asnumpy(x) + cp.asnumpy(y0)
    blocks = (n + 255) // 256
    for name, run in {
        "hatch-hybrid": lambda y: hk.saxpy[blocks, 256](a, x, y),
        "numba-cuda": lambda y: nb_saxpy[blocks, 256](a, x, y),
        "CUDA C (NVRTC)": lambda y: mod.get_function("saxpy")((blocks,), (256,), (a, x, y, np.int64(n))),
    }.items():
        y = y0.copy()
        run(y)
        ok = np.array_equal(cp.asnumpy(y), expected)
        ms = time_ms(lambda: run(y))
        res.add(f"saxpy 2^{int(math.log2(n))} f32", name, ms, f"{12 * n / ms / 1e6:.0f} GB/s", ok)

    # mandelbrot --------------------------------------------------------------------------------------
    size, it = (1024, 256) if quick else (4096, 512)
    x0, y0_, dx, dy = F32(-2.2), F32(-1.2), F32(3.2 / size), F32(2.4 / size)
    grid = ((size + 15) // 16, (size + 15) // 16)
    outs = {}
    for name, run in {
        "hatch-hybrid": lambda o: mandelbrot_kernel[grid, (16, 16)](o, x0, y0_, dx, dy, np.int32(it)),
        "numba-cuda": lambda o: nb_mandelbrot[grid, (16, 16)](o, x0, y0_, dx, dy, np.int32(it)),
        "CUDA C (NVRTC)": lambda o: mod.get_function("mandelbrot")(
            grid, (16, 16), (o, np.int32(size), np.int32(size), x0, y0_, dx, dy, np.int32(it))
        ),
        "CUDA C (NVRTC, --fmad=false)": lambda o: mod_exact.get_function("mandelbrot")(
            grid, (16, 16), (o, np.int32(size), np.int32(size), x0, y0_, dx, dy, np.int32(it))
        ),
    }.items():
        o = cp.zeros((size, size), dtype=cp.int32)
        run(o)
        outs[name] = cp.asnumpy(o)
        ms = time_ms(lambda: run(o), reps=10)
        crop = np.zeros((48, 64), np.int32)
        mandelbrot_kernel.launch((16, 16), (4, 3), crop, x0, y0_, dx, dy, np.int32(it), device="cpu")
        ok = np.array_equal(outs[name][:48, :64], crop) if name == "hatch-hybrid" else None
        res.add(f"mandelbrot {size}^2 x{it}", name, ms, f"{(outs[name].sum() + size * size) / ms / 1e6:.0f} Git/s", ok)

    # block reduction ---------------------------------------------------------------------------------
    n = 1 << (24 if quick else 27)
    x = cp.random.random(n, dtype=cp.float32)
    reference = float(cp.asnumpy(x).astype(np.float64).sum())
    nblocks = 132 * 8
    for name, run in {
        "hatch-hybrid": lambda p: hk.block_sum[nblocks, 256](x, p),
        "numba-cuda": lambda p: nb_block_sum[nblocks, 256](x, p),
        "CUDA C (NVRTC)": lambda p: mod.get_function("block_sum")((nblocks,), (256,), (x, p, np.int64(n))),
    }.items():
        p = cp.zeros(nblocks, dtype=cp.float32)
        run(p)
        ok = abs(float(cp.asnumpy(p).astype(np.float64).sum()) - reference) < 1e-4 * reference
        ms = time_ms(lambda: run(p))
        res.add(f"block reduction 2^{int(math.log2(n))} f32", name, ms, f"{4 * n / ms / 1e6:.0f} GB/s", ok)

    # tiled matmul ------------------------------------------------------------------------------------
    m = 1024 if quick else 2048
    A = cp.random.random((m, m), dtype=cp.float32)
    B = cp.random.random((m, m), dtype=cp.float32)
    ref = cp.asnumpy(A).astype(np.float64) @ cp.asnumpy(B).astype(np.float64)
    g = (m // 16, m // 16)
    for name, run in {
        "hatch-hybrid": lambda c: hk.matmul[g, (16, 16)](A, B, c),
        "hatch-hybrid (fastmath)": lambda c: hk.matmul_fast[g, (16, 16)](A, B, c),
        "numba-cuda": lambda c: nb_matmul[g, (16, 16)](A, B, c),
        "CUDA C (NVRTC)": lambda c: mod.get_function("matmul")(g, (16, 16), (A, B, c, np.int32(m))),
        "CUDA C (NVRTC, --fmad=false)": lambda c: mod_exact.get_function("matmul")(g, (16, 16), (A, B, c, np.int32(m))),
    }.items():
        c = cp.zeros((m, m), dtype=cp.float32)
        run(c)
        ok = np.allclose(cp.asnumpy(c), ref, rtol=1e-4)
        ms = time_ms(lambda: run(c), reps=10)
        res.add(f"matmul {m}^2 f32, 16x16 tiles", name, ms, f"{2 * m**3 / ms / 1e9:.0f} TFLOP/s", ok)

    # stencil -----------------------------------------------------------------------------------------
    h = w = 4096 if quick else 8192
    src = cp.random.random((h, w), dtype=cp.float32)
    s_host = cp.asnumpy(src).astype(np.float64)
    ref = 0.25 * (s_host[:-2, 1:-1] + s_host[2:, 1:-1] + s_host[1:-1, :-2] + s_host[1:-1, 2:]) - s_host[1:-1, 1:-1]
    g = (w // 32, h // 8)
    for name, run in {
        "hatch-hybrid": lambda d: hk.stencil[g, (32, 8)](src, d),
        "numba-cuda": lambda d: nb_stencil[g, (32, 8)](src, d),
        "CUDA C (NVRTC)": lambda d: mod.get_function("stencil")(g, (32, 8), (src, d, np.int32(h), np.int32(w))),
    }.items():
        d = cp.zeros((h, w), dtype=cp.float32)
        run(d)
        ok = np.allclose(cp.asnumpy(d)[1:-1, 1:-1], ref, rtol=1e-5, atol=1e-6)
        ms = time_ms(lambda: run(d))
        res.add(f"stencil 5-point {h}^2 f32", name, ms, f"{8 * h * w / ms / 1e6:.0f} GB/s", ok)

    # bitonic sort ------------------------------------------------------------------------------------
    n = 1 << 20
    data = cp.random.random(n, dtype=cp.float32)
    sorted_ref = np.sort(cp.asnumpy(data))
    runs = {
        "hatch-hybrid": lambda v, j, k, n=n: hk.bitonic_pass[n // 256, 256](v, j, k),
        "numba-cuda": lambda v, j, k, n=n: nb_bitonic_pass[n // 256, 256](v, j, k),
        "CUDA C (NVRTC)": lambda v, j, k, n=n: mod.get_function("bitonic_pass")(
            (n // 256,), (256,), (v, np.int64(j), np.int64(k), np.int64(n))
        ),
    }
    big = 1 << (24 if quick else 26)
    for name, run in runs.items():
        v = data.copy()
        k = 2
        while k <= n:
            j = k // 2
            while j > 0:
                run(v, j, k)
                j //= 2
            k *= 2
        ok = np.array_equal(cp.asnumpy(v), sorted_ref)
        vb = cp.random.random(big, dtype=cp.float32)
        pass_run = {
            "hatch-hybrid": lambda: hk.bitonic_pass[big // 256, 256](vb, 1 << 12, 1 << 20),
            "numba-cuda": lambda: nb_bitonic_pass[big // 256, 256](vb, 1 << 12, 1 << 20),
            "CUDA C (NVRTC)": lambda: mod.get_function("bitonic_pass")(
                (big // 256,), (256,), (vb, np.int64(1 << 12), np.int64(1 << 20), np.int64(big))
            ),
        }[name]
        ms = time_ms(pass_run)
        res.add(f"bitonic pass 2^{int(math.log2(big))} f32 (j=2^12)", name, ms, f"{8 * big / ms / 1e6:.0f} GB/s", ok)


def launch_overhead(res: Results, mod) -> None:
    from cuda.bindings import driver as cu

    dx, dy = hr.device_array(256, np.float32), hr.device_array(256, np.float32)
    cx, cy = cp.ones(256, dtype=cp.float32), cp.ones(256, dtype=cp.float32)
    nx, ny = cuda.to_device(np.ones(256, np.float32)), cuda.to_device(np.ones(256, np.float32))
    arrays = [hr.device_array(256, np.float32) for _ in range(8)]
    c_arrays = [cp.ones(256, dtype=cp.float32) for _ in range(8)]
    n_arrays = [cuda.to_device(np.ones(256, np.float32)) for _ in range(8)]
    scal = [np.int32(1), np.int32(2), np.int32(3), np.int32(4), F32(1), F32(2), F32(3), F32(4)]
    others: dict[str, tuple[tuple[object, ...], tuple[object, ...]]] = {}  # library -> its 3- and 16-arg tuples
    try:
        import torch

        tx, ty = torch.ones(256, device="cuda"), torch.ones(256, device="cuda")
        t_arrays = tuple(torch.ones(256, device="cuda") for _ in range(8))
        others["PyTorch tensors"] = ((tx, ty, np.int32(1)), t_arrays + tuple(scal))
    except Exception as exc:  # noqa: BLE001 - a library missing or without a GPU: no row
        print(f"  (no PyTorch rows: {exc})")
    try:
        import jax.numpy as jnp

        jx, jy = jnp.ones(256, jnp.float32), jnp.ones(256, jnp.float32)
        j_arrays = tuple(jnp.ones(256, jnp.float32) for _ in range(8))
        others["JAX arrays"] = ((jx, jy, np.int32(1)), j_arrays + tuple(scal))
    except Exception as exc:  # noqa: BLE001
        print(f"  (no JAX rows: {exc})")
    others["numba arrays"] = ((nx, ny, np.int32(1)), tuple(n_arrays) + tuple(scal))
    cases = {
        0: ((), (), ()),
        3: ((dx, dy, np.int32(1)), (cx, cy, np.int32(1)), (nx, ny, np.int32(1))),
        16: (tuple(arrays) + tuple(scal), tuple(c_arrays) + tuple(scal), tuple(n_arrays) + tuple(scal)),
    }
    ours = {0: hk.empty0, 3: hk.empty3, 16: hk.empty16}
    theirs = {0: nb_empty0, 3: nb_empty3, 16: nb_empty16}
    for nargs, (own, cupy_args, numba_args) in cases.items():
        kernel = ours[nargs]
        kernel[1, 32](*own)  # loads the module, builds the plan
        plan = kernel._plans[(0, 0)]
        plan.struct.pack_into(
            plan.buffer,
            0,
            *[v for a in own for v in ((a.ptr, a.shape[0], 1) if isinstance(a, hr.DeviceArray) else (a,))],
        )
        fn = cu.CUfunction(plan.function)
        addr = ctypes.addressof(plan.pointers)
        launcher = kernel[1, 32]
        raw = mod.get_function(f"empty{nargs}")  # a RawKernel, held as its users hold it
        runs = {
            "bare cuLaunchKernel (pre-packed)": lambda: cu.cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, 0, addr, 0),
            "hatch-hybrid (DeviceArray)": lambda: launcher(*own),
            "hatch-hybrid (CuPy arrays)": lambda: launcher(*cupy_args),
        }
        for library, (three, sixteen) in others.items() if nargs else ():
            chosen = three if nargs == 3 else sixteen
            runs[f"hatch-hybrid ({library})"] = lambda a=chosen: launcher(*a)
        torch_args = others.get("PyTorch tensors")
        if torch_args is not None and nargs:  # what a PyTorch user hands a RawKernel: the tensors' pointers
            chosen, tensors = (torch_args[0], 2) if nargs == 3 else (torch_args[1], 8)
            ts, rest = chosen[:tensors], chosen[tensors:]
            runs["CuPy RawKernel (PyTorch tensors' data_ptr())"] = lambda ts=ts, rest=rest: raw(
                (1,), (32,), (*[t.data_ptr() for t in ts], *rest)
            )
        runs |= {
            "CuPy RawKernel": lambda: raw((1,), (32,), cupy_args),
            "numba-cuda (device arrays)": lambda: theirs[nargs][1, 32](*numba_args),
            "numba-cuda (CuPy arrays)": lambda: theirs[nargs][1, 32](*cupy_args),
        }
        rows = interleaved(runs)
        bare = rows["bare cuLaunchKernel (pre-packed)"]
        for name, us in rows.items():
            res.add(f"launch overhead, {nargs} args", name, us / 1000, f"{us:.2f} us ({us / bare:.2f}x)", None)


def markdown(res: Results, cold: list[tuple[str, float, float]], gpu: str) -> str:
    lines = [
        "# Performance",
        "",
        f"Measured by `benchmarks/suite.py` on **{gpu}**, {datetime.date.today().isoformat()}, in one run. "
        "numba-cuda 0.30, CuPy (NVRTC) and hatch-hybrid share the data; every result is checked first "
        "(ok = equal to the reference, bit for bit where the kernel is exact; matmul/stencil/reduction "
        "within float32 rounding). Kernel times: CUDA events around batches of back-to-back launches, "
        "median. Launch overhead: host wall time per launch of an empty kernel over 3000 launches, "
        "best of 7 rounds in which the implementations take turns.",
        "",
        "| benchmark | implementation | time | rate | vs NVRTC | vs numba-cuda | check |",
        "| --- | --- | ---: | ---: | ---: | ---: | --- |",
    ]
    base = {(b, i): ms for b, i, ms, _, _ in res.rows}
    for bench, impl, ms, rate, ok in res.rows:
        nv = base.get((bench, "CUDA C (NVRTC)"))
        nb = base.get((bench, "numba-cuda")) or base.get((bench, "numba-cuda (device arrays)"))
        ratio_nv = f"{nv / ms:.2f}x" if nv and not bench.startswith("launch") else ""
        ratio_nb = f"{nb / ms:.2f}x" if nb else ""
        shown = f"{ms * 1000:.2f} us" if bench.startswith("launch") else f"{ms:.3f} ms"
        lines.append(f"| {bench} | {impl} | {shown} | {rate} | {ratio_nv} | {ratio_nb} | {ok} |")
    lines += ["", "Ratios are speed-ups (time of the other / time of this row): above 1.00x is faster.", ""]
    if cold:
        lines += [
            "## Cold start (fresh process: first import to first checked result)",
            "",
            "| code loaded | bare cuda-bindings | hatch-hybrid | ratio |",
            "| --- | ---: | ---: | ---: |",
        ]
        for kind, bare, ours in cold:
            lines.append(f"| {kind} | {bare * 1000:.0f} ms | {ours * 1000:.0f} ms | {ours / bare:.2f} |")
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--markdown", type=Path)
    parser.add_argument("--quick", action="store_true", help="smaller sizes")
    parser.add_argument("--skip", default="", help="comma list of: kernels, launch, cold")
    args = parser.parse_args()
    skip = set(args.skip.split(","))
    gpu = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    print(f"GPU: {gpu}")
    mod = cp.RawModule(code=CUDA_C, options=("--std=c++17",))
    mod_exact = cp.RawModule(code=CUDA_C, options=("--std=c++17", "--fmad=false"))
    res = Results()
    if "kernels" not in skip:
        kernels(res, mod, mod_exact, args.quick)
    if "launch" not in skip:
        launch_overhead(res, mod)
    cold = []
    if "cold" not in skip:
        out = subprocess.run(
            [sys.executable, str(Path(__file__).with_name("cold_start.py"))], capture_output=True, text=True, check=True
        )
        print(out.stdout)
        for line in out.stdout.splitlines():
            kind = line.split("(")[1].split(")")[0]
            bare = float(line.split("bare cuda-bindings ")[1].split(" ms")[0]) / 1000
            ours = float(line.split("hatch-hybrid ")[1].split(" ms")[0]) / 1000
            cold.append((kind, bare, ours))
    text = markdown(res, cold, gpu)
    if args.markdown:
        args.markdown.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
