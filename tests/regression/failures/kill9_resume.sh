#!/usr/bin/env bash
# kill -9 at 10 random moments, then --resume: for each moment (seeded, so the same
# moments every run; IPUSIM_KILL_SEED changes them) a fresh `sweep` (or `calibrate`) is
# started, killed with SIGKILL that many milliseconds in, and run again with --resume to
# the end. The final results.csv (fitted.json and its meta side-car for calibrate) must be
# byte-identical to an uninterrupted run's: a killed run leaves nothing that a resume would
# take for a result, and no lock that would block it.
#   kill9_resume.sh IPUSIM_BIN SOURCE_DIR sweep|calibrate
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
mode="${3:?usage: kill9_resume.sh IPUSIM_BIN SOURCE_DIR sweep|calibrate}"
RANDOM="${IPUSIM_KILL_SEED:-29}"

write_sweep "$work/sweep.json"
write_calibration "$work/cal"

# command_for DIR [--resume]: sets the array cmd to the command writing into DIR
# (results.csv, or fitted.json).
command_for() {
  local dir="$1"
  shift
  case "$mode" in
    sweep) cmd=("$bin" sweep "$work/sweep.json" --out "$dir" --jobs 2 --quiet "$@") ;;
    calibrate)
      calibrate_command "$work/cal" "$dir/fitted.json" --jobs 2 --work "$dir/runs" "$@"
      cmd=("${calibrate_cmd[@]}")
      ;;
    *) fail "unknown mode '$mode'" ;;
  esac
}
# The files that must come out byte-identical (the meta's date line aside: it is today's).
results() {
  case "$mode" in
    sweep) cat "$1/results.csv" ;;
    calibrate) cat "$1/fitted.json" && grep -v '"date"' "$1/fitted.meta.json" ;;
  esac
}
now_ms() { echo $(($(date +%s%N) / 1000000)); }

t0=$(now_ms)
command_for "$work/reference"
"${cmd[@]}" >"$work/reference.log" 2>&1 || fail "uninterrupted $mode: $(cat "$work/reference.log")"
duration_ms=$(($(now_ms) - t0))
results "$work/reference" >"$work/reference.out" || fail "uninterrupted $mode wrote no results"

killed=0
moments=()
# Kill moments are drawn within a window, first the first half of the reference run's time: a
# trial on a less loaded machine can run in well under the reference's time, and a kill after
# its end tests nothing (seen in CI: 2 of 10 kills hit a 290 ms sweep; 3 of 10 a calibrate whose
# reference ran at a load that then fell). A kill that misses halves the window (not below
# 20 ms), and trials go on until 10 kills hit or 20 trials ran.
window_ms=$((duration_ms / 2))
trial=0
while [ "$killed" -lt 10 ] && [ "$trial" -lt 20 ]; do
  trial=$((trial + 1))
  dir="$work/trial$trial"
  moment_ms=$((RANDOM % (window_ms + 1)))
  moments+=("$moment_ms")
  command_for "$dir"
  "${cmd[@]}" >"$work/trial.log" 2>&1 &
  pid=$!  # ipusim itself (a simple command started with & is exec'ed by the forked shell)
  sleep "$(printf '%d.%03d' $((moment_ms / 1000)) $((moment_ms % 1000)))"
  if kill -9 "$pid" 2>/dev/null; then
    killed=$((killed + 1))
  elif [ "$window_ms" -gt 40 ]; then
    window_ms=$((window_ms / 2))
  fi
  wait "$pid" 2>/dev/null
  command_for "$dir" --resume
  "${cmd[@]}" >"$work/resume.log" 2>&1 ||
    fail "$mode --resume after kill -9 at $moment_ms ms: $(cat "$work/resume.log")"
  results "$dir" >"$work/trial.out" || fail "$mode --resume after kill -9 at $moment_ms ms wrote no results"
  cmp -s "$work/reference.out" "$work/trial.out" ||
    fail "$mode --resume after kill -9 at $moment_ms ms differs: $(diff "$work/reference.out" "$work/trial.out")"
done
[ "$killed" -ge 5 ] || fail "only $killed of $trial kills hit a running $mode (uninterrupted: $duration_ms ms)"
echo "PASS: $mode killed with SIGKILL at ${moments[*]} ms (of $duration_ms ms; $killed of $trial hit it while running)," \
  "then --resume: results byte-identical to the uninterrupted run"
