#!/usr/bin/env bash
# Install the development environment (if needed) and run the test suite. Extra args go to pytest.
set -euo pipefail
cd "$(dirname "$0")"
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e ./runtime -e ".[test]"
exec .venv/bin/python -m pytest "$@"
