"""``hatch-hybrid record [--into FILE] -- COMMAND ...``: the signatures a project's own runs launch.

numba-cuda kernels are mostly typed at their first launch (``@cuda.jit`` without a signature or
annotations); a wheel is built before anything launches. This runs COMMAND (the project's tests or
examples: ``pytest tests/``) with ``$HYBRID_RECORD_SIGNATURES`` set, so that every launch of such a
kernel appends its arguments' numba signature (``"void(float32[:], int32)"``), and merges what was
launched into FILE (default ``hybrid-signatures.json`` in the current folder, which the build reads
and the project commits): ``{"pkg.mod.kernel": ["void(float32[:], int32)", ...]}``, sorted, kept
across recordings.

In: a command. Out: FILE, and COMMAND's exit status.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, TypeGuard

from hybrid_runtime.lazy import RECORD

SIGNATURES_FILE = "hybrid-signatures.json"


def is_table(data: Any) -> TypeGuard[dict[str, list[str]]]:
    """Is ``data`` a table of kernel names to lists of numba signatures (strings)?"""
    return isinstance(data, dict) and all(
        isinstance(k, str) and isinstance(v, list) and all(isinstance(s, str) for s in v) for k, v in data.items()
    )


def read(path: Path) -> dict[str, list[str]]:
    """A signatures file (empty when there is none); ValueError when it is not one."""
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    if not is_table(data):
        raise ValueError(f"{path} is not a table of kernel names to lists of numba signatures")
    return data


def record(command: list[str], into: Path) -> int:
    """Run ``command`` recording, merge into ``into``; the command's exit status."""
    known = read(into)
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "launches.jsonl"
        log.touch()
        status = subprocess.call(command, env={**os.environ, RECORD: str(log)})
        launched = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]
    new = 0
    for entry in launched:
        have = known.setdefault(entry["kernel"], [])
        if entry["signature"] not in have:
            have.append(entry["signature"])
            new += 1
    merged = {k: sorted(v) for k, v in sorted(known.items())}
    into.write_text(json.dumps(merged, indent=1) + "\n", encoding="utf-8")
    kernels = len({e["kernel"] for e in launched})
    print(
        f"hatch-hybrid: recorded {len(launched)} launches of {kernels} kernels typed at launch; {new} new "
        f"signatures, {sum(map(len, merged.values()))} in {into} (rebuild the wheel to compile them)",
        file=sys.stderr,
    )
    return status
