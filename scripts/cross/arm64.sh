#!/usr/bin/env bash
# Linux arm64 under qemu-user (issue 43): the example packages' and the published corpus's kernels run from
# their wheels' aarch64-linux libraries in an arm64 CPython, each compared bit for bit with its Python path,
# with its NumPy reference and with the x86-64 library's outputs (scripts/cross/run_kernels.py says how).
#
#   scripts/cross/arm64.sh [run_kernels.py options, e.g. --no-python]
#   ARM64_SETUP_ONLY=1 scripts/cross/arm64.sh      # prepare everything, run nothing
#   ARM64_FUZZ=0 scripts/cross/arm64.sh            # without scripts/fuzz_edges.py's kernels (default: 360 of
#                                                  # them, ~1 min; ARM64_FUZZ_SEED, ARM64_FUZZ_CLASSES: its options)
#
# Kernels are compiled here (x86-64, the hook's default five CPU targets); only the running is emulated.
# Everything is cached under .cross/arm64/ (.cross/ is ignored by git; $CROSS_DIR moves it), each part
# redone only when what it is made from changes:
#   qemu-user-static  Debian's (apt-get install, as root) unless qemu-aarch64(-static) is on PATH
#   sysroot         Debian's arm64 CPython (the host's release and sources, through an apt state of its own:
#                   the host's dpkg gets no foreign architecture) and the libraries `import ctypes, numpy`
#                   needs, unpacked with dpkg -x
#   numpy-aarch64   NumPy's manylinux aarch64 wheel, of the build environment's version
#   build-venv      the build environment: hatchling, this checkout's hatch-hybrid and runtime (editable),
#                   ziglang, nvidia-cuda-nvcc-cu12
#   dist            the wheels of mathlets, hybrid_demo, hybrid_ext, hybrid_sort (as run_example.sh builds
#                   them) and published_kernels (tests/packages/published's corpus, in a pyproject made
#                   here); installed into site-aarch64 and site-x86_64
# The runtime runs from runtime/ (on PYTHONPATH), as it is in this checkout.
# Times on 2 busy cores: setup from nothing 2.5-4.5 min (the wheels' kernels, 5 CPU targets each, are most of
# it), again ~1 s (the wheels are rebuilt when the compiler, the runtime, a package or this script changes:
# 2-4 min); the run ~4.5 min: the x86-64 outputs ~10 s, under qemu the kernels ~3.5 min (the Python path is
# 3 of them; --no-python: ~20 s), the fuzz ~1 min (its build ~30 s, its run ~20 s).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
CROSS_ROOT=${CROSS_DIR:-$ROOT/.cross} # shared with scripts/cross/windows_replay.py & co.: ours is arm64/
CROSS="$CROSS_ROOT/arm64"
PY=${PYTHON:-python3}
ARM64_CPU=${ARM64_CPU:-cortex-a53} # ARMv8.0 without LSE atomics: what the "generic" aarch64 target promises
started=$SECONDS
mkdir -p "$CROSS"
[ -f "$CROSS_ROOT/.gitignore" ] || echo '*' >"$CROSS_ROOT/.gitignore" # git, ruff and pytest leave it alone
if [ -d .git/info ] && ! grep -qsx '/.cross/' .git/info/exclude; then echo '/.cross/' >>.git/info/exclude; fi
say() { echo "== arm64: $*"; }
trap 'echo "arm64: failed (scripts/cross/arm64.sh line $LINENO)" >&2' ERR
stamp() { cat "$@" | sha256sum | cut -c1-16; } # of files' contents
tree_stamp() { find "$@" -type f \( -name '*.py' -o -name '*.toml' -o -name '*.c' -o -name '*.json' \) \
  -not -path '*/__pycache__/*' -not -path '*/_hybrid/*' -print0 | sort -z | xargs -0 sha256sum | stamp; }

# ------------------------------------------------------------------------------------------------ qemu
QEMU=$(command -v qemu-aarch64-static || command -v qemu-aarch64 || true)
if [ -z "$QEMU" ]; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    echo "arm64: needs qemu-aarch64 (Debian: apt-get install qemu-user-static, as root)" >&2
    exit 1
  fi
  say "installing qemu-user-static"
  apt-get install -y -q qemu-user-static >/dev/null 2>&1 || {
    apt-get update -q >/dev/null && apt-get install -y -q qemu-user-static >/dev/null
  }
  QEMU=$(command -v qemu-aarch64-static)
fi

# --------------------------------------------------------------------------------------------- sysroot
# the fewest packages with which `import ctypes, numpy` works: the interpreter (and its NEEDED: expat, zlib),
# the standard library, libffi (ctypes), libstdc++ and libgcc_s (NumPy's extension modules)
APT="$CROSS/apt"
APT_OPTS=(-o APT::Architecture=arm64 -o APT::Architectures::=arm64 -o "Dir::State=$APT/state"
  -o "Dir::State::status=$APT/status" -o "Dir::Cache=$APT/cache" -o Debug::NoLocking=1 -q)
SYSROOT="$CROSS/sysroot"
sysroot_key=$( (cat /etc/os-release /etc/apt/sources.list /etc/apt/sources.list.d/* 2>/dev/null || true) | stamp)
if [ "$(cat "$SYSROOT/.stamp" 2>/dev/null)" != "$sysroot_key" ]; then
  say "arm64 CPython from Debian's packages"
  rm -rf "$APT" "$SYSROOT" "$CROSS/debs"
  mkdir -p "$APT/state/lists/partial" "$APT/cache/archives/partial" "$CROSS/debs"
  touch "$APT/status"
  apt-get "${APT_OPTS[@]}" update >/dev/null
  # this release's CPython: python3-minimal depends on python3.X-minimal
  pyx=$(apt-cache "${APT_OPTS[@]}" depends python3-minimal | grep -o 'python3\.[0-9]*-minimal' | head -1)
  pyx=${pyx%-minimal}
  packages=("$pyx-minimal" "lib$pyx-minimal" "lib$pyx-stdlib" libc6 libexpat1 zlib1g libffi8 libstdc++6 libgcc-s1)
  (cd "$CROSS/debs" && apt-get "${APT_OPTS[@]}" -q download "${packages[@]}" 2>&1 | grep -v 'unsandboxed' || true)
  [ "$(ls "$CROSS/debs"/*.deb | wc -l)" = "${#packages[@]}" ] || { echo "arm64: apt-get download failed" >&2; exit 1; }
  mkdir -p "$SYSROOT.tmp"
  for deb in "$CROSS/debs"/*.deb; do dpkg -x "$deb" "$SYSROOT.tmp"; done
  ln -sf "$pyx" "$SYSROOT.tmp/usr/bin/python3-arm64" # this release's, under a fixed name
  mv "$SYSROOT.tmp" "$SYSROOT"
  echo "$sysroot_key" >"$SYSROOT/.stamp"
fi
ARM_PY="$SYSROOT/usr/bin/python3-arm64"
arm_run() { "$QEMU" -L "$SYSROOT" -cpu "$ARM64_CPU" "$ARM_PY" "$@"; }
pyver=$(arm_run -c 'import sys; print("%d.%d" % sys.version_info[:2])')

# ---------------------------------------------------------------------------------- build environment
BUILD="$CROSS/build-venv"
build_key=$( (cat pyproject.toml runtime/pyproject.toml; "$PY" --version) | stamp)
if [ "$(cat "$BUILD/.stamp" 2>/dev/null)" != "$build_key" ]; then
  say "build environment"
  rm -rf "$BUILD"
  "$PY" -m venv "$BUILD"
  "$BUILD/bin/python" -m pip install -q --upgrade pip
  "$BUILD/bin/python" -m pip install -q hatchling editables -e ./runtime -e . ziglang nvidia-cuda-nvcc-cu12
  echo "$build_key" >"$BUILD/.stamp"
fi
BPY="$BUILD/bin/python"

NUMPY="$CROSS/numpy-aarch64"
numpy_version=$("$BPY" -c 'import numpy; print(numpy.__version__)')
if [ "$(cat "$NUMPY/.stamp" 2>/dev/null)" != "$numpy_version $pyver" ]; then
  say "NumPy $numpy_version's aarch64 wheel for Python $pyver"
  rm -rf "$NUMPY"
  "$BPY" -m pip install -q --no-deps --only-binary :all: --python-version "$pyver" --target "$NUMPY" \
    --platform manylinux_2_28_aarch64 --platform manylinux2014_aarch64 "numpy==$numpy_version"
  echo "$numpy_version $pyver" >"$NUMPY/.stamp"
fi

# ------------------------------------------------------------------------------------------------ wheels
EXAMPLES=(mathlets hybrid_demo hybrid_ext hybrid_sort)
CORPUS=tests/packages/published/published_kernels
wheels_key=$( (tree_stamp hatch_hybrid runtime/hybrid_runtime "${EXAMPLES[@]/#/example_project/}" "$CORPUS"
  cat "$0"; echo "$build_key") | stamp)
DIST="$CROSS/dist"
if [ "$(cat "$DIST/.stamp" 2>/dev/null)" != "$wheels_key" ]; then
  say "building the wheels (kernels compiled for every CPU target)"
  wheels_started=$SECONDS
  rm -rf "$DIST" "$CROSS/published"
  # a kernel cache per compiler source (the cache's key has the compiler's version, not its source)
  compiler=$(tree_stamp hatch_hybrid runtime/hybrid_runtime)
  find "$CROSS/kernel-cache" -mindepth 1 -maxdepth 1 -not -name "$compiler" -exec rm -rf {} + 2>/dev/null || true
  export HYBRID_CACHE_DIR="$CROSS/kernel-cache/$compiler"
  mkdir -p "$DIST" "$HYBRID_CACHE_DIR"
  wheel() { "$BPY" -m pip wheel -q --no-deps --no-build-isolation -w "$DIST" "$@"; }
  wheel ./example_project/mathlets ./example_project/hybrid_demo
  # hybrid_ext's kernels call hybrid_demo's and mathlets' helpers: they must be in the build environment,
  # as the hook's dependencies put them into an isolated one
  "$BPY" -m pip install -q --no-deps --force-reinstall "$DIST"/mathlets-*.whl "$DIST"/hybrid_demo-*.whl
  wheel ./example_project/hybrid_ext ./example_project/hybrid_sort
  mkdir -p "$CROSS/published"
  cp -r "$CORPUS" "$CROSS/published/"
  cat >"$CROSS/published/pyproject.toml" <<'EOF'
[build-system]
requires = ["hatchling", "hatch-hybrid"]
build-backend = "hatchling.build"

[project]
name = "published-kernels"
version = "0.0.0"
dependencies = ["hatch-hybrid-runtime"]

[tool.hatch.build.targets.wheel]
packages = ["published_kernels"]

[tool.hatch.build.hooks.hybrid]
# the native libraries are what this checks: one PTX target, no cubins, no WGSL; the CPU targets as default
arch = ["sm_70"]
cubin = false
wgsl = false
EOF
  wheel "$CROSS/published"
  for site in site-aarch64 site-x86_64; do
    rm -rf "${CROSS:?}/$site"
    "$BPY" -m pip install -q --no-deps --target "$CROSS/$site" "$DIST"/*.whl
  done
  echo "$wheels_key" >"$DIST/.stamp"
  say "wheels built in $((SECONDS - wheels_started)) s"
fi
say "setup took $((SECONDS - started)) s"
[ -z "${ARM64_SETUP_ONLY:-}" ] || exit 0

# --------------------------------------------------------------------------------------------------- run
export PYTHONPYCACHEPREFIX="$CROSS/pycache" PYTHONNOUSERSITE=1 # (nothing written into runtime/)
unset PYTHONHOME HYBRID_DEVICE HYBRID_SANITIZE HYBRID_CPU_LEVEL
run_started=$SECONDS
against=()
if [ "$(uname -m)" = x86_64 ]; then
  say "x86-64: the native outputs to compare with"
  PYTHONPATH="$CROSS/site-x86_64:$ROOT/runtime" "$BPY" scripts/cross/run_kernels.py --target x86_64-linux \
    --no-python --save "$CROSS/x86_64.npz" >"$CROSS/x86_64.log" || { cat "$CROSS/x86_64.log"; exit 1; }
  grep '^summary' "$CROSS/x86_64.log"
  against=(--against "$CROSS/x86_64.npz")
fi
say "running under $(basename "$QEMU") -cpu $ARM64_CPU, Python $pyver (aarch64)"
status=0
PYTHONPATH="$CROSS/site-aarch64:$NUMPY:$ROOT/runtime" arm_run scripts/cross/run_kernels.py --target aarch64-linux \
  "${against[@]}" "$@" || status=$?

if [ "${ARM64_FUZZ:=360}" != 0 ]; then
  # scripts/fuzz_edges.py's random kernels, built here with native code for aarch64-linux (its build takes the
  # machine's target: host_target is replaced for it) and run under qemu against their Python path
  classes=${ARM64_FUZZ_CLASSES:-edges,helpers,literals,atomics}
  say "fuzz: $ARM64_FUZZ kernels of $classes, seed ${ARM64_FUZZ_SEED:-1}"
  rm -rf "$CROSS/fuzz"
  HYBRID_CACHE_DIR="$CROSS/fuzz-cache" "$BPY" - --count "$ARM64_FUZZ" --seed "${ARM64_FUZZ_SEED:-1}" \
    --classes "$classes" --build-only "$CROSS/fuzz" >/dev/null <<'PY'
import sys

sys.path.insert(0, "scripts")
import hybrid_runtime.native  # noqa: E402

hybrid_runtime.native.host_target = lambda: "aarch64-linux"
import fuzz_edges  # noqa: E402

sys.exit(fuzz_edges.main())
PY
  ls "$CROSS"/fuzz/fz*/_hybrid/*.aarch64-linux.so >/dev/null
  PYTHONPATH="$NUMPY:$ROOT/runtime" arm_run scripts/fuzz_edges.py --run "$CROSS/fuzz" --devices cpu \
    >"$CROSS/fuzz.json" || status=$?
  "$BPY" - "$CROSS/fuzz.json" <<'PY' || status=1
import json
import sys

skipped = "skipped (platform-defined casts, complex powers)"
for kind, c in json.load(open(sys.argv[1])).items():
    if isinstance(c, dict):
        ran, built, skip, bad = c.get("kernels run", 0), c.get("built", 0), c.get(skipped, 0), c.get("divergences")
        print(f"fuzz: {kind}: {ran} ran natively and through Python ({built} built, {skip} skipped), {bad} divergences")
PY
fi
say "run took $((SECONDS - run_started)) s; $((SECONDS - started)) s in all"
exit $status
