"""Import-to-first-result in fresh processes: hatch-hybrid vs the bare cuda-bindings floor.

Each variant runs in a new Python process (median of --runs); the clock starts before the first
import and stops when saxpy's result is back in host memory and checked. Both load the same code
object from the installed bench_kernels wheel: its cubin for this GPU, or its PTX (driver JIT).
    python benchmarks/cold_start.py
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

BARE = r"""
import time; t0 = time.perf_counter()
import numpy as np
from cuda.bindings import driver as cu
import ctypes, json, importlib.util, pathlib
def ok(r):
    assert int(r[0]) == 0, r
    return r[1] if len(r) > 1 else None
ok(cu.cuInit(0)); dev = ok(cu.cuDeviceGet(0)); ctx = ok(cu.cuDevicePrimaryCtxRetain(dev)); ok(cu.cuCtxSetCurrent(ctx))
major = ok(cu.cuDeviceGetAttribute(cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev))
minor = ok(cu.cuDeviceGetAttribute(cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev))
folder = pathlib.Path(importlib.util.find_spec("bench_kernels").submodule_search_locations[0]) / "_hybrid"
entry = json.loads((folder / "manifest.json").read_text())["kernels"]["bench_kernels.kernels.saxpy"]
arch = f"sm_{major}{minor}"
if KIND == "cubin":
    code = (folder / entry["cubin"][arch]).read_bytes()
else:
    code = (folder / entry["ptx"][arch]).read_bytes() + b"\0"
fn = ok(cu.cuModuleGetFunction(ok(cu.cuModuleLoadData(code)), entry["symbol"].encode()))
n = 1 << 20
x = np.arange(n, dtype=np.float32); y = np.ones(n, dtype=np.float32)
dx = ok(cu.cuMemAlloc(4 * n)); dy = ok(cu.cuMemAlloc(4 * n))
ok(cu.cuMemcpyHtoD(dx, x.ctypes.data, 4 * n)); ok(cu.cuMemcpyHtoD(dy, y.ctypes.data, 4 * n))
vals = [ctypes.c_float(2.0), ctypes.c_uint64(int(dx)), ctypes.c_int64(n), ctypes.c_int64(1),
        ctypes.c_uint64(int(dy)), ctypes.c_int64(n), ctypes.c_int64(1)]
params = (ctypes.c_void_p * 7)(*[ctypes.addressof(v) for v in vals])
ok(cu.cuLaunchKernel(fn, n // 256, 1, 1, 256, 1, 1, 0, 0, ctypes.addressof(params), 0))
ok(cu.cuMemcpyDtoH(y.ctypes.data, dy, 4 * n))
assert y[5] == 11.0
print(time.perf_counter() - t0)
"""

OURS = r"""
import time; t0 = time.perf_counter()
import numpy as np
from bench_kernels.kernels import saxpy
n = 1 << 20
x = np.arange(n, dtype=np.float32); y = np.ones(n, dtype=np.float32)
saxpy.launch(256, n // 256, np.float32(2.0), x, y, device="cuda")
assert y[5] == 11.0
print(time.perf_counter() - t0)
"""


def once(source: str, env: dict[str, str]) -> float:
    out = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True, env=env, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main() -> list[tuple[str, float, float]]:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=11)
    args = parser.parse_args()
    rows = []
    for kind in ("cubin", "ptx"):
        env = dict(os.environ, HYBRID_CODE=kind)
        once(OURS, env)  # warm the file cache for both
        bare_times, our_times = [], []
        for _ in range(args.runs):  # alternate, so drift affects both alike
            bare_times.append(once(f"KIND = {kind!r}\n" + BARE, env))
            our_times.append(once(OURS, env))
        bare, ours = statistics.median(bare_times), statistics.median(our_times)
        rows.append((kind, bare, ours))
        print(
            f"cold start ({kind}): bare cuda-bindings {bare * 1000:.0f} ms, hatch-hybrid {ours * 1000:.0f} ms, "
            f"ratio {ours / bare:.2f}"
        )
    return rows


if __name__ == "__main__":
    main()
