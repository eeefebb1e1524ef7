"""Fingerprint the PTX of every kernel the repository ships, to prove a refactoring changed no output.

    python scripts/ptx_identity.py OUT.json              # write {symbol: {arch: sha256(ptx)}}
    python scripts/ptx_identity.py --compare BEFORE.json  # compile again and compare (exit 1 on a difference)
    python scripts/ptx_identity.py --all OUT.json         # also the native objects and the WGSL shaders

``--all`` adds, per kernel, the native CPU objects for x86-64 Linux (every CPU level, and the sanitized
entry) and aarch64 Linux (keys ``cpu:<target>[/<level>]``, before linking: LLVM's objects are
deterministic) and the WGSL shader (key ``wgsl``).

Compiles the packages of ``example_project/*``, ``benchmarks/bench_kernels`` and ``tests/packages/*``
each on its own (as its wheel build would), for the compiler's default archs, without a cache. A
package's imports of the other projects (hybrid_ext uses hybrid_demo and mathlets) are found on a
search path made of all the project folders.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

from hatch_hybrid.pipeline import DEFAULT_ARCHS, Options, compile_packages

ROOT = Path(__file__).resolve().parent.parent
PROJECTS = [*sorted((ROOT / "example_project").iterdir()), ROOT / "benchmarks" / "bench_kernels"]
# (numba_corpus holds published modules some of which are refused by design: test_numba_corpus builds the rest)
PROJECTS += sorted(p for p in (ROOT / "tests" / "packages").iterdir() if p.name != "numba_corpus")


def packages(project: Path) -> list[Path]:
    """The package folders of a project (folders with an ``__init__.py``)."""
    return sorted(p for p in project.iterdir() if (p / "__init__.py").is_file())


def _sha(data: str | bytes) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


def fingerprints(everything: bool = False) -> dict[str, dict[str, str]]:
    search_path = [str(p) for p in PROJECTS if p.is_dir()] + sys.path
    result: dict[str, dict[str, str]] = {}
    for project in PROJECTS:
        if not project.is_dir():
            continue
        cpus = ["x86_64-linux", "aarch64-linux"] if everything else []
        options = Options(list(DEFAULT_ARCHS), cubin=False, cpu=cpus, wgsl=everything)
        for kernel in compile_packages(packages(project), options=options, search_path=search_path):
            if kernel.symbol in result:
                raise SystemExit(f"duplicate kernel symbol {kernel.symbol}")
            found = {arch: _sha(ptx) for arch, ptx in sorted(kernel.codes["ptx"].ptx.items())}
            if kernel.codes.get("cpu") is not None:
                found.update(
                    {f"cpu:{key}": _sha(blob) for key, blob in sorted(kernel.codes.get("cpu").objects.items())}
                )
            if kernel.codes.get("wgsl") is not None:
                found["wgsl"] = _sha(kernel.codes.get("wgsl").source)
            result[kernel.symbol] = found
    return dict(sorted(result.items()))


def compare(before: dict[str, dict[str, str]], after: dict[str, dict[str, str]]) -> list[str]:
    """Every difference between two fingerprint sets, as lines."""
    problems = [f"missing now: {s}" for s in sorted(before.keys() - after.keys())]
    problems += [f"new: {s}" for s in sorted(after.keys() - before.keys())]
    for symbol in sorted(before.keys() & after.keys()):
        if before[symbol] != after[symbol]:
            archs = sorted(
                a for a in before[symbol].keys() | after[symbol].keys() if before[symbol].get(a) != after[symbol].get(a)
            )
            problems.append(f"differs: {symbol} ({', '.join(archs)})")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", nargs="?", type=Path, help="write the fingerprints here")
    parser.add_argument("--compare", type=Path, metavar="FILE", help="compare with fingerprints written before")
    parser.add_argument("--all", action="store_true", help="also the native CPU objects and the WGSL shaders")
    args = parser.parse_args(argv)
    if args.out is None and args.compare is None:
        parser.error("give OUT.json, --compare FILE, or both")
    now = fingerprints(args.all)
    pairs = sum(len(archs) for archs in now.values())
    if args.out is not None:
        args.out.write_text(json.dumps(now, indent=1) + "\n")
        print(f"{len(now)} kernels: {pairs} fingerprints written to {args.out}")
    if args.compare is not None:
        problems = compare(json.loads(args.compare.read_text()), now)
        for line in problems:
            print(line)
        if problems:
            return 1
        what = "PTX, objects, WGSL" if args.all else "PTX"
        print(f"identical: {len(now)} kernels, {pairs} files ({what}) byte-for-byte")
    return 0


if __name__ == "__main__":
    sys.exit(main())
