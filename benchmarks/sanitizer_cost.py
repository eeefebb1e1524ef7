"""What the CPU sanitizer costs: each kernel of the CPU suite, plain native code against its sanitized
entry (``launch(..., device="cpu", sanitize=True)``) on the same inputs, best of several rounds in
which they take turns. Both share their blocks among the worker pool ($HYBRID_CPU_THREADS threads).

    python benchmarks/sanitizer_cost.py [--markdown FILE] [--prebuilt DIR]

``--prebuilt DIR``: the packages built already into DIR (``--build-only DIR`` builds them there), for a
machine without the compiler.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cpu_suite import best_ms, build  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--markdown", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--prebuilt", type=Path)
    parser.add_argument("--build-only", type=Path)
    args = parser.parse_args()
    if args.build_only:
        build(args.build_only)
        return
    tmp = args.prebuilt or Path(tempfile.mkdtemp(prefix="hatch-hybrid-sanitizer-"))
    if args.prebuilt is None:
        build(tmp)
    sys.path.insert(0, str(tmp))
    import bench_kernels.kernels as hk
    from hybrid_demo.mandelbrot import mandelbrot_kernel

    rng = np.random.default_rng(0)
    n = 1 << 22
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    s = 1024
    img, out = rng.standard_normal((s, s)).astype(np.float32), np.zeros((s, s), np.float32)
    m = 256
    am, bm, cm = (rng.standard_normal((m, m)).astype(np.float32) for _ in range(3))
    keys = rng.standard_normal(n).astype(np.float32)
    partial = np.zeros(n // 256, np.float32)
    image = np.zeros((256, 256), np.int32)
    cases: list[tuple[str, Callable[..., None]]] = [
        ("saxpy 2^22 f32", lambda **kw: hk.saxpy.launch(256, n // 256, np.float32(2), x, y, device="cpu", **kw)),
        ("block reduction 2^22", lambda **kw: hk.block_sum.launch(256, n // 256, x, partial, device="cpu", **kw)),
        (
            "tiled matmul 256^3 f32",
            lambda **kw: hk.matmul.launch((16, 16), (m // 16, m // 16), am, bm, cm, device="cpu", **kw),
        ),
        (
            "stencil 1024^2 f32",
            lambda **kw: hk.stencil.launch((32, 8), (s // 32, s // 8), img, out, device="cpu", **kw),
        ),
        ("bitonic pass 2^22", lambda **kw: hk.bitonic_pass.launch(256, n // 256, keys, 1, 2, device="cpu", **kw)),
        (
            "blur 1024^2 (shared tile)",
            lambda **kw: hk.blur.launch((16, 16), (s // 16, s // 16), img, out, device="cpu", **kw),
        ),
        (
            "mandelbrot 256^2 x64",
            lambda **kw: mandelbrot_kernel.launch(
                (16, 16),
                (16, 16),
                image,
                *(np.float32(v) for v in (-2.0, -1.5, 3.0 / 256, 3.0 / 256)),
                np.int32(64),
                device="cpu",
                **kw,
            ),
        ),
    ]
    rows = []
    for label, run in cases:
        plain = best_ms(run, args.rounds)
        sanitized = best_ms(lambda: run(sanitize=True), max(1, args.rounds // 2))
        rows.append((label, plain, sanitized))
        print(f"{label:28} plain {plain:9.2f} ms  sanitized {sanitized:9.1f} ms  {sanitized / plain:6.1f}x", flush=True)
    threads = os.environ.get("HYBRID_CPU_THREADS") or str(len(os.sched_getaffinity(0)))
    lines = [
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} logical CPUs, plain runs on {threads} "
        f"threads; {time.strftime('%Y-%m-%d')}; `python benchmarks/sanitizer_cost.py`",
        "",
        "| kernel | plain native | sanitized | sanitized / plain |",
        "| --- | ---: | ---: | ---: |",
        *(f"| {label} | {p:.2f} ms | {q:.1f} ms | {q / p:.1f}x |" for label, p, q in rows),
    ]
    if args.markdown:
        args.markdown.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
