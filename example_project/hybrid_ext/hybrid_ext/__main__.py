"""``python -m hybrid_ext``: run the cross-package kernels and check them against NumPy."""

from __future__ import annotations

import argparse

import numpy as np
from hybrid_demo import render_cpu_threads
from hybrid_runtime import default_device_name

from .kernels import axpby, blend, histogram, scaled_saxpy


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hybrid_ext")
    parser.add_argument("--device", default=None)
    args = parser.parse_args(argv)
    print(f"hybrid_ext: running on {default_device_name(args.device)}")
    rng = np.random.default_rng(0)
    x = rng.standard_normal(5000).astype(np.float32)
    y = rng.standard_normal(5000).astype(np.float32)
    checks = {}

    out = y.copy()
    scaled_saxpy(1.5, x, out, device=args.device)
    checks["hybrid_demo.saxpy (launched from here)"] = np.array_equal(out, np.float32(1.5) * x + y)
    out = y.copy()
    axpby.launch(256, 20, np.float32(2.0), x, np.float32(-0.5), out, device=args.device)
    checks["axpby (hybrid_demo's helper)"] = np.array_equal(out, np.float32(2.0) * x + np.float32(-0.5) * y)
    out = np.zeros_like(x)
    blend.launch(256, 20, x, y, np.float32(0.25), out, device=args.device)
    checks["blend (mathlets' helpers)"] = np.array_equal(out, np.clip(x + (y - x) * np.float32(0.25), -1, 1))
    counts = histogram(96, 64, 50, device=args.device)
    expected = np.bincount(render_cpu_threads(96, 64, 50).ravel(), minlength=51).astype(np.int32)
    checks["escape_histogram (hybrid_demo's escape_time)"] = np.array_equal(counts, expected)
    for name, ok in checks.items():
        print(f"{name}: {'matches numpy' if ok else 'DIFFERS'}")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
