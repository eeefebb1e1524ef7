"""Which of a package's WebGPU shaders this machine's driver fails to compile, each in a process of its own
(a driver's compiler may crash or lose the device: NVIDIA's Vulkan compiler failed on f64 shaders whose
frexp naga gave an i64 exponent; docs/wgpu.md).

    python scripts/wgsl_driver_check.py PACKAGE_DIR [--fused 0|1]

Compiles the package's kernels (WGSL only), then creates each shader's compute pipeline (blocks of 64,
``hh_fused_fma``/``hh_fused_fma64`` set to ``--fused``) on the high-performance adapter.
In: a package folder. Out: one line per kernel, OK or the driver's error; exit status 1 if any failed.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "runtime")]

PIPELINE = r"""
import sys, wgpu
adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
wanted = ["shader-int64", "shader-f64", "shader-f16", "subgroup", "shader-int64-atomic-all-ops"]
device = adapter.request_device_sync(required_features=[f for f in wanted if f in adapter.features])
source = open(sys.argv[1]).read()
module = device.create_shader_module(code=source)
constants = {"hh_bx": 64}
for name in ("hh_fused_fma", "hh_fused_fma64"):
    if f"override {name}:" in source:
        constants[name] = int(sys.argv[2])
device.create_compute_pipeline(layout="auto", compute={"module": module, "entry_point": "main", "constants": constants})
device.queue.submit([])
print("ok")
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("package", type=Path)
    parser.add_argument("--fused", default="1", choices=["0", "1"])
    args = parser.parse_args()
    from hatch_hybrid.cache import KernelCache
    from hatch_hybrid.pipeline import Options, compile_packages

    options = Options(["sm_90"], cubin=False, wgsl=True, cache=KernelCache(None))
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for k in compile_packages([args.package], options=options):
            if k.codes.get("wgsl") is None:
                print(f"{k.decl.qualname}: no shader ({k.not_built.get('wgsl')})")
                continue
            path = Path(tmp) / f"{k.symbol}.wgsl"
            path.write_text(k.codes.get("wgsl").source)
            run = subprocess.run(
                [sys.executable, "-c", PIPELINE, str(path), args.fused], capture_output=True, text=True, timeout=300
            )
            ok = run.returncode == 0 and "ok" in run.stdout
            failed += not ok
            error = (run.stdout + run.stderr).strip().splitlines()[-6:]
            print(f"{k.decl.qualname}: " + ("OK" if ok else "FAILED: " + " | ".join(error)))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
