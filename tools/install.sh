#!/usr/bin/env bash
# Puts `ipusim` on PATH: builds the release preset if it is not built yet (tools/setup.sh),
# then `cmake --install` into a prefix (default ~/.local, so ~/.local/bin/ipusim; no root).
#   tools/install.sh [PREFIX]
# -h / --help: print this header and exit (nothing is installed, built or run).
set -euo pipefail
if [ "${1:-}" = -h ] || [ "${1:-}" = --help ]; then
  sed -n '2,/^set -euo pipefail/{/^#/s/^# \{0,1\}//p}' "$0"
  exit 0
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
prefix="${1:-$HOME/.local}"
if [ ! -x "$here/build/release/tools/ipusim" ]; then
  "$here/tools/setup.sh" release
fi
cmake --build "$here/build/release" --target ipusim -j "$(nproc 2>/dev/null || echo 2)"
cmake --install "$here/build/release" --prefix "$prefix"
echo "install: $prefix/bin/ipusim"
case ":$PATH:" in
  *":$prefix/bin:"*) ;;
  *) echo "install: $prefix/bin is not on PATH; add to ~/.profile:  export PATH=\"$prefix/bin:\$PATH\"" ;;
esac
