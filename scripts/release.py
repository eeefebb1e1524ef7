"""Build both distributions for release into ``dist/``, in one command:

    python scripts/release.py [--out dist]

For hatch-hybrid-runtime (``runtime/``) and hatch-hybrid (the repository root): an sdist and a wheel
from the source tree, then a wheel rebuilt from the unpacked sdist, which must be byte-identical to the
first (an sdist that rebuilds into the same wheel); both versions must be the one version; then
``twine check`` on everything. Builds use this environment's hatchling (no network: ``--no-isolation``).
Exits non-zero, saying why, on any difference.
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROJECTS = {"hatch-hybrid-runtime": ROOT / "runtime", "hatch-hybrid": ROOT}


def build(project: Path, kind: str, out: Path) -> Path:
    """One sdist or wheel of ``project`` into ``out``; its path."""
    before = set(out.glob("*"))
    done = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", f"--{kind}", "--outdir", str(out), str(project)],
        capture_output=True,
        text=True,
    )
    if done.returncode:
        raise SystemExit(f"release: building the {kind} of {project} failed:\n{done.stdout}{done.stderr}")
    [made] = set(out.glob("*")) - before
    return made


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def release(out: Path) -> list[str]:
    """Build everything into ``out``; the problems found (empty: ready to upload)."""
    problems = []
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    versions = set()
    for name, project in PROJECTS.items():
        sdist, wheel = build(project, "sdist", out), build(project, "wheel", out)
        versions.add(wheel.name.split("-")[1])
        with tempfile.TemporaryDirectory() as tmp:
            with tarfile.open(sdist) as tar:
                tar.extractall(tmp, filter="data")
            [unpacked] = Path(tmp).iterdir()
            again = build(unpacked, "wheel", Path(tmp) / "wheel")
            if again.name != wheel.name or digest(again) != digest(wheel):
                problems.append(f"{name}: the wheel rebuilt from {sdist.name} differs from {wheel.name}")
        sizes = f"{sdist.stat().st_size // 1024} KiB, {wheel.stat().st_size // 1024} KiB"
        print(f"{name}: {sdist.name}, {wheel.name} ({sizes})")
    if len(versions) != 1:
        problems.append(f"the distributions have different versions: {', '.join(sorted(versions))}")
    twine = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", *map(str, sorted(out.iterdir()))],
        capture_output=True,
        text=True,
    )
    if twine.returncode:
        problems.append(f"twine check failed:\n{twine.stdout}{twine.stderr}")
    return problems


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=ROOT / "dist")
    problems = release(p.parse_args().out.resolve())
    for problem in problems:
        print(f"release: {problem}", file=sys.stderr)
    if not problems:
        print("release: sdists rebuild into identical wheels; twine check passed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
