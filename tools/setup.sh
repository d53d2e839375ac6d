#!/usr/bin/env bash
# Sets up ipusim on a Debian machine: installs the Debian packages it needs (only those
# missing; apt-get as root), then configures and builds. Idempotent.
#   tools/setup.sh [release|ci|dev]     (default: release)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
preset="${1:-release}"

packages=(g++ cmake make pkg-config libsystemc-dev catch2 nlohmann-json3-dev libspdlog-dev
          libboost-dev libboost-program-options-dev libfp16-dev libnlopt-cxx-dev python3 python3-matplotlib
          python3-pytest python3-pandas python3-dev python3-venv pybind11-dev libonnx-dev libprotobuf-dev protobuf-compiler python3-onnx)
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]})); then
  echo "setup: installing missing Debian packages: ${missing[*]}"
  sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all required Debian packages are installed"
fi

jobs="$(nproc 2>/dev/null || echo 2)"
echo "setup: configuring (preset $preset) and building with -j$jobs"
cd "$here"
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$jobs"
echo "setup: built $here/build/$preset/tools/ipusim"
