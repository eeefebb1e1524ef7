#!/usr/bin/env bash
# Issue 43's checks of the targets that cannot run here: sets up wine (setup.sh), runs every kernel entry of
# the published corpus's Windows DLL under wine against the Linux library's results (windows_replay.py),
# and the worker pool's stress test on its Linux, macOS (forced, under Linux) and Windows (wine) branches
# (pool_stress.py). The structural checks of the macOS and Windows libraries (tests/test_cross_targets.py)
# run in the test suite, on a small package; HYBRID_CROSS_CORPUS=1 runs them on the whole published corpus.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/cross/setup.sh
.venv/bin/python scripts/cross/windows_replay.py
.venv/bin/python scripts/cross/pool_stress.py --require-wine
