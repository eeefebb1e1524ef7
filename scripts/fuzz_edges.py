"""A differential fuzzer of kernels at the edges (issue 22): random kernel bodies over every scalar type,
run on the Python path (the reference) and natively (and on the GPU where there is one), comparing
results bit for bit (any NaN equals any NaN) or the exception (type and kernel line; which thread fails
first, and so the value in the message, is the device's choice).

    python scripts/fuzz_edges.py --count 10000 --seed 1            # generate, build, run here
    python scripts/fuzz_edges.py --count 2000 --build-only DIR     # build into DIR (carry it to a GPU)
    python scripts/fuzz_edges.py --run DIR --devices cpu,cuda      # run what DIR holds

The bodies draw on what the fuzzer of issue 22 found: Python ints from thread indices, comparisons used
as numbers, stores into narrower arrays, Python-float ``**`` and ``%``, ``math`` on extremes, signalling
NaNs, constant and run-time operands of one expression, statements, branches and small loops. Kernels
the compiler refuses are counted (they are build-time errors, one meaning by construction).
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
import types
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "runtime")]

PRELUDE = (
    "import math\nimport numpy as np\n"
    "from hybrid_runtime import kernel, gpu, Array, boolean, f16, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64\n"
)
TYPES = ["boolean", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "f32", "f64"]
INTS = ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"]
FLOATS = ["f16", "f32", "f64"]
MATH1 = ["sqrt", "exp", "exp2", "log", "log2", "sin", "tan", "floor", "trunc", "fabs", "cosh", "gamma", "lgamma"]
ROWS = 64


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
            return f"{r.choice(['-', '~', 'not ', 'abs'])}({x})"
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


def edge_values(dtype: np.dtype, rng: np.random.Generator) -> np.ndarray:
    if dtype.kind == "b":
        return rng.integers(0, 2, ROWS).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        edges = [0, 1, 2, 3, 100, 127, info.max, info.min, info.max - 1] + ([-1, -128] if dtype.kind == "i" else [])
        values = [int(v) for v in rng.integers(int(info.min), int(info.max), ROWS, dtype=dtype, endpoint=True)]
        values[: len(edges)] = edges
        return np.array(values, dtype)
    finfo = np.finfo(dtype)
    edges = [0.0, -0.0, 1.0, -1.0, 0.5, 2.5, np.inf, -np.inf, np.nan, float(finfo.max), float(finfo.tiny) / 4, 300.0]
    out = np.concatenate([np.array(edges, dtype), rng.uniform(-1e3, 1e3, ROWS - len(edges) - 1).astype(dtype), [0]])
    out = out.astype(dtype)
    out.view(f"u{dtype.itemsize}")[-1] = {2: 0x7C01, 4: 0x7F800001, 8: 0x7FF0000000000001}[dtype.itemsize]  # sNaN
    return out


# ------------------------------------------------------------------------------------- build
def typechecks(source: str, root: Path, module: str) -> bool:
    """Whether the compiler accepts the kernel (typing only: fast, and what refuses nearly all that is refused)."""
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
    types = re.findall(r"Array\[(\w+)\]", source)
    try:
        program.specialise(
            program.parsed(FunctionSym(f"fuzzcheck.{module}", "k")), tuple(ArrayT(Scalar(t), 1) for t in types)
        )
    except CompileError:
        return False
    finally:
        (pkg / f"{module}.py").unlink()  # the package holds one module at a time: indexing it stays fast
    return True


PACKAGE = 360  # kernels generated per package (about 200 of them build)


def _starmap(function, work: list[tuple[Any, ...]], jobs: int) -> list[Any]:  # type: ignore[no-untyped-def]
    """``function(*w)`` for each ``w``, ``jobs`` at a time in processes of their own (here when 1)."""
    if jobs <= 1:
        return [function(*w) for w in work]
    import multiprocessing

    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        return pool.starmap(function, work)


def build_package(out: Path, seed: int, start: int, count: int, archs: list[str]) -> tuple[int, int]:
    """Generate kernels ``start .. start+count`` of ``seed``'s sequence, keep those the compiler accepts and
    build them as one package, ``out/fz<seed>_<start>`` (as a wheel's build writes it): (built, refused)."""
    from hybrid_runtime.native import host_target

    from hatch_hybrid.errors import CompileError
    from hatch_hybrid.hook.artifacts import write_package_artifacts
    from hatch_hybrid.pipeline import Options, compile_packages
    from hatch_hybrid.targets.host.link import have_zig

    gen = Gen(random.Random(f"{seed}/{start}"))  # the same kernels however packages are shared out
    scratch = Path(tempfile.mkdtemp())
    batch, refused = {}, 0
    for n in range(start, start + count):
        source = gen.kernel("k")
        if typechecks(source, scratch, f"m{n}"):
            batch[n] = source
        else:
            refused += 1
    shutil.rmtree(scratch)
    target = host_target()
    cpu = [target] if target and have_zig() else []
    pkg = out / f"fz{seed}_{start}"
    while batch:
        shutil.rmtree(pkg, ignore_errors=True)
        pkg.mkdir(parents=True)
        (pkg / "__init__.py").write_text("")
        for n, source in batch.items():
            (pkg / f"m{n}.py").write_text(PRELUDE + source)
        try:
            kernels = compile_packages([pkg], options=Options(archs, cubin=False, cpu=cpu))
        except CompileError as exc:  # refused when lowering: drop that module, build the rest again
            bad = re.search(r"m(\d+)\.py", str(exc))
            if bad is None:
                raise
            del batch[int(bad.group(1))]
            refused += 1
            continue
        write_package_artifacts(kernels, archs, out)
        break
    return len(batch), refused


def build(out: Path, count: int, seed: int, archs: list[str], jobs: int = 1) -> dict[str, int]:
    """``count`` kernels in packages of :data:`PACKAGE`, ``jobs`` packages at a time (one process each)."""
    out.mkdir(parents=True, exist_ok=True)
    work = [(out, seed, start, min(PACKAGE, count - start), archs) for start in range(0, count, PACKAGE)]
    results = _starmap(build_package, work, jobs)
    built, refused = sum(r[0] for r in results), sum(r[1] for r in results)
    (out / "fuzz.json").write_text(json.dumps({"seed": seed, "generated": count, "built": built, "refused": refused}))
    return {"generated": count, "built": built, "refused at build time": refused}


# --------------------------------------------------------------------------------------- run
def outcome(kernel, device: str, args: list[np.ndarray]) -> object:
    args = [a.copy() for a in args]
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            kernel.launch(1, ROWS, *args, device=device)
    except Exception as exc:  # the exception's type, the kernel line it names, and its message
        where = re.search(r"kern\.py:\d+|m\d+\.py:\d+", str(exc))
        return (type(exc).__name__, where.group(0) if where else str(exc)[:200], str(exc)[:300])
    return args[-1]


def failing_lines(kernel, args: list[np.ndarray]) -> set[str]:  # type: ignore[no-untyped-def]
    """The kernel lines at which the Python path fails, row by row (a device reports one failing thread's,
    and which fails first is the device's choice): each row runs as its own thread, on copies."""
    from hybrid_runtime._cpu_state import BlockBarrier, BlockState, ThreadState, set_current
    from hybrid_runtime.python_math import with_ieee_math

    func, file = with_ieee_math(kernel.py_func), kernel.py_func.__code__.co_filename
    arrays, lines = [a.copy() for a in args], set()
    state = ThreadState(bdim=(1, 1, 1), gdim=(ROWS, 1, 1))
    set_current(state)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            for row in range(ROWS):
                state.bid, state.tid, state.block = (row, 0, 0), (0, 0, 0), BlockState(BlockBarrier(1))
                try:
                    func(*arrays)
                except Exception as exc:
                    tb, line = exc.__traceback__, None
                    while tb is not None:
                        line = tb.tb_lineno if tb.tb_frame.f_code.co_filename == file else line
                        tb = tb.tb_next
                    lines.add(f"{Path(file).name}:{line}")
    finally:
        set_current(ThreadState())
    return lines


def last_bits(x: object, y: object, ulps: int = 4) -> bool:
    """Finite floats within ``ulps`` units in the last place (where NaNs and infinities agree exactly)."""
    if not isinstance(x, np.ndarray) or not isinstance(y, np.ndarray) or x.dtype.kind != "f":
        return False
    bits = np.dtype(f"i{x.dtype.itemsize}")
    finite = np.isfinite(x) & np.isfinite(y)
    exact = (np.isnan(x) & np.isnan(y)) | (x == y)
    close = finite & (np.sign(x) == np.sign(y)) & (np.abs(x.view(bits).astype(np.int64) - y.view(bits)) <= ulps)
    return bool(np.all(exact | close))


#: libdevice's functions that may differ from the C library's in the last bits (docs/language.md's table);
#: ``**`` of floats is libdevice's ``pow``
INEXACT = re.compile(
    r"\*\*|math\.(exp|exp2|expm1|log|log2|log10|log1p|sin|cos|tan|asin|acos|atan|atan2|sinh|cosh|tanh|erf|erfc|"
    r"gamma|lgamma|cbrt|pow|hypot)\("
)


def finite_differences(x: object, y: object, relative: float | None = None) -> bool:
    """Results that differ only in rows where both are finite numbers (where last bits of a math function
    can have grown through later arithmetic, ``floor`` or an integer store); NaN against a number, an
    infinity or an exception is never that. ``relative``: float results only, each within that fraction."""
    if not isinstance(x, np.ndarray) or not isinstance(y, np.ndarray):
        return False
    if x.dtype.kind not in "fc":
        return relative is None
    differ = ~((np.isnan(x) & np.isnan(y)) | (x == y))
    a, b = x[differ].astype(np.float64), y[differ].astype(np.float64)
    finite = bool(np.all(np.isfinite(a) & np.isfinite(b)))
    return finite and (relative is None or bool(np.all(np.abs(a - b) <= relative * np.maximum(np.abs(a), np.abs(b)))))


def beyond_64_bits(reference: object) -> bool:
    """The Python path's outcome was a failure storing or converting a Python int beyond 64 bits
    (``(2147483648 + i) ** 3``): a documented difference (docs/language.md, "Known differences"): the
    devices' Python-int arithmetic wraps at 64 bits, Python computes the big integer, which NumPy refuses."""
    if not isinstance(reference, tuple) or reference[0] != "OverflowError":
        return False
    found = re.search(r"Python integer (-?\d+) out of bounds", reference[2])
    return "too large to convert" in reference[2] or (found is not None and abs(int(found.group(1))) >= 2**63)


def complex_power(reference: object) -> bool:
    """The Python path's outcome was a complex number where the kernel expects a real one: a negative Python
    float to a non-integral power is complex in Python, NaN on the devices (docs/language.md says so)."""
    return isinstance(reference, tuple) and reference[0] == "TypeError" and "complex" in str(reference[1])


def same(x: object, y: object) -> bool:
    if isinstance(x, tuple) or isinstance(y, tuple):
        # the same kernel line; the type can differ where rows fail differently (NaN: ValueError, inf:
        # OverflowError), as the first thread to fail is the device's choice
        return isinstance(x, tuple) and isinstance(y, tuple) and x[1] == y[1]
    assert isinstance(x, np.ndarray) and isinstance(y, np.ndarray)
    if x.dtype.kind == "f":
        bits = f"u{x.dtype.itemsize}"
        return bool(np.all((np.isnan(x) & np.isnan(y)) | (x.view(bits) == y.view(bits))))
    return bool(np.array_equal(x, y))


@dataclass
class Verdict:
    """One kernel on the Python path (the reference) and on devices."""

    skipped: bool = False  # a documented difference: platform-defined casts, complex powers
    raised: bool = False  # the Python path raised
    libdevice: int = 0  # devices whose result is libdevice's last bits off the C library's (documented)
    amplified: int = 0  # devices whose finite results differ after libdevice's last bits went through more math
    numpy_pow: int = 0  # native floats within 1e-13 of NumPy's own `**` (its SIMD pow, on AVX-512 CPUs)
    reference: object = None
    diverged: dict[str, object] = field(default_factory=dict)  # device -> its outcome, where it differs


def judge(kernel, args: list[np.ndarray], body: str, devices: list[str]) -> Verdict:  # type: ignore[no-untyped-def]
    """Run ``kernel`` (whose source is ``body``) on the Python path and on ``devices``: the same bits, or a
    failure at a line where some row fails on the Python path too, else a divergence."""
    if platform_defined(kernel, args):
        return Verdict(skipped=True)  # a float out of an integer type's range cast to it: the C compiler's result
    reference = outcome(kernel, "cpu-python", args)
    if complex_power(reference):
        return Verdict(skipped=True)  # a negative Python float to a non-integral power: complex in Python, NaN here
    if beyond_64_bits(reference):
        return Verdict(skipped=True)  # Python-int arithmetic past 64 bits: big on the Python path, wrapped here
    verdict = Verdict(raised=isinstance(reference, tuple), reference=reference)
    for device in devices:
        got = outcome(kernel, device, args)
        if same(reference, got):
            continue
        if isinstance(reference, tuple) and isinstance(got, tuple):
            if got[1] in failing_lines(kernel, args):
                continue  # a thread that fails on the Python path too: the device reported another first
        elif device == "cuda" and INEXACT.search(body) and last_bits(reference, got):
            verdict.libdevice += 1  # libdevice's math: last bits may differ from the C library's (documented)
            continue
        elif device == "cpu" and "**" in body and finite_differences(reference, got, relative=1e-13):
            verdict.numpy_pow += 1  # NumPy's SIMD pow (SVML on AVX-512) on the Python path, C's natively
            continue
        elif device == "cuda" and INEXACT.search(body) and finite_differences(reference, got):
            verdict.amplified += 1  # those last bits, then floored, divided, summed, stored into an integer
            continue
        verdict.diverged[device] = got
    return verdict


def run_package(pkg: Path, devices: list[str]) -> dict[str, Any]:
    """Every kernel of one built package on the Python path and on ``devices``: counts and divergences."""
    from hybrid_runtime.types import SCALAR_DTYPES

    if str(pkg.parent) not in sys.path:
        sys.path.insert(0, str(pkg.parent))
    rng = np.random.default_rng(int(pkg.name.rsplit("_", 1)[1]))  # the same inputs however packages are shared out
    counts: dict[str, Any] = {
        "checked": 0,
        "raised": 0,
        "skipped": 0,
        "libdevice": 0,
        "amplified": 0,
        "numpy_pow": 0,
        "diverged": [],
    }
    for mod in sorted(pkg.glob("m*.py"), key=lambda p: int(p.stem[1:])):
        module = importlib.import_module(f"{pkg.name}.{mod.stem}")
        types = re.findall(r"Array\[(\w+)\]", mod.read_text())
        args = [edge_values(SCALAR_DTYPES[t], rng) for t in types[:2]] + [np.zeros(ROWS, SCALAR_DTYPES[types[2]])]
        body = mod.read_text().split("gpu.global_tid_x()\n", 1)[-1]
        verdict = judge(module.k, args, body, devices)
        if verdict.skipped:
            counts["skipped"] += 1
            continue
        counts["raised"] += verdict.raised
        counts["libdevice"] += verdict.libdevice
        counts["amplified"] += verdict.amplified
        counts["numpy_pow"] += verdict.numpy_pow
        for found in divergences(verdict, args):
            counts["diverged"].append({"kernel": f"{pkg.name}/{mod.name}", **found, "body": body})
        counts["checked"] += 1
    return counts


def run(out: Path, devices: list[str], jobs: int = 1, show: int = 10) -> dict[str, object]:
    """Every package ``out`` holds, ``jobs`` packages at a time (one process each)."""
    packages = sorted(p for p in out.iterdir() if p.is_dir() and p.name.startswith("fz"))
    results = _starmap(run_package, [(p, devices) for p in packages], jobs)
    diverged = [d for r in results for d in r["diverged"]]
    for d in diverged[:show]:
        print(json.dumps(d), file=sys.stderr)
    return {
        "kernels run": sum(r["checked"] for r in results),
        "raised on the Python path": sum(r["raised"] for r in results),
        "skipped (platform-defined casts, complex powers)": sum(r["skipped"] for r in results),
        "GPU math within 4 ulps of the C library's (libdevice)": sum(r["libdevice"] for r in results),
        "GPU math whose last bits grew through later arithmetic (libdevice; finite values)": sum(
            r["amplified"] for r in results
        ),
        "native within 1e-13 of NumPy's own ** (its SIMD pow on AVX-512)": sum(r["numpy_pow"] for r in results),
        "divergences": len(diverged),
        "devices": devices,
    }


class _Watched(np.ndarray):
    """An output array that notes NumPy floats stored out of an unsigned element type's range (NumPy casts
    them as the C compiler does: platform-defined, and not warned about)."""

    cast = False

    def __setitem__(self, key, value):  # type: ignore[no-untyped-def]
        if self.dtype.kind == "u":
            _note_cast(value, np.iinfo(self.dtype))
        super().__setitem__(key, value)


def _note_cast(value: object, info: np.iinfo) -> None:
    """Note a NumPy float that the integer type ``info`` describes cannot hold once truncated (exact
    comparisons: a float32 of 2**64 is out of u64's range)."""
    if isinstance(value, np.floating) and not (np.isfinite(value) and info.min <= float(np.trunc(value)) <= info.max):
        _Watched.cast = True


class _WatchedCast:
    """``i16(x)`` and the like, noting NumPy floats that the integer type cannot hold once truncated (NumPy's
    scalar constructors cast them as the C compiler does, without a warning: ``i16(f64(inf))`` is 0). A
    class, not a function: the Python path rebinds ``int`` and ``math`` in the functions a kernel calls."""

    def __init__(self, convert, info: np.iinfo) -> None:  # type: ignore[no-untyped-def]
        self.convert, self.info = convert, info

    def __call__(self, value):  # type: ignore[no-untyped-def]
        _note_cast(value, self.info)
        return self.convert(value)


def platform_defined(kernel, args: list[np.ndarray]) -> bool:  # type: ignore[no-untyped-def]
    """Whether the Python path converts NaN, inf or an out-of-range NumPy float to an integer: by a cast
    (``u16(x)``, not warned about), in arrays (NumPy warns) or storing into an unsigned array (not warned).
    Runs a copy of the kernel's function whose integer types watch their arguments."""
    from hybrid_runtime import cpu
    from hybrid_runtime.config import LaunchConfig
    from hybrid_runtime.types import SCALAR_DTYPES

    f = kernel.py_func
    watched = {n: _WatchedCast(f.__globals__[n], np.iinfo(SCALAR_DTYPES[n])) for n in INTS if n in f.__globals__}
    copy = types.FunctionType(f.__code__, {**f.__globals__, **watched}, f.__name__, f.__defaults__, f.__closure__)
    _Watched.cast = False
    with warnings.catch_warnings(record=True) as caught, np.errstate(all="ignore", invalid="warn"):
        warnings.simplefilter("always")
        try:
            cpu.run_grid(
                copy, LaunchConfig.make(1, ROWS), [a.copy() for a in args[:-1]] + [args[-1].copy().view(_Watched)]
            )
        except Exception:
            pass
    complex_cast = any(issubclass(w.category, np.exceptions.ComplexWarning) for w in caught)  # a complex power
    return _Watched.cast or complex_cast or any("invalid value encountered in cast" in str(w.message) for w in caught)


def divergences(verdict: Verdict, args: list[np.ndarray]) -> list[dict[str, object]]:
    """Each device's divergence from the Python path: its device, the first differing rows of both results
    and the inputs there."""
    found: list[dict[str, object]] = []
    for device, got in verdict.diverged.items():
        rows = _differing(verdict.reference, got)
        found.append({"device": device, "python": _show(verdict.reference, rows), device: _show(got, rows),
                      "inputs": [_show(a, rows) for a in args[:2]]})  # fmt: skip
    return found


def _show(x: object, rows: list[int]) -> object:
    """``x``'s ``rows`` (an exception as it is)."""
    return x if isinstance(x, tuple) else {k: x[k].item() for k in rows}  # type: ignore[index]


def _differing(x: object, y: object) -> list[int]:
    """The first rows where two results differ (the first 8 when either raised)."""
    if isinstance(x, tuple) or isinstance(y, tuple):
        return list(range(8))
    assert isinstance(x, np.ndarray) and isinstance(y, np.ndarray)
    return [k for k in range(len(x)) if not same(x[k : k + 1], y[k : k + 1])][:8]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--count", type=int, default=1000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--build-only", type=Path)
    p.add_argument("--run", type=Path)
    p.add_argument("--devices", default="cpu")
    p.add_argument("--archs", default="sm_90")
    p.add_argument("--jobs", type=int, default=1, help="packages built or run at once, one process each")
    a = p.parse_args()
    devices = a.devices.split(",")
    started = time.perf_counter()
    if a.run:
        report: dict[str, object] = run(a.run, devices, a.jobs)
    else:
        out = a.build_only or Path(tempfile.mkdtemp(prefix="fuzz"))
        report = build(out, a.count, a.seed, a.archs.split(",") if a.archs else [], a.jobs)
        if not a.build_only:
            report.update(run(out, devices, a.jobs))
    report["seconds"] = round(time.perf_counter() - started, 1)
    print(json.dumps(report))
    return 1 if report.get("divergences") else 0


if __name__ == "__main__":
    sys.exit(main())
