#!/usr/bin/env bash
# Two sweeps into one folder at once: the first holds DIR/.sweep.lock (flock); while it
# runs (frozen with SIGSTOP right after it took the lock, so the overlap does not depend
# on timing) a second sweep, a --collect and a --shard into the same folder are each
# refused with exit 2 naming the folder and the first sweep's pid, and change nothing.
# The first then finishes with the results of a sweep run alone. Shards of one array
# share the folder: two at once both run, and --collect merges them to the same results.
#   sweep_lock.sh IPUSIM_BIN SOURCE_DIR
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
write_sweep "$work/sweep.json"
sweep() { "$bin" sweep "$work/sweep.json" --quiet "$@"; }

sweep --out "$work/alone" --jobs 2 >"$work/alone.log" 2>&1 || fail "sweep alone: $(cat "$work/alone.log")"

dir="$work/shared"
"$bin" sweep "$work/sweep.json" --out "$dir" --jobs 1 --quiet >"$work/first.log" 2>&1 &
first=$!
cleanup_hooks+=("kill -CONT $first 2>/dev/null; kill $first 2>/dev/null; wait $first 2>/dev/null")
for _ in $(seq 1 500); do  # up to 5 s for the first sweep to take the lock (it writes its pid)
  [ "$(cat "$dir/.sweep.lock" 2>/dev/null)" = "$first" ] && break
  sleep 0.01
done
[ "$(cat "$dir/.sweep.lock" 2>/dev/null)" = "$first" ] || fail "the first sweep (pid $first) never took $dir/.sweep.lock"
kill -STOP "$first"
# The frozen sweep's running child finishes on its own; wait until it has (a zombie), so
# that nothing writes into the folder but the sweeps under test.
running_children() {
  local stat fields count=0
  for stat in /proc/[0-9]*/stat; do
    read -r fields 2>/dev/null <"$stat" || continue
    read -r -a fields <<<"${fields##*) }"  # state, ppid, ... (after the command name)
    [ "${fields[1]}" = "$1" ] && [ "${fields[0]}" != Z ] && count=$((count + 1))
  done
  echo "$count"
}
for _ in $(seq 1 1000); do
  [ "$(running_children "$first")" -eq 0 ] && break
  sleep 0.01
done
[ "$(running_children "$first")" -eq 0 ] || fail "the frozen sweep's children did not end in 10 s"
snapshot() { (cd "$dir" && find . -path ./.sweep.lock -prune -o -type f -print0 | sort -z | xargs -0r sha256sum); }
before="$(snapshot)"
for second in "--jobs 2" "--collect" "--shard 0/2"; do
  # shellcheck disable=SC2086  # the flags are words
  sweep --out "$dir" $second >"$work/second.log" 2>&1
  code=$?
  [ "$code" -eq 2 ] || fail "a second sweep ($second) while the first runs: exit $code, expected 2: $(cat "$work/second.log")"
  grep -q "another sweep is writing to $dir (.*\.sweep\.lock is locked by process $first)" "$work/second.log" ||
    fail "a second sweep ($second): the message does not name the folder and the holder: $(cat "$work/second.log")"
done
[ "$(snapshot)" = "$before" ] || fail "a refused sweep changed files in $dir"
kill -CONT "$first"
wait "$first" || fail "the first sweep: $(cat "$work/first.log")"
cmp "$work/alone/results.csv" "$dir/results.csv" || fail "the first sweep's results differ from a sweep run alone"

# Shards of one array share the folder.
sweep --out "$work/shards" --shard 0/2 --jobs 1 >"$work/shard0.log" 2>&1 &
s0=$!
sweep --out "$work/shards" --shard 1/2 --jobs 1 >"$work/shard1.log" 2>&1 || fail "shard 1/2: $(cat "$work/shard1.log")"
wait "$s0" || fail "shard 0/2: $(cat "$work/shard0.log")"
sweep --out "$work/shards" --collect >"$work/collect.log" 2>&1 || fail "collect: $(cat "$work/collect.log")"
cmp "$work/alone/results.csv" "$work/shards/results.csv" || fail "the collected shards differ from a sweep run alone"
echo "PASS: a second sweep, --collect and --shard into a folder in use are refused (exit 2, naming pid $first);" \
  "the first sweep's results are those of a sweep run alone; two shards share a folder"
