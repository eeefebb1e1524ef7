"""Run every kernel entry of the published corpus's x86_64-windows DLL under wine, and compare what it
computes with the x86_64-linux library's results bit for bit (issue 43: Windows has no CPython here,
so the launches are recorded on Linux and replayed by a small Windows program).

1. Builds ``tests/packages/published/published_kernels`` for x86_64-linux and x86_64-windows (kernel cache
   in ``.cross/kernel-cache``, output in ``.cross/replay/``).
2. Records: runs each corpus kernel through the real runtime on Linux (``device="cpu"``, the test's
   arguments, ``$HYBRID_CPU_THREADS`` = 4) with the pool's launch function wrapped, so that each
   launch's job (``hybrid_job`` of ``pool.c``: entry, flattened parameters, launch words, blocks,
   chunk, participants, block memory's stride) is read back, the parameters that are addresses
   matched to the argument buffers, and the buffers' inputs kept. The same job is then run on Linux
   with the entry of each CPU level this machine has (baseline, ``__v3``, ``__v4``), twice each (a
   result that differs between the two runs depends on the threads' order), keeping the outputs.
3. Replays: ``replay.c`` (built by zig for x86_64-windows, kernel32 only) LoadLibrary's the DLL, checks
   with GetProcAddress that every kernel entry (each level, the sanitized ones) and the pool's
   functions are exported, starts the pool's workers on threads of their own and runs every recorded
   job with each level's entry through ``hybrid_pool1_launch``, writing the buffers back.
4. Compares: each buffer (inputs included) bit for bit with Linux's for the same entry. Two causes of a
   difference are accepted, each only where the corpus test's own check (tests/test_published.py,
   against the NumPy reference) passes: results that differ between the two Linux runs (or that
   the test allows several of, ``any_of``): the threads' order; and kernels that call the C
   library's math (exp, log, ...), which on Windows is ucrtbase's (wine's here), not glibc's, and
   rounds differently by an ulp on some arguments. Anything else is reported WRONG.

Needs wine (``scripts/cross/setup.sh``). Exit status 0 when every name was exported and every entry
ran and matched. Not covered: the Python runtime on Windows (ctypes loading the DLL, the manifest,
cpu_levels' Windows branch, Python threads as the workers), launches of sanitized entries (resolved,
not run), cooperative launches (the corpus has none), printing kernels (none), Microsoft's own
ucrtbase and kernel32 (wine's stand in for them).
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import importlib
import json
import os
import shutil
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from numpy.lib.array_utils import byte_bounds

ROOT = Path(__file__).resolve().parents[2]
CROSS = ROOT / ".cross"
CORPUS = ROOT / "tests" / "packages" / "published" / "published_kernels"
HERE = Path(__file__).resolve().parent
TARGETS = ["x86_64-linux", "x86_64-windows"]
MAGIC = int.from_bytes(b"HYBRIDRJ", "little")
THREADS = "4"  # $HYBRID_CPU_THREADS of the recording: launches of up to 4 participants (3 workers)

sys.path[:0] = [str(ROOT), str(ROOT / "runtime")]

from hatch_hybrid.cache import KernelCache  # noqa: E402
from hatch_hybrid.hook.artifacts import write_package_artifacts  # noqa: E402
from hatch_hybrid.pipeline import Options, compile_packages  # noqa: E402
from hatch_hybrid.targets.host import pool as pool_c  # noqa: E402


def log(*what: object) -> None:
    print(*what, flush=True)


def build(out: Path) -> Path:
    """The corpus compiled for Linux and Windows under ``out``, as its wheel installs it."""
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    shutil.copytree(CORPUS, out / CORPUS.name)
    cache = KernelCache(CROSS / "kernel-cache")
    options = Options(["sm_70"], cubin=False, cpu=TARGETS, cache=cache)
    kernels = compile_packages([out / CORPUS.name], options=options)
    write_package_artifacts(kernels, ["sm_70"], out, cache=cache)
    libm = {
        k.symbol: k.codes.get("cpu").libm for k in kernels if k.codes.get("cpu") is not None
    }  # the C runtime's functions it calls
    (out / "libm.json").write_text(json.dumps(libm, indent=1))
    return out / CORPUS.name / "_hybrid"


def manifest_names(manifest: dict[str, Any], target: str) -> tuple[dict[str, str], list[str]]:
    """(every kernel's baseline symbol by qualified name, every name the library must export)."""
    levels = manifest["cpu_levels"].get(target, [])
    symbols: dict[str, str] = {}
    names = list(pool_c.EXPORTS)
    for qualname, entry in manifest["kernels"].items():
        for variant in entry.get("variants", [entry]):
            cpu = variant["cpu"]
            symbols.setdefault(qualname, cpu["symbol"])
            names += [cpu["symbol"], *(f"{cpu['symbol']}__{level}" for level in levels)]
            if cpu.get("sanitize"):
                names.append(cpu["sanitize"]["symbol"])
    return symbols, names


class Recorder:
    """Wraps the pool's launch: each launch is read back, run with every level's entry, and kept."""

    def __init__(self, lib: ctypes.CDLL, symbols: dict[str, str], suffixes: list[str]) -> None:
        from hybrid_runtime import native_plan

        self.plan = native_plan
        self.suffixes = suffixes
        self.address = {}  # entry address -> (baseline symbol, suffix): every level's, whichever the runtime takes
        for symbol in symbols.values():
            for suffix in ["", "__v3", "__v4"]:
                if not hasattr(lib, symbol + suffix):
                    continue
                fn = getattr(lib, symbol + suffix)
                self.address[ctypes.cast(fn, ctypes.c_void_p).value] = (symbol, suffix)
        self.args: list[Any] = []
        self.jobs: list[dict[str, Any]] = []
        self.real: Any = None

    def __call__(self, job: int) -> int:
        p = self.plan
        entry, params, words_at, nwords, relative, blocks, chunk, participants, memory, stride = p.JOB.unpack(
            ctypes.string_at(job, p.JOB.size)
        )
        symbol, _ = self.address[entry]
        slots = (params - job - p.VALUES_AT) // 8
        values = struct.unpack(f"<{slots}q", ctypes.string_at(job + p.VALUES_AT, 8 * slots))
        words = list(struct.unpack(f"<{nwords}q", ctypes.string_at(words_at, 8 * nwords)))
        kinds = [0] * nwords
        assert words[p.WORD["error"]] == job + p.ERROR_AT
        kinds[p.WORD["error"]] = 1
        for name in ("print", "sanitizer", "grid_barrier"):  # none in the corpus: the replay does not make them
            assert words[p.WORD[name]] == 0 or relative >> p.WORD[name] & 1, (symbol, name)
        regions = _regions([a for a in self.args if isinstance(a, np.ndarray)])
        slot_of = []
        for v in values:  # an address inside an argument's buffer, else a plain value
            where = next(((r, v - lo) for r, (lo, hi) in enumerate(regions) if lo <= v < hi or v == lo), None)
            slot_of.append(where if where is not None else (-1, v))
        inputs = [ctypes.string_at(lo, hi - lo) for lo, hi in regions]

        def run(address: int) -> tuple[int, bytes, list[bytes]]:
            for (lo, _), data in zip(regions, inputs):
                ctypes.memmove(lo, data, len(data))
            ctypes.memmove(job + p.ERROR_AT, bytes(32), 32)
            struct.pack_into("<q", (ctypes.c_char * 8).from_address(job), 0, address)
            status = self.real(job)
            error = ctypes.string_at(job + p.ERROR_AT, 32)
            return status, error, [ctypes.string_at(lo, hi - lo) for lo, hi in regions]

        outputs = {}
        for suffix in self.suffixes:
            address = next(a for a, (s, x) in self.address.items() if s == symbol and x == suffix)
            outputs[suffix] = (run(address), run(address))
        status = run(entry)[0]  # the launch the runtime asked for, last: its arguments hold its results
        self.jobs.append(
            dict(
                symbol=symbol,
                blocks=blocks,
                chunk=chunk,
                participants=participants,
                stride=stride,
                relative=relative,
                words=words,
                kinds=kinds,
                slots=slot_of,
                regions=regions,
                inputs=inputs,
                outputs=outputs,
                args=list(self.args),
            )
        )
        return status


def _regions(arrays: list[np.ndarray]) -> list[tuple[int, int]]:
    """The memory the arrays' elements lie in, overlapping spans merged."""
    spans = sorted(byte_bounds(a) for a in arrays if a.size)
    merged: list[list[int]] = []
    for lo, hi in spans:
        if merged and lo <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    return [(lo, hi) for lo, hi in merged]


def record(directory: Path, suffixes: list[str]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Each corpus kernel launched once on Linux, as tests/test_published.py launches it."""
    os.environ["HYBRID_CPU_THREADS"] = THREADS
    from hybrid_runtime import native_pool
    from hybrid_runtime.kernel import Kernel

    sys.path.insert(0, str(directory.parent.parent))
    manifest = json.loads((directory / "manifest.json").read_text())
    symbols, _ = manifest_names(manifest, "x86_64-linux")
    recorder: Recorder | None = None
    cases: dict[str, Any] = {}
    for path in sorted(CORPUS.glob("k*.py")):
        module = importlib.import_module(f"{CORPUS.name}.{path.stem}")
        kernel = [v for v in vars(module).values() if isinstance(v, Kernel)][-1]
        if recorder is None:
            code = kernel.native_code()
            assert code is not None, "no native code for this machine"
            pool = native_pool.current()
            assert pool is not None
            recorder = Recorder(code.lib, symbols, suffixes)
            recorder.real, pool.launch = pool.launch, recorder
        case = module.CASE
        args = module.make_args(np.random.default_rng(0))
        recorder.args = args
        extra = {"shared_bytes": case["shared_bytes"]} if case.get("shared_bytes") else {}
        before = len(recorder.jobs)
        kernel.launch(case["threads"], case["blocks"], *args, device="cpu", **extra)
        assert len(recorder.jobs) == before + 1, f"{path.stem}: {len(recorder.jobs) - before} pool launches"
        cases[recorder.jobs[-1]["symbol"]] = module
    assert recorder is not None
    return recorder.jobs, cases


def write_jobs(path: Path, jobs: list[dict[str, Any]], names: list[str], suffixes: list[str]) -> None:
    out = bytearray()

    def word(*values: int) -> None:
        out.extend(struct.pack(f"<{len(values)}q", *values))

    def blob(data: bytes) -> None:
        word(len(data))
        out.extend(data + bytes(-len(data) % 8))

    word(MAGIC, 1, len(jobs), len(names))
    for name in names:
        blob(name.encode())
    word(max(j["participants"] for j in jobs) - 1)  # workers
    for j in jobs:
        blob(j["symbol"].encode())
        word(len(suffixes))
        for suffix in suffixes:
            blob(suffix.encode())
        word(j["blocks"], j["chunk"], j["participants"], j["stride"], j["relative"], len(j["words"]))
        word(*j["words"])
        word(*j["kinds"])
        word(len(j["slots"]))
        for region, value in j["slots"]:
            word(region, value)
        word(len(j["inputs"]))
        for data in j["inputs"]:
            blob(data)
    path.write_bytes(bytes(out))


def read_results(path: Path, jobs: list[dict[str, Any]], suffixes: list[str]) -> list[dict[str, Any]]:
    data = path.read_bytes()
    at = 0
    results = []
    for j in jobs:
        got = {}
        for suffix in suffixes:
            (status,) = struct.unpack_from("<q", data, at)
            error = data[at + 8 : at + 40]
            at += 40
            buffers = []
            for lo, hi in j["regions"]:
                buffers.append(data[at : at + hi - lo])
                at += hi - lo + (-(hi - lo) % 8)
            got[suffix] = (status, error, buffers)
        results.append(got)
    assert at == len(data), (at, len(data))
    return results


def wine() -> list[str]:
    for candidate in ("wine64", "/usr/lib/wine/wine64", "wine"):
        found = shutil.which(candidate)
        if found:
            return [found]
    raise SystemExit("wine is not installed: run scripts/cross/setup.sh")


def winpath(path: Path) -> str:
    return "Z:" + str(path.resolve()).replace("/", "\\")


def build_harness(work: Path) -> Path:
    zig = [sys.executable, "-m", "ziglang", "cc", "-target", "x86_64-windows-gnu"]
    flags = ["-O2", "-ffreestanding", "-fno-builtin", "-fno-stack-protector", "-Wall", "-Wextra", "-Werror"]
    subprocess.run([*zig, *flags, "-c", str(HERE / "replay.c"), "-o", str(work / "replay.o")], check=True)
    link = ["-nostdlib", "-Wl,--entry,mainCRTStartup", "-Wl,--subsystem,console", "-lkernel32"]
    subprocess.run([*zig, str(work / "replay.o"), *link, "-o", str(work / "replay.exe")], check=True)
    return work / "replay.exe"


def wine_env() -> dict[str, str]:
    env = dict(os.environ, WINEPREFIX=str(CROSS / "wine"), WINEDEBUG="-all", WINEDLLOVERRIDES="mscoree,mshtml=")
    return env


def arrays_of(job: dict[str, Any], buffers: list[bytes]) -> list[Any]:
    """The launch's arguments, their arrays read from ``buffers`` (one per region of the job)."""
    out: list[Any] = []
    for a in job["args"]:
        if not isinstance(a, np.ndarray):
            out.append(a)
            continue
        lo = byte_bounds(a)[0]
        r = next(k for k, (rlo, rhi) in enumerate(job["regions"]) if rlo <= lo < rhi or lo == rlo)
        base = np.frombuffer(bytearray(buffers[r]), np.uint8)
        start = a.__array_interface__["data"][0] - job["regions"][r][0]
        out.append(np.lib.stride_tricks.as_strided(base[start:].view(a.dtype), a.shape, a.strides).copy())
    return out


def ulps(a: np.ndarray, b: np.ndarray) -> int:
    """The largest distance in units in the last place between two float arrays' elements (0: equal bits)."""
    unsigned = {2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize]
    sign = unsigned(1) << unsigned(8 * a.dtype.itemsize - 1)
    x, y = (v.view(unsigned) for v in (a.ravel(), b.ravel()))
    x, y = (np.where(v & sign, ~v, v | sign) for v in (x, y))  # the floats' order as unsigned integers
    return int(np.max(np.maximum(x, y) - np.minimum(x, y), initial=0))


def differences(job: dict[str, Any], windows: list[bytes], linux: list[bytes], names: list[str]) -> str:
    """Which arguments differ, and by how much."""
    parts = []
    for name, w, lx in zip(names, arrays_of(job, windows), arrays_of(job, linux)):
        if isinstance(w, np.ndarray) and w.tobytes() != lx.tobytes():
            n = int(np.count_nonzero(w.view(np.uint8) != lx.view(np.uint8)) if w.dtype.kind != "f" else (w != lx).sum())
            ulp = f", at most {ulps(w, lx)} ulp" if w.dtype.kind == "f" else ""
            parts.append(f"{name}: {n} of {w.size} elements{ulp}")
    return "; ".join(parts)


def reference_ok(module: Any, job: dict[str, Any], buffers: list[bytes]) -> str | None:
    """The corpus test's own check (tests/test_published.py) of the replay's outputs; None when it passes."""
    got_args = arrays_of(job, buffers)
    case = module.CASE
    fresh = module.make_args(np.random.default_rng(0))
    want = module.reference(*[a.copy() if isinstance(a, np.ndarray) else a for a in fresh])
    got = dict(zip(case["args"], got_args))
    try:
        for out, slots in case.get("any_of", {}).items():
            for i, (low, high) in slots.items():
                assert low <= got[out][i] < high, (out, i, got[out][i])
                want[out][i] = got[out][i]
        for out in case["outputs"]:
            np.testing.assert_allclose(
                got[out], want[out], rtol=case.get("rtol", 0), atol=case.get("atol", 0), equal_nan=True, err_msg=out
            )
    except AssertionError as exc:
        return str(exc)[:500]
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="reuse .cross/replay/ if built before")
    options = parser.parse_args()
    work = CROSS / "replay"
    work.mkdir(parents=True, exist_ok=True)
    started = time.time()
    directory = work / "corpus" / CORPUS.name / "_hybrid"
    if not (options.keep and (directory.parent.parent / "libm.json").exists()):
        directory = build(work / "corpus")
    log(f"built the corpus for {', '.join(TARGETS)}: {time.time() - started:.0f} s")

    from hybrid_runtime import native

    manifest = json.loads((directory / "manifest.json").read_text())
    levels = [lv for lv in manifest["cpu_levels"].get("x86_64-windows", []) if lv in native.cpu_levels()]
    suffixes = ["", *(f"__{lv}" for lv in levels)]
    _, names = manifest_names(manifest, "x86_64-windows")
    t = time.time()
    jobs, modules = record(directory, suffixes)
    log(f"recorded {len(jobs)} launches on Linux, each with entries {suffixes}: {time.time() - t:.0f} s")
    shared = [j["participants"] for j in jobs if j["participants"] > 1]
    log(f"{len(shared)} of them spread over 2 to {max(shared, default=1)} threads (the caller and the pool's workers)")
    write_jobs(work / "jobs.bin", jobs, names, suffixes)
    exe = build_harness(work)
    dll = directory / manifest["cpu"]["x86_64-windows"]
    t = time.time()
    cmd = [*wine(), str(exe), winpath(dll), winpath(work / "jobs.bin"), winpath(work / "results.bin")]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=wine_env(), timeout=900)
    (work / "replay.log").write_text(proc.stdout + proc.stderr)
    log(f"replayed under wine: {time.time() - t:.0f} s, exit status {proc.returncode}")
    missing = [line.split()[1] for line in proc.stdout.splitlines() if line.startswith("MISSING ")]
    if proc.returncode != 0 and not missing:
        log(proc.stdout[-3000:], proc.stderr[-3000:])
        return 1
    results = read_results(work / "results.bin", jobs, suffixes)
    libm = json.loads((work / "corpus" / "libm.json").read_text())
    exact = ordered = math = wrong = 0
    for job, got in zip(jobs, results):
        module = modules[job["symbol"]]
        for suffix in suffixes:
            linux, again = job["outputs"][suffix]
            windows = got[suffix]
            name = job["symbol"] + suffix
            if windows == linux:
                exact += 1
                continue
            varies = linux != again or "any_of" in module.CASE
            calls = libm.get(job["symbol"], [])
            detail = differences(job, windows[2], linux[2], module.CASE["args"])
            why = "a failed check" if windows[0] or windows[1] != bytes(32) else None
            if why is None and (varies or calls):
                why = reference_ok(module, job, windows[2])
                if why is None and varies:
                    ordered += 1
                    log(f"  {name}: its results depend on the threads' order on Linux too ({detail}); passes the test")
                    continue
                if why is None:
                    math += 1
                    log(f"  {name}: {detail}; it calls {', '.join(calls)} (ucrtbase's, not glibc's); passes the test")
                    continue
            wrong += 1
            log(f"  WRONG {name}: status {windows[0]} (Linux {linux[0]}); {detail}; {why or ''}")
    log(
        f"{len(names)} exported names resolved by GetProcAddress, {len(missing)} missing{': ' if missing else ''}"
        f"{', '.join(missing[:10])}"
    )
    total = len(jobs) * len(suffixes)
    log(f"{total} entry runs under wine ({len(jobs)} kernels x {len(suffixes)} CPU levels): {exact} bit-identical to "
        f"Linux's, {math} differ through the C runtime's math functions, {ordered} through the threads' order "
        f"(each passing the corpus test's check), {wrong} wrong")  # fmt: skip
    log(f"total {time.time() - started:.0f} s")
    return 0 if not missing and not wrong and exact + ordered + math == total else 1


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
