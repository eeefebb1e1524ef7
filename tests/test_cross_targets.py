"""Issue 43: the native libraries of the targets that cannot run here (macOS, Windows), checked from their
bytes: a package of a few kernels (below: a local array larger than a page, the C library's math,
f16 conversions, shared memory and barriers, atomics, warp shuffles) built for them with the hook's
default options, as its wheel carries them (``HYBRID_CROSS_CORPUS=1``: the published corpus instead,
tests/packages/published, as scripts/cross/run.sh runs them), the libraries read with LIEF and the
code signature with a reader of our own:

- Windows: the DLL exports every kernel entry (each CPU level, the sanitized ones) and the pool's
  functions, and imports nothing but kernel32's waits and ucrtbase's math and memory functions;
- macOS: each dylib says the oldest macOS that cpus.py's triple names (LC_BUILD_VERSION 11.0 on arm64,
  LC_VERSION_MIN_MACOSX 10.12 on x86-64) and uses no load command that macOS cannot read, loads
  nothing but libSystem, leaves nothing undefined but libSystem's math, memory and pthread functions,
  and exports every entry; the arm64 one carries a valid ad-hoc signature (every page's hash in its
  CodeDirectory matches: arm64 macOS kills a process that maps a page whose hash does not);
- pool.c's macOS branch (pthread mutex and condition variables) passes, under Linux, the stress test of
  scripts/cross/pool_stress.c.

Running the Windows DLL and the pool's Windows branch is scripts/cross/run.sh's (under wine).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import struct
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, compile_fixture

from hatch_hybrid.targets.host import pool
from hatch_hybrid.targets.host.cpus import TARGETS
from hatch_hybrid.targets.host.link import have_zig

lief = pytest.importorskip("lief")
if not have_zig():
    pytest.skip("the ziglang package (the linker of native CPU code) is not installed", allow_module_level=True)

CORPUS = ROOT / "tests" / "packages" / "published" / "published_kernels"
#: the C library's memory functions LLVM may call for loops of stores and copies (Darwin's spellings too)
MEMORY = {"memset", "memcpy", "memmove", "bzero", "__bzero", "memset_pattern16"}
#: kernel32's functions the pool's Windows branch waits with (pool.c)
KERNEL32 = {
    "AcquireSRWLockExclusive", "ReleaseSRWLockExclusive", "InitializeSRWLock", "InitializeConditionVariable",
    "SleepConditionVariableSRW", "WakeConditionVariable",
}  # fmt: skip
#: what the Mach-O linker itself adds to a dylib's exports
LINKER_EXPORTS = {"__mh_dylib_header", "___dso_handle"}
LIBSYSTEM = "/usr/lib/libSystem.B.dylib"


#: kernels with what the linkers of the foreign targets meet: a frame over a page (Windows' stack probe),
#: the C library's math, f16 conversions (x86-64's own), shared memory, barriers, atomics, warp shuffles
SOURCE = """
import math
from hybrid_runtime import kernel, gpu, Array, f16, f32, f64, i32


@kernel
def big_frame(a: Array[i32], b: Array[i32]):
    c = gpu.local_array(i32, 2000)
    for i in range(c.shape[0]):
        c[i] = a[i]
    for i in range(c.shape[0]):
        b[i] = c[i]


@kernel
def libm(x: Array[f64], y: Array[f64]):
    i = gpu.global_tid_x()
    if i < len(x):
        y[i] = math.exp(x[i]) + math.log(x[i]) + math.sin(x[i])


@kernel
def halves(s: Array[f32], d: Array[f64], h: Array[f16]):
    i = gpu.global_tid_x()
    if i < len(s):
        h[i] = f16(s[i]) + f16(d[i])


@kernel
def block_sums(x: Array[f32], out: Array[f32], total: Array[f32]):
    shared = gpu.shared_array(f32, 64)
    t = gpu.thread_idx_x()
    shared[t] = x[gpu.global_tid_x()]
    gpu.syncthreads()
    if t == 0:
        s = f32(0)
        for k in range(64):
            s += shared[k]
        out[gpu.block_idx_x()] = s
        gpu.atomic_add(total, 0, s)


@kernel
def warp_sums(x: Array[f32], out: Array[f32]):
    v = x[gpu.global_tid_x()]
    for offset in (16, 8, 4, 2, 1):
        v += gpu.shfl_down(v, offset)
    if gpu.thread_idx_x() % 32 == 0:
        out[gpu.global_tid_x() // 32] = v
"""
FOREIGN = ["arm64-macos", "x86_64-macos", "x86_64-windows"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The package compiled for the CPU targets that cannot run here, written out as its wheel holds them:
    its ``_hybrid`` folder, manifest, kernels, and the C library's functions its kernels call."""
    root = tmp_path_factory.mktemp("cross")
    if os.environ.get("HYBRID_CROSS_CORPUS"):
        package = root / CORPUS.name
        shutil.copytree(CORPUS, package)
    else:
        package = root / "cross_kernels"
        package.mkdir()
        (package / "__init__.py").write_text("")
        (package / "kern.py").write_text(textwrap.dedent(SOURCE))
    kernels = compile_fixture([package], root, cpu=FOREIGN)
    assert all(k.codes.get("cpu") is not None and not k.codes.get("cpu").unsupported for k in kernels), [
        k.codes.get("cpu") for k in kernels
    ]
    directory = package / "_hybrid"
    manifest = json.loads((directory / "manifest.json").read_text())
    libm = {name for k in kernels if k.codes.get("cpu") is not None for name in k.codes.get("cpu").libm}
    assert {"exp", "log", "sin"} <= libm, libm  # (both the corpus and the package call them)
    return {"directory": directory, "manifest": manifest, "libm": libm, "kernels": len(kernels)}


def entries(manifest: dict[str, Any], target: str) -> set[str]:
    """Every name the target's library must export: each kernel's entry at each CPU level, its sanitized
    entry, the pool's functions."""
    levels = manifest["cpu_levels"].get(target, [])
    names = set(pool.EXPORTS)
    for entry in manifest["kernels"].values():
        for variant in entry.get("variants", [entry]):
            cpu = variant["cpu"]
            assert "symbol" in cpu, cpu  # every corpus kernel has native code
            names |= {cpu["symbol"], *(f"{cpu['symbol']}__{level}" for level in levels)}
            if cpu.get("sanitize"):
                names.add(cpu["sanitize"]["symbol"])
    return names


def library(corpus: dict[str, Any], target: str) -> Path:
    return corpus["directory"] / corpus["manifest"]["cpu"][target]


def macho(path: Path) -> Any:
    lief.logging.disable()
    fat = lief.MachO.parse(str(path))
    assert fat is not None and fat.size == 1, path
    return fat.at(0)


# ------------------------------------------------------------------------------------------- Windows


def test_the_windows_dll_exports_every_entry(corpus: dict[str, Any]) -> None:
    pe = lief.PE.parse(str(library(corpus, "x86_64-windows")))
    exported = {e.name for e in pe.get_export().entries}
    wanted = entries(corpus["manifest"], "x86_64-windows")
    assert len(wanted) == 4 * corpus["kernels"] + len(pool.EXPORTS)  # entries at 3 levels, sanitized ones
    assert not wanted - exported, f"not exported: {sorted(wanted - exported)[:10]}"
    assert exported == wanted, f"exported beyond the entries: {sorted(exported - wanted)}"  # (not ___chkstk_ms)


def test_the_windows_dll_imports_only_kernel32_and_ucrtbase(corpus: dict[str, Any]) -> None:
    pe = lief.PE.parse(str(library(corpus, "x86_64-windows")))
    imports = {i.name.lower(): {e.name for e in i.entries} for i in pe.imports}
    assert set(imports) <= {"kernel32.dll", "ucrtbase.dll"}, imports
    assert imports["kernel32.dll"] <= KERNEL32
    assert imports["ucrtbase.dll"] <= corpus["libm"] | MEMORY, imports["ucrtbase.dll"]
    assert corpus["libm"] <= imports["ucrtbase.dll"]  # (exp, log, sin: the reading is live)
    assert pe.header.machine == lief.PE.Header.MACHINE_TYPES.AMD64
    assert pe.has_exports and not pe.has_tls  # no thread-local callbacks: nothing runs at load


# ------------------------------------------------------------------------------------------- macOS


@pytest.mark.parametrize("target", ["arm64-macos", "x86_64-macos"])
def test_the_dylibs_say_the_oldest_macos_of_their_triple(corpus: dict[str, Any], target: str) -> None:
    binary = macho(library(corpus, target))
    triple = TARGETS[target].triple  # "arm64-apple-macosx11.0.0"
    want = [int(x) for x in triple.split("macosx")[1].split(".")][:2]
    kinds = [c.command for c in binary.commands]
    LC = lief.MachO.LoadCommand.TYPE
    if want >= [10, 14]:  # LC_BUILD_VERSION: what ld64 writes from 10.14 on
        assert binary.has_build_version and not binary.has_version_min
        assert binary.build_version.platform == lief.MachO.BuildVersion.PLATFORMS.MACOS
        assert list(binary.build_version.minos)[:2] == want, binary.build_version.minos
    else:
        assert binary.has_version_min and not binary.has_build_version
        assert LC.VERSION_MIN_MACOSX in kinds
        assert list(binary.version_min.version)[:2] == want, binary.version_min.version
    if want < [10, 15]:  # dyld reads chained fixups and the separate export trie from macOS 10.15 / 11 on
        assert LC.DYLD_CHAINED_FIXUPS not in kinds and LC.DYLD_EXPORTS_TRIE not in kinds


@pytest.mark.parametrize("target", ["arm64-macos", "x86_64-macos"])
def test_the_dylibs_export_every_entry_and_need_only_libsystem(corpus: dict[str, Any], target: str) -> None:
    binary = macho(library(corpus, target))
    exported = {s.name for s in binary.exported_symbols}
    wanted = {"_" + name for name in entries(corpus["manifest"], target)}
    assert not wanted - exported, f"not exported: {sorted(wanted - exported)[:10]}"
    assert exported - wanted <= LINKER_EXPORTS, sorted(exported - wanted)
    LC = lief.MachO.LoadCommand.TYPE
    loads = [lib.name for lib in binary.libraries if lib.command != LC.ID_DYLIB]
    assert loads in ([], [LIBSYSTEM]), loads
    undefined = {s.name.removeprefix("_") for s in binary.imported_symbols}
    allowed = {"dyld_stub_binder", *pool.MACOS_IMPORTS} | corpus["libm"] | MEMORY
    assert undefined <= allowed, sorted(undefined - allowed)
    assert set(pool.MACOS_IMPORTS) <= undefined  # the reading is live: the pool's pthread calls are there


def test_the_arm64_dylib_has_a_valid_ad_hoc_signature(corpus: dict[str, Any]) -> None:
    path = library(corpus, "arm64-macos")
    data = path.read_bytes()
    assert signature_problems(data) == []
    binary = macho(path)
    assert binary.has_code_signature
    assert binary.code_signature.data_offset + binary.code_signature.data_size <= len(data)


def test_a_changed_page_breaks_the_signature(corpus: dict[str, Any]) -> None:
    """The signature check can fail: one byte of code changed, or the signature's own bytes."""
    data = bytearray(library(corpus, "arm64-macos").read_bytes())
    text = macho(library(corpus, "arm64-macos")).get_segment("__TEXT")
    at = text.file_offset + text.file_size // 2
    data[at] ^= 1
    assert any("page" in p for p in signature_problems(bytes(data)))
    data[at] ^= 1
    assert signature_problems(bytes(data)) == []
    assert signature_problems(bytes(data[:-4096])) != []  # cut short


# Mach-O code signatures (xnu's osfmk/kern/cs_blobs.h): a big-endian SuperBlob at LC_CODE_SIGNATURE's offset
LC_CODE_SIGNATURE, LC_SEGMENT_64 = 0x1D, 0x19
CSMAGIC_EMBEDDED_SIGNATURE, CSMAGIC_CODEDIRECTORY = 0xFADE0CC0, 0xFADE0C02
CSSLOT_CODEDIRECTORY, CSSLOT_REQUIREMENTS, CSSLOT_SIGNATURESLOT = 0, 2, 0x10000
CS_ADHOC, CS_HASHTYPE_SHA256 = 0x2, 2


def signature_problems(data: bytes) -> list[str]:
    """What is wrong with a 64-bit Mach-O file's ad-hoc code signature (empty: nothing): its SuperBlob
    and CodeDirectory read, the hash of every page up to the signature compared, the special slots
    (requirements) compared with their blobs, the executable segment's bounds checked."""
    problems: list[str] = []
    magic, ncmds = struct.unpack_from("<I", data, 0)[0], struct.unpack_from("<I", data, 16)[0]
    if magic != 0xFEEDFACF:
        return ["not a 64-bit Mach-O file"]
    at, signature, text = 32, None, None
    for _ in range(ncmds):
        cmd, size = struct.unpack_from("<II", data, at)
        if cmd == LC_CODE_SIGNATURE:
            signature = struct.unpack_from("<II", data, at + 8)
        elif cmd == LC_SEGMENT_64 and data[at + 8 : at + 24].rstrip(b"\0") == b"__TEXT":
            text = struct.unpack_from("<QQ", data, at + 40)  # fileoff, filesize
        at += size
    if signature is None:
        return ["no LC_CODE_SIGNATURE"]
    offset, size = signature
    if offset + size > len(data):
        return [f"the signature ({offset} + {size}) runs past the end of the file ({len(data)})"]
    blob = data[offset : offset + size]
    magic, length, count = struct.unpack_from(">III", blob, 0)
    if magic != CSMAGIC_EMBEDDED_SIGNATURE or length > size:
        return [f"no embedded signature SuperBlob ({magic:#x})"]
    slots = dict(struct.unpack_from(">II", blob, 12 + 8 * k) for k in range(count))
    if CSSLOT_CODEDIRECTORY not in slots:
        return ["no CodeDirectory"]
    cd = slots[CSSLOT_CODEDIRECTORY]
    magic, cd_length, version, flags, hash_offset, ident_offset, n_special, n_code, code_limit = struct.unpack_from(
        ">9I", blob, cd
    )
    hash_size, hash_type, _, page_log2 = struct.unpack_from(">4B", blob, cd + 36)
    if magic != CSMAGIC_CODEDIRECTORY:
        return [f"bad CodeDirectory magic {magic:#x}"]
    if not flags & CS_ADHOC:
        problems.append(f"not ad hoc (flags {flags:#x})")
    if CSSLOT_SIGNATURESLOT in slots and struct.unpack_from(">II", blob, slots[CSSLOT_SIGNATURESLOT])[1] > 8:
        problems.append("a CMS signature where an ad-hoc one was expected")
    if hash_type != CS_HASHTYPE_SHA256 or hash_size != 32:
        problems.append(f"hash type {hash_type} of {hash_size} bytes, not SHA-256")
        return problems
    if code_limit != offset:
        problems.append(f"the signature covers {code_limit} bytes, not the {offset} before it")
    page = 1 << page_log2 if page_log2 else code_limit
    if n_code != -(-code_limit // page):
        problems.append(f"{n_code} page hashes for {code_limit} bytes of {page}-byte pages")
    for k in range(n_code):
        want = blob[cd + hash_offset + 32 * k : cd + hash_offset + 32 * (k + 1)]
        if hashlib.sha256(data[k * page : min((k + 1) * page, code_limit)]).digest() != want:
            problems.append(f"page {k}'s hash does not match")
    for slot in range(1, n_special + 1):  # special slots lie before the code slots, slot k at -k
        want = blob[cd + hash_offset - 32 * slot : cd + hash_offset - 32 * (slot - 1)]
        if slot in slots:
            start = slots[slot]
            end = start + struct.unpack_from(">I", blob, start + 4)[0]
            if hashlib.sha256(blob[start:end]).digest() != want:
                problems.append(f"special slot {slot}'s hash does not match its blob")
        elif any(want):
            problems.append(f"special slot {slot} has a hash but no blob")
    identifier = blob[cd + ident_offset : blob.index(b"\0", cd + ident_offset)]
    if not identifier:
        problems.append("no identifier")
    if version >= 0x20400 and text is not None:  # the executable segment: __TEXT
        base, limit = struct.unpack_from(">QQ", blob, cd + 64)
        if (base, limit) != text:
            problems.append(f"exec segment {base}+{limit}, __TEXT is {text[0]}+{text[1]}")
    if cd + cd_length > len(blob):
        problems.append("the CodeDirectory runs past the signature")
    return problems


# ------------------------------------------------------------------------------------------- the pool


def test_the_pools_macos_branch_passes_the_stress_test() -> None:
    """pool.c compiled with its macOS branch forced (``-U__linux__ -D__APPLE__``: pthread mutex and condition
    variables, glibc's here): launches after pauses that put the workers to sleep, concurrent launches,
    failing entries, grid barriers; every block exactly once, nothing hung (scripts/cross/pool_stress.c).
    The Linux branch is tests/test_native_pool.py's; the Windows branch runs under wine in scripts/cross/."""
    script = ROOT / "scripts" / "cross" / "pool_stress.py"
    proc = subprocess.run([sys.executable, str(script), "linux-as-macos"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "OK: 0 problems" in proc.stdout, proc.stdout
