#!/usr/bin/env bash
# Quick-start command 1: set up, build, and run the main job on configs/default.json.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$here/tools/setup.sh" release
cd "$here"
exec "$here/build/release/tools/ipusim" run configs/default.json --out out/default "$@"
