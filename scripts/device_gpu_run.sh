#!/usr/bin/env bash
# On the device's GPU host, one call: the GPU test tier (pytest -m gpu) and a differential fuzz run of
# fresh kernels on CUDA against the Python path. Carry .whl (nvidia-cuda-nvcc-cu12, for ptxas and
# libdevice: pip download --no-deps --only-binary=:all: --python-version 3.12 -d .whl nvidia-cuda-nvcc-cu12).
# Results go to $OUT.
#   bash scripts/device_gpu_run.sh [fuzz count] [fuzz seed] [pytest args...]
set -uo pipefail
COUNT=${1:-5000}
SEED=${2:-4242}
shift 2 || true
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH="$PWD:$PWD/runtime:/tmp/site" PYTHONUNBUFFERED=1
export HYBRID_LIBDEVICE=$(find /tmp/site -name libdevice.10.bc | head -1)
export HYBRID_PTXAS=$(find /tmp/site -name ptxas -type f | head -1)
chmod +x "$HYBRID_PTXAS"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "libdevice: $HYBRID_LIBDEVICE ptxas: $HYBRID_PTXAS"
python -c "import numpy as np; np.row_stack = np.vstack" >/dev/null
start=$(date +%s)
python -m pytest -q -m gpu -n 8 -p no:cacheprovider "${@:-tests}" 2>&1 | tee "$OUT/gpu_tests.log" | tail -40
echo "gpu tests: $(( $(date +%s) - start )) s"
if [ "$COUNT" -gt 0 ]; then
  start=$(date +%s)
  python scripts/fuzz_edges.py --count "$COUNT" --seed "$SEED" --build-only /tmp/fuzz --jobs 16 2>&1 | tail -5
  python scripts/fuzz_edges.py --run /tmp/fuzz --devices cuda --jobs 8 --report "$OUT/fuzz_gpu.json" 2>&1 \
    | tee "$OUT/fuzz_gpu.log" | tail -40
  echo "gpu fuzz: $(( $(date +%s) - start )) s"
fi
