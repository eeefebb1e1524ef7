#!/usr/bin/env bash
# Set up what scripts/cross/ needs on a Debian machine, as root: Debian's wine64 without its recommended
# packages (about 23 packages, 15 s), a wine prefix in .cross/wine, .cross/ (the caches of scripts/cross/)
# in git's info/exclude, and the development environment (.venv, scripts/dev_env.sh) if there is none.
# Idempotent: once set up, a second run installs and changes nothing.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p .cross
exclude=$(git rev-parse --git-path info/exclude 2>/dev/null || true)
if [ -n "$exclude" ]; then
  mkdir -p "$(dirname "$exclude")"
  grep -qxF '/.cross/' "$exclude" 2>/dev/null || echo '/.cross/' >>"$exclude"
fi
wine=$(command -v wine64 || { [ -x /usr/lib/wine/wine64 ] && echo /usr/lib/wine/wine64; } || true)
if [ -z "$wine" ]; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    echo "scripts/cross/setup.sh: wine is missing; as root on Debian: apt-get install --no-install-recommends wine64" >&2
    exit 1
  fi
  apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends wine64 >/dev/null
  wine=$(command -v wine64 || echo /usr/lib/wine/wine64)
fi
if [ ! -f .cross/wine/system.reg ]; then # a fresh prefix (wine makes one on first use; made here once, quietly)
  WINEPREFIX="$PWD/.cross/wine" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" "$wine" wineboot -i >/dev/null 2>&1 || true
fi
[ -x .venv/bin/python ] || . scripts/dev_env.sh
echo "scripts/cross: $("$wine" --version), prefix .cross/wine, $(.venv/bin/python --version)"
