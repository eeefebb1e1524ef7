#!/usr/bin/env bash
# Set everything up, build the wheels (runtime, hook, example), install the example offline into a
# runtime-only environment and run it: on the GPU when one is usable, else on the CPU.
set -euo pipefail
cd "$(dirname "$0")"
. scripts/dev_env.sh

rm -rf dist && mkdir -p dist
.venv/bin/python -m pip wheel -q --no-deps -w dist ./runtime . ./example_project/mathlets
echo "== building the example wheel (kernels are compiled to PTX here)"
.venv/bin/python -m pip wheel --no-deps -v -w dist --find-links dist ./example_project/hybrid_demo 2>&1 \
  | grep -E "hatch-hybrid:|Created wheel" || true
echo "== building the second example, which builds on the first (kernels, helpers) and on mathlets"
.venv/bin/python -m pip wheel --no-deps -v -w dist --find-links dist ./example_project/hybrid_ext 2>&1 \
  | grep -E "hatch-hybrid:|Created wheel" || true
echo "== building the third example: a bitonic sort generic over key types (structs, IntEnum, match)"
.venv/bin/python -m pip wheel --no-deps -v -w dist --find-links dist ./example_project/hybrid_sort 2>&1 \
  | grep -E "hatch-hybrid:|Created wheel" || true
.venv/bin/python -m pip download -q --only-binary :all: -d dist numpy cuda-bindings

echo "== installing it offline next to nothing but the runtime"
"$PY" -m venv --clear .venv-run
.venv-run/bin/python -m pip install -q --no-index --find-links dist hybrid-demo hybrid-ext hybrid-sort
mkdir -p example_out && cd example_out
../.venv-run/bin/python -m hybrid_demo "$@"
../.venv-run/bin/python -m hybrid_ext
../.venv-run/bin/python -m hybrid_sort
