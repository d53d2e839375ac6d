#!/usr/bin/env bash
# A 12-point sweep through a real single-node Slurm (slurm_cluster.sh) compared point by
# point with the same sweep run locally with --jobs: `sweep --slurm` submits a 5-task job
# array (so that shards hold 3 or 2 points), `sweep --collect` merges it, and results.csv
# must equal the local one byte for byte (everything in it is deterministic). The Slurm
# output folder is named `a b;$(touch pwned)`: sbatch and the job script must take it as
# one path and run nothing from it.
#   slurm_e2e.sh IPUSIM_BIN SOURCE_DIR
# Exit 0 pass, 1 fail, 77 skip (CTest SKIP_RETURN_CODE). The only skip is not being root
# (slurmd must run jobs as their owner), with a "SKIP:" line; as root, Slurm missing
# (tools/setup.sh ci installs slurm-wlm and munge) or a cluster that cannot start is a FAIL.
set -uo pipefail
bin="$1"
src="$2"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/slurm_cluster.sh"

if [ "$(id -u)" -ne 0 ]; then
  echo "SKIP: Slurm end-to-end test: needs root to start slurmd (run CTest as root; CI does)"
  exit 77
fi
missing="$(slurm_missing_tools)"
if [ -n "$missing" ]; then
  echo "FAIL: Slurm end-to-end test: $missing (tools/setup.sh ci installs them)"
  exit 1
fi

work="$(mktemp -d /tmp/ipusim_slurm_XXXXXX)"
cleanup() {
  stop_slurm_cluster "$work/cluster"
  [ -n "${IPUSIM_KEEP_TEST_DIRS:-}" ] || rm -rf "$work"
}
trap cleanup EXIT

# Ports from the process id: concurrent test runs on one host must not share a controller.
port=$((20000 + ($$ % 10000) * 2))
if ! why="$(start_slurm_cluster "$work/cluster" "$port")"; then
  echo "FAIL: Slurm end-to-end test: cannot start a local cluster: $why"
  exit 1
fi
export SLURM_CONF="$work/cluster/slurm.conf"  # start_slurm_cluster ran in a subshell

cat > "$work/sweep.json" <<JSON
{"base": "$src/configs/validation/setups/ipulink_rail_transfer_pod16.json",
 "axes": [{"path": "workload.steps.0.bytes", "values": [65536, 1048576, 4194304, 16777216]},
          {"path": "workload.steps.0.dst_ipu", "values": [1, 2, 3]}]}
JSON

fail() { echo "FAIL: $*"; exit 1; }

"$bin" sweep "$work/sweep.json" --out "$work/local" --jobs 2 --quiet >"$work/local.log" 2>&1 ||
  fail "local sweep: $(cat "$work/local.log")"

slurm_out="$work/a b;\$(touch pwned)"
(cd "$work" && "$bin" sweep "$work/sweep.json" --out "$slurm_out" --slurm --array-size 5 --jobs 1 --time 5) >"$work/submit.log" 2>&1 ||
  fail "sweep --slurm: $(cat "$work/submit.log")"
grep -q "submitted job array" "$work/submit.log" || fail "no job id: $(cat "$work/submit.log")"

for _ in $(seq 1 240); do
  [ -z "$(squeue -h 2>/dev/null)" ] && break
  sleep 0.5
done
[ -z "$(squeue -h 2>/dev/null)" ] || fail "the job array did not finish in 120 s: $(squeue)"

tasks=$(ls "$slurm_out/slurm/"*_*.out 2>/dev/null | wc -l)
[ "$tasks" -eq 5 ] || fail "expected 5 array task logs, found $tasks"

"$bin" sweep "$work/sweep.json" --out "$slurm_out" --collect --quiet >"$work/collect.log" 2>&1 ||
  fail "sweep --collect: $(cat "$work/collect.log") $(cat "$slurm_out/slurm/"*_*.err)"
grep -q "12 points: 12 ok, 0 failed, 0 missing" "$work/collect.log" || fail "collect: $(cat "$work/collect.log")"

cmp "$work/local/results.csv" "$slurm_out/results.csv" ||
  fail "Slurm results differ from the local ones: $(diff "$work/local/results.csv" "$slurm_out/results.csv")"
[ -z "$(find "$work" -name pwned)" ] || fail "a command ran from the folder name: $(find "$work" -name pwned)"
echo "PASS: 12 points through Slurm (5 array tasks, output folder 'a b;\$(touch pwned)') equal the local --jobs 2 results"
