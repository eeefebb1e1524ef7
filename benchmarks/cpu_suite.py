"""hatch-hybrid's native CPU code vs numba's parallel loops vs NumPy vs the Python path, on this CPU.

The six kernels of benchmarks/suite.py (saxpy, Mandelbrot, block reduction, tiled matmul, 2-D
stencil, one bitonic-sort pass), each compiled into its package's native library exactly as a wheel
build does (in-process: hatch_hybrid.pipeline + hook.artifacts, all CPU targets, this machine's
library loaded). numba gets the plain loops a numba user would write, with ``@njit(parallel=True)``.
Every result is checked before it is timed (bit-identical where the arithmetic is the same, else
against NumPy within float tolerance). Times: best of several runs after a warm-up. Then
import-to-first-result in a fresh process for each.
    python benchmarks/cpu_suite.py [--markdown FILE] [--quick]
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = [ROOT / "benchmarks/bench_kernels/bench_kernels", ROOT / "example_project/hybrid_demo/hybrid_demo"]


def build(out: Path) -> None:
    """The packages with their compiled kernels, as their wheels hold them."""
    from hatch_hybrid.backend.host.targets import DEFAULT_TARGETS
    from hatch_hybrid.hook.artifacts import write_package_artifacts
    from hatch_hybrid.pipeline import Options, compile_packages

    for src in PACKAGES:
        shutil.copytree(src, out / src.name)
    options = Options(["sm_70"], cubin=False, cpu=list(DEFAULT_TARGETS))
    kernels = compile_packages([out / p.name for p in PACKAGES], options=options, search_path=[str(out), *sys.path])
    write_package_artifacts(kernels, ["sm_70"], out)


def race(fns: list[Callable[[], object]], rounds: int = 9) -> list[float]:
    """Best time (ms) of each function over ``rounds`` rounds in which they take turns, so that what
    else the machine does falls on all of them alike."""
    for fn in fns:
        fn()  # warm-up (and numba's compilation)
    best = [float("inf")] * len(fns)
    for _ in range(rounds):
        for k, fn in enumerate(fns):
            start = time.perf_counter()
            fn()
            best[k] = min(best[k], time.perf_counter() - start)
    return [t * 1e3 for t in best]


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
    from numba import njit, prange

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

    return saxpy, mandelbrot, total, matmul, stencil, bitonic_pass


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
class Table:
    def __init__(self) -> None:
        self.rows: list[tuple[str, dict[str, str]]] = []

    def add(self, name: str, cells: dict[str, str]) -> None:
        self.rows.append((name, cells))
        print(f"{name:<28}" + "  ".join(f"{k}: {v}" for k, v in cells.items()), flush=True)


def same(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(np.array_equal(a, b))


def run(table: Table, quick: bool) -> None:
    from bench_kernels import kernels as hk
    from hybrid_demo import mandelbrot_kernel

    nb_saxpy, nb_mandelbrot, nb_total, nb_matmul, nb_stencil, nb_bitonic = numba_kernels()
    for k in (hk.saxpy, hk.block_sum, hk.matmul, hk.stencil, hk.bitonic_pass, mandelbrot_kernel):
        assert k.native_code() is not None, f"{k.qualname} has no native code for this machine"
    rng = np.random.default_rng(0)

    def row(
        name: str,
        ours: Callable[[], object],
        numba: Callable[[], object],
        numpy: float | None,
        python: tuple[float, str] | None,
        rounds: int = 9,
    ) -> None:
        ours, numba = race([ours, numba], rounds)  # type: ignore[assignment]
        cells = {
            "hatch-hybrid": f"{ours:.2f} ms",
            "numba parallel": f"{numba:.2f} ms",
            "NumPy": f"{numpy:.2f} ms" if numpy is not None else "-",
            "Python path": f"{python[0]:.0f} ms ({python[1]})" if python else "-",
            "numba / ours": f"{numba / ours:.2f}x",
        }
        table.add(name, cells)

    # saxpy
    n = 1 << (20 if quick else 24)
    x = rng.standard_normal(n).astype(np.float32)
    y0 = rng.standard_normal(n).astype(np.float32)
    a = np.float32(2.5)
    outs = {}
    for impl, fn in (
        ("ours", lambda y: hk.saxpy.launch(256, n // 256, a, x, y, device="cpu")),
        ("numba", lambda y: nb_saxpy(a, x, y)),
        ("numpy", lambda y: np.add(a * x, y, out=y)),
    ):
        y = y0.copy()
        fn(y)
        outs[impl] = y
    assert same(outs["ours"], outs["numba"]) and same(outs["ours"], outs["numpy"])
    y = y0.copy()
    small = 1 << 12
    py = best_ms(lambda: hk.saxpy.launch(256, small // 256, a, x[:small], y[:small], device="cpu-python"), 1)
    row(
        f"saxpy 2^{int(np.log2(n))} f32",
        lambda: hk.saxpy.launch(256, n // 256, a, x, y, device="cpu"),
        lambda: nb_saxpy(a, x, y),
        best_ms(lambda: np.add(a * x, y, out=y)),
        (py, "2^12"),
    )

    # mandelbrot
    for size, it in ((256, 64), (1024, 256)):
        if quick and size > 256:
            continue
        args = (np.float32(-2.2), np.float32(-1.2), np.float32(3.2 / size), np.float32(2.4 / size), np.int32(it))
        grid = (size // 16, size // 16)
        mine = np.zeros((size, size), np.int32)
        mandelbrot_kernel.launch((16, 16), grid, mine, *args, device="cpu")
        theirs = np.zeros_like(mine)
        nb_mandelbrot(theirs, *args)
        vec = np.zeros_like(mine)
        numpy_mandelbrot(vec, *args)
        assert same(mine, theirs) and same(mine, vec), "mandelbrot images differ"
        crop = np.zeros((48, 64), np.int32)
        py = best_ms(lambda: mandelbrot_kernel.launch((16, 16), (4, 3), crop, *args, device="cpu-python"), 1)
        row(
            f"mandelbrot {size}^2 x{it}",
            lambda: mandelbrot_kernel.launch((16, 16), grid, mine, *args, device="cpu"),
            lambda: nb_mandelbrot(theirs, *args),
            best_ms(lambda: numpy_mandelbrot(vec, *args), 2),
            (py * size * size / (48 * 64), "64x48, scaled"),
        )

    # block reduction (sum)
    n = 1 << (20 if quick else 24)
    x = rng.standard_normal(n).astype(np.float32)
    partial = np.zeros(256, np.float32)
    hk.block_sum.launch(256, 256, x, partial, device="cpu")
    assert np.isclose(partial.sum(dtype=np.float64), x.sum(dtype=np.float64), rtol=1e-4)
    assert np.isclose(nb_total(x), x.sum(dtype=np.float64), rtol=1e-3)
    xs = x[: 1 << 12]
    ps = np.zeros(4, np.float32)
    py = best_ms(lambda: hk.block_sum.launch(256, 4, xs, ps, device="cpu-python"), 1)
    row(
        f"block reduction 2^{int(np.log2(n))}",
        lambda: hk.block_sum.launch(256, 256, x, partial, device="cpu"),
        lambda: nb_total(x),
        best_ms(lambda: x.sum()),
        (py, "2^12"),
    )

    # tiled matmul
    m = 256 if quick else 512
    am = rng.standard_normal((m, m)).astype(np.float32)
    bm = rng.standard_normal((m, m)).astype(np.float32)
    cm = np.zeros((m, m), np.float32)
    hk.matmul.launch((16, 16), (m // 16, m // 16), am, bm, cm, device="cpu")
    cn = np.zeros_like(cm)
    nb_matmul(am, bm, cn)
    assert same(cm, cn), "matmul: the same sums in the same order must give the same bits"
    np.testing.assert_allclose(cm, am @ bm, rtol=1e-3, atol=1e-3)
    a32, b32 = am[:32, :32].copy(), bm[:32, :32].copy()
    c32 = np.zeros((32, 32), np.float32)
    py = best_ms(lambda: hk.matmul.launch((16, 16), (2, 2), a32, b32, c32, device="cpu-python"), 1)
    row(
        f"tiled matmul {m}^3 f32",
        lambda: hk.matmul.launch((16, 16), (m // 16, m // 16), am, bm, cm, device="cpu"),
        lambda: nb_matmul(am, bm, cn),
        best_ms(lambda: am @ bm),
        (py, "32^3"),
    )

    # stencil
    s = 512 if quick else 2048
    src = rng.standard_normal((s, s)).astype(np.float32)
    outs = {k: np.zeros_like(src) for k in ("ours", "numba", "numpy")}
    hk.stencil.launch((32, 8), (s // 32, s // 8), src, outs["ours"], device="cpu")
    nb_stencil(src, outs["numba"])
    numpy_stencil(src, outs["numpy"])
    assert same(outs["ours"], outs["numba"]) and same(outs["ours"], outs["numpy"])
    s64 = src[:64, :64].copy()
    d64 = np.zeros_like(s64)
    py = best_ms(lambda: hk.stencil.launch((32, 8), (2, 8), s64, d64, device="cpu-python"), 1)
    row(
        f"stencil {s}^2 f32",
        lambda: hk.stencil.launch((32, 8), (s // 32, s // 8), src, outs["ours"], device="cpu"),
        lambda: nb_stencil(src, outs["numba"]),
        best_ms(lambda: numpy_stencil(src, outs["numpy"])),
        (py, "64^2"),
    )

    # bitonic pass
    n = 1 << (18 if quick else 22)
    keys = rng.standard_normal(n).astype(np.float32)
    outs = {k: keys.copy() for k in ("ours", "numba", "numpy")}
    hk.bitonic_pass.launch(256, n // 256, outs["ours"], 1, 2, device="cpu")
    nb_bitonic(outs["numba"], 1, 2)
    numpy_bitonic_pass(outs["numpy"], 1, 2)
    assert same(outs["ours"], outs["numba"]) and same(outs["ours"], outs["numpy"])
    ks = keys[:4096].copy()
    py = best_ms(lambda: hk.bitonic_pass.launch(256, 16, ks, 1, 2, device="cpu-python"), 1)
    row(
        f"bitonic pass 2^{int(np.log2(n))}",
        lambda: hk.bitonic_pass.launch(256, n // 256, outs["ours"], 1, 2, device="cpu"),
        lambda: nb_bitonic(outs["numba"], 1, 2),
        best_ms(lambda: numpy_bitonic_pass(outs["numpy"], 1, 2)),
        (py, "2^12"),
    )

    # launch overhead
    z = np.zeros(1, np.float32)
    ours_ms, numba_ms = race(
        [
            lambda: [hk.empty3.launch(32, 1, z, z, np.int32(1), device="cpu") for _ in range(100)],
            lambda: [nb_saxpy(np.float32(0), z, z) for _ in range(100)],
        ]
    )
    table.add(
        "launch (3 arguments, 1 block)",
        {  # per call: a hundredth of the time of 100
            "hatch-hybrid": f"{ours_ms * 10:.1f} µs",
            "numba parallel": f"{numba_ms * 10:.1f} µs",
            "numba / ours": f"{numba_ms / ours_ms:.2f}x",
        },
    )


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


def markdown(table: Table) -> str:
    cols = ["hatch-hybrid", "numba parallel", "NumPy", "Python path", "numba / ours"]
    lines = [
        f"CPU: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
        f"{datetime.date.today().isoformat()}; `python benchmarks/cpu_suite.py`",
        "",
        "| kernel | " + " | ".join(cols) + " |",
        "| --- | " + " | ".join("---:" for _ in cols) + " |",
    ]
    for name, cells in table.rows:
        lines.append(f"| {name} | " + " | ".join(cells.get(c, "-") for c in cols) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--markdown", type=Path, help="also write the table to this file")
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke test)")
    parser.add_argument(
        "--installed", action="store_true", help="use the installed bench_kernels and hybrid_demo wheels (no compiler)"
    )
    args = parser.parse_args()
    site = Path(tempfile.mkdtemp(prefix="hybrid-cpu-suite-"))
    try:
        if not args.installed:
            build(site)
            sys.path.insert(0, str(site))
        table = Table()
        run(table, args.quick)
        cold_start(table, site)
        if args.markdown:
            args.markdown.write_text(markdown(table))
    finally:
        shutil.rmtree(site, ignore_errors=True)


if __name__ == "__main__":
    main()
