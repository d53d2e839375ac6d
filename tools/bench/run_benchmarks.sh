#!/usr/bin/env bash
# Simulator-speed benchmarks for standard scenarios (not tests): wall time, peak RSS and model
# events per second per scenario, written to bench.json (and printed as a table).
#   tools/bench/run_benchmarks.sh [--out bench.json] [--compare OLD.json] [--quick] [path/to/ipusim]
# --compare prints each scenario's change against an earlier bench.json. --quick skips the
# slow general-path and traced scenarios. Exits 0 (saying so)
# when the release binaries are not built; non-zero only when a scenario really fails.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out_json="bench.json"
compare=""
quick=0
bin=""
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out_json="$2"; shift 2 ;;
    --compare) compare="$2"; shift 2 ;;
    --quick) quick=1; shift ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    -*) echo "run_benchmarks.sh: unknown option $1" >&2; exit 2 ;;
    *) bin="$1"; shift ;;
  esac
done
bin="${bin:-$here/build/release/tools/ipusim}"
if [ ! -x "$bin" ]; then
  echo "run_benchmarks.sh: $bin is not built; nothing to measure (cmake --preset release && cmake --build build/release --target bench)"
  exit 0
fi
if [ -n "$compare" ] && [ ! -f "$compare" ]; then
  echo "run_benchmarks.sh: --compare: no such file '$compare'" >&2
  exit 2
fi
bench_dir="$(dirname "$bin")/bench"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export SC_COPYRIGHT_MESSAGE=DISABLE
lines="$tmp/lines.jsonl"
: > "$lines"

run() {  # name, then ipusim arguments (the report's run_info gives wall, RSS and events/s)
  local name="$1"; shift
  "$bin" "$@" --out "$tmp/$name" --quiet >/dev/null
  /usr/bin/python3 - "$tmp/$name" "$name" >> "$lines" <<'PY'
import json, os, sys
d, name = sys.argv[1], sys.argv[2]
r = json.load(open(os.path.join(d, "report.json")))
i = r["run_info"]
row = {"scenario": name, "wall_s": i["wall_time_s"], "peak_rss_MiB": i["peak_rss_MiB"],
       "model_events": i["model_events"], "events_per_s": i["model_events_per_s"],
       "simulated_ns": r["simulated"]["time_ns"]}
t = os.path.join(d, "trace.json")
if os.path.exists(t):
    row["trace_MB"] = os.path.getsize(t) / 1e6
print(json.dumps(row))
PY
  rm -rf "${tmp:?}/$name"
}

cd "$here"
ring=(collective --system configs/systems/multipod.json --bytes 268435456 --algorithm clockwise)
run allreduce_256MiB_pod64       collective --system configs/systems/pod64.json --bytes 268435456
run allreduce_hier_1024ipus      collective --system configs/systems/multipod.json --set system.num_ilds=16 --bytes 268435456
run allreduce_flat_ring_4096ipus "${ring[@]}"
run allreduce_hier_16384ipus     collective --system pod16k --bytes 268435456 --algorithm hierarchical
run allreduce_hier_65536ipus     collective --system pod64k --bytes 268435456 --algorithm hierarchical
[ "$quick" = 1 ] || run allreduce_flat_ring_4096ipus_general_path "${ring[@]}" --set sim.fast_paths=false
run allreduce_64MiB_pod16_packet collective --system configs/systems/pod16.json --bytes 67108864 --set sim.network_model=packet
run sharded_weight_pod256        run configs/workloads/sharded_weight_pod256.json
# GPT-3 175B on 16,384 IPUs: the network folds the replicas' symmetry and the collectives and
# remote exchanges played before hand it their folded batches (docs/collectives.md, Past the largest Pod):
# seconds, so --quick keeps it.
[ ! -f configs/workloads/gpt3_175b_pod16k.json ] ||
  run gpt3_175b_pod16k run configs/workloads/gpt3_175b_pod16k.json
for f in configs/workloads/bert_large_phased_pod64.json configs/workloads/gpt3_175b_pod256.json \
         configs/workloads/mlperf_v1.0_bert_pod16.json configs/workloads/mlperf_v1.0_bert_pod64.json \
         configs/workloads/mlperf_v1.1_resnet50_pod16.json configs/workloads/mlperf_v1.1_resnet50_pod64.json; do
  [ -f "$f" ] && run "$(basename "$f" .json)" run "$f"
done
[ "$quick" = 1 ] || run gpt3_175b_pod256_traced run configs/workloads/gpt3_175b_pod256.json --trace
# describe of the largest system: wall and peak RSS from /usr/bin/time (no report to read).
if [ -x /usr/bin/time ]; then
  /usr/bin/time -f '%e %M' -o "$tmp/describe.time" "$bin" describe pod64k --json >/dev/null
  read -r wall rss_kib < "$tmp/describe.time"
  echo "{\"scenario\": \"describe_pod64k\", \"wall_s\": $wall, \"peak_rss_MiB\": $((rss_kib / 1024)), \"model_events\": 0, \"events_per_s\": 0, \"simulated_ns\": 0}" >> "$lines"
fi
if [ -x "$bench_dir/bench_models" ]; then
  for m in saturated parallel; do
    "$bench_dir/bench_models" "$m" | /usr/bin/python3 -c '
import json, sys
r = json.loads(sys.stdin.read())
print(json.dumps({"scenario": "link_" + r["scenario"], "wall_s": r["wall_s"], "peak_rss_MiB": r["peak_rss_MB"],
                  "model_events": r["transfers"], "events_per_s": r["transfers_per_s"],
                  "simulated_ns": r["simulated_ns"]}))' >> "$lines"
  done
else
  echo "run_benchmarks.sh: $bench_dir/bench_models is not built; link scenarios skipped (cmake --build build/release --target bench_models)"
fi

/usr/bin/python3 - "$lines" "$out_json" "$compare" <<'PY'
import json, os, platform, sys, time
lines, out, compare = sys.argv[1], sys.argv[2], sys.argv[3]
rows = [json.loads(l) for l in open(lines) if l.strip()]
cpu = "?"
try:
    for l in open("/proc/cpuinfo"):
        if l.startswith("model name"):
            cpu = l.split(":", 1)[1].strip()
            break
except OSError:
    pass
doc = {"machine": {"cpu": cpu, "cores": os.cpu_count(), "host": platform.node(), "os": platform.platform()},
       "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
       "scenarios": {r.pop("scenario"): r for r in rows}}
with open(out, "w") as f:
    json.dump(doc, f, indent=2)
    f.write("\n")
old = json.load(open(compare))["scenarios"] if compare else {}
print(f"machine: {cpu}, {os.cpu_count()} cores")
for name, r in doc["scenarios"].items():
    line = (f"{name:<44} wall {r['wall_s']:8.3f} s   RSS {r['peak_rss_MiB']:7.1f} MiB   "
            f"{r['events_per_s']/1e6:7.2f} M events/s")
    if name in old:
        o = old[name]
        dw = (r["wall_s"] / o["wall_s"] - 1) * 100 if o["wall_s"] > 0 else 0.0
        de = (r["events_per_s"] / o["events_per_s"] - 1) * 100 if o["events_per_s"] > 0 else 0.0
        line += f"   vs {o['wall_s']:.3f} s: wall {dw:+6.1f} %, events/s {de:+6.1f} %"
    elif compare:
        line += "   (new)"
    print(line)
for name in old:
    if name not in doc["scenarios"]:
        print(f"{name:<44} (only in {compare})")
print(f"wrote {out}")
PY
