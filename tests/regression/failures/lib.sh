# Shared by the real-failure tests of this folder (sourced): verdict helpers, a scratch
# folder removed on exit, and the tiny inputs they run (a 6-point sweep of IPU-Link
# transfers on an IPU-POD16, a host-write calibration on an IPU-POD4; each simulation
# takes tens of milliseconds).
#   source lib.sh IPUSIM_BIN SOURCE_DIR
# Exit codes of the tests: 0 pass, 1 fail, 77 skip (CTest SKIP_RETURN_CODE, a "SKIP:" line).
bin="$(realpath "$1")"
src="$2"
[ -x "$bin" ] || { echo "FAIL: no ipusim binary at '$bin'"; exit 1; }

fail() {
  echo "FAIL: $*"
  exit 1
}

# skip_unless_root WHAT: root is needed (mount, or the daemons); anyone else gets a visible skip.
skip_unless_root() {
  if [ "$(id -u)" -ne 0 ]; then
    echo "SKIP: $1: needs root (run CTest as root; CI does)"
    exit 77
  fi
}

work="$(mktemp -d /tmp/ipusim_failures_XXXXXX)"
cleanup_hooks=()
cleanup() {
  local hook
  for hook in "${cleanup_hooks[@]}"; do eval "$hook"; done
  [ -n "${IPUSIM_KEEP_TEST_DIRS:-}" ] || rm -rf "$work"
}
trap cleanup EXIT

# write_sweep FILE: 6 points (3 sizes x 2 destinations) of one IPU-Link transfer.
write_sweep() {
  cat >"$1" <<JSON
{"base": "$src/configs/validation/setups/ipulink_rail_transfer_pod16.json",
 "axes": [{"path": "workload.steps.0.bytes", "values": [65536, 1048576, 4194304]},
          {"path": "workload.steps.0.dst_ipu", "values": [1, 2]}]}
JSON
}

# write_calibration DIR: DIR/host_write_pod4.json and two calibration cases in DIR/cases/
# (a 4 KB and a 64 MB host write with made-up measurements) for fitting
# /machine/gateway/ipu_gateway_link_efficiency.
write_calibration() {
  local dir="$1"
  mkdir -p "$dir/cases"
  cat >"$dir/host_write_pod4.json" <<JSON
{"\$include": ["$src/configs/systems/pod4.json"],
 "machine": {"host_link": {"efficiency": 1.0}},
 "workload": {"kind": "microbenchmark",
              "steps": [{"kind": "host_write", "name": "h2d", "ipu": 0, "bytes": 4096}]}}
JSON
  local bytes measured
  for pair in 4096:9000 67108864:5200000; do
    bytes="${pair%%:*}"
    measured="${pair##*:}"
    cat >"$dir/cases/host_write_$bytes.json" <<JSON
{"name": "host_write_$bytes", "role": "calibration", "config": "$dir/host_write_pod4.json",
 "set": ["workload.steps.0.bytes=$bytes"], "report_path": "/workload/steps/0/duration_ns",
 "measured": {"value": $measured, "unit": "ns"}, "tolerance_pct": 1.0,
 "source": "made up for the failure tests"}
JSON
  done
}

# calibrate_command DIR OUT [ARGS...]: sets the array calibrate_cmd to the command fitting
# the cases of write_calibration DIR into OUT (an array, so that `"${calibrate_cmd[@]}" &`
# starts ipusim itself, whose pid a test can kill).
calibrate_command() {
  local dir="$1" out="$2"
  shift 2
  calibrate_cmd=("$bin" calibrate "$dir/cases" --out "$out" --max-evals 8 --quiet
                 --params /machine/gateway/ipu_gateway_link_efficiency "$@")
}
# calibrate DIR OUT [ARGS...]: runs it.
calibrate() {
  calibrate_command "$@"
  "${calibrate_cmd[@]}"
}
