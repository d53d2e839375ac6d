#!/usr/bin/env bash
# Sets up ipusim on a Debian machine: installs the Debian packages it needs (only those
# missing; apt-get as root), then configures and builds. Idempotent.
#   tools/setup.sh [release|ci|dev]     (default: release)
# The ci preset also installs slurm-wlm and munge (the real-Slurm test tier
# (tests/regression/slurm/) starts its own munged, slurmctld and slurmd from them) and
# clang-format (style:clang_format checks every C++ file against .clang-format) and chromium
# (the html:browser:* tests open every --html page in headless Chromium).
# -h / --help: print this header and exit (nothing is installed, built or run).
set -euo pipefail
if [ "${1:-}" = -h ] || [ "${1:-}" = --help ]; then
  sed -n '2,/^set -euo pipefail/{/^#/s/^# \{0,1\}//p}' "$0"
  exit 0
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
preset="${1:-release}"

packages=(g++ cmake make pkg-config libsystemc-dev catch2 nlohmann-json3-dev libspdlog-dev
          libboost-dev libboost-program-options-dev libfp16-dev libnlopt-cxx-dev python3 python3-matplotlib
          python3-pytest python3-pandas python3-dev python3-venv pybind11-dev libonnx-dev libprotobuf-dev protobuf-compiler python3-onnx)
if [ "$preset" = ci ]; then packages+=(slurm-wlm munge clang-format chromium); fi
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
  # Installing slurm-wlm / munge would start the machine's own Slurm and MUNGE services;
  # the tests start private ones, so service starts are refused (policy-rc.d exit 101)
  # during the install unless the machine already has a policy of its own.
  policy=/usr/sbin/policy-rc.d
  made_policy=0
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | "${sudo_cmd[@]}" tee "$policy" >/dev/null
    "${sudo_cmd[@]}" chmod 755 "$policy"
    made_policy=1
  fi
  rc=0
  { "${sudo_cmd[@]}" apt-get update -qq &&
      "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"; } || rc=$?
  if [ "$made_policy" = 1 ]; then "${sudo_cmd[@]}" rm -f "$policy"; fi
  if [ "$rc" -ne 0 ]; then echo "setup: apt-get failed (exit $rc)" >&2; exit "$rc"; fi
else
  echo "setup: all required Debian packages are installed"
fi

jobs="$(nproc 2>/dev/null || echo 2)"
echo "setup: configuring (preset $preset) and building with -j$jobs"
cd "$here"
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$jobs"
echo "setup: built $here/build/$preset/tools/ipusim"
