#!/usr/bin/env bash
# Quick-start command 1: set up, build, and run the main job on configs/default.json.
# -h / --help: print this header and exit (nothing is installed, built or run).
set -euo pipefail
if [ "${1:-}" = -h ] || [ "${1:-}" = --help ]; then
  sed -n '2,/^set -euo pipefail/{/^#/s/^# \{0,1\}//p}' "$0"
  exit 0
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$here/tools/setup.sh" release
cd "$here"
exec "$here/build/release/tools/ipusim" run configs/default.json --out out/default "$@"
