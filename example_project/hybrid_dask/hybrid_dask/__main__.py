"""``python -m hybrid_dask``: render a large Mandelbrot as tiles on a LocalCluster of worker processes,
one per GPU (or CPU workers without a GPU), and check it equals the single-process render."""

from __future__ import annotations

import argparse
import time

import numpy as np
from distributed import Client, LocalCluster
from hybrid_demo import render
from hybrid_runtime import devices

from .cluster import PinDevice, pinned_devices, render_tiled


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hybrid_dask", description=__doc__)
    parser.add_argument("--device", choices=["auto", "cpu"], default="auto", help="cpu: no GPU even if present")
    parser.add_argument("--workers", type=int, default=None, help="default: one per GPU, else 2")
    parser.add_argument("--size", default=None, help="WIDTHxHEIGHT (default: 8192x8192 on GPUs, 128x96 on the CPU)")
    parser.add_argument("--tile", default=None, help="ROWSxCOLS (default: 1024x1024 on GPUs, 32x32 on CPUs)")
    parser.add_argument("--max-iter", type=int, default=None, help="default: 256 on GPUs, 32 on the CPU")
    args = parser.parse_args(argv)

    gpus = 0 if args.device == "cpu" else len(devices())
    width, height = (8192, 8192) if gpus else (128, 96)
    if args.size:
        width, height = (int(v) for v in args.size.lower().split("x"))
    rows, cols = (int(v) for v in (args.tile or ("1024x1024" if gpus else "32x32")).lower().split("x"))
    max_iter = args.max_iter or (256 if gpus else 32)
    workers = args.workers or gpus or 2

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True) as cluster, Client(cluster) as client:
        client.register_plugin(PinDevice(gpus))
        start = time.perf_counter()
        image, used = render_tiled(client, width, height, max_iter, (rows, cols))
        seconds = time.perf_counter() - start
        pinned = pinned_devices(client)
    print(f"hybrid_dask: {width}x{height}, {max_iter} iterations, {rows}x{cols} tiles: {seconds:.2f} s")
    print(f"workers: {', '.join(f'{a} on {d}' for a, d in sorted(pinned.items()))}")
    print("tiles per device: " + ", ".join(f"{device}: {n}" for device, n in sorted(used.items())))
    reference = render(width, height, max_iter, device="cuda" if gpus else "cpu")
    same = np.array_equal(image, reference)
    print(f"hybrid_dask: the tiled image {'equals' if same else 'DIFFERS FROM'} the single-process render")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
