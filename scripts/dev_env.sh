# Sourced by run_example.sh and run_tests.sh: the development environment in .venv.
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e "./runtime[wgpu]" -e ".[test]"
