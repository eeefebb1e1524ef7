#!/usr/bin/env bash
# On the device's 16-core host: the native CPU suite (thread scaling vs numba and C + OpenMP) over
# packages compiled here (.devrun/site, made by `python scripts/device_cpu_run.sh --prepare`).
set -euo pipefail
if [ "${1:-}" = "--prepare" ]; then
  rm -rf .devrun && mkdir -p .devrun/site
  .venv/bin/python -c "import sys; sys.path.insert(0, 'benchmarks'); import cpu_suite; from pathlib import Path; cpu_suite.build(Path('.devrun/site'))"
  exit 0
fi
export PYTHONPATH="$PWD/runtime:$PWD/.devrun/site:${PYTHONPATH:-}"
python -c "import numpy as np; np.row_stack = np.vstack" >/dev/null
lscpu | head -20 || true
python benchmarks/cpu_suite.py --installed --markdown "$OUT/cpu_suite.md" 2>&1 | tail -80
