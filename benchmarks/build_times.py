"""Build times of the example package: cold (empty cache), no-change rebuild, one helper changed.

Runs hatchling's wheel builder in-process on a copy of example_project/hybrid_demo (the hook's
time is what the cache saves; pip's isolated-environment setup comes on top of every build).
    python benchmarks/build_times.py [--cubin]
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

from hatchling.builders.wheel import WheelBuilder

ROOT = Path(__file__).resolve().parents[1]


def build(project: Path, out: Path) -> float:
    start = time.perf_counter()
    next(WheelBuilder(str(project)).build(directory=str(out), versions=["standard"]))
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cubin", action="store_true", help="also build cubins (needs ptxas)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rows = {"cold build (empty cache)": [], "rebuild, nothing changed": [], "rebuild, one helper changed": []}
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as tmp:
            project = Path(tmp) / "hybrid_demo"
            shutil.copytree(ROOT / "example_project" / "hybrid_demo", project)
            pyproject = project / "pyproject.toml"
            pyproject.write_text(pyproject.read_text() + f"cubin = {'true' if args.cubin else 'false'}\n")
            os.environ["HYBRID_CACHE_DIR"] = str(Path(tmp) / "cache")
            rows["cold build (empty cache)"].append(build(project, Path(tmp) / "a"))
            rows["rebuild, nothing changed"].append(build(project, Path(tmp) / "b"))
            escape = project / "hybrid_demo" / "escape.py"
            escape.write_text(escape.read_text().replace("if z.norm_sqr() > 4.0:", "if z.norm_sqr() >= 4.0:"))
            rows["rebuild, one helper changed"].append(build(project, Path(tmp) / "c"))
    what = "2 kernels x 3 archs + 5 CPU targets" + (" + cubins" if args.cubin else "")
    print(f"\nhybrid_demo wheel, {what} (best of {args.repeat}):")
    for name, times in rows.items():
        print(f"  {name:30} {min(times) * 1000:8.1f} ms")


if __name__ == "__main__":
    main()
