"""``python -m hybrid_sort``: sort 2^20 keys of each type on the GPU and on the CPU, check both."""

from __future__ import annotations

import argparse
import time

import numpy as np
from hybrid_runtime import CpuDevice, default_device_name, select_device

from .bitonic import SortOrder, bitonic_pass, sort, sort_cpu, sort_kernel


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hybrid_sort", description=__doc__)
    parser.add_argument(
        "--device", default=None, help="cuda, cpu, cpu-python or auto (default: $HYBRID_DEVICE or auto)"
    )
    parser.add_argument("--log2n", type=int, default=20, help="sort 2**LOG2N keys (default 20)")
    args = parser.parse_args(argv)
    on_gpu = not isinstance(select_device(args.device), CpuDevice)
    native = bitonic_pass.native_code() is not None
    where = default_device_name(args.device) + (" (native code)" if native and not on_gpu else "")
    print(f"hybrid_sort: running on {where}")
    rng = np.random.default_rng(2026)
    n = 1 << args.log2n
    ok = True
    for dtype in (np.float32, np.uint32, np.int32):
        if dtype is np.float32:
            keys = rng.standard_normal(n).astype(dtype)
        else:
            info = np.iinfo(dtype)
            keys = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        for order in SortOrder:
            want = np.sort(keys) if order == SortOrder.ASCENDING else np.sort(keys)[::-1]
            results = {}
            start = time.perf_counter()
            results[where] = sort(keys.copy(), order, device=args.device)
            seconds = time.perf_counter() - start
            if on_gpu and native:
                results["native CPU"] = sort_kernel(keys.copy(), order, device="cpu")
            results["numpy passes"] = sort_cpu(keys.copy(), order)
            small = keys[:1024].copy()  # the kernel's own Python over the grid: small inputs only
            small_want = np.sort(small) if order == SortOrder.ASCENDING else np.sort(small)[::-1]
            same = all(np.array_equal(r, want) for r in results.values())
            same = same and np.array_equal(sort_kernel(small, order, device="cpu-python"), small_want)
            ok = ok and same
            print(
                f"{np.dtype(dtype).name:>8} {order.name.lower():<10} 2^{args.log2n} keys: {seconds * 1e3:8.1f} ms on "
                f"{where}; {' = '.join(results)} = numpy (and the kernel through Python, 1024 keys): "
                f"{'identical' if same else 'DIFFERENT'}"
            )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
