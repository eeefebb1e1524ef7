"""hatch-hybrid's native CPU code vs numba's parallel loops vs C + OpenMP vs NumPy vs the Python path, on this CPU.

The six kernels of benchmarks/suite.py (saxpy, Mandelbrot, block reduction, tiled matmul, 2-D stencil,
one bitonic-sort pass), a shared-memory blur, and kernels written as CUDA code writes them, which numba
and C meet with their plain loops (a clamped and a wrapped blur whose 18x18 tiles are loaded by the
strided-loop idiom, a 1-D smoothing through a tile with a halo, a sum by one atomic add per element, a
256-bin histogram with block-shared bins and atomics), each compiled into its package's native library
exactly as a wheel build does (in-process: hatch_hybrid.pipeline + hook.artifacts, all CPU targets,
this machine's library loaded). numba gets the plain loops a numba user would write, with
``@njit(parallel=True)``; C + OpenMP the same loops in C (``#pragma omp parallel for``; Mandelbrot's
rows ``schedule(dynamic)``, as OpenMP codes write it; the sums a ``reduction(+:s)``, the histogram
``reduction(+:bins[:256])``; numba, which has no atomics, a histogram per thread's chunk), compiled now
by the system's C compiler ($CC, else cc, gcc or clang) with ``-O3 -march=native -ffp-contract=off
-fopenmp -shared -fPIC`` into a temporary library called through ctypes (``-ffp-contract=off``: no
fused multiply-adds, as in the other two, so that the same arithmetic gives the same bits); without a
compiler or OpenMP that column is skipped with a note. Every result is checked before it is timed
(bit-identical where the arithmetic is the same, else against NumPy within float tolerance). Times:
best of several rounds in which the implementations take turns, after a warm-up, each turn a few calls
back to back once every other pool has gone quiet (a pool spins after its calls: libgomp's for some 20
ms, which took cores from whichever implementation ran next); all three at the same thread count
(hatch-hybrid's: $HYBRID_CPU_THREADS, else every core this process may use). Then each kernel at 1, 2,
4, 8, 16 threads and this machine's count (``--threads`` to choose; hatch-hybrid through
$HYBRID_CPU_THREADS, read at each launch; numba through ``numba.set_num_threads``; C through
``omp_set_num_threads``), the launch overhead per call, and import-to-first-result in a fresh process
for each.
    python benchmarks/cpu_suite.py [--markdown FILE] [--quick] [--threads 1,2,4] [--installed]
"""

from __future__ import annotations

import argparse
import ctypes
import datetime
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = [ROOT / "benchmarks/bench_kernels/bench_kernels", ROOT / "example_project/hybrid_demo/hybrid_demo"]


def build(out: Path) -> None:
    """The packages with their compiled kernels, as their wheels hold them."""
    from hatch_hybrid.hook.artifacts import write_package_artifacts
    from hatch_hybrid.pipeline import Options, compile_packages
    from hatch_hybrid.targets.host.cpus import DEFAULT_TARGETS

    for src in PACKAGES:
        shutil.copytree(src, out / src.name)
    options = Options(["sm_70"], cubin=False, cpu=list(DEFAULT_TARGETS))
    kernels = compile_packages([out / p.name for p in PACKAGES], options=options, search_path=[str(out), *sys.path])
    write_package_artifacts(kernels, ["sm_70"], out)


def settle(limit: float = 1.0) -> None:
    """Wait until no thread of this process runs: a thread pool spins for a while after its last call
    (libgomp's for about 300,000 pause instructions, some 20 ms on recent Intel cores; ours 50 µs),
    and a spinning pool takes cores from whatever runs next. Timed right after C + OpenMP, ours at 16
    threads took 25 ms for Mandelbrot against 17 ms alone (2026-11-25, the 16-core host)."""
    end = time.perf_counter() + limit
    while time.perf_counter() < end:
        cpu, wall = time.process_time(), time.perf_counter()
        time.sleep(0.005)
        if time.process_time() - cpu < 0.1 * (time.perf_counter() - wall):
            return


def race(
    fns: list[Callable[[], object]],
    rounds: int = 9,
    setups: list[Callable[[], object]] | None = None,
    calls: int = 3,
    quiet: bool = True,
) -> list[float]:
    """Best time (ms) of each function over ``rounds`` rounds in which they take turns, so that what
    else the machine does falls on all of them alike. A turn: the other pools left to go quiet
    (:func:`settle`), calls for 2 ms untimed (at least one: after a pause the cores take a while to
    come back to speed, a VM's more), then ``calls`` timed calls back to back, as a program's loop of
    launches makes them. ``setups[k]`` (untimed: a thread count) runs before each turn of ``fns[k]``.
    ``quiet=False``: neither the wait nor the untimed calls (benchmarks/cpu_interference.py shows what
    that does)."""
    for k, fn in enumerate(fns):
        if setups:
            setups[k]()
        fn()  # warm-up (and numba's compilation)
    best = [float("inf")] * len(fns)
    for _ in range(rounds):
        for k, fn in enumerate(fns):
            if setups:
                setups[k]()
            if quiet:
                settle()
                warm = time.perf_counter() + 0.002
                fn()
                while time.perf_counter() < warm:
                    fn()
            for _ in range(calls):
                start = time.perf_counter()
                fn()
                best[k] = min(best[k], time.perf_counter() - start)
    return [t * 1e3 for t in best]


def per_call_us(
    fns: list[Callable[[], object]],
    calls: int = 200,
    rounds: int = 15,
    setups: list[Callable[[], object]] | None = None,
) -> list[float]:
    """Median time (µs) of one call of each function, each call timed alone (perf_counter's own
    ~0.05 µs included), the functions taking turns in ``rounds`` rounds of ``calls`` calls, each
    turn after the others' pools have gone quiet and 2 ms of untimed calls."""
    samples: list[list[float]] = [[] for _ in fns]
    clock = time.perf_counter
    for k, fn in enumerate(fns):
        if setups:
            setups[k]()
        for _ in range(10):
            fn()  # warm-up
    for _ in range(rounds):
        for k, fn in enumerate(fns):
            if setups:
                setups[k]()
            times = samples[k]
            settle()
            warm = time.perf_counter() + 0.002  # as race() does: the cores back to speed first
            while time.perf_counter() < warm:
                fn()
            for _ in range(calls):
                start = clock()
                fn()
                times.append(clock() - start)
    return [statistics.median(t) * 1e6 for t in samples]


def best_ms(fn: Callable[[], object], runs: int = 7) -> float:
    fn()  # warm-up (and numba's compilation)
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best * 1e3


# ------------------------------------------------------------------------------------------ numba
def numba_kernels():  # type: ignore[no-untyped-def]
    from numba import get_num_threads, njit, prange

    f32 = np.float32

    @njit(parallel=True)
    def saxpy(a, x, y):  # type: ignore[no-untyped-def]
        for i in prange(len(y)):
            y[i] = a * x[i] + y[i]

    @njit(parallel=True)
    def mandelbrot(out, x0, y0, dx, dy, max_iter):  # type: ignore[no-untyped-def]
        for row in prange(out.shape[0]):
            for col in range(out.shape[1]):
                cr = x0 + dx * f32(col)
                ci = y0 + dy * f32(row)
                zr = f32(0)
                zi = f32(0)
                n = 0
                while n < max_iter:
                    zr2 = zr * zr
                    zi2 = zi * zi
                    if zr2 + zi2 > f32(4):
                        break
                    zi = f32(2) * zr * zi + ci
                    zr = zr2 - zi2 + cr
                    n += 1
                out[row, col] = n

    @njit(parallel=True)
    def total(x):  # type: ignore[no-untyped-def]
        s = f32(0)
        for i in prange(len(x)):
            s += x[i]
        return s

    @njit(parallel=True)
    def matmul(a, b, c):  # type: ignore[no-untyped-def]
        for i in prange(a.shape[0]):
            for j in range(b.shape[1]):
                acc = f32(0)
                for k in range(a.shape[1]):
                    acc += a[i, k] * b[k, j]
                c[i, j] = acc

    @njit(parallel=True)
    def stencil(src, dst):  # type: ignore[no-untyped-def]
        for i in prange(1, src.shape[0] - 1):
            for j in range(1, src.shape[1] - 1):
                dst[i, j] = f32(0.25) * (src[i - 1, j] + src[i + 1, j] + src[i, j - 1] + src[i, j + 1]) - src[i, j]

    @njit(parallel=True)
    def bitonic_pass(x, j, k):  # type: ignore[no-untyped-def]
        for i in prange(len(x)):
            partner = i ^ j
            if partner > i:
                a = x[i]
                b = x[partner]
                up = (i & k) == 0
                if (up and a > b) or (not up and a < b):
                    x[i] = b
                    x[partner] = a

    @njit(parallel=True)
    def blur(src, dst):  # type: ignore[no-untyped-def]
        for i in prange(1, src.shape[0] - 1):
            for j in range(1, src.shape[1] - 1):
                dst[i, j] = f32(0.2) * (src[i, j] + src[i - 1, j] + src[i + 1, j] + src[i, j - 1] + src[i, j + 1])

    @njit(parallel=True)
    def empty3(x, y, n):  # type: ignore[no-untyped-def]
        for _ in prange(n):
            if n < 0:
                x[0] = y[0]

    @njit(parallel=True)
    def blur_clamp(src, dst):  # type: ignore[no-untyped-def]
        h, w = src.shape
        for i in prange(h):
            up = max(i - 1, 0)
            down = min(i + 1, h - 1)
            for j in range(w):
                left = max(j - 1, 0)
                right = min(j + 1, w - 1)
                dst[i, j] = f32(0.2) * (src[i, j] + src[up, j] + src[down, j] + src[i, left] + src[i, right])

    @njit(parallel=True)
    def blur_wrap(src, dst):  # type: ignore[no-untyped-def]
        h, w = src.shape
        for i in prange(h):
            up = (i - 1) % h
            down = (i + 1) % h
            for j in range(w):
                left = (j - 1) % w
                right = (j + 1) % w
                dst[i, j] = f32(0.2) * (src[i, j] + src[up, j] + src[down, j] + src[i, left] + src[i, right])

    @njit(parallel=True)
    def smooth1d(x, y):  # type: ignore[no-untyped-def]
        n = len(x)
        for i in prange(n):
            y[i] = f32(0.25) * (x[max(i - 1, 0)] + f32(2) * x[i] + x[min(i + 1, n - 1)])

    @njit(parallel=True)
    def histogram(keys, bins):  # type: ignore[no-untyped-def]
        # a private histogram per thread's chunk, then their sum: numba has no atomics
        chunks = get_num_threads()
        n = len(keys)
        part = np.zeros((chunks, 256), np.uint32)
        for c in prange(chunks):
            for i in range(c * n // chunks, (c + 1) * n // chunks):
                part[c, keys[i] & 255] += 1
        for b in range(256):
            for c in range(chunks):
                bins[b] += part[c, b]

    return (
        saxpy,
        mandelbrot,
        total,
        matmul,
        stencil,
        bitonic_pass,
        blur,
        empty3,
        blur_clamp,
        blur_wrap,
        smooth1d,
        histogram,
    )


# ------------------------------------------------------------------------------------------ C + OpenMP
C_FLAGS = ["-O3", "-march=native", "-ffp-contract=off", "-fopenmp", "-shared", "-fPIC"]
C_SOURCE = r"""
#include <omp.h>
#include <stdint.h>

void set_threads(int n) { omp_set_num_threads(n); }
int max_threads(void) { return omp_get_max_threads(); }

void empty_region(void) {
#pragma omp parallel
    {
        __asm__ __volatile__("" ::: "memory"); /* nothing, which the compiler may not remove */
    }
}

void saxpy(int64_t n, float a, const float *x, float *y) {
#pragma omp parallel for
    for (int64_t i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}

void mandelbrot(int32_t *out, int64_t h, int64_t w, float x0, float y0, float dx, float dy, int32_t max_iter) {
#pragma omp parallel for schedule(dynamic)
    for (int64_t row = 0; row < h; row++) {
        for (int64_t col = 0; col < w; col++) {
            float cr = x0 + dx * (float)col;
            float ci = y0 + dy * (float)row;
            float zr = 0.0f, zi = 0.0f;
            int32_t n = 0;
            while (n < max_iter) {
                float zr2 = zr * zr, zi2 = zi * zi;
                if (zr2 + zi2 > 4.0f)
                    break;
                zi = 2.0f * zr * zi + ci;
                zr = zr2 - zi2 + cr;
                n++;
            }
            out[row * w + col] = n;
        }
    }
}

float total(int64_t n, const float *x) {
    float s = 0.0f;
#pragma omp parallel for reduction(+ : s)
    for (int64_t i = 0; i < n; i++)
        s += x[i];
    return s;
}

/* c (n x m) = a (n x p) @ b (p x m), row-major */
void matmul(int64_t n, int64_t m, int64_t p, const float *a, const float *b, float *c) {
#pragma omp parallel for
    for (int64_t i = 0; i < n; i++) {
        for (int64_t j = 0; j < m; j++) {
            float acc = 0.0f;
            for (int64_t k = 0; k < p; k++)
                acc += a[i * p + k] * b[k * m + j];
            c[i * m + j] = acc;
        }
    }
}

void stencil(int64_t h, int64_t w, const float *src, float *dst) {
#pragma omp parallel for
    for (int64_t i = 1; i < h - 1; i++)
        for (int64_t j = 1; j < w - 1; j++)
            dst[i * w + j] = 0.25f * (src[(i - 1) * w + j] + src[(i + 1) * w + j] + src[i * w + j - 1] +
                                      src[i * w + j + 1]) - src[i * w + j];
}

void blur(int64_t h, int64_t w, const float *src, float *dst) {
#pragma omp parallel for
    for (int64_t i = 1; i < h - 1; i++)
        for (int64_t j = 1; j < w - 1; j++)
            dst[i * w + j] = 0.2f * (src[i * w + j] + src[(i - 1) * w + j] + src[(i + 1) * w + j] +
                                     src[i * w + j - 1] + src[i * w + j + 1]);
}

void blur_clamp(int64_t h, int64_t w, const float *src, float *dst) {
#pragma omp parallel for
    for (int64_t i = 0; i < h; i++) {
        int64_t up = i > 0 ? i - 1 : 0, down = i < h - 1 ? i + 1 : h - 1;
        for (int64_t j = 0; j < w; j++) {
            int64_t left = j > 0 ? j - 1 : 0, right = j < w - 1 ? j + 1 : w - 1;
            dst[i * w + j] = 0.2f * (src[i * w + j] + src[up * w + j] + src[down * w + j] + src[i * w + left] +
                                     src[i * w + right]);
        }
    }
}

void blur_wrap(int64_t h, int64_t w, const float *src, float *dst) {
#pragma omp parallel for
    for (int64_t i = 0; i < h; i++) {
        int64_t up = (i - 1 + h) % h, down = (i + 1) % h;
        for (int64_t j = 0; j < w; j++) {
            int64_t left = (j - 1 + w) % w, right = (j + 1) % w;
            dst[i * w + j] = 0.2f * (src[i * w + j] + src[up * w + j] + src[down * w + j] + src[i * w + left] +
                                     src[i * w + right]);
        }
    }
}

void smooth1d(int64_t n, const float *x, float *y) {
#pragma omp parallel for
    for (int64_t i = 0; i < n; i++)
        y[i] = 0.25f * (x[i > 0 ? i - 1 : 0] + 2.0f * x[i] + x[i < n - 1 ? i + 1 : n - 1]);
}

void histogram(int64_t n, const uint32_t *keys, uint32_t *bins) {
#pragma omp parallel for reduction(+ : bins[:256])
    for (int64_t i = 0; i < n; i++)
        bins[keys[i] & 255]++;
}

void bitonic_pass(float *x, int64_t n, int64_t j, int64_t k) {
#pragma omp parallel for
    for (int64_t i = 0; i < n; i++) {
        int64_t partner = i ^ j;
        if (partner > i) {
            float a = x[i], b = x[partner];
            int up = (i & k) == 0;
            if ((up && a > b) || (!up && a < b)) {
                x[i] = b;
                x[partner] = a;
            }
        }
    }
}
"""


class OpenMP:
    """The C + OpenMP loops, compiled into a shared library in ``folder`` (``lib`` None, and ``about``
    the reason, where this machine has no C compiler or no OpenMP)."""

    def __init__(self, folder: Path) -> None:
        self.lib: ctypes.CDLL | None = None
        names = [os.environ["CC"]] if os.environ.get("CC") else ["cc", "gcc", "clang"]
        compiler = next((shutil.which(n) for n in names if shutil.which(n)), None)
        if compiler is None:
            self.about = f"no C compiler ({', '.join(names)}) on PATH"
            return
        folder.mkdir(parents=True, exist_ok=True)
        source, library = folder / "loops.c", folder / "loops.so"
        source.write_text(C_SOURCE)
        command = [compiler, *C_FLAGS, "-o", str(library), str(source)]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            tail = " ".join(done.stderr.strip().splitlines()[-2:]) or f"exit status {done.returncode}"
            self.about = f"`{' '.join([Path(compiler).name, *C_FLAGS])}` failed (no OpenMP?): {tail}"
            return
        version = subprocess.run([compiler, "--version"], capture_output=True, text=True).stdout.splitlines()
        self.about = f"{version[0] if version else Path(compiler).name}, `{' '.join(C_FLAGS)}`"
        lib = ctypes.CDLL(str(library))
        f32p = np.ctypeslib.ndpointer(np.float32, flags="C_CONTIGUOUS")
        i32p = np.ctypeslib.ndpointer(np.int32, flags="C_CONTIGUOUS")
        u32p = np.ctypeslib.ndpointer(np.uint32, flags="C_CONTIGUOUS")
        i64, f32 = ctypes.c_int64, ctypes.c_float
        for name, argtypes, restype in (
            ("set_threads", [ctypes.c_int], None),
            ("max_threads", [], ctypes.c_int),
            ("empty_region", [], None),
            ("saxpy", [i64, f32, f32p, f32p], None),
            ("mandelbrot", [i32p, i64, i64, f32, f32, f32, f32, ctypes.c_int32], None),
            ("total", [i64, f32p], f32),
            ("matmul", [i64, i64, i64, f32p, f32p, f32p], None),
            ("stencil", [i64, i64, f32p, f32p], None),
            ("blur", [i64, i64, f32p, f32p], None),
            ("bitonic_pass", [f32p, i64, i64, i64], None),
            ("blur_clamp", [i64, i64, f32p, f32p], None),
            ("blur_wrap", [i64, i64, f32p, f32p], None),
            ("smooth1d", [i64, f32p, f32p], None),
            ("histogram", [i64, u32p, u32p], None),
        ):
            fn = getattr(lib, name)
            fn.argtypes, fn.restype = argtypes, restype
        self.lib = lib

    # the numba functions' signatures, NumPy arrays in (C-contiguous; ndpointer checks dtype and layout)
    def set_threads(self, n: int) -> None:
        self.lib.set_threads(n)  # type: ignore[union-attr]

    def saxpy(self, a, x, y):  # type: ignore[no-untyped-def]
        self.lib.saxpy(len(y), float(a), x, y)  # type: ignore[union-attr]

    def mandelbrot(self, out, x0, y0, dx, dy, max_iter):  # type: ignore[no-untyped-def]
        h, w = out.shape
        self.lib.mandelbrot(out, h, w, float(x0), float(y0), float(dx), float(dy), int(max_iter))  # type: ignore[union-attr]

    def total(self, x):  # type: ignore[no-untyped-def]
        return self.lib.total(len(x), x)  # type: ignore[union-attr]

    def matmul(self, a, b, c):  # type: ignore[no-untyped-def]
        self.lib.matmul(a.shape[0], b.shape[1], a.shape[1], a, b, c)  # type: ignore[union-attr]

    def stencil(self, src, dst):  # type: ignore[no-untyped-def]
        self.lib.stencil(src.shape[0], src.shape[1], src, dst)  # type: ignore[union-attr]

    def blur(self, src, dst):  # type: ignore[no-untyped-def]
        self.lib.blur(src.shape[0], src.shape[1], src, dst)  # type: ignore[union-attr]

    def bitonic_pass(self, x, j, k):  # type: ignore[no-untyped-def]
        self.lib.bitonic_pass(x, len(x), j, k)  # type: ignore[union-attr]

    def blur_clamp(self, src, dst):  # type: ignore[no-untyped-def]
        self.lib.blur_clamp(src.shape[0], src.shape[1], src, dst)  # type: ignore[union-attr]

    def blur_wrap(self, src, dst):  # type: ignore[no-untyped-def]
        self.lib.blur_wrap(src.shape[0], src.shape[1], src, dst)  # type: ignore[union-attr]

    def smooth1d(self, x, y):  # type: ignore[no-untyped-def]
        self.lib.smooth1d(len(x), x, y)  # type: ignore[union-attr]

    def histogram(self, keys, bins):  # type: ignore[no-untyped-def]
        self.lib.histogram(len(keys), keys, bins)  # type: ignore[union-attr]

    def empty_region(self) -> None:
        self.lib.empty_region()  # type: ignore[union-attr]


# ------------------------------------------------------------------------------------------ numpy
def numpy_mandelbrot(out, x0, y0, dx, dy, max_iter):  # type: ignore[no-untyped-def]
    h, w = out.shape
    cr = (x0 + dx * np.arange(w, dtype=np.float32))[None, :].repeat(h, 0)
    ci = (y0 + dy * np.arange(h, dtype=np.float32))[:, None].repeat(w, 1)
    zr = np.zeros_like(cr)
    zi = np.zeros_like(cr)
    out[:] = max_iter
    alive = np.ones(out.shape, bool)
    for n in range(max_iter):
        zr2, zi2 = zr * zr, zi * zi
        escaped = alive & (zr2 + zi2 > np.float32(4))
        out[escaped] = n
        alive &= ~escaped
        zi = np.where(alive, np.float32(2) * zr * zi + ci, zi)
        zr = np.where(alive, zr2 - zi2 + cr, zr)


def numpy_stencil(src, dst):  # type: ignore[no-untyped-def]
    dst[1:-1, 1:-1] = (
        np.float32(0.25) * (src[:-2, 1:-1] + src[2:, 1:-1] + src[1:-1, :-2] + src[1:-1, 2:]) - src[1:-1, 1:-1]
    )


def numpy_blur(src, dst):  # type: ignore[no-untyped-def]
    dst[1:-1, 1:-1] = np.float32(0.2) * (
        src[1:-1, 1:-1] + src[:-2, 1:-1] + src[2:, 1:-1] + src[1:-1, :-2] + src[1:-1, 2:]
    )


def numpy_blur_padded(mode: str) -> Callable[..., None]:
    """The 5-point blur of every pixel, the image padded by one with np.pad's ``mode`` ("edge": clamped,
    "wrap": periodic)."""

    def blur(src, dst):  # type: ignore[no-untyped-def]
        p = np.pad(src, 1, mode=mode)
        dst[:] = np.float32(0.2) * (p[1:-1, 1:-1] + p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:])

    return blur


def numpy_smooth1d(x, y):  # type: ignore[no-untyped-def]
    p = np.pad(x, 1, mode="edge")
    y[:] = np.float32(0.25) * (p[:-2] + np.float32(2) * p[1:-1] + p[2:])


def numpy_bitonic_pass(x, j, k):  # type: ignore[no-untyped-def]
    i = np.arange(len(x))
    p = i ^ j
    lo = i[p > i]
    hi = lo ^ j
    a, b = x[lo], x[hi]
    up = (lo & k) == 0
    swap = (up & (a > b)) | (~up & (a < b))
    x[lo[swap]], x[hi[swap]] = b[swap], a[swap]


# ------------------------------------------------------------------------------------------ runs
OURS, NUMBA, OMP = "hatch-hybrid", "numba parallel", "C+OpenMP"
COLUMNS = [OURS, NUMBA, OMP, "NumPy", "Python path", "numba / ours", "C / ours"]


class Table:
    def __init__(self) -> None:
        self.rows: list[tuple[str, dict[str, str]]] = []

    def add(self, name: str, cells: dict[str, str]) -> None:
        self.rows.append((name, cells))
        print(f"{name:<30}" + "  ".join(f"{k}: {v}" for k, v in cells.items()), flush=True)


def same(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(np.array_equal(a, b))


def usable_cores() -> int:
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else os.cpu_count() or 1


def default_threads() -> int:
    """hatch-hybrid's thread count: $HYBRID_CPU_THREADS, else every core this process may use."""
    env = os.environ.get("HYBRID_CPU_THREADS", "").strip()
    return int(env) if env else usable_cores()


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def busy_cores(seconds: float = 0.5) -> float | None:
    """How many cores other processes keep busy now (this one sleeps meanwhile): /proc/stat over
    ``seconds`` (None where there is none)."""

    def sample() -> tuple[int, int]:
        with open("/proc/stat", encoding="ascii") as f:
            v = [int(t) for t in f.readline().split()[1:9]]  # user nice system idle iowait irq softirq steal
        return sum(v), v[3] + v[4]

    try:
        total0, idle0 = sample()
        time.sleep(seconds)
        total1, idle1 = sample()
    except (OSError, ValueError, IndexError):
        return None
    total = total1 - total0
    return (total - (idle1 - idle0)) / total * (os.cpu_count() or 1) if total else None


def check_quiet(when: str) -> str | None:
    """A note when other processes keep part of the machine busy: the times are then theirs too, and
    OpenMP teams that spin-wait for a thread the OS has not scheduled (C, numba's omp layer) lose most."""
    busy = busy_cores()
    if busy is None or busy < 0.25:
        return None
    note = f"{busy:.1f} of {os.cpu_count()} cores busy with other processes {when}"
    print(f"note: {note}: the times below are not reliable", flush=True)
    return note


class Threads:
    """Each implementation's thread count: hatch-hybrid's through $HYBRID_CPU_THREADS (read at each
    launch), numba's through numba.set_num_threads, OpenMP's through omp_set_num_threads."""

    def __init__(self, omp: OpenMP) -> None:
        import numba

        self.numba = numba
        self.omp = omp
        self.env = os.environ.get("HYBRID_CPU_THREADS")
        self.default = default_threads()
        self.numba_max = numba.config.NUMBA_NUM_THREADS  # numba's pool cannot grow after its import

    def setter(self, impl: str, n: int) -> Callable[[], None]:
        if impl == OURS:
            return lambda: os.environ.__setitem__("HYBRID_CPU_THREADS", str(n))
        if impl == NUMBA:
            return lambda: self.numba.set_num_threads(n)
        return lambda: self.omp.set_threads(n)

    def reset(self) -> None:
        """All three at hatch-hybrid's default count (numba's at most its pool)."""
        if self.env is None:
            os.environ.pop("HYBRID_CPU_THREADS", None)
        else:
            os.environ["HYBRID_CPU_THREADS"] = self.env
        self.numba.set_num_threads(min(self.default, self.numba_max))
        if self.omp.lib is not None:
            self.omp.set_threads(self.default)


Job = tuple[str, dict[str, Callable[[], object]]]


def run(table: Table, quick: bool, omp: OpenMP) -> tuple[list[Job], dict[str, Callable[[], object]]]:
    """The first table (each kernel checked, then timed); returns each kernel's timed calls and the
    launch calls, for the thread-scaling table."""
    from bench_kernels import kernels as hk
    from hybrid_demo import mandelbrot_kernel

    (
        nb_saxpy,
        nb_mandelbrot,
        nb_total,
        nb_matmul,
        nb_stencil,
        nb_bitonic,
        nb_blur,
        nb_empty3,
        nb_blur_clamp,
        nb_blur_wrap,
        nb_smooth1d,
        nb_histogram,
    ) = numba_kernels()
    for k in (
        hk.saxpy,
        hk.block_sum,
        hk.matmul,
        hk.stencil,
        hk.bitonic_pass,
        hk.blur,
        hk.blur_loop_tile,
        hk.blur_wrap_tile,
        hk.smooth1d_tile,
        hk.sum_atomic,
        hk.histogram,
        mandelbrot_kernel,
    ):
        assert k.native_code() is not None, f"{k.qualname} has no native code for this machine"
    c = omp if omp.lib is not None else None
    rng = np.random.default_rng(0)
    jobs: list[Job] = []

    def row(
        name: str,
        ours: Callable[[], object],
        numba: Callable[[], object],
        openmp: Callable[[], object],
        numpy: float | None,
        python: tuple[float, str] | None,
        rounds: int = 9,
        scale: bool = True,
    ) -> None:
        fns = {OURS: ours, NUMBA: numba}
        if c is not None:
            fns[OMP] = openmp
        t = dict(zip(fns, race(list(fns.values()), rounds)))
        cells = {
            OURS: f"{t[OURS]:.2f} ms",
            NUMBA: f"{t[NUMBA]:.2f} ms",
            OMP: f"{t[OMP]:.2f} ms" if OMP in t else "-",
            "NumPy": f"{numpy:.2f} ms" if numpy is not None else "-",
            "Python path": f"{python[0]:.0f} ms ({python[1]})" if python else "-",
            "numba / ours": f"{t[NUMBA] / t[OURS]:.2f}x",
            "C / ours": f"{t[OMP] / t[OURS]:.2f}x" if OMP in t else "-",
        }
        table.add(name, cells)
        if scale:
            jobs.append((name, fns))

    # each benchmark in a function of its own: the calls kept for the scaling table hold its variables
    # saxpy
    def saxpy() -> None:
        n = 1 << (20 if quick else 24)
        x = rng.standard_normal(n).astype(np.float32)
        y0 = rng.standard_normal(n).astype(np.float32)
        a = np.float32(2.5)
        outs = {}
        for impl, fn in (
            ("ours", lambda y: hk.saxpy.launch(256, n // 256, a, x, y, device="cpu")),
            ("numba", lambda y: nb_saxpy(a, x, y)),
            ("numpy", lambda y: np.add(a * x, y, out=y)),
            *((("c", lambda y: c.saxpy(a, x, y)),) if c else ()),
        ):
            y = y0.copy()
            fn(y)
            outs[impl] = y
        assert all(same(outs["ours"], v) for v in outs.values()), "saxpy results differ"
        y = y0.copy()
        small = 1 << 12
        py = best_ms(lambda: hk.saxpy.launch(256, small // 256, a, x[:small], y[:small], device="cpu-python"), 1)
        row(
            f"saxpy 2^{int(np.log2(n))} f32",
            lambda: hk.saxpy.launch(256, n // 256, a, x, y, device="cpu"),
            lambda: nb_saxpy(a, x, y),
            lambda: c.saxpy(a, x, y),
            best_ms(lambda: np.add(a * x, y, out=y)),
            (py, "2^12"),
        )

    saxpy()

    # mandelbrot
    def mandelbrot() -> None:
        sizes = ((256, 64),) if quick else ((256, 64), (1024, 256))
        for size, it in sizes:
            args = (np.float32(-2.2), np.float32(-1.2), np.float32(3.2 / size), np.float32(2.4 / size), np.int32(it))
            grid = (size // 16, size // 16)
            mine = np.zeros((size, size), np.int32)
            mandelbrot_kernel.launch((16, 16), grid, mine, *args, device="cpu")
            theirs = np.zeros_like(mine)
            nb_mandelbrot(theirs, *args)
            vec = np.zeros_like(mine)
            numpy_mandelbrot(vec, *args)
            assert same(mine, theirs) and same(mine, vec), "mandelbrot images differ"
            cimg = np.zeros_like(mine)
            if c:
                c.mandelbrot(cimg, *args)
                assert same(mine, cimg), "mandelbrot: the C image differs"
            crop = np.zeros((48, 64), np.int32)
            py = best_ms(lambda: mandelbrot_kernel.launch((16, 16), (4, 3), crop, *args, device="cpu-python"), 1)
            row(
                f"mandelbrot {size}^2 x{it}",
                lambda: mandelbrot_kernel.launch((16, 16), grid, mine, *args, device="cpu"),
                lambda: nb_mandelbrot(theirs, *args),
                lambda: c.mandelbrot(cimg, *args),
                best_ms(lambda: numpy_mandelbrot(vec, *args), 2),
                (py * size * size / (48 * 64), "64x48, scaled"),
                scale=size == sizes[-1][0],  # the thread-scaling table takes the biggest
            )

    mandelbrot()

    # block reduction (sum)
    def reduction() -> None:
        n = 1 << (20 if quick else 24)
        x = rng.standard_normal(n).astype(np.float32)
        partial = np.zeros(256, np.float32)
        hk.block_sum.launch(256, 256, x, partial, device="cpu")
        assert np.isclose(partial.sum(dtype=np.float64), x.sum(dtype=np.float64), rtol=1e-4)
        assert np.isclose(nb_total(x), x.sum(dtype=np.float64), rtol=1e-3)
        if c:
            assert np.isclose(c.total(x), x.sum(dtype=np.float64), rtol=1e-3), "reduction: the C sum is off"
        xs = x[: 1 << 12]
        ps = np.zeros(4, np.float32)
        py = best_ms(lambda: hk.block_sum.launch(256, 4, xs, ps, device="cpu-python"), 1)
        row(
            f"block reduction 2^{int(np.log2(n))}",
            lambda: hk.block_sum.launch(256, 256, x, partial, device="cpu"),
            lambda: nb_total(x),
            lambda: c.total(x),
            best_ms(lambda: x.sum()),
            (py, "2^12"),
        )

    reduction()

    # tiled matmul (numba and C: the naive triple loop, which sums in the same order)
    def matmul() -> None:
        m = 256 if quick else 512
        am = rng.standard_normal((m, m)).astype(np.float32)
        bm = rng.standard_normal((m, m)).astype(np.float32)
        cm = np.zeros((m, m), np.float32)
        hk.matmul.launch((16, 16), (m // 16, m // 16), am, bm, cm, device="cpu")
        cn = np.zeros_like(cm)
        nb_matmul(am, bm, cn)
        assert same(cm, cn), "matmul: the same sums in the same order must give the same bits"
        cc = np.zeros_like(cm)
        if c:
            c.matmul(am, bm, cc)
            assert same(cm, cc), "matmul: the C loop's sums must give the same bits"
        np.testing.assert_allclose(cm, am @ bm, rtol=1e-3, atol=1e-3)
        a32, b32 = am[:32, :32].copy(), bm[:32, :32].copy()
        c32 = np.zeros((32, 32), np.float32)
        py = best_ms(lambda: hk.matmul.launch((16, 16), (2, 2), a32, b32, c32, device="cpu-python"), 1)
        row(
            f"tiled matmul {m}^3 f32",
            lambda: hk.matmul.launch((16, 16), (m // 16, m // 16), am, bm, cm, device="cpu"),
            lambda: nb_matmul(am, bm, cn),
            lambda: c.matmul(am, bm, cc),
            best_ms(lambda: am @ bm),
            (py, "32^3"),
        )

    matmul()

    def image(
        label: str,
        kernel: Any,
        block: tuple[int, int],
        nb: Callable[..., object],
        np_fn: Callable[..., object],
        c_name: str,
    ) -> None:
        """A row for a kernel over an s x s f32 image into a second one (one thread a pixel)."""
        s = 512 if quick else 2048
        src = rng.standard_normal((s, s)).astype(np.float32)
        outs = {k: np.zeros_like(src) for k in ("ours", "numba", "numpy", "c")}
        grid = (s // block[0], s // block[1])
        kernel.launch(block, grid, src, outs["ours"], device="cpu")
        nb(src, outs["numba"])
        np_fn(src, outs["numpy"])
        if c:
            getattr(c, c_name)(src, outs["c"])
        else:
            outs.pop("c")
        assert all(same(outs["ours"], v) for v in outs.values()), f"{c_name} results differ"
        s64 = src[:64, :64].copy()
        d64 = np.zeros_like(s64)
        small = (64 // block[0], 64 // block[1])
        py = best_ms(lambda: kernel.launch(block, small, s64, d64, device="cpu-python"), 1)
        row(
            label.format(s=s),
            lambda: kernel.launch(block, grid, src, outs["ours"], device="cpu"),
            lambda: nb(src, outs["numba"]),
            lambda: getattr(c, c_name)(src, outs["c"]),
            best_ms(lambda: np_fn(src, outs["numpy"])),
            (py, "64^2"),
        )

    image("stencil {s}^2 f32", hk.stencil, (32, 8), nb_stencil, numpy_stencil, "stencil")

    # bitonic pass
    def bitonic() -> None:
        n = 1 << (18 if quick else 22)
        keys = rng.standard_normal(n).astype(np.float32)
        outs = {k: keys.copy() for k in ("ours", "numba", "numpy", "c")}
        hk.bitonic_pass.launch(256, n // 256, outs["ours"], 1, 2, device="cpu")
        nb_bitonic(outs["numba"], 1, 2)
        numpy_bitonic_pass(outs["numpy"], 1, 2)
        if c:
            c.bitonic_pass(outs["c"], 1, 2)
        else:
            outs.pop("c")
        assert all(same(outs["ours"], v) for v in outs.values()), "bitonic pass results differ"
        ks = keys[:4096].copy()
        py = best_ms(lambda: hk.bitonic_pass.launch(256, 16, ks, 1, 2, device="cpu-python"), 1)
        row(
            f"bitonic pass 2^{int(np.log2(n))}",
            lambda: hk.bitonic_pass.launch(256, n // 256, outs["ours"], 1, 2, device="cpu"),
            lambda: nb_bitonic(outs["numba"], 1, 2),
            lambda: c.bitonic_pass(outs["c"], 1, 2),
            best_ms(lambda: numpy_bitonic_pass(outs["numpy"], 1, 2)),
            (py, "2^12"),
        )

    bitonic()

    # blur: ours through a 16x16 block's shared 18x18 tile, the others straight from the image
    image("blur {s}^2 (shared tile)", hk.blur, (16, 16), nb_blur, numpy_blur, "blur")

    # the tiled and atomic kernels as CUDA code writes them (tile loops, halos, atomics), each against
    # the plain loop a numba or OpenMP user writes over the same data: no tiles, no atomics
    image(
        "blur clamped {s}^2 (tile loop)",
        hk.blur_loop_tile,
        (16, 16),
        nb_blur_clamp,
        numpy_blur_padded("edge"),
        "blur_clamp",
    )
    image(
        "blur wrapped {s}^2 (tile loop)",
        hk.blur_wrap_tile,
        (16, 16),
        nb_blur_wrap,
        numpy_blur_padded("wrap"),
        "blur_wrap",
    )

    # 1-D smoothing through a shared tile of a block and its halo
    def smooth1d() -> None:
        n = 1 << (20 if quick else 24)
        x = rng.standard_normal(n).astype(np.float32)
        outs = {k: np.zeros_like(x) for k in ("ours", "numba", "numpy", "c")}
        hk.smooth1d_tile.launch(256, n // 256, x, outs["ours"], device="cpu")
        nb_smooth1d(x, outs["numba"])
        numpy_smooth1d(x, outs["numpy"])
        if c:
            c.smooth1d(x, outs["c"])
        else:
            outs.pop("c")
        assert all(same(outs["ours"], v) for v in outs.values()), "smooth1d results differ"
        xs, ys = x[: 1 << 12].copy(), np.zeros(1 << 12, np.float32)
        py = best_ms(lambda: hk.smooth1d_tile.launch(256, 16, xs, ys, device="cpu-python"), 1)
        row(
            f"smooth 1-D 2^{int(np.log2(n))} (tile)",
            lambda: hk.smooth1d_tile.launch(256, n // 256, x, outs["ours"], device="cpu"),
            lambda: nb_smooth1d(x, outs["numba"]),
            lambda: c.smooth1d(x, outs["c"]),
            best_ms(lambda: numpy_smooth1d(x, outs["numpy"])),
            (py, "2^12"),
        )

    smooth1d()

    # sum with one atomic add per element, against numba's and OpenMP's reductions
    def sum_atomic() -> None:
        n = 1 << (20 if quick else 24)
        blocks = n // 256
        tot = np.zeros(1, np.float32)
        # first exactly: 0s and 1s, whose every partial sum (at most 2^24) an f32 holds, so that any
        # order of the adds gives the same bits and a lost or repeated add shows
        ones = rng.integers(0, 2, n).astype(np.float32)
        hk.sum_atomic.launch(256, blocks, ones, tot, device="cpu")
        exact = int(ones.sum(dtype=np.float64))
        assert tot[0] == exact and nb_total(ones) == exact, "sum: a lost or repeated add"
        assert c is None or c.total(ones) == exact, "sum: the C reduction lost or repeated an add"
        # then the timed data, uniform in [0, 1): in whatever order the atomics come, each add rounds by
        # at most half an ulp of the running sum (below 2^23: 0.5), errors of either sign that add up to
        # some sqrt(n) * 0.15 ~ 600 of the ~2^23 sum (7e-5 of it) at n = 2^24; 1e-3 leaves room for the
        # orders we do not know while catching a lost share of the work
        x = rng.random(n, dtype=np.float32)
        want = x.sum(dtype=np.float64)
        tot[0] = 0
        hk.sum_atomic.launch(256, blocks, x, tot, device="cpu")
        assert np.isclose(tot[0], want, rtol=1e-3), f"sum: {tot[0]} against {want}"
        assert np.isclose(nb_total(x), want, rtol=1e-3)
        assert c is None or np.isclose(c.total(x), want, rtol=1e-3), "sum: the C sum is off"
        xs, ts = x[: 1 << 12].copy(), np.zeros(1, np.float32)
        py = best_ms(lambda: hk.sum_atomic.launch(256, 16, xs, ts, device="cpu-python"), 1)
        row(
            f"sum 2^{int(np.log2(n))} (atomic add)",
            lambda: hk.sum_atomic.launch(256, blocks, x, tot, device="cpu"),  # (adds to the total: not reset)
            lambda: nb_total(x),
            lambda: c.total(x),
            best_ms(lambda: x.sum()),
            (py, "2^12"),
        )

    sum_atomic()

    # 256-bin histogram: ours with block-shared bins and atomics; numba (which has no atomics) with
    # a private histogram per thread's chunk, then their sum; C with OpenMP's array reduction
    def histogram() -> None:
        n = 1 << (20 if quick else 24)
        keys = rng.integers(0, 2**32, n, dtype=np.uint32)
        want = np.bincount(keys & 255, minlength=256).astype(np.uint32)
        bins = {k: np.zeros(256, np.uint32) for k in ("ours", "numba", "c")}
        hk.histogram.launch(256, 256, keys, bins["ours"], device="cpu")
        nb_histogram(keys, bins["numba"])
        if c:
            c.histogram(keys, bins["c"])
        else:
            bins.pop("c")
        assert all(same(want, v) for v in bins.values()), "histogram counts differ"
        ks, bs = keys[: 1 << 12].copy(), np.zeros(256, np.uint32)
        py = best_ms(lambda: hk.histogram.launch(256, 16, ks, bs, device="cpu-python"), 1)
        row(  # (each call adds to its bins)
            f"histogram 2^{int(np.log2(n))} (shared atomics)",
            lambda: hk.histogram.launch(256, 256, keys, bins["ours"], device="cpu"),
            lambda: nb_histogram(keys, bins["numba"]),
            lambda: c.histogram(keys, bins["c"]),
            best_ms(lambda: np.bincount(keys & 255, minlength=256)),
            (py, "2^12"),
        )

    histogram()

    # launch overhead: one call each, timed alone
    z = np.zeros(1, np.float32)
    n32 = np.int32(32)
    launch: dict[str, Callable[[], object]] = {
        OURS: lambda: hk.empty3.launch(32, 1, z, z, np.int32(1), device="cpu"),  # 1 block of 32 threads
        NUMBA: lambda: nb_empty3(z, z, n32),  # a prange of 32 iterations
    }
    if c is not None:
        launch[OMP] = c.lib.empty_region  # type: ignore[union-attr]  # `#pragma omp parallel {}`
    us = dict(zip(launch, per_call_us(list(launch.values()), 100 if quick else 200, 7 if quick else 15)))
    table.add(
        "launch (3 arguments, 1 block)",
        {
            OURS: f"{us[OURS]:.2f} µs",
            NUMBA: f"{us[NUMBA]:.2f} µs",
            OMP: f"{us[OMP]:.2f} µs (empty region)" if OMP in us else "-",
            "numba / ours": f"{us[NUMBA] / us[OURS]:.2f}x",
            "C / ours": f"{us[OMP] / us[OURS]:.2f}x" if OMP in us else "-",
        },
    )
    return jobs, launch


ScaleRow = tuple[str, str, dict[int, str]]


def scaling(
    jobs: list[Job], launch: dict[str, Callable[[], object]], counts: list[int], threads: Threads, quick: bool
) -> list[ScaleRow]:
    """Each kernel (and the launch) per implementation at each thread count; within a kernel every
    (implementation, count) takes its turn in each round. Cells: time (speed-up over the same
    implementation at the first count)."""
    rows: list[ScaleRow] = []

    def add(name: str, impl: str, cells: dict[int, str]) -> None:
        rows.append((name, impl, cells))
        print(f"{name:<30}{impl:<16}" + "  ".join(f"{n}: {cells[n]}" for n in counts), flush=True)

    def entries(impls: dict[str, Callable[[], object]]) -> list[tuple[str, int]]:
        return [(impl, n) for n in counts for impl in impls if impl != NUMBA or n <= threads.numba_max]

    try:
        for name, fns in jobs:
            todo = entries(fns)
            setups = [threads.setter(i, n) for i, n in todo]
            times = race([fns[i] for i, _ in todo], 5 if quick else 7, setups, calls=2)
            got = dict(zip(todo, times))
            for impl in fns:
                base = got.get((impl, counts[0]))
                cells = {}
                for n in counts:
                    t = got.get((impl, n))
                    speedup = f" ({base / t:.2f}x)" if base is not None and t is not None and n != counts[0] else ""
                    cells[n] = "-" if t is None else f"{t:.2f} ms{speedup}"
                add(name, impl, cells)
        todo = entries(launch)
        us = per_call_us(
            [launch[i] for i, _ in todo],
            100 if quick else 200,
            5 if quick else 10,
            [threads.setter(i, n) for i, n in todo],
        )
        got = dict(zip(todo, us))
        for impl in launch:
            add(
                "launch (µs per call)", impl, {n: f"{got[impl, n]:.2f} µs" if (impl, n) in got else "-" for n in counts}
            )
    finally:
        threads.reset()
    return rows


COLD_OURS = """
import time; t = time.perf_counter()
import numpy as np
from bench_kernels import kernels
y = np.ones(1024, np.float32)
kernels.saxpy.launch(256, 4, np.float32(2), np.arange(1024, dtype=np.float32), y, device="cpu")
assert y[3] == 7.0
print(time.perf_counter() - t)
"""
COLD_NUMBA = """
import time; t = time.perf_counter()
import numpy as np
from numba import njit, prange
@njit(parallel=True)
def saxpy(a, x, y):
    for i in prange(len(y)):
        y[i] = a * x[i] + y[i]
y = np.ones(1024, np.float32)
saxpy(np.float32(2), np.arange(1024, dtype=np.float32), y)
assert y[3] == 7.0
print(time.perf_counter() - t)
"""


COLD_NUMPY = """
import time; t = time.perf_counter()
import numpy as np
print(time.perf_counter() - t)
"""


def cold_start(table: Table, site: Path) -> None:
    env = dict(os.environ, PYTHONPATH=f"{site}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    times = {}
    for name, code in (("hatch-hybrid", COLD_OURS), ("numba", COLD_NUMBA), ("numpy", COLD_NUMPY)):
        runs = [
            float(
                subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
            )
            for _ in range(3)
        ]
        times[name] = min(runs) * 1e3
    table.add(
        "import to first result",
        {
            "hatch-hybrid": f"{times['hatch-hybrid']:.0f} ms",
            "numba parallel": f"{times['numba']:.0f} ms",
            "NumPy": f"{times['numpy']:.0f} ms (its import alone)",
        },
    )


def default_counts() -> list[int]:
    """1, 2, 4, 8, 16 up to this machine's count, and that count (and the cores this process may use)."""
    cpus = os.cpu_count() or 1
    return sorted({n for n in (1, 2, 4, 8, 16) if n <= cpus} | {cpus, usable_cores()})


def thread_counts(text: str) -> list[int]:
    try:
        counts = sorted({int(n) for n in text.split(",") if n.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected thread counts such as 1,2,4, got {text!r}") from None
    if not counts or counts[0] < 1:
        raise argparse.ArgumentTypeError(f"expected positive thread counts such as 1,2,4, got {text!r}")
    return counts


def markdown(header: list[str], table: Table, scale: list[ScaleRow], counts: list[int]) -> str:
    lines = [
        *header,
        "",
        "| kernel | " + " | ".join(COLUMNS) + " |",
        "| --- | " + " | ".join("---:" for _ in COLUMNS) + " |",
    ]
    for name, cells in table.rows:
        lines.append(f"| {name} | " + " | ".join(cells.get(c, "-") for c in COLUMNS) + " |")
    if scale:
        heads = [f"{n} thread{'s' if n > 1 else ''}" for n in counts]
        lines += [
            "",
            "Thread scaling: best of several rounds in which every implementation at every count takes its turn "
            "(two calls back to back once the other pools are quiet); "
            f"in brackets the speed-up over the same implementation at {heads[0]}. Launch: median of single calls "
            "(hatch-hybrid's one block runs on one thread at every count).",
            "",
            "| kernel | implementation | " + " | ".join(heads) + " |",
            "| --- | --- | " + " | ".join("---:" for _ in heads) + " |",
        ]
        for name, impl, cells in scale:
            lines.append(f"| {name} | {impl} | " + " | ".join(cells.get(n, "-") for n in counts) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--markdown", type=Path, help="also write the tables to this file")
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke test)")
    parser.add_argument(
        "--threads",
        type=thread_counts,
        help="thread counts of the scaling table, e.g. 1,2,4 (default: 1, 2, 4, 8, 16 up to the machine's, and its)",
    )
    parser.add_argument(
        "--installed", action="store_true", help="use the installed bench_kernels and hybrid_demo wheels (no compiler)"
    )
    args = parser.parse_args()
    counts = args.threads or default_counts()
    most = max(*counts, default_threads())
    if most > (os.cpu_count() or 1) and "NUMBA_NUM_THREADS" not in os.environ:
        os.environ["NUMBA_NUM_THREADS"] = str(most)  # numba's pool is sized once, at its import
    site = Path(tempfile.mkdtemp(prefix="hybrid-cpu-suite-"))
    try:
        omp = OpenMP(site / "openmp")
        print(f"C+OpenMP: {omp.about}" if omp.lib else f"C+OpenMP column skipped: {omp.about}", flush=True)
        threads = Threads(omp)
        threads.reset()
        if not args.installed:
            build(site)
            sys.path.insert(0, str(site))
        table = Table()
        notes = [check_quiet("before the first table")]
        jobs, launch = run(table, args.quick, omp)
        cold_start(table, site)
        print(f"\nthread scaling ({', '.join(map(str, counts))} threads)", flush=True)
        notes.append(check_quiet("before the scaling table"))
        scale = scaling(jobs, launch, counts, threads, args.quick)
        if args.markdown:
            import numba

            command = "python benchmarks/cpu_suite.py" + (" --quick" if args.quick else "")
            if args.threads:
                command += " --threads " + ",".join(map(str, counts))
            header = [
                f"CPU: {cpu_model()} ({platform.machine()}); {os.cpu_count()} logical CPUs, {usable_cores()} usable "
                f"by this process; {datetime.date.today().isoformat()}; `{command}`",
                "",
                f"numba {numba.__version__} (threading layer: {numba.threading_layer()}), NumPy {np.__version__}; "
                + (f"C+OpenMP: {omp.about}." if omp.lib else f"C+OpenMP skipped: {omp.about}.")
                + f" First table: all at {threads.default} threads, best of 9 rounds in which they take turns "
                "(three calls back to back once the other pools are quiet); "
                "launch: median of single calls.",
            ]
            busy = [n for n in notes if n]
            if busy:
                header += ["", f"**Not a quiet machine**: {'; '.join(busy)}."]
            args.markdown.write_text(markdown(header, table, scale, counts))
    finally:
        shutil.rmtree(site, ignore_errors=True)


if __name__ == "__main__":
    main()
