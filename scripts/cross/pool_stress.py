"""Build scripts/cross/pool_stress.c with the worker pool (hatch_hybrid/targets/host/pool.c) three ways and run
each: on Linux as it ships (futex waits), on Linux with pool.c's macOS branch (pthread mutex and condition
variables: pool.c compiled with ``-U__linux__ -D__APPLE__``, its own source unchanged) and, when wine is
installed (scripts/cross/setup.sh), for Windows under wine (SRW locks and condition variables). pool.c is
compiled with the flags the build uses (hatch_hybrid.targets.host.pool.FLAGS) by zig's C compiler.
Exit status 0 when every variant that ran reported no problem; ``--require-wine`` fails without wine.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from hatch_hybrid.targets.host import pool  # noqa: E402

HERE = Path(__file__).resolve().parent
WORK = ROOT / ".cross" / "pool"
POOL = ROOT / "hatch_hybrid" / "targets" / "host" / "pool.c"
ZIG = [sys.executable, "-m", "ziglang", "cc"]
#: variant -> (zig target, pool.c's extra flags)
VARIANTS = {
    "linux-futex": ("x86_64-linux-gnu", []),
    "linux-as-macos": ("x86_64-linux-gnu", ["-U__linux__", "-D__APPLE__"]),
    "windows-wine": ("x86_64-windows-gnu", []),
}


def wine() -> str | None:
    return next((shutil.which(c) for c in ("wine64", "/usr/lib/wine/wine64", "wine") if shutil.which(c)), None)


def build(name: str) -> Path:
    target, extra = VARIANTS[name]
    out = WORK / name
    out.mkdir(parents=True, exist_ok=True)
    flags = [f for f in pool.FLAGS if f != "-fPIC"]
    subprocess.run([*ZIG, "-target", target, "-c", *flags, *extra, str(POOL), "-o", str(out / "pool.o")], check=True)
    if target.endswith("windows-gnu"):  # freestanding: kernel32 only, as the DLL (no C library for zig to build)
        own = ["-O2", "-std=c11", "-ffreestanding", "-fno-builtin", "-fno-stack-protector"]
        link = ["-nostdlib", "-Wl,--entry,mainCRTStartup", "-Wl,--subsystem,console", "-lkernel32"]
        exe = out / "pool_stress.exe"
    else:
        own, link, exe = ["-O2", "-std=c11", "-D_POSIX_C_SOURCE=200809L"], ["-lpthread"], out / "pool_stress"
    flags = [*own, "-Wall", "-Wextra", "-Werror"]
    source = str(HERE / "pool_stress.c")
    subprocess.run([*ZIG, "-target", target, *flags, "-c", source, "-o", str(out / "s.o")], check=True)
    subprocess.run([*ZIG, "-target", target, str(out / "s.o"), str(out / "pool.o"), *link, "-o", str(exe)], check=True)
    return exe


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--require-wine", action="store_true", help="fail (not skip) the Windows variant without wine")
    parser.add_argument("variants", nargs="*", default=list(VARIANTS))
    options = parser.parse_args()
    failed = 0
    for name in options.variants:
        started = time.time()
        cmd: list[str]
        env = dict(os.environ)
        if name == "windows-wine":
            runner = wine()
            if runner is None:
                print(f"{name}: wine is not installed (scripts/cross/setup.sh): skipped", flush=True)
                failed += options.require_wine
                continue
            cmd = [runner, str(build(name))]
            env.update(WINEPREFIX=str(ROOT / ".cross" / "wine"), WINEDEBUG="-all", WINEDLLOVERRIDES="mscoree,mshtml=")
        else:
            cmd = [str(build(name))]
        built = time.time()
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
        ran = time.time() - built
        print(f"{name}: built in {built - started:.0f} s, ran in {ran:.0f} s, exit status {proc.returncode}")
        print("".join(f"  {line}\n" for line in proc.stdout.splitlines()), end="", flush=True)
        if proc.returncode != 0:
            print(proc.stderr[-2000:], flush=True)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
