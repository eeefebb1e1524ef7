"""Run every kernel of the example packages and of the published corpus natively and through Python.

Runs inside the Python under test (``scripts/cross/arm64.sh`` starts it as an arm64 CPython under
qemu-user), with the runtime, NumPy and the installed wheels of hybrid_demo, hybrid_ext, hybrid_sort
and published_kernels importable. Each kernel (each specialisation of a generic one) is launched on
equal inputs with ``device="cpu"`` (its native code, which must come from this CPU's library of the
wheel, ``<package>.<--target>.so``: checked by the library's path and in ``/proc/self/maps``), with
``device="cpu"`` under ``$HYBRID_SANITIZE`` (the sanitized native entries) and with
``device="cpu-python"`` (its Python function over the grid). The outputs must be the same bit for bit
(any NaN equals any NaN), except the elements a published case says depend on the threads' order, and
each must match the case's NumPy reference within its tolerance. ``--save FILE`` writes the native
outputs; ``--against FILE`` also compares them bit for bit with such a file made on another CPU.

Prints one line per kernel and a summary; exits 1 on any mismatch, failure or kernel without native code.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import re
import sys
import time
import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from hybrid_runtime import Kernel, SlowPathWarning
from hybrid_runtime.native import host_target

EXAMPLES = ("hybrid_demo", "hybrid_ext", "hybrid_sort")
CORPUS = "published_kernels"
NATIVE, SANITIZED, PYTHON = "cpu", "cpu+sanitize", "cpu-python"
OTHER_LIBRARY = re.compile(r"/_hybrid/[^/]+\.[a-z0-9_]+-(linux|macos|windows)\.(so|dylib|dll)$")  # in a wheel


@dataclass
class Case:
    """One kernel (specialisation) and how to run it: ``run(device)`` returns its outputs by name."""

    group: str  # "example" or "corpus"
    name: str  # kernel qualname, plus the specialisation or the launch it is
    kernel: Kernel
    variant: int
    run: Callable[[str], dict[str, np.ndarray]]
    want: dict[str, np.ndarray]  # NumPy's (or the example's own CPU code's) answer
    rtol: float = 0.0
    atol: float = 0.0
    any_of: dict[str, dict[int, tuple[float, float]]] = field(default_factory=dict)  # order-dependent elements


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Bit-identical, except that any NaN equals any NaN (tests/conftest.py's rule)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind == "c":  # as its real and imaginary parts
        size = a.dtype.itemsize // 2
        a, b = np.ascontiguousarray(a).view(f"f{size}"), np.ascontiguousarray(b).view(f"f{size}")
    if a.dtype.kind == "f":
        both_nan = np.isnan(a) & np.isnan(b)
        bits = f"u{a.dtype.itemsize}"
        return bool(np.all(both_nan | (np.ascontiguousarray(a).view(bits) == np.ascontiguousarray(b).view(bits))))
    return bool(np.array_equal(a, b))


def _launches(kernel: Kernel, threads: Any, blocks: Any, *args: Any, **extra: Any) -> Callable[[str], None]:
    return lambda device: kernel.launch(threads, blocks, *args, device=device, **extra)


def example_cases() -> list[Case]:
    """The example packages' kernels, on inputs small enough for the Python path under emulation."""
    import hybrid_demo
    import hybrid_ext
    import hybrid_sort
    from hybrid_demo.mandelbrot import render_cpu_threads, render_kernel

    rng = np.random.default_rng(0)
    x = rng.standard_normal(3000).astype(np.float32)
    y = rng.standard_normal(3000).astype(np.float32)
    cases = []

    def saxpy(device: str) -> dict[str, np.ndarray]:
        out = y.copy()
        hybrid_demo.saxpy.launch(256, -(-len(out) // 256), np.float32(2.0), x, out, device=device)
        return {"y": out}

    cases.append(Case("example", "hybrid_demo.saxpy.saxpy", hybrid_demo.saxpy, 0, saxpy, {"y": np.float32(2) * x + y}))
    w, h, it = 96, 64, 60
    cases.append(
        Case(
            "example",
            "hybrid_demo.mandelbrot.mandelbrot_kernel",
            hybrid_demo.mandelbrot_kernel,
            0,
            lambda device: {"out": render_kernel(w, h, it, device=device)},
            {"out": render_cpu_threads(w, h, it, workers=1)},  # the same Complex methods as plain Python
        )
    )
    cases.append(
        Case(
            "example",
            "hybrid_ext.kernels.escape_histogram",
            hybrid_ext.escape_histogram,
            0,
            lambda device: {"counts": hybrid_ext.histogram(w, h, it, device=device)},
            {"counts": np.bincount(render_cpu_threads(w, h, it, workers=1).ravel(), minlength=it + 1).astype(np.int32)},
        )
    )

    def axpby(device: str) -> dict[str, np.ndarray]:
        out = y.copy()
        hybrid_ext.axpby.launch(256, 12, np.float32(2.0), x, np.float32(-0.5), out, device=device)
        return {"y": out}

    want = np.float32(2.0) * x + np.float32(-0.5) * y
    cases.append(Case("example", "hybrid_ext.kernels.axpby", hybrid_ext.axpby, 0, axpby, {"y": want}))

    def blend(device: str) -> dict[str, np.ndarray]:
        out = np.zeros_like(x)
        hybrid_ext.blend.launch(256, 12, x, y, np.float32(0.25), out, device=device)
        return {"out": out}

    want = np.clip(x + (y - x) * np.float32(0.25), -1, 1)
    cases.append(Case("example", "hybrid_ext.kernels.blend", hybrid_ext.blend, 0, blend, {"out": want}))

    sort = hybrid_sort.bitonic
    for dtype in (np.float32, np.uint32, np.int32):
        if dtype is np.float32:
            keys = rng.standard_normal(512).astype(dtype)
        else:
            info = np.iinfo(dtype)
            keys = rng.integers(info.min, info.max, 512, dtype=dtype, endpoint=True)
        variant = sort.bitonic_pass.select_variant((keys, 1, 2, sort.SortOrder.ASCENDING))
        for order in sort.SortOrder:

            def run(device: str, keys: np.ndarray = keys, order: Any = order) -> dict[str, np.ndarray]:
                return {"keys": sort.sort_kernel(keys.copy(), order, device=device)}

            want = np.sort(keys) if order == sort.SortOrder.ASCENDING else np.sort(keys)[::-1]
            name = f"hybrid_sort.bitonic.bitonic_pass[{np.dtype(dtype).name}, {order.name.lower()}]"
            cases.append(Case("example", name, sort.bitonic_pass, variant, run, {"keys": want}))
    return cases


def corpus_cases() -> list[Case]:
    """Each published kernel with its module's CASE, make_args and reference (as tests/test_published.py)."""
    package = importlib.import_module(CORPUS)
    cases = []
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        if not info.name.startswith("k"):
            continue
        module = importlib.import_module(f"{CORPUS}.{info.name}")
        kernel = [v for v in vars(module).values() if isinstance(v, Kernel)][-1]
        spec = module.CASE
        args = module.make_args(np.random.default_rng(0))
        want = module.reference(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
        extra = {"shared_bytes": spec["shared_bytes"]} if spec.get("shared_bytes") else {}

        def run(device: str, module: Any = module, kernel: Kernel = kernel, spec: Any = spec, extra: Any = extra):
            args = module.make_args(np.random.default_rng(0))
            kernel.launch(spec["threads"], spec["blocks"], *args, device=device, **extra)
            got = dict(zip(spec["args"], args))
            return {out: got[out] for out in spec["outputs"]}

        cases.append(
            Case(
                "corpus",
                f"{CORPUS}.{info.name}.{kernel.__name__}",
                kernel,
                kernel.select_variant(tuple(args)),
                run,
                {out: want[out] for out in spec["outputs"]},
                spec.get("rtol", 0),
                spec.get("atol", 0),
                spec.get("any_of", {}),
            )
        )
    return cases


def kernels_of(packages: tuple[str, ...]) -> set[tuple[str, int]]:
    """Every (kernel, specialisation) defined in these packages' modules."""
    found = set()
    for name in packages:
        package = importlib.import_module(name)
        modules = [package] + [
            importlib.import_module(m.name) for m in pkgutil.walk_packages(package.__path__, f"{name}.")
        ]
        for module in modules:
            for value in vars(module).values():
                if isinstance(value, Kernel) and value.qualname.split(".")[0] == name:
                    found |= {(value.qualname, v) for v in range(len(value.variants))}
    return found


def mapped_libraries() -> set[str]:
    """The files mapped into this process (qemu-user shows the emulated process's own mappings)."""
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as f:
            return {line.split(None, 5)[5].strip() for line in f if len(line.split(None, 5)) == 6}
    except OSError:
        return set()


def check(case: Case, target: str, sanitize: bool, python: bool, against: Any, saved: dict[str, np.ndarray]) -> str:
    """Run one case; returns how it matched ("identical", ...) or raises AssertionError saying what differs."""
    code = case.kernel.native_code(case.variant)
    assert code is not None, "no native code"
    library = str(getattr(code.lib, "_name", ""))
    assert library.endswith(f".{target}.so"), f"native code from {library}, not a {target} library"
    runs = {NATIVE: case.run(NATIVE)}
    if sanitize:
        os.environ["HYBRID_SANITIZE"] = "1"
        try:
            runs[SANITIZED] = case.run(NATIVE)
        finally:
            del os.environ["HYBRID_SANITIZE"]
    if python:
        runs[PYTHON] = case.run(PYTHON)
    problems = []
    for device, got in runs.items():
        want = {k: v.copy() for k, v in case.want.items()}
        for out, slots in case.any_of.items():  # elements whose value depends on the threads' order
            for i, (low, high) in slots.items():
                if not low <= got[out][i] < high:
                    problems.append(f"{device}: {out}[{i}] = {got[out][i]} not in [{low}, {high})")
                want[out][i] = got[out][i]
        for out, expected in want.items():
            try:
                np.testing.assert_allclose(got[out], expected, rtol=case.rtol, atol=case.atol, equal_nan=True)
            except AssertionError as exc:
                problems.append(f"{device}: {out} differs from the reference:{str(exc).splitlines()[-1]}")
    native = runs[NATIVE]
    masked = {}
    for out, value in native.items():
        masked[out] = value.copy()
        for i in case.any_of.get(out, {}):
            masked[out][i] = 0
    for device, got in runs.items():
        for out, value in got.items():
            other = value.copy()
            for i in case.any_of.get(out, {}):
                other[i] = 0
            if not same_bits(masked[out], other):
                bad = np.argwhere(masked[out] != other)[:3].tolist()
                problems.append(f"{device} and {NATIVE} differ in {out} (first at {bad})")
    how = "identical" + ("" if python else " (no Python path)")
    for out, value in masked.items():
        key = f"{case.name}:{out}"
        saved[key] = value
        if against is not None:
            if key not in against.files:
                how += "; not in --against"
            elif not same_bits(value, against[key]):
                problems.append(f"{NATIVE}: {out} differs from --against's (another CPU's native code)")
    assert not problems, "; ".join(problems)
    return how + ("; same as --against" if against is not None else "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", default="aarch64-linux", help="the CPU target whose library must run")
    parser.add_argument("--no-python", action="store_true", help="skip the Python path (device='cpu-python')")
    parser.add_argument("--no-sanitize", action="store_true", help="skip the sanitized native entries")
    parser.add_argument("--save", help="write the native outputs to this .npz")
    parser.add_argument("--against", help="compare the native outputs bit for bit with this .npz")
    parser.add_argument("--only", default="", help="run only the kernels whose name contains this")
    args = parser.parse_args(argv)
    warnings.simplefilter("error", SlowPathWarning)  # a Python-path fallback for device="cpu" is a failure

    here = host_target()
    print(f"run_kernels: Python {sys.version.split()[0]} on {os.uname().machine}, host_target() = {here}")
    if here != args.target:
        print(f"FAIL: host_target() is {here}, expected {args.target}")
        return 1
    against = np.load(args.against) if args.against else None
    cases = [c for c in example_cases() + corpus_cases() if args.only in c.name]
    failures, saved, counts = [], {}, {"example": [0, 0], "corpus": [0, 0]}
    for case in cases:
        start = time.perf_counter()
        counts[case.group][0] += 1
        try:
            how = check(case, args.target, not args.no_sanitize, not args.no_python, against, saved)
        except AssertionError as exc:
            failures.append(case.name)
            print(f"MISMATCH {case.name}: {exc}")
            continue
        except Exception:
            failures.append(case.name)
            print(f"ERROR    {case.name}:\n{traceback.format_exc()}")
            continue
        counts[case.group][1] += 1
        print(f"ok       {case.name} ({time.perf_counter() - start:.1f} s): {how}")

    if not args.only:  # every example kernel (specialisation) has a case
        covered = {(c.kernel.qualname, c.variant) for c in cases if c.group == "example"}
        for qualname, variant in sorted(kernels_of(EXAMPLES) - covered):
            failures.append(qualname)
            print(f"MISSING  {qualname} (specialisation {variant}) has no case in {__file__}")
    libraries = sorted({str(c.kernel.native_code(c.variant).lib._name) for c in cases if c.name not in failures})
    mapped = {os.path.realpath(m) for m in mapped_libraries()}
    for library in libraries:
        if mapped and os.path.realpath(library) not in mapped:
            failures.append(library)
            print(f"FAIL     {library} is not mapped into this process")
    for library in sorted(m for m in mapped if OTHER_LIBRARY.search(m) and not m.endswith(f".{args.target}.so")):
        failures.append(library)
        print(f"FAIL     {library}, another CPU target's library, is mapped into this process")
    print(f"native libraries loaded: {', '.join(os.path.basename(lib) for lib in libraries)}")
    if args.save:
        np.savez(args.save, **saved)
    modes = " and ".join([NATIVE] + ([] if args.no_sanitize else [SANITIZED]) + ([] if args.no_python else [PYTHON]))
    for group, (ran, matched) in counts.items():
        kernels = len({(c.kernel.qualname, c.variant) for c in cases if c.group == group})
        print(
            f"summary: {group}: {ran} launches of {kernels} kernels (specialisations) ran ({modes}); "
            f"{matched} matched, {ran - matched} did not"
        )
    if failures:
        print(f"FAILED: {', '.join(dict.fromkeys(failures))}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
