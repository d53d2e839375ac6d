#!/usr/bin/env bash
# The same sweep with --jobs 1 and --jobs 2 (points finishing in another order) writes
# byte-identical results.csv and results.json.
#   determinism.sh IPUSIM_BIN SOURCE_DIR
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
write_sweep "$work/sweep.json"
for jobs in 1 2; do
  "$bin" sweep "$work/sweep.json" --out "$work/jobs$jobs" --jobs "$jobs" --quiet >"$work/jobs$jobs.log" 2>&1 ||
    fail "sweep --jobs $jobs: $(cat "$work/jobs$jobs.log")"
done
for f in results.csv results.json; do
  cmp "$work/jobs1/$f" "$work/jobs2/$f" || fail "$f differs between --jobs 1 and --jobs 2: $(diff "$work/jobs1/$f" "$work/jobs2/$f")"
done
rows=$(($(wc -l <"$work/jobs1/results.csv") - 1))
[ "$rows" -eq 6 ] || fail "expected 6 result rows, got $rows"
echo "PASS: --jobs 1 and --jobs 2 give byte-identical results.csv and results.json (6 points)"
