"""What issue 22's run-time checks cost: the same kernels compiled by this checkout and by a commit
from before the checks (a git worktree), timed side by side in one run, natively (and on the GPU
where there is one).

    python benchmarks/check_cost.py [--before eab8da5] [--n 16777216] [--devices cpu,cuda]

Kernels: a Python int added to an i32 array (``o[i] = x[i] + i``: a range check per element), an f64
array stored into an i32 array (``o[i] = y[i]``: NaN, infinity and range checks), ``int()`` of an f64
(``o[i] = int(y[i]) + i``: NaN and 64-bit range checks, the range check new in this session), and, as a control
without checks, an f32 saxpy.
"""

from __future__ import annotations

import argparse
import importlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
SOURCE = """
from hybrid_runtime import kernel, gpu, Array, f32, f64, i32, i64

@kernel
def add_index(x: Array[i32], o: Array[i32]):
    i = gpu.global_tid_x()
    if i < len(o):
        o[i] = x[i] + i

@kernel
def store_f64(y: Array[f64], o: Array[i32]):
    i = gpu.global_tid_x()
    if i < len(o):
        o[i] = y[i]

@kernel
def int_of_f64(y: Array[f64], o: Array[i64]):
    i = gpu.global_tid_x()
    if i < len(o):
        o[i] = int(y[i]) + i

@kernel
def saxpy(a: f32, x: Array[f32], o: Array[f32]):
    i = gpu.global_tid_x()
    if i < len(o):
        o[i] = a * x[i] + o[i]
"""

BUILD = """
import sys
from pathlib import Path
from hatch_hybrid.hook.artifacts import write_package_artifacts
from hatch_hybrid.pipeline import Options, compile_packages
from hybrid_runtime.native import host_target
root, name = Path(sys.argv[1]), sys.argv[2]
kernels = compile_packages([root / name], options=Options(["sm_90"], cubin=False, cpu=[host_target()]))
write_package_artifacts(kernels, ["sm_90"], root)
"""


def build(compiler: Path, root: Path, name: str) -> None:
    pkg = root / name
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "kern.py").write_text(SOURCE)
    env_path = f"{compiler}:{compiler / 'runtime'}"
    subprocess.run(
        [sys.executable, "-c", BUILD, str(root), name],
        check=True,
        env={**os.environ, "PYTHONPATH": env_path},
    )


def best(fn, rounds: int = 7) -> float:
    fn()
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times) * 1e3


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--before", default="eab8da5")
    p.add_argument("--n", type=int, default=1 << 24)
    p.add_argument("--devices", default="cpu")
    p.add_argument("--prebuilt", type=Path, help="a folder holding packages `before` and `after` built already")
    a = p.parse_args()
    root = a.prebuilt or Path(tempfile.mkdtemp(prefix="checkcost"))
    if a.prebuilt is None:
        old = root / "worktree"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(old), a.before], check=True, capture_output=True
        )
        try:
            build(old, root, "before")
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old)], check=True)
        build(ROOT, root, "after")
    sys.path.insert(0, str(root))
    mods = {k: importlib.import_module(f"{k}.kern") for k in ("before", "after")}
    n = a.n
    x = np.arange(n, dtype=np.int32) % 1000
    y = (np.arange(n) % 1000).astype(np.float64)
    xf = np.ones(n, np.float32)
    o32, o64, of = np.zeros(n, np.int32), np.zeros(n, np.int64), np.zeros(n, np.float32)
    threads = 256
    blocks = (n + threads - 1) // threads
    print(f"n = {n}; best of 7, ms")
    print(f"{'kernel':12} {'device':6} {'before':>8} {'after':>8} {'ratio':>6}")
    for device in a.devices.split(","):
        saxpy = (np.float32(2.0), xf, of)
        rows = {"add_index": (x, o32), "store_f64": (y, o32), "int_of_f64": (y, o64), "saxpy": saxpy}
        for name, args in rows.items():
            t = {}
            for _ in range(2):  # interleaved
                for k, m in mods.items():
                    kern = getattr(m, name)
                    t[k] = min(t.get(k, 1e9), best(lambda: kern.launch(threads, blocks, *args, device=device)))
            print(f"{name:12} {device:6} {t['before']:8.3f} {t['after']:8.3f} {t['after'] / t['before']:6.2f}")


if __name__ == "__main__":
    main()
