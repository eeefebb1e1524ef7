"""A differential fuzzer of kernels at the edges (issue 22): random kernel bodies over every scalar type,
run on the Python path (the reference) and natively (and on the GPU where there is one), comparing
results bit for bit (any NaN equals any NaN) or the exception (type and kernel line; which thread fails
first, and so the value in the message, is the device's choice).

    python scripts/fuzz_edges.py --count 10000 --seed 1            # generate, build, run here
    python scripts/fuzz_edges.py --count 2000 --build-only DIR     # build into DIR (carry it to a GPU)
    python scripts/fuzz_edges.py --run DIR --devices cpu,cuda      # run what DIR holds
    python scripts/fuzz_edges.py --count 800 --classes barriers,atomics --report out.json

``--count`` kernels are shared out evenly among the ``--classes`` (all by default):

* ``edges``: what the fuzzer of issue 22 found: Python ints from thread indices, comparisons used as
  numbers, stores into narrower arrays, Python-float ``**`` and ``%``, ``math`` on extremes, signalling
  NaNs, constant and run-time operands of one expression, statements, branches and small loops;
* ``barriers``, ``helpers``, ``literals``, ``atomics``: issue 42's classes (``scripts/fuzz_classes.py``):
  values live across barriers and warp calls, views and structs through helpers, Python literals merged
  into every width, atomics at computed indices (compared as final values and multisets).

Kernels the compiler refuses are counted (they are build-time errors, one meaning by construction), and
their messages reported by class and kind, so that ordinary code refused shows.
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import re
import shutil
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "runtime")]
if str(ROOT / "scripts") not in sys.path:  # (imported by the tests too)
    sys.path.insert(0, str(ROOT / "scripts"))

from fuzz_classes import GENERATORS, ROWS, Kernel  # noqa: E402
from fuzz_judge import divergences, judge  # noqa: E402

PRELUDE = (
    "import math\nimport numpy as np\nfrom hybrid_runtime import kernel, gpu, struct, Array, boolean, f16, f32, f64, "
    "i8, i16, i32, i64, u8, u16, u32, u64\n"
)
CLASSES = ["edges", *GENERATORS]
TYPES = ["boolean", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "f32", "f64"]
MATH1 = ["sqrt", "exp", "exp2", "log", "log2", "sin", "tan", "floor", "trunc", "fabs", "cosh", "gamma", "lgamma"]


class Gen:
    """Random expressions and statements over ``a[i]``, ``b[i]`` and the thread index ``i``."""

    def __init__(self, rng: random.Random) -> None:
        self.r = rng

    def leaf(self) -> str:
        r = self.r
        return r.choice(
            [
                "a[i]", "b[i]", "a[i]", "b[i]", "i", "(i - 2)", "(i * 100)", "(i > 1)", "(a[i] > b[i])",
                str(r.choice([0, 1, 2, -1, 3, 100, 300, -129, 2**31, 2**40])),
                repr(r.choice([0.5, -2.5, 0.1, 2.0, 1e300, 1e-310])), r.choice(["math.nan", "math.inf", "-math.inf"]),
                f"{r.choice(TYPES[1:])}({r.choice(['a[i]', 'b[i]', 'i', '1', '-1'])})",
            ]
        )  # fmt: skip

    def expr(self, depth: int = 0) -> str:
        r = self.r
        if depth >= 2 or r.random() < 0.3:
            return self.leaf()
        shape = r.random()
        x, y = self.expr(depth + 1), self.expr(depth + 1)
        if shape < 0.55:
            op = r.choice(["+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^", "+", "*", "%", "**"])
            if op in ("<<", ">>"):  # counts that keep Python ints within 64 bits; NumPy ints by 2**32 and more
                y = r.choice(["1", "3", "(i - 2)", "a[i]", "b[i]", "i64(4294967296)", "i64(1099511627776)", "u8(3)"])
            if op == "**":  # small exponents: a Python int to a huge power is beyond 64 bits (and hours away);
                # a Python int to a negative power found at run time is a float in Python (documented)
                y = r.choice(["2", "3", "-1", "0", "2.5", "0.5", "-2.5", "a[i]", "b[i]", "(i % 3)", "i8(i - 2)"])
            return f"({x} {op} {y})"
        if shape < 0.7:
            return f"math.{r.choice(MATH1)}({x})"
        if shape < 0.8:
            return f"{r.choice(['min', 'max'])}({x}, {y})"
        if shape < 0.87:
            op = r.choice(["-", "~", "not ", "abs"])
            return f"(not ({x}))" if op == "not " else f"{op}({x})"  # `b[i] + not x` is a syntax error
        if shape < 0.94:
            return f"{r.choice(['int', 'float', 'bool'])}({x})"
        return f"{r.choice(TYPES[1:])}({x})"

    def body(self) -> list[str]:
        r = self.r
        lines = []
        shape = r.random()
        if shape < 0.45:
            lines.append(f"o[i] = {self.expr()}")
        elif shape < 0.65:
            lines += [f"t = {self.expr()}", f"o[i] = {self.expr()} if t else {self.expr()}"]
        elif shape < 0.85:
            lines += [f"if {self.expr()}:", f"    o[i] = {self.expr()}", "else:", f"    o[i] = {self.expr()}"]
        else:
            start = r.choice(["0.0", "0", "a[i]", "f64(0)"])
            lines += [
                f"acc = {start}",
                f"for j in range({r.choice([-3, 0])}, {r.choice([1, 3])}):",
                f"    acc = acc + {self.expr().replace('b[i]', 'j')}",
                "o[i] = acc",
            ]
        return lines

    def kernel(self, name: str) -> str:
        r = self.r
        ta, tb, to = r.choice(TYPES), r.choice(TYPES), r.choice(TYPES[1:] + ["f64", "i64", "i8"])
        body = "".join(f"    {line}\n" for line in self.body())
        return (
            f"@kernel\ndef {name}(a: Array[{ta}], b: Array[{tb}], o: Array[{to}]):\n    i = gpu.global_tid_x()\n{body}"
        )

    def spec(self) -> Kernel:
        """The next kernel as the other classes give theirs (one thread per block, 64 blocks)."""
        source = self.kernel("k")
        return Kernel("edges", source, re.findall(r"Array\[(\w+)\]", source))


def generator(kind: str, rng: random.Random, options: dict[str, Any] | None = None) -> Any:
    """The generator of class ``kind``: its ``spec()`` gives the next :class:`Kernel` (``options``: its
    constructor's, such as ``carried`` of ``barriers``)."""
    if kind == "edges":
        return Gen(rng)
    return GENERATORS[kind](rng, **(options or {}))


def edge_values(dtype: np.dtype, rng: np.random.Generator, rows: int = ROWS) -> np.ndarray:
    if dtype.kind == "b":
        return rng.integers(0, 2, rows).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        edges = [0, 1, 2, 3, 100, 127, info.max, info.min, info.max - 1] + ([-1, -128] if dtype.kind == "i" else [])
        values = [int(v) for v in rng.integers(int(info.min), int(info.max), rows, dtype=dtype, endpoint=True)]
        values[: len(edges)] = edges
        return np.array(values, dtype)
    finfo = np.finfo(dtype)
    edges = [0.0, -0.0, 1.0, -1.0, 0.5, 2.5, np.inf, -np.inf, np.nan, float(finfo.max), float(finfo.tiny) / 4, 300.0]
    out = np.concatenate([np.array(edges, dtype), rng.uniform(-1e3, 1e3, rows - len(edges) - 1).astype(dtype), [0]])
    out = out.astype(dtype)
    out.view(f"u{dtype.itemsize}")[-1] = {2: 0x7C01, 4: 0x7F800001, 8: 0x7FF0000000000001}[dtype.itemsize]  # sNaN
    return out


# ------------------------------------------------------------------------------------- build
def refusal(source: str, root: Path, module: str, params: list[str] | None = None) -> str | None:
    """The compiler's message refusing the kernel ``k`` of ``source`` (its array parameters' dtypes
    ``params``, else those its ``Array[...]`` annotations name), or None where it accepts it (typing only:
    fast, and what refuses nearly all that is refused)."""
    from hatch_hybrid.errors import CompileError
    from hatch_hybrid.frontend.discover import FunctionSym, ModuleIndex
    from hatch_hybrid.typecheck.program import Program
    from hatch_hybrid.types import ArrayT, Scalar

    pkg = root / "fuzzcheck"
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text("")
    (pkg / f"{module}.py").write_text(PRELUDE + source)
    index = ModuleIndex()
    index.add_package(pkg)
    program = Program(index)
    types = params if params is not None else re.findall(r"Array\[(\w+)\]", source)
    try:
        program.specialise(
            program.parsed(FunctionSym(f"fuzzcheck.{module}", "k")), tuple(ArrayT(Scalar(t), 1) for t in types)
        )
    except CompileError as exc:
        return exc.message
    finally:
        (pkg / f"{module}.py").unlink()  # the package holds one module at a time: indexing it stays fast
    return None


def typechecks(source: str, root: Path, module: str) -> bool:
    """Whether the compiler accepts the kernel (typing only)."""
    return refusal(source, root, module) is None


def refusal_kind(message: str) -> str:
    """A refusal's message with the code, names and numbers it quotes taken out: one kind of refusal."""
    message = re.sub(r"`[^`]*`", "`…`", message.split("\n")[0])
    message = re.sub(r"'[^']*'", "'…'", message)
    return re.sub(r"-?\b\d[\d.e+]*\b", "N", message)[:160]


PACKAGE = 360  # kernels generated per package (about 200 of them build)


def _starmap(function, work: list[tuple[Any, ...]], jobs: int) -> list[Any]:  # type: ignore[no-untyped-def]
    """``function(*w)`` for each ``w``, ``jobs`` at a time in processes of their own (here when 1)."""
    if jobs <= 1:
        return [function(*w) for w in work]
    import multiprocessing
    import os

    os.environ.setdefault("HYBRID_BUILD_JOBS", "1")  # (each package's build in its process: the pool uses the cores)
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        return pool.starmap(function, work)


def package_name(seed: int, kind: str, start: int) -> str:
    """``fz<seed>_<start>`` for the edge kernels (the names before issue 42), ``fz<seed>_<kind>_<start>``."""
    return f"fz{seed}_{start}" if kind == "edges" else f"fz{seed}_{kind}_{start}"


def build_package(  # type: ignore[no-untyped-def]
    out: Path, seed: int, kind: str, start: int, count: int, archs: list[str], options: dict[str, Any] | None = None
):
    """Generate kernels ``start .. start+count`` of class ``kind`` of ``seed``'s sequence, keep those the
    compiler accepts and build them as one package, ``out/<package_name>`` (as a wheel's build writes it):
    how many built and were refused, the refusals' kinds (a count and the first message and kernel of each)."""
    from hybrid_runtime.native import host_target

    from hatch_hybrid.errors import CompileError
    from hatch_hybrid.hook.artifacts import write_package_artifacts
    from hatch_hybrid.pipeline import Options, compile_packages
    from hatch_hybrid.targets.host.link import have_zig

    started = time.perf_counter()
    key = f"{seed}/{start}" if kind == "edges" else f"{seed}/{kind}/{start}"
    gen = generator(kind, random.Random(key), options)  # the same kernels however packages are shared out
    scratch = Path(tempfile.mkdtemp())
    batch: dict[int, Kernel] = {}
    refusals: dict[str, dict[str, Any]] = {}

    def refused(message: str, spec: Kernel, where: str) -> None:
        found = refusals.setdefault(refusal_kind(message), {"count": 0, "message": message, "kernel": spec.source})
        found["count"] += 1
        found.setdefault("when", where)

    for n in range(start, start + count):
        spec = gen.spec()
        message = refusal(spec.source, scratch, f"m{n}", spec.params)
        if message is None:
            batch[n] = spec
        else:
            refused(message, spec, "typing")
    shutil.rmtree(scratch)
    target = host_target()
    cpu = [target] if target and have_zig() else []
    pkg = out / package_name(seed, kind, start)
    while batch:
        shutil.rmtree(pkg, ignore_errors=True)
        pkg.mkdir(parents=True)
        (pkg / "__init__.py").write_text("")
        for n, spec in batch.items():
            (pkg / f"m{n}.py").write_text(spec.module(PRELUDE))
        try:
            # (the sanitized entries, which the fuzzer never launches, are not built: a third of the time)
            kernels = compile_packages([pkg], options=Options(archs, cubin=False, cpu=cpu, cpu_sanitize=False))
        except CompileError as exc:  # refused when lowering: drop that module, build the rest again
            bad = re.search(r"m(\d+)\.py", str(exc))
            if bad is None:
                raise
            refused(exc.message, batch.pop(int(bad.group(1))), "lowering")
            continue
        write_package_artifacts(kernels, archs, out)
        break
    took = time.perf_counter() - started
    return {"kind": kind, "built": len(batch), "refused": count - len(batch), "refusals": refusals, "seconds": took}


def build(  # type: ignore[no-untyped-def]
    out: Path, count: int, seed: int, archs: list[str], jobs: int = 1, classes: list[str] | None = None,
    options: dict[str, dict[str, Any]] | None = None, package: int = PACKAGE,
):  # fmt: skip
    """``count`` kernels shared out among ``classes`` (all by default) in packages of ``package`` kernels (the
    kernels generated depend on it: a package's are drawn from its seed, class and start), ``jobs`` packages at
    a time (one process each): per class, how many built and were refused, and the refusals (``options``: each
    class's generator's, by class)."""
    classes = classes or CLASSES
    out.mkdir(parents=True, exist_ok=True)
    work = []
    for k, kind in enumerate(classes):
        share = count // len(classes) + (k < count % len(classes))
        mine = (options or {}).get(kind)
        work += [(out, seed, kind, s, min(package, share - s), archs, mine) for s in range(0, share, package)]
    results = _starmap(build_package, work, jobs)
    per: dict[str, dict[str, Any]] = {}
    for result in results:
        mine = per.setdefault(result["kind"], {"generated": 0, "built": 0, "refused at build time": 0, "refusals": {},
                                               "build seconds": 0.0})  # fmt: skip
        mine["generated"] += result["built"] + result["refused"]
        mine["built"] += result["built"]
        mine["refused at build time"] += result["refused"]
        mine["build seconds"] += result["seconds"]
        for what, found in result["refusals"].items():
            known = mine["refusals"].setdefault(what, dict(found, count=0))
            known["count"] += found["count"]
    (out / "fuzz.json").write_text(json.dumps({"seed": seed, "generated": count, "classes": per}, default=str))
    return per


# --------------------------------------------------------------------------------------- run
def arguments(spec: Kernel, rng: np.random.Generator) -> list[np.ndarray]:
    """The kernel's arrays: edge values for its inputs, its outputs zeros or filled as ``spec`` says."""
    from hybrid_runtime.types import SCALAR_DTYPES

    dtypes = [SCALAR_DTYPES[t] for t in spec.params]
    lengths = spec.lengths + [ROWS] * len(dtypes)
    args = [edge_values(dtypes[k], rng, lengths[k]) for k in range(spec.inputs)]
    fill = [0] * spec.inputs + spec.fill + [0] * len(dtypes)
    return args + [np.full(lengths[k], fill[k], dtypes[k]) for k in range(spec.inputs, len(dtypes))]


COUNTS = ["checked", "raised", "skipped", "libdevice", "amplified", "numpy_pow"]


def run_package(pkg: Path, devices: list[str]) -> dict[str, Any]:
    """Every kernel of one built package on the Python path and on ``devices``: counts and divergences."""
    if str(pkg.parent) not in sys.path:
        sys.path.insert(0, str(pkg.parent))
    started = time.perf_counter()
    start = int(pkg.name.rsplit("_", 1)[1])
    # the same inputs however packages are shared out (the edge kernels' as before issue 42)
    rng = np.random.default_rng(start if pkg.name.count("_") == 1 else zlib.crc32(pkg.name.encode()))
    counts: dict[str, Any] = dict.fromkeys(COUNTS, 0)
    counts["diverged"] = []
    for mod in sorted(pkg.glob("m*.py"), key=lambda p: int(p.stem[1:])):
        module = importlib.import_module(f"{pkg.name}.{mod.stem}")
        spec = Kernel.read(mod.read_text())
        counts["kind"] = spec.kind
        args = arguments(spec, rng)
        body = spec.source.split("gpu.global_tid_x()\n", 1)[-1]
        verdict = judge(module.k, args, body, devices, spec)
        if verdict.skipped:
            counts["skipped"] += 1
            continue
        counts["raised"] += verdict.raised
        counts["libdevice"] += verdict.libdevice
        counts["amplified"] += verdict.amplified
        counts["numpy_pow"] += verdict.numpy_pow
        for found in divergences(verdict, args):
            counts["diverged"].append({"kernel": f"{pkg.name}/{mod.name}", "class": spec.kind, **found,
                                       "launch": [spec.threads, spec.blocks], "source": spec.source})  # fmt: skip
        counts["checked"] += 1
    counts["seconds"] = time.perf_counter() - started
    return counts


def run(out: Path, devices: list[str], jobs: int = 1, show: int = 10) -> dict[str, Any]:
    """Every package ``out`` holds, ``jobs`` packages at a time (one process each): per class, counts and
    divergences (the first ``show`` printed)."""
    packages = sorted(p for p in out.iterdir() if p.is_dir() and p.name.startswith("fz"))
    results = [r for r in _starmap(run_package, [(p, devices) for p in packages], jobs) if "kind" in r]
    per: dict[str, dict[str, Any]] = {}
    for r in results:
        mine = per.setdefault(r["kind"], {**dict.fromkeys(COUNTS, 0), "run seconds": 0.0, "diverged": []})
        for what in COUNTS:
            mine[what] += r[what]
        mine["run seconds"] += r["seconds"]
        mine["diverged"] += r["diverged"]
    for d in [d for mine in per.values() for d in mine["diverged"]][:show]:
        print(json.dumps(d, default=str), file=sys.stderr)
    return per


NAMES = {
    "checked": "kernels run",
    "raised": "raised on the Python path",
    "skipped": "skipped (platform-defined casts, complex powers)",
    "libdevice": "GPU math within 4 ulps of the C library's (libdevice)",
    "amplified": "GPU math whose last bits grew through later arithmetic (libdevice; finite values)",
    "numpy_pow": "native within 1e-13 of NumPy's own ** (its SIMD pow on AVX-512)",
}


def summary(per: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Per class: the counts under their names, the divergences' number, the refusals' kinds by count (the
    commonest first) and kernels per second (built or refused, and run); and the totals."""
    out: dict[str, Any] = {}
    for kind, mine in per.items():
        shown = {NAMES.get(k, k): v for k, v in mine.items() if k not in ("diverged", "refusals")}
        if "diverged" in mine:  # (run)
            shown["divergences"] = len(mine["diverged"])
        refusals = sorted(mine.get("refusals", {}).items(), key=lambda kv: -kv[1]["count"])
        shown["refusals"] = {what: found["count"] for what, found in refusals}
        seconds = mine.get("build seconds", 0.0) + mine.get("run seconds", 0.0)
        if seconds and mine.get("generated"):
            shown["kernels per second"] = round(mine["generated"] / seconds, 2)
        out[kind] = shown
    out["divergences"] = sum(v.get("divergences", 0) for v in out.values())
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--count", type=int, default=1000, help="kernels, shared out evenly among the classes")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--classes", default=",".join(CLASSES), help=f"generator classes, of {','.join(CLASSES)}")
    p.add_argument("--carried", help="what barriers carries across meeting points, of scalar,view,tuple,struct")
    p.add_argument("--build-only", type=Path)
    p.add_argument("--run", type=Path)
    p.add_argument("--devices", default="cpu")
    p.add_argument("--archs", default="sm_90")
    p.add_argument("--jobs", type=int, default=1, help="packages built or run at once, one process each")
    p.add_argument("--package", type=int, default=PACKAGE, help="kernels per package (smaller: more parallel)")
    p.add_argument("--report", type=Path, help="write every divergence and every kind of refusal (JSON) here")
    a = p.parse_args()
    devices = a.devices.split(",")
    classes = a.classes.split(",")
    unknown = set(classes) - set(CLASSES)
    if unknown:
        p.error(f"unknown classes {sorted(unknown)}: choose among {','.join(CLASSES)}")
    started = time.perf_counter()
    per: dict[str, dict[str, Any]] = {}
    if a.run:
        built = a.run / "fuzz.json"  # what the build counted and refused, by class
        per = json.loads(built.read_text()).get("classes", {}) if built.exists() else {}
        for kind, mine in run(a.run, devices, a.jobs).items():
            per.setdefault(kind, {}).update(mine)
    else:
        out = a.build_only or Path(tempfile.mkdtemp(prefix="fuzz"))
        options = {"barriers": {"carried": tuple(a.carried.split(","))}} if a.carried else None
        archs = a.archs.split(",") if a.archs else []
        per = build(out, a.count, a.seed, archs, a.jobs, classes, options, a.package)
        if not a.build_only:
            for kind, mine in run(out, devices, a.jobs).items():
                per[kind].update(mine)
    report = summary(per)
    report["devices"], report["seconds"] = devices, round(time.perf_counter() - started, 1)
    if a.report:
        details = {kind: {"divergences": mine.get("diverged", []), "refusals": mine.get("refusals", {})}
                   for kind, mine in per.items()}  # fmt: skip
        a.report.write_text(json.dumps({"summary": report, **details}, indent=1, default=str))
    print(json.dumps(report))
    return 1 if report["divergences"] else 0


if __name__ == "__main__":
    sys.exit(main())
