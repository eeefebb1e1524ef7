"""Two builds of the native CPU kernels side by side: each in its own process, the processes alternating.

A change to the host code generation is measured by building the suite's packages (bench_kernels,
hybrid_demo) once before and once after it, each into a folder of its own, then timing the same
kernels from both in alternating processes on one machine, so that what else the machine does falls
on both alike (the two builds cannot share a process: their packages have the same names).
    python benchmarks/cpu_ab.py --build DIR                  # this checkout's compiler, into DIR
    python benchmarks/cpu_ab.py BEFORE AFTER [--threads 16,1] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def timings(site: str) -> str:
    """One process's line: best of 15 rounds of each kernel, in turns (this process's threads)."""
    sys.path.insert(0, site)
    sys.path.insert(0, str(HERE))
    import cpu_suite
    import numpy as np
    from bench_kernels import kernels as hk
    from hybrid_demo import mandelbrot_kernel

    rng = np.random.default_rng(0)
    n, s = 1 << 24, 2048
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    src = rng.standard_normal((s, s)).astype(np.float32)
    dst, blurred = np.zeros_like(src), np.zeros_like(src)
    image = np.zeros((1024, 1024), np.int32)
    keys = rng.standard_normal(1 << 22).astype(np.float32)
    partial = np.zeros(1024, np.float32)
    counted, bins = rng.integers(0, 2**32, n, dtype=np.uint32), np.zeros(256, np.uint32)
    view = (np.float32(-2), np.float32(-1.5), np.float32(3 / 1024), np.float32(3 / 1024), np.int32(256))
    calls = {
        "saxpy 2^24": lambda: hk.saxpy.launch(256, n // 256, np.float32(2.5), x, y, device="cpu"),
        "stencil 2048^2": lambda: hk.stencil.launch((32, 8), (s // 32, s // 8), src, dst, device="cpu"),
        "mandelbrot 1024^2 x256": lambda: mandelbrot_kernel.launch((16, 16), (64, 64), image, *view, device="cpu"),
        "bitonic pass 2^22": lambda: hk.bitonic_pass.launch(256, len(keys) // 256, keys, 1, 2, device="cpu"),
        "blur 2048^2": lambda: hk.blur.launch((16, 16), (s // 16, s // 16), src, blurred, device="cpu"),
        "block reduction 2^24": lambda: hk.block_sum.launch(256, 1024, x, partial, device="cpu"),
        "histogram 2^24": lambda: hk.histogram.launch(256, 256, counted, bins, device="cpu"),
    }
    best = cpu_suite.race(list(calls.values()), 15)
    return "\t".join(f"{name}={ms:.3f}" for name, ms in zip(calls, best))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("sites", nargs="*", help="two folders made with --build")
    parser.add_argument("--build", type=Path, help="compile the suite's packages with this checkout into this folder")
    parser.add_argument("--threads", default="16,1", help="thread counts ($HYBRID_CPU_THREADS), e.g. 16,1")
    parser.add_argument("--rounds", type=int, default=3, help="alternations of the two processes per count")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # a child process: time this site
    args = parser.parse_args()
    if args.one:
        print(timings(args.one), flush=True)
        return
    if args.build:
        sys.path.insert(0, str(HERE))
        import cpu_suite

        args.build.mkdir(parents=True, exist_ok=True)
        cpu_suite.build(args.build)
        return
    if len(args.sites) != 2:
        parser.error("give two folders (BEFORE AFTER), or --build DIR")
    results: dict[tuple[str, str], list[dict[str, float]]] = {}
    counts = [c.strip() for c in args.threads.split(",") if c.strip()]
    for count in counts:
        for _ in range(args.rounds):
            for site in args.sites:
                env = dict(os.environ, HYBRID_CPU_THREADS=count)
                out = subprocess.run(
                    [sys.executable, __file__, "--one", site], env=env, capture_output=True, text=True, check=True
                )
                row = dict(cell.split("=") for cell in out.stdout.strip().splitlines()[-1].split("\t"))
                results.setdefault((count, site), []).append({k: float(v) for k, v in row.items()})
    names = list(next(iter(results.values()))[0])
    header = [f"{Path(site).name}, {count} threads" for count in counts for site in args.sites]
    print("| kernel | " + " | ".join(header) + " |")
    print("| --- |" + " ---: |" * len(header))
    for name in names:
        cells = []
        for count in counts:
            for site in args.sites:
                ms = [r[name] for r in results[(count, site)]]
                cells.append(f"{min(ms):.3f}-{max(ms):.3f} ms")
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
