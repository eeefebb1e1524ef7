"""How many kernels that build for CUDA also get a WebGPU shader, and why the others do not (issue 43's
target: >= 90% of the published kernels and the test suite's packages).

Compiles, without the native target, ``tests/packages/published/published_kernels``, the test suite's
packages (``kernlib``, ``numba_port``, ``numba_ports``), the example project and each numba-corpus module
alone (a refused module is left out: it builds for no target), and counts the kernels whose WGSL was
built, grouping the rest by the compiler's reason.

    python scripts/wgsl_coverage.py [--list] [--json FILE]

In: the packages above. Out: the counts and reasons on stdout; exit status 0.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

PACKAGES = {
    "published": [ROOT / "tests/packages/published/published_kernels"],
    "kernlib": [ROOT / "tests/packages/kernlib/kernlib"],
    "numba_port": [ROOT / "tests/packages/numba_port/numba_port"],
    "numba_ports": [ROOT / "tests/packages/numba_ports/numba_ports"],
    "example": [p for p in sorted((ROOT / "example_project").glob("*/*")) if (p / "__init__.py").exists()],
}


def _options() -> object:
    from hatch_hybrid.cache import KernelCache
    from hatch_hybrid.pipeline import Options
    from hatch_hybrid.record import read

    signatures = read(ROOT / "tests/packages/numba_corpus/hybrid-signatures.json")
    return Options(["sm_90"], cubin=False, cache=KernelCache(None), wgsl=True, signatures=signatures)


def _kernels(group: str, paths: list[Path]) -> list[tuple[str, str | None]]:
    """(qualified name, why it has no shader or None) of every kernel the group builds."""
    from hatch_hybrid.errors import CompileError
    from hatch_hybrid.pipeline import compile_packages

    try:
        built = compile_packages(paths, options=_options())  # type: ignore[arg-type]
    except CompileError as e:
        print(f"{group}: refused: {str(e).splitlines()[0]}", file=sys.stderr)
        return []
    return [(f"{k.decl.qualname}{k.variant or ''}", k.not_built.get("wgsl")) for k in built]


def _corpus() -> list[tuple[str, str | None]]:
    import numba_corpus as corpus  # scripts/numba_corpus.py

    found: list[tuple[str, str | None]] = []
    for path in corpus.modules():
        with corpus.staged([path]) as root:
            found += _kernels(f"corpus {path.stem}", [root / corpus.PACKAGE])
    return found


def _reason_class(why: str) -> str:
    """The reason without the names of the kernel's locals and places (to count alike reasons together)."""
    why = re.sub(r"`[^`]*`", "`_`", why.split(": `")[0] if ": `" in why else why)
    return re.sub(r"\s*\(?[\w/.-]+\.py:\d+(:\d+)?\)?", "", why).strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--list", action="store_true", help="every kernel without a shader, with its reason")
    parser.add_argument("--json", type=Path, help="write {kernel: reason or null} here")
    args = parser.parse_args()
    results: dict[str, list[tuple[str, str | None]]] = {g: _kernels(g, p) for g, p in PACKAGES.items()}
    results["corpus"] = _corpus()
    total = shaded = 0
    reasons: Counter[str] = Counter()
    for group, kernels in results.items():
        have = sum(why is None for _, why in kernels)
        print(f"{group:12} {have:4} of {len(kernels):4} kernels have a WebGPU shader")
        total += len(kernels)
        shaded += have
        for name, why in kernels:
            if why is not None:
                reasons[_reason_class(why)] += 1
                if args.list:
                    print(f"    {name}: {why}")
    print(f"{'all':12} {shaded:4} of {total:4} ({100 * shaded / max(total, 1):.0f}%)")
    for why, n in reasons.most_common():
        print(f"  {n:4}  {why}")
    if args.json:
        args.json.write_text(json.dumps({n: w for ks in results.values() for n, w in ks}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
