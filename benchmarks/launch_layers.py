"""Where a launch's host time goes: each layer of hatch-hybrid's launch path timed on its own.
python benchmarks/launch_layers.py
"""

from __future__ import annotations

import ctypes
import time

import hybrid_runtime as hr
import numpy as np
from bench_kernels import kernels as hk
from hybrid_runtime.driver import initialise


def per_call_us(fn, n: int = 20000) -> float:
    for _ in range(500):
        fn()
    hr.synchronize()
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        hr.synchronize()
        best = min(best, (time.perf_counter() - t0) / n * 1e6)
    return best


def main() -> None:
    cu = initialise()
    x, y = hr.device_array(256, np.float32), hr.device_array(256, np.float32)
    args = (x, y, np.int32(1))
    launcher = hk.empty3[1, 32]
    launcher(*args)
    plan = hk.empty3._plans[(0, 0)]
    launch_args = plan.launch_args(launcher.config, 0)
    plan.struct.pack_into(plan.buffer, 0, x.ptr, 256, 1, y.ptr, 256, 1, 1)
    fn = cu.CUfunction(plan.function)
    addr = ctypes.addressof(plan.pointers)
    rows = {
        "cuda-bindings cuLaunchKernel, pre-packed": lambda: cu.cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, 0, addr, 0),
        "plan.fast (checks + pack + launch)": lambda: plan.fast(args, launch_args),
        "kernel[1, 32](x, y, n)": lambda: launcher(*args),
        "kernel.launch(32, 1, x, y, n)": lambda: hk.empty3.launch(32, 1, *args),
    }
    for name, fn_ in rows.items():
        print(f"{name:45} {per_call_us(fn_):6.2f} us")


if __name__ == "__main__":
    main()
