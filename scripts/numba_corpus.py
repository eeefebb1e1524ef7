"""The numba-cuda corpus (``tests/packages/numba_corpus/``): published numba-cuda modules whose only change
is the import line, and what this compiler makes of them.

Each module ``numba_corpus/nNNN_name.py`` holds the published text (``ORIGINAL``), that text with
``numba`` replaced by ``hybrid_runtime`` in its import lines (the port), and a check: ``make_args(rng)``,
``reference(*args)`` (an independent NumPy computation of the outputs) and ``CASE`` (the launch: kernel,
griddim, blockdim, argument names, outputs, tolerances), or a ``run(*args)`` that launches as the
published host code does. Kernels typed at launch get their signatures from the corpus's
``hybrid-signatures.json``, recorded by running each check on the Python path.

Commands (NAMES: module stems, all when none given)::

    python scripts/numba_corpus.py record [NAMES]   # run each check uncompiled; record the signatures
    python scripts/numba_corpus.py build  [NAMES]   # compile each module alone: built or the located error
    python scripts/numba_corpus.py check  [NAMES]   # build, then run each on cpu, cpu-python (and cuda)
    python scripts/numba_corpus.py report           # the shares the issue asks for (import-only, built)
    python scripts/numba_corpus.py expect           # check all, write expected.json (what the tests expect)
    python scripts/numba_corpus.py docs             # the figures and the table in docs/porting-from-numba.md

In: the corpus. Out: a report on stdout (``--json FILE`` too); exit status 1 when a check fails.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import importlib
import json
import os
import re
import shutil
import sys
import tempfile
import traceback
import warnings
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "packages" / "numba_corpus"
PACKAGE = "numba_corpus"
SIGNATURES = CORPUS / "hybrid-signatures.json"
PORT_MARK = "# ---- PORT"
CHECK_MARK = "# ---- CHECK"
IMPORT = re.compile(r"^(\s*)(from|import)\s+numba\b")


def modules(names: list[str] | None = None) -> list[Path]:
    found = sorted((CORPUS / PACKAGE).glob("n[0-9]*.py"))
    if names:
        wanted = {n.removesuffix(".py") for n in names}
        found = [p for p in found if p.stem in wanted]
        missing = wanted - {p.stem for p in found}
        if missing:
            raise SystemExit(f"no such corpus modules: {', '.join(sorted(missing))}")
    return found


def header(path: Path, field: str) -> str:
    """A ``# Field : value`` line of the module's header ('' when absent)."""
    for line in path.read_text(encoding="utf-8").splitlines():
        m = re.match(rf"#\s*{field}\s*:\s*(.*)", line)
        if m:
            return m.group(1).strip()
    return ""


def sections(path: Path) -> tuple[str, str]:
    """(ORIGINAL's text, the port's text): the port is what lies between the PORT and CHECK marks."""
    text = path.read_text(encoding="utf-8")
    m = re.search(r"^ORIGINAL = r'''\n?(.*?)'''", text, re.S | re.M)
    if m is None or PORT_MARK not in text or CHECK_MARK not in text:
        raise ValueError(f"{path.name}: needs ORIGINAL = r'''...''', a {PORT_MARK} line and a {CHECK_MARK} line")
    port = text.split(PORT_MARK, 1)[1].split("\n", 1)[1].split(CHECK_MARK, 1)[0]
    return m.group(1), port


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.strip("\n").splitlines()]


def import_only(path: Path) -> tuple[bool, str]:
    """Is the port the ORIGINAL text with only its numba import lines changed (numba -> hybrid_runtime)?"""
    original, port = sections(path)
    a, b = _lines(original), _lines(port)
    if len(a) != len(b):
        return False, f"the port has {len(b)} lines, the original {len(a)}"
    for i, (old, new) in enumerate(zip(a, b), 1):
        if old == new:
            continue
        if IMPORT.match(old) and new in (
            old.replace("numba", "hybrid_runtime", 1),
            re.sub(r"^(\s*)import numba\b", r"\1import hybrid_runtime as numba", old),
            re.sub(r"^(\s*)import numba\.\w+$", r"\1import hybrid_runtime as numba", old),  # numba.types.int32
        ):
            continue
        return False, f"line {i} differs beyond the import: {old.strip()!r} -> {new.strip()!r}"
    return True, ""


@contextlib.contextmanager
def staged(paths: list[Path]) -> Iterator[Path]:
    """A temporary folder holding package ``numba_corpus`` with only ``paths`` in it."""
    with tempfile.TemporaryDirectory(prefix="numba-corpus-") as tmp:
        root = Path(tmp)
        (root / PACKAGE).mkdir()
        shutil.copy(CORPUS / PACKAGE / "__init__.py", root / PACKAGE / "__init__.py")
        for p in paths:
            shutil.copy(p, root / PACKAGE / p.name)
        yield root


@contextlib.contextmanager
def imported(root: Path, name: str) -> Iterator[ModuleType]:
    """``numba_corpus.<name>`` imported from ``root`` (another ``numba_corpus`` imported before, or its
    manifest looked up before, forgotten first), and forgotten again afterwards."""
    from hybrid_runtime.manifest import package_manifest

    for m in [m for m in sys.modules if m.split(".")[0] == PACKAGE]:
        del sys.modules[m]
    package_manifest.cache_clear()
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module(f"{PACKAGE}.{name}")
    finally:
        sys.path.remove(str(root))
        for m in [m for m in sys.modules if m.split(".")[0] == PACKAGE]:
            del sys.modules[m]


def launch(module: ModuleType, args: list[Any]) -> None:
    """The module's check: its ``run(*args)``, or CASE's kernel at CASE's griddim and blockdim."""
    case = module.CASE
    if hasattr(module, "run"):
        module.run(*args)
        return
    kernel = getattr(module, case["kernel"])
    config = (
        (case["griddim"], case["blockdim"], 0, case["shared"])
        if case.get("shared")
        else (case["griddim"], case["blockdim"])
    )
    kernel[config](*args)


def compare(module: ModuleType, args: list[Any], want: dict[str, Any]) -> None:
    """AssertionError unless the outputs in ``args`` match ``want`` within CASE's tolerances."""
    case = module.CASE
    got = dict(zip(case["args"], args))
    for out in case["outputs"]:
        value = got[out]
        if hasattr(value, "copy_to_host"):
            value = value.copy_to_host()
        _assert_close(np.asarray(value), np.asarray(want[out]), case, f"{module.__name__}: {out}")


def _assert_close(got: np.ndarray, want: np.ndarray, case: dict[str, Any], where: str) -> None:
    """Numbers within CASE's tolerances; records field by field (array fields too)."""
    if got.dtype.names is not None:
        for name in got.dtype.names:
            _assert_close(np.asarray(got[name]), np.asarray(want[name]), case, f"{where}.{name}")
        return
    np.testing.assert_allclose(
        got, want, rtol=case.get("rtol", 0), atol=case.get("atol", 0), equal_nan=True, err_msg=where
    )


class TooSlowForPython(Exception):
    """A check whose published sizes take minutes on the Python path (``CASE["too_slow_for_python"]`` says
    why): it runs natively and on a GPU only."""


def run_check(module: ModuleType, device: str) -> None:
    """Launch ``module``'s check on ``device`` and compare it with its NumPy reference."""
    if device == "cpu-python" and module.CASE.get("too_slow_for_python"):
        raise TooSlowForPython(module.CASE["too_slow_for_python"])
    args = module.make_args(np.random.default_rng(0))
    want = module.reference(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    before = os.environ.get("HYBRID_DEVICE")
    os.environ["HYBRID_DEVICE"] = device
    try:
        launch(module, args)
    finally:
        if before is None:
            del os.environ["HYBRID_DEVICE"]
        else:
            os.environ["HYBRID_DEVICE"] = before
    compare(module, args, want)


def merge_signatures(found: dict[str, list[str]]) -> int:
    """Merge ``found`` into the corpus's hybrid-signatures.json (locked: several writers); new ones."""
    SIGNATURES.touch()
    with open(SIGNATURES, "r+", encoding="utf-8") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        text = f.read()
        known: dict[str, list[str]] = json.loads(text) if text.strip() else {}
        new = 0
        for kernel, sigs in found.items():
            have = known.setdefault(kernel, [])
            for s in sigs:
                if s not in have:
                    have.append(s)
                    new += 1
        f.seek(0)
        f.truncate()
        f.write(json.dumps({k: sorted(v) for k, v in sorted(known.items())}, indent=1) + "\n")
    return new


def record(paths: list[Path]) -> dict[str, str]:
    """Run each check uncompiled on the Python path, recording the signatures of kernels typed at launch."""
    from hybrid_runtime.lazy import RECORD

    results: dict[str, str] = {}
    found: dict[str, list[str]] = {}
    for path in paths:
        with staged([path]) as root, tempfile.TemporaryDirectory() as tmp:
            log = Path(tmp) / "launches.jsonl"
            log.touch()
            os.environ[RECORD] = str(log)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    with imported(root, path.stem) as module:
                        run_check(module, "cpu-python")
                results[path.stem] = "recorded"
            except Exception as e:  # noqa: BLE001 - reported per module
                results[path.stem] = f"failed: {type(e).__name__}: {e}".splitlines()[0][:300]
            finally:
                del os.environ[RECORD]
            for line in log.read_text(encoding="utf-8").splitlines():
                entry = json.loads(line)
                found.setdefault(entry["kernel"], [])
                if entry["signature"] not in found[entry["kernel"]]:
                    found[entry["kernel"]].append(entry["signature"])
    merge_signatures(found)
    return results


def _options(cpu: list[str], wgsl: bool = False) -> Any:
    from hatch_hybrid.cache import KernelCache
    from hatch_hybrid.pipeline import Options
    from hatch_hybrid.record import read

    signatures = read(SIGNATURES)
    return Options(["sm_70", "sm_90"], cubin=False, cache=KernelCache(None), cpu=cpu, wgsl=wgsl, signatures=signatures)


def build_one(path: Path) -> str:
    """'built', or the compiler's located error (or an internal failure) for the module alone."""
    from hatch_hybrid.errors import CompileError
    from hatch_hybrid.pipeline import compile_packages

    with staged([path]) as root:
        try:
            options = _options([])
            compile_packages([root / PACKAGE], options=options)
        except CompileError as e:
            return "refused: " + str(e)
        except Exception:  # noqa: BLE001 - an internal error is a finding
            return "INTERNAL ERROR: " + traceback.format_exc()
        if any(q.startswith(f"{PACKAGE}.{path.stem}.") for q in options.untyped):
            return "refused: kernels typed at launch with no recorded signature: " + ", ".join(options.untyped)
    return "built"


def check(paths: list[Path], devices: list[str]) -> dict[str, str]:
    """Build ``paths`` together (native code for this machine where zig is installed), run each check."""
    from hatch_hybrid.hook.artifacts import write_package_artifacts
    from hatch_hybrid.pipeline import compile_packages

    sys.path.insert(0, str(ROOT / "tests"))
    from conftest import HOST_TARGETS  # type: ignore[import-not-found]

    results: dict[str, str] = {}
    with staged(paths) as root:
        options = _options(HOST_TARGETS, wgsl="wgpu" in devices)
        kernels = compile_packages([root / PACKAGE], options=options)
        write_package_artifacts(kernels, options.archs, root, cache=options.cache, options=options)
        for path in paths:
            outcome = []
            for device in devices:
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("error", category=_slow_path_warning())
                        with imported(root, path.stem) as module:
                            run_check(module, device)
                    outcome.append(f"{device}: ok")
                except TooSlowForPython as e:
                    outcome.append(f"{device}: skipped: {e}")
                except Exception as e:  # noqa: BLE001 - reported per module and device
                    outcome.append(f"{device}: FAILED {type(e).__name__}: {str(e).strip()[:400]}")
            results[path.stem] = "; ".join(outcome)
    return results


def check_all(paths: list[Path], devices: list[str]) -> dict[str, str]:
    """Each module built alone (its refusal, if any), then those that build checked together."""
    outcomes = {p.stem: build_one(p) for p in paths}
    built = [p for p in paths if outcomes[p.stem] == "built"]
    outcomes.update(check(built, devices) if built else {})
    return outcomes


def expect(paths: list[Path]) -> dict[str, str]:
    """Check every module on the CPU devices and write ``expected.json``: "passes", or why not (refused:
    the compiler's located error; fails: what went wrong; changed: a port that is more than the import)."""
    ran = check_all(paths, ["cpu", "cpu-python"])
    expected: dict[str, str] = {}
    for path in paths:
        ok, why = import_only(path)
        outcome = ran[path.stem]
        first = outcome.strip().splitlines()[0] if outcome.strip() else outcome
        if not ok:
            expected[path.stem] = f"changed: {why}"
        elif outcome == "cpu: ok; cpu-python: ok" or outcome.startswith("cpu: ok; cpu-python: skipped: "):
            expected[path.stem] = "passes"
        elif outcome.startswith("refused: kernels typed at launch"):
            expected[path.stem] = "fails: its check does not run uncompiled, so no signature was recorded"
        elif outcome.startswith("refused: "):
            expected[path.stem] = "refused: " + re.sub(r"^.*?\.py:\d+:\d+: error: ", "", first[len("refused: ") :])
        else:
            expected[path.stem] = "fails: " + first[:300]
    (CORPUS / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return expected


def _slow_path_warning() -> type[Warning]:
    from hybrid_runtime import SlowPathWarning

    return SlowPathWarning


def report(paths: list[Path]) -> dict[str, Any]:
    """The corpus's figures from ``expected.json`` (``expect`` writes it): modules, projects, the share that
    passes with the import line as the only change."""
    expected = json.loads((CORPUS / "expected.json").read_text(encoding="utf-8"))
    rows = {p.stem: {"project": header(p, "Project"), "outcome": expected.get(p.stem, "not checked")} for p in paths}
    passing = [r for r in rows.values() if r["outcome"] == "passes"]
    projects = {r["project"].split("(")[0].strip() for r in rows.values()}
    real = [r for r in rows.values() if "(real)" in r["project"]]
    share = f"{len(passing)} of {len(rows)} ({100 * len(passing) / max(len(rows), 1):.0f}%)"
    return {
        "modules": len(rows), "projects": len(projects), "from real projects": len(real),
        "pass with the import line alone": share,
        "real projects' modules that pass": f"{sum(r in passing for r in real)} of {len(real)}", "rows": rows,
    }  # fmt: skip


DOCS = Path(__file__).resolve().parent.parent / "docs" / "porting-from-numba.md"
_TABLE_HEAD = "| module | project | why it does not pass yet |\n| --- | --- | --- |\n"


def write_docs(paths: list[Path]) -> dict[str, Any]:
    """docs/porting-from-numba.md's figures (the share that passes, overall and of the real projects' modules)
    and its table of the modules that do not pass, from ``expected.json``; the table ends the file."""
    figures = report(paths)
    rows = figures.pop("rows")
    passing, total = sum(r["outcome"] == "passes" for r in rows.values()), len(rows)
    percent = f"{100 * passing / max(total, 1):.0f}%"
    text = DOCS.read_text(encoding="utf-8")
    text = re.sub(
        r"\d+ of \d+ published numba-cuda modules\n\(\d+%\)",
        f"{passing} of {total} published numba-cuda modules\n({percent})",
        text,
    )
    text = re.sub(r"\*\*\d+ of \d+ build and pass", f"**{passing} of {total} build and pass", text)
    real = figures["real projects' modules that pass"]
    text = re.sub(
        r"\(\d+%; \d+ of \d+ of the real projects' modules\)",
        f"({percent}; {real} of the real projects' modules)",
        text,
    )
    head = text.index(_TABLE_HEAD) + len(_TABLE_HEAD)
    table = "".join(
        f"| {name} | {row['project']} | {row['outcome'].splitlines()[0]} |\n"
        for name, row in sorted(rows.items())
        if row["outcome"] != "passes"
    )
    DOCS.write_text(text[:head] + table, encoding="utf-8")
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["record", "build", "check", "report", "expect", "docs"])
    parser.add_argument("names", nargs="*")
    parser.add_argument("--devices", default="cpu,cpu-python", help="for check: comma-separated devices")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args(argv)
    paths = modules(args.names)
    if args.command == "record":
        results: Any = record(paths)
    elif args.command == "build":
        results = {p.stem: build_one(p) for p in paths}
    elif args.command == "check":
        results = check_all(paths, args.devices.split(","))
    elif args.command == "expect":
        results = expect(paths)
    elif args.command == "docs":
        results = write_docs(paths)
    else:
        results = report(paths)
    text = json.dumps(results, indent=1)
    print(text)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")
    if args.command == "expect":
        return 0
    if args.command == "report":
        return 0
    values = results.values()
    bad = [v for v in values if "FAILED" in str(v) or "INTERNAL" in str(v) or "refused" in str(v)]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
