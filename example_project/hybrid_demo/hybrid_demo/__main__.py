"""``python -m hybrid_demo``: run saxpy and render the Mandelbrot set on the GPU, or on the CPU."""

from __future__ import annotations

import argparse
import time

import numpy as np
from hybrid_runtime import CpuDevice, default_device_name, select_device

from .mandelbrot import colorize, mandelbrot_kernel, render, render_cpu_threads, render_kernel
from .png import write_png
from .saxpy import saxpy


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hybrid_demo", description=__doc__)
    parser.add_argument(
        "--device", default=None, help="cuda, cpu, cpu-python or auto (default: $HYBRID_DEVICE or auto)"
    )
    parser.add_argument(
        "--size", default=None, help="WIDTHxHEIGHT (default: 4096x4096 on GPU, 1024x768 native on the CPU)"
    )
    parser.add_argument("--max-iter", type=int, default=None, help="default: 512 on GPU, 256 native on the CPU")
    parser.add_argument("--out", default="mandelbrot.png", help="PNG file to write")
    args = parser.parse_args(argv)

    on_gpu = not isinstance(select_device(args.device), CpuDevice)
    native = not on_gpu and mandelbrot_kernel.native_code() is not None
    where = default_device_name(args.device) + (" (native code)" if native else "")
    print(f"hybrid_demo: running on {where}")

    n = 1 << 20 if on_gpu or native else 1 << 12
    x = np.arange(n, dtype=np.float32)
    y = np.ones(n, dtype=np.float32)
    expected = np.float32(2.0) * x + y
    saxpy.launch(256, -(-n // 256), np.float32(2.0), x, y, device=args.device)
    ok = np.array_equal(y, expected)
    print(f"saxpy: {n} elements, {'matches' if ok else 'DIFFERS FROM'} numpy")

    width, height = (4096, 4096) if on_gpu else (1024, 768) if native else (256, 192)
    if args.size:
        width, height = (int(v) for v in args.size.lower().split("x"))
    max_iter = args.max_iter or (512 if on_gpu else 256 if native else 64)
    start = time.perf_counter()
    counts = render(width, height, max_iter, device=args.device)
    seconds = time.perf_counter() - start
    print(f"mandelbrot: {width}x{height}, {max_iter} iterations, {seconds:.3f} s on {where}")
    # The same helper four ways on a small image: the kernel on this device, its native CPU code, its
    # own Python over the grid (the Python path), and the original multi-threaded CPU renderer.
    small = (256, 192, min(max_iter, 64))
    images = {
        "kernel through Python": render_kernel(*small, device="cpu-python"),
        "CPU threads": render_cpu_threads(*small),
    }
    if mandelbrot_kernel.native_code() is not None:
        images["kernel native on the CPU"] = render_kernel(*small, device="cpu")
    if on_gpu:
        images[f"kernel on {where}"] = render_kernel(*small, device=args.device)
    first = next(iter(images.values()))
    same = all(np.array_equal(first, image) for image in images.values())
    print(f"mandelbrot: {small[0]}x{small[1]}: {', '.join(images)} {'give identical images' if same else 'DISAGREE'}")
    ok = ok and same
    write_png(args.out, colorize(counts, max_iter))
    print(f"wrote {args.out}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
