"""pdb in kernels on the Python path (device="cpu-python"): breakpoints set from ``python -m pdb`` stop in
kernels with barriers and warp votes (their simulated threads take turns, each traced as the launching
thread is) and in kernels whose source the runtime compiled again with the compiler's conversions; pdb
shows the user's file and lines. Driven by a command list on stdin, as a user types it."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from conftest import KERNEL_PRELUDE

SOURCE = (
    KERNEL_PRELUDE
    + """

@kernel
def rotate(x: Array[f32], out: Array[f32]):
    sh = gpu.shared_array(f32, 8)
    t = gpu.thread_idx_x()
    sh[t] = x[t]
    gpu.syncthreads()
    v = sh[(t + 1) % 8]
    out[t] = v


@kernel
def votes(x: Array[f32], out: Array[i32]):
    t = gpu.thread_idx_x()
    mask = gpu.ballot(x[t] > 0)
    d = 0
    if t > 3:
        d = out[t]
    out[t] = mask + d
"""
)


def _line(text: str, source: str) -> int:
    return next(k for k, line in enumerate(source.splitlines(), 1) if line.strip() == text)


def _pdb(built, tmp_path: Path, script: str, commands: list[str]) -> str:  # type: ignore[no-untyped-def]
    root = built.package_dir.parent
    main = tmp_path / "main.py"
    main.write_text(
        textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(root)!r})
        import numpy as np
        from {built.module.__name__} import rotate, votes
        """)
        + textwrap.dedent(script)
    )
    env = {**os.environ, "HYBRID_DEVICE": "cpu-python", "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.run(
        [sys.executable, "-m", "pdb", str(main)],
        input="\n".join(commands) + "\n",
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=tmp_path,
    )
    return proc.stdout + proc.stderr


def test_a_breakpoint_stops_in_every_thread_of_a_barrier_kernel(build, tmp_path):
    built = build(SOURCE)
    kern = built.package_dir / "kern.py"
    line = _line("v = sh[(t + 1) % 8]", SOURCE)
    out = _pdb(
        built,
        tmp_path,
        """
        x = np.arange(8, dtype=np.float32)
        out = np.zeros(8, np.float32)
        rotate.launch(8, 1, x, out, device="cpu-python")
        print("result", out.tolist())
        """,
        [f"break {kern}:{line}", "continue", "p t", "continue", "p t", "clear", "y", "continue", "quit"],
    )
    assert f"kern.py({line})rotate()" in out, out
    stops = [ln for ln in out.splitlines() if ln.startswith("(Pdb) ") and ln[6:].strip().isdigit()]
    assert [int(s[6:]) for s in stops] == [0, 1], out  # thread 0, then thread 1, in order
    assert "result [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 0.0]" in out, out


def test_stepping_in_a_warp_vote_kernel_with_the_compilers_types(build, tmp_path):
    """``votes`` runs as the runtime recompiled it (``d`` is an i32 from ``d = 0`` on): pdb still shows the
    user's file and lines, and the value has the compiled type."""
    built = build(SOURCE)
    kern = built.package_dir / "kern.py"
    line = _line("out[t] = mask + d", SOURCE)
    out = _pdb(
        built,
        tmp_path,
        """
        x = np.array([1, -1] * 4, dtype=np.float32)
        out = np.arange(8, dtype=np.int32)
        votes.launch(8, 1, x, out, device="cpu-python")
        print("result", out.tolist())
        """,
        [
            f"break {kern}:{line}",
            "continue",
            "p type(d).__name__, t",
            "next",
            "p int(out[t])",
            "clear",
            "y",
            "continue",
            "quit",
        ],
    )
    assert f"kern.py({line})votes()" in out, out
    assert "('int32', 0)" in out, out
    assert "(Pdb) 85" in out, out  # the ballot of x > 0: lanes 0, 2, 4, 6
    assert "result [85, 85, 85, 85, 89, 90, 91, 92]" in out, out
