#!/usr/bin/env bash
# Install the development environment (if needed) and run the test suite. Extra args go to pytest.
set -euo pipefail
cd "$(dirname "$0")"
. scripts/dev_env.sh
exec .venv/bin/python -m pytest "$@"
