#!/usr/bin/env bash
# Install the development environment (if needed) and run the test suite, one pytest-xdist worker per
# core (HYBRID_TEST_WORKERS=0 runs it in this process). Extra args go to pytest.
set -euo pipefail
cd "$(dirname "$0")"
. scripts/dev_env.sh
exec .venv/bin/python -m pytest -n "${HYBRID_TEST_WORKERS:-auto}" "$@"
