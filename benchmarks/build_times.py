"""Build times: the example package (cold, no-change rebuild, one helper changed), and a generated package
of N kernels built cold with 1..J build jobs.

Runs hatchling's wheel builder in-process (the hook's time is what the cache saves; pip's isolated-
environment setup comes on top of every build).
    python benchmarks/build_times.py [--cubin]
    python benchmarks/build_times.py --kernels 90 --jobs 1,2   # a package of 90 generated kernels
    python benchmarks/build_times.py --kernels 90 --jobs 1,4,16 --compile-only   # no wheel, no link (no zig)

The generated kernels are, in turn, an elementwise kernel with a helper, a shared tile with a barrier and
a warp-shuffle reduction (issue 41's package), each with its own constants so that none is a copy.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import shutil
import tempfile
import time
from pathlib import Path

from hatch_hybrid.pipeline import compile_packages

ROOT = Path(__file__).resolve().parents[1]

KINDS = (
    """
def helper{k}(a: f32, x: f32) -> f32:
    return a * x + f32({k}.5)


@kernel
def elementwise{k}(a: f32, x: Array[f32], y: Array[f32]):
    i = gpu.global_tid_x()
    if i < len(y):
        y[i] = helper{k}(a, x[i]) - y[i]
""",
    """
@kernel
def tile{k}(src: Array[f32, 2], dst: Array[f32, 2]):
    tile = gpu.shared_array(f32, (16, 17))
    tx, ty = gpu.thread_idx_x(), gpu.thread_idx_y()
    c, r = gpu.block_idx_x() * 16 + tx, gpu.block_idx_y() * 16 + ty
    if r < src.shape[0] and c < src.shape[1]:
        tile[ty, tx] = src[r, c] * f32({k})
    gpu.syncthreads()
    c2, r2 = gpu.block_idx_y() * 16 + tx, gpu.block_idx_x() * 16 + ty
    if r2 < dst.shape[0] and c2 < dst.shape[1]:
        dst[r2, c2] = tile[tx, ty]
""",
    """
@kernel
def reduce{k}(x: Array[f32], out: Array[f32]):
    i = gpu.global_tid_x()
    v = x[i] * f32({k}) if i < len(x) else f32(0)
    for d in (16, 8, 4, 2, 1):
        v += gpu.shfl_down(v, d)
    if gpu.thread_idx_x() % 32 == 0:
        gpu.atomic_add(out, 0, v)
""",
)


def generated_package(root: Path, kernels: int, per_module: int = 10) -> Path:
    """A project of ``kernels`` generated kernels, ``per_module`` to a module."""
    package = root / "genkernels"
    shutil.rmtree(root, ignore_errors=True)
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    for m in range(0, kernels, per_module):
        body = "\n".join(KINDS[k % len(KINDS)].format(k=k) for k in range(m, min(m + per_module, kernels)))
        (package / f"mod{m // per_module}.py").write_text("from hybrid_runtime import Array, f32, gpu, kernel\n" + body)
    (root / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["hatchling", "hatch-hybrid"]\nbuild-backend = "hatchling.build"\n\n'
        '[project]\nname = "genkernels"\nversion = "0.1"\ndependencies = ["hatch-hybrid-runtime"]\n\n'
        '[tool.hatch.build.targets.wheel]\npackages = ["genkernels"]\n\n'
        "[tool.hatch.build.hooks.hybrid]\ncubin = false\n"
    )
    return root


def build(project: Path, out: Path) -> float:
    from hatchling.builders.wheel import WheelBuilder

    start = time.perf_counter()
    next(WheelBuilder(str(project)).build(directory=str(out), versions=["standard"]))
    return time.perf_counter() - start


def example(args: argparse.Namespace) -> None:
    rows: dict[str, list[float]] = {
        "cold build (empty cache)": [], "rebuild, nothing changed": [], "rebuild, one helper changed": []
    }  # fmt: skip
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


def compile_only(project: Path) -> float:
    """The hook's compilation alone, with its default options (no wheel, no link)."""
    from hatch_hybrid.hook.options import options

    start = time.perf_counter()
    compile_packages([project / "genkernels"], options=options({"cubin": False}, project))
    return time.perf_counter() - start


def generated(args: argparse.Namespace) -> None:
    """One cold build per job count (the zig links of the five CPU targets are cached on the machine
    after the first build)."""
    what = "compiled (no wheel, no link)" if args.compile_only else "built"
    print(f"\n{args.kernels} generated kernels x 3 archs + 5 CPU targets + WGSL, {what} cold (empty kernel cache):")
    first = None
    for jobs in [int(j) for j in args.jobs.split(",")]:
        with tempfile.TemporaryDirectory() as tmp:
            project = generated_package(Path(tmp) / "proj", args.kernels)
            os.environ["HYBRID_CACHE_DIR"] = str(Path(tmp) / "cache")
            os.environ["HYBRID_BUILD_JOBS"] = str(jobs)
            with contextlib.redirect_stdout(io.StringIO()):  # (the hook's line per kernel)
                seconds = compile_only(project) if args.compile_only else build(project, Path(tmp) / "dist")
            first = first or seconds
            print(
                f"  jobs={jobs:<3} {seconds:7.1f} s  ({seconds / args.kernels:.2f} s a kernel, {first / seconds:.2f}x)"
            )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cubin", action="store_true", help="also build cubins (needs ptxas)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--kernels", type=int, help="build a generated package of this many kernels instead")
    parser.add_argument("--jobs", default="1", help="build jobs to time the generated package with (1,2,4...)")
    parser.add_argument("--compile-only", action="store_true", help="time the compilation alone (no hatchling, no zig)")
    args = parser.parse_args()
    if args.kernels:
        generated(args)
    else:
        example(args)


if __name__ == "__main__":
    main()
