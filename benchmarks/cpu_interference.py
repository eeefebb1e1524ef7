"""How much one thread pool's spinning costs the next: the blur, the stencil and Mandelbrot, ours
against numba parallel and C + OpenMP, timed four ways in one process (or alone).

libgomp's threads spin after a parallel region (``GOMP_SPINCOUNT``, 300,000 pause instructions by
default) before they sleep, and a spinning thread holds a core. Timing one call of each implementation
in turn then charges C's spinning to whatever runs after it. ``benchmarks/cpu_suite.py`` waits for the
process to go quiet before each implementation's turn; this script shows why.
    python benchmarks/cpu_interference.py [--threads 16] [--installed]
Modes, one line each: ``turns`` (one call each in turn, best of 9 rounds: the suite before), ``quiet``
(15 calls each after 50 ms of quiet, best of 5 rounds), and each implementation alone in a process of
its own (the others not even called). Run it with ``OMP_WAIT_POLICY=passive`` to see ``turns`` without
libgomp's spinning.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
IMPLS = ("ours", "numba", "C")


def calls(omp: object) -> dict[str, list[Callable[[], object]]]:
    """Each kernel's three calls, results checked equal first."""
    import cpu_suite
    from bench_kernels import kernels as hk
    from hybrid_demo import mandelbrot_kernel

    nb = cpu_suite.numba_kernels()
    rng = np.random.default_rng(0)
    s = 2048
    src = rng.standard_normal((s, s)).astype(np.float32)
    out = [np.zeros_like(src) for _ in IMPLS]
    img = [np.zeros((1024, 1024), np.int32) for _ in IMPLS]
    view = (np.float32(-2.2), np.float32(-1.2), np.float32(3.2 / 1024), np.float32(2.4 / 1024), np.int32(256))
    rows = {
        "blur 2048^2": [
            lambda: hk.blur.launch((16, 16), (s // 16, s // 16), src, out[0], device="cpu"),
            lambda: nb[6](src, out[1]),
            lambda: omp.blur(src, out[2]),  # type: ignore[attr-defined]
        ],
        "stencil 2048^2": [
            lambda: hk.stencil.launch((32, 8), (s // 32, s // 8), src, out[0], device="cpu"),
            lambda: nb[4](src, out[1]),
            lambda: omp.stencil(src, out[2]),  # type: ignore[attr-defined]
        ],
        "mandelbrot 1024^2 x256": [
            lambda: mandelbrot_kernel.launch((16, 16), (64, 64), img[0], *view, device="cpu"),
            lambda: nb[1](img[1], *view),
            lambda: omp.mandelbrot(img[2], *view),  # type: ignore[attr-defined]
        ],
    }
    for name, fns in rows.items():
        for fn in fns:
            fn()
        found = out if name != "mandelbrot 1024^2 x256" else img
        assert all(np.array_equal(found[0], a) for a in found[1:]), f"{name}: results differ"
    return rows


def quiet_turns(fns: list[Callable[[], object]], rounds: int = 5, calls: int = 15) -> list[float]:
    best = [float("inf")] * len(fns)
    for _ in range(rounds):
        for k, fn in enumerate(fns):
            time.sleep(0.05)
            for _ in range(calls):
                start = time.perf_counter()
                fn()
                best[k] = min(best[k], time.perf_counter() - start)
    return [t * 1e3 for t in best]


def one(mode: str, threads: int) -> str:
    import cpu_suite
    import numba

    os.environ["HYBRID_CPU_THREADS"] = str(threads)
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    omp = cpu_suite.OpenMP(Path(tempfile.mkdtemp(prefix="hybrid-omp-")))
    if omp.lib is None:
        return f"C + OpenMP skipped: {omp.about}"
    omp.set_threads(threads)
    cells = []
    for name, fns in calls(omp).items():
        if mode == "turns":
            ms = cpu_suite.race(fns, 9, calls=1, quiet=False)
        elif mode == "quiet":
            ms = quiet_turns(fns)
        else:
            k = IMPLS.index(mode)
            ms = [float("nan")] * len(fns)
            ms[k] = quiet_turns([fns[k]])[0]
        cells.append(f"{name}: " + " / ".join("-" if t != t else f"{t:.3f}" for t in ms))
    return f"{mode:<6} " + " | ".join(cells) + " ms (ours / numba / C)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=0, help="default: every core this process may use")
    parser.add_argument("--installed", action="store_true", help="the installed bench_kernels and hybrid_demo")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    import cpu_suite

    args.threads = args.threads or cpu_suite.default_threads()
    if args.one:
        print(one(args.one, args.threads), flush=True)
        return
    env = dict(os.environ)
    if not args.installed:  # compile the packages as cpu_suite.py does
        site = Path(tempfile.mkdtemp(prefix="hybrid-interference-"))
        cpu_suite.build(site)
        env["PYTHONPATH"] = os.pathsep.join([str(site), env.get("PYTHONPATH", "")])
    policy = env.get("OMP_WAIT_POLICY", "libgomp's default")
    print(f"{args.threads} threads, OMP_WAIT_POLICY: {policy}", flush=True)
    for mode in ("turns", "quiet", *IMPLS):
        command = [sys.executable, __file__, "--one", mode, "--threads", str(args.threads)]
        done = subprocess.run(command, env=env, capture_output=True, text=True)
        print(done.stdout.strip() or done.stderr.strip().splitlines()[-1], flush=True)


if __name__ == "__main__":
    main()
