#!/usr/bin/env bash
# Fluid vs packet network model (not a test; tests/regression/network_models asserts bounds):
#   tools/bench/compare_network_models.sh [--quick] [path/to/ipusim]
# Runs the shipped collectives (allreduce, reduce_scatter, all_gather at 4 KiB, 1 MiB and
# 64 MiB; --quick: not 64 MiB) on pod4 and pod16 in both models and prints each fluid/packet
# time ratio and the packet run's wall time, then the random-traffic distribution of
# bench_network_models (300 seeded patterns per system) if it is built next to ipusim.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
quick=0
bin=""
for a in "$@"; do
  case "$a" in
    --quick) quick=1 ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    *) bin="$a" ;;
  esac
done
bin="${bin:-$here/build/release/tools/ipusim}"
if [ ! -x "$bin" ]; then
  echo "compare_network_models.sh: $bin is not built; nothing to compare"
  exit 0
fi
export SC_COPYRIGHT_MESSAGE=DISABLE
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
sizes="4KiB 1MiB"
[ "$quick" = 1 ] || sizes="$sizes 64MiB"
printf "%-8s %-15s %-6s %14s %14s %9s %9s\n" system op bytes fluid_ns packet_ns ratio packet_s
for system in pod4 pod16; do
  for op in allreduce reduce_scatter all_gather; do
    for bytes in $sizes; do
      for model in fluid packet; do
        "$bin" collective --system "$here/configs/systems/$system.json" --op "$op" --bytes "$bytes" \
          --set "sim.network_model=$model" --quiet --out "$tmp/$model" >/dev/null
      done
      /usr/bin/python3 - "$tmp" "$system" "$op" "$bytes" <<'PY'
import json, sys
d, system, op, size = sys.argv[1:]
f = json.load(open(d + "/fluid/report.json"))
p = json.load(open(d + "/packet/report.json"))
tf, tp = f["simulated"]["time_ns"], p["simulated"]["time_ns"]
print(f"{system:<8} {op:<15} {size:<6} {tf:14.1f} {tp:14.1f} {tf / tp:9.5f} {p['run_info']['wall_time_s']:9.2f}")
PY
    done
  done
done
bench="$(dirname "$bin")/bench/bench_network_models"
if [ -x "$bench" ]; then
  echo
  echo "random traffic, fluid/packet makespan and per-transfer ratios (min / median / p90 / max):"
  "$bench" 300 | /usr/bin/python3 -c '
import json, sys
for system, v in json.load(sys.stdin).items():
    for k, x in v.items():
        if isinstance(x, dict):
            n, lo, med, p90, hi = x["n"], x["min"], x["median"], x["p90"], x["max"]
            print(f"{system:<6} {k:<20} n={n:<5} {lo:.4f} / {med:.4f} / {p90:.4f} / {hi:.4f}")'
fi
