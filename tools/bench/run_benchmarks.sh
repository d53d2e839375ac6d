#!/usr/bin/env bash
# Simulator-speed benchmarks for standard scenarios (not tests): wall time, peak RSS and
# model events per second, read from each run's report.json run_info.
#   tools/bench/run_benchmarks.sh [path/to/ipusim]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bin="${1:-$here/build/release/tools/ipusim}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
export SC_COPYRIGHT_MESSAGE=DISABLE

run() {  # name, then ipusim arguments
  local name="$1"; shift
  "$bin" "$@" --out "$out/$name" >/dev/null
  /usr/bin/python3 - "$out/$name/report.json" "$name" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
i = r["run_info"]
print(f"{sys.argv[2]:<42} sim {r['simulated']['time_ns']/1e6:10.3f} ms   wall {i['wall_time_s']:7.3f} s   "
      f"RSS {i['peak_rss_MiB']:7.1f} MiB   {i['model_events']:>10} events   {i['model_events_per_s']/1e6:6.2f} M events/s")
PY
}

cd "$here"
run allreduce_256MiB_pod64       collective --system configs/systems/pod64.json --bytes 268435456
run allreduce_hier_1024ipus      collective --system configs/systems/multipod.json --set system.num_ilds=16 --bytes 268435456
run allreduce_flat_ring_4096ipus collective --system configs/systems/multipod.json --bytes 268435456 --algorithm clockwise
run sharded_weight_pod256        run configs/workloads/sharded_weight_pod256.json
for f in configs/workloads/bert_large_phased_pod64.json configs/workloads/gpt3_175b_pod256.json \
         configs/workloads/mlperf_v1.0_bert_pod16.json configs/workloads/mlperf_v1.0_bert_pod64.json \
         configs/workloads/mlperf_v1.1_resnet50_pod16.json configs/workloads/mlperf_v1.1_resnet50_pod64.json; do
  [ -f "$f" ] && run "$(basename "$f" .json)" run "$f"
done
for b in "$(dirname "$bin")"/bench/bench_models "$(dirname "$bin")"/bench/bench_schedule; do
  [ -x "$b" ] && { echo "== $(basename "$b")"; "$b"; }
done
