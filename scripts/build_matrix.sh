#!/usr/bin/env bash
# Build one example wheel with `python -m build --wheel` under each Python version and check its
# manifest. Each interpreter gets a fresh virtual environment of its own (with `build` from PyPI);
# hatch-hybrid and hatch-hybrid-runtime come from a local wheelhouse.
#
#   scripts/build_matrix.sh [PYTHON...]      # default: python3.10 python3.11 python3.12 python3.13
#
# Environment: HOUSE (a folder holding the hatch-hybrid and hatch-hybrid-runtime wheels; built here
# when unset), PROJECT (default example_project/hybrid_sort), WORK (scratch folder, default a temp
# dir), UV (a uv executable, default the one on PATH: it then installs the venv's `build` and, as
# `build --installer uv`, the build environments, twice as fast as pip; HYBRID_MATRIX_PIP=1: pip only).
# Prints one line per interpreter: `python3.X: ok <wheel>`, `python3.X: missing` or `python3.X: FAILED`;
# exits non-zero when a build fails (a missing interpreter is not a failure).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PROJECT=$(cd "${PROJECT:-$ROOT/example_project/hybrid_sort}" && pwd)
WORK=${WORK:-$(mktemp -d)}
mkdir -p "$WORK"
UV=${UV:-$(command -v uv || true)}
[ -z "${HYBRID_MATRIX_PIP:-}" ] || UV=
[ $# -gt 0 ] || set -- python3.10 python3.11 python3.12 python3.13

find_python() {  # PATH first, then pyenv's installs (its shims fail for versions not selected)
    local name=$1 version=${1#python}
    if command -v "$name" >/dev/null && "$name" -c '' 2>/dev/null; then command -v "$name"; return; fi
    local candidate
    for candidate in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$version".*/bin/python3; do
        [ -x "$candidate" ] && { echo "$candidate"; return; }
    done
    return 1
}

if [ -z "${HOUSE:-}" ]; then
    HOUSE=$WORK/house
    python3 -m pip wheel --no-deps -q -w "$HOUSE" "$ROOT/runtime" "$ROOT" || exit 1
fi

build_one() {  # build_one NAME PYTHON: build and check in $WORK/NAME, print one result line
    local name=$1 python=$2 dir=$WORK/$1 wheel
    rm -rf "$dir" && mkdir -p "$dir"
    local log=$dir/build.log
    local installer=(pip) setup=("$python" -m venv "$dir/venv") install=("$dir/venv/bin/python" -m pip install -q build)
    if [ -n "$UV" ]; then  # the same build, with uv installing the build environments: twice as fast
        installer=(uv)
        setup=("$python" -m venv --without-pip "$dir/venv")
        install=("$UV" pip install -q --python "$dir/venv/bin/python" build uv)
    fi
    if "${setup[@]}" >"$log" 2>&1 && "${install[@]}" >>"$log" 2>&1 \
        && HYBRID_CACHE_DIR=$dir/cache PIP_FIND_LINKS="$HOUSE ${PIP_FIND_LINKS:-}" UV_FIND_LINKS=$HOUSE \
            "$dir/venv/bin/python" -m build --installer "${installer[0]}" --wheel -o "$dir/dist" "$PROJECT" >>"$log" 2>&1 \
        && wheel=$(ls "$dir"/dist/*.whl) \
        && "$dir/venv/bin/python" - "$wheel" >>"$log" 2>&1 <<'EOF'
# the wheel is pure and its manifest names a PTX file, present in the wheel, for every kernel and arch
import json, sys, zipfile
wheel = zipfile.ZipFile(sys.argv[1])
assert sys.argv[1].endswith("-py3-none-any.whl"), sys.argv[1]
names = set(wheel.namelist())
(path,) = [n for n in names if n.endswith("/_hybrid/manifest.json")]
manifest = json.loads(wheel.read(path))
package = path.split("/")[0]
variants = [v for k in manifest["kernels"].values() for v in k.get("variants", [k])]
files = [f"{package}/_hybrid/{f}" for v in variants for f in v["ptx"].values()]
assert variants and len(files) == len(variants) * len(manifest["arch"]), manifest
missing = [f for f in files if f not in names]
assert not missing, missing
print(f"manifest ok: {len(variants)} kernel variant(s) x {len(manifest['arch'])} arch(s)")
EOF
    then
        echo "$name: ok $("$python" -V 2>&1) $(basename "$wheel")"
    else
        echo "$name: FAILED (log: $log)"
        tail -20 "$log"
    fi
}

# the interpreters build side by side (most of the time goes into installing build environments)
for name in "$@"; do
    if python=$(find_python "$name"); then
        build_one "$name" "$python" >"$WORK/$name.result" 2>&1 &
    else
        echo "$name: missing" >"$WORK/$name.result"
    fi
done
wait
status=0
for name in "$@"; do
    cat "$WORK/$name.result"
    grep -q "^$name: FAILED" "$WORK/$name.result" && status=1
done
exit $status
