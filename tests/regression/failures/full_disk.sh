#!/usr/bin/env bash
# A real full disk: a 2 MB tmpfs mounted by the test (root only) holds earlier results of
# `run`, `sweep` and `calibrate`; it is then filled up (completely, and to within half of
# what each command writes) and `run`, `run --trace`, `sweep` and `calibrate` are run into
# it again. Each must exit 3 naming a file on that disk, leave no temporary or truncated
# file (every *.json parses, every *.jsonl line parses) and leave the earlier results byte
# for byte as they were. The tmpfs is unmounted on exit, and lives in a mount namespace of
# the test's own where unshare(1) can make one.
#   full_disk.sh IPUSIM_BIN SOURCE_DIR
set -uo pipefail
# In a private mount namespace of its own (root only), so that the tmpfs goes away with
# the test even if it is killed before its trap runs (a CTest timeout).
if [ "$(id -u)" -eq 0 ] && [ -z "${IPUSIM_FULL_DISK_NS:-}" ] && unshare --mount --propagation private true 2>/dev/null; then
  IPUSIM_FULL_DISK_NS=1 exec unshare --mount --propagation private bash "${BASH_SOURCE[0]}" "$@"
fi
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
skip_unless_root "full disk on a tmpfs"

disk="$work/disk"
mkdir -p "$disk"
mount -t tmpfs -o size=2m,mode=0755 ipusim_full_disk "$disk" || fail "cannot mount a tmpfs on $disk"
cleanup_hooks+=("umount '$disk' 2>/dev/null || umount -l '$disk'")

# All-to-all IPU traffic on an IPU-M2000: its trace (~200 KB) is written in several 64 KB
# blocks, so with half of it free the write fails midway, not at the first block.
config="$src/configs/validation/setups/gc_iputraffictest_m2000.json"
write_sweep "$work/sweep.json"
write_calibration "$work/cal"

# Earlier results, written while there is room.
"$bin" run "$config" --out "$disk/run" --quiet >/dev/null 2>&1 || fail "run with room"
"$bin" run "$config" --out "$disk/trace" --trace --quiet >/dev/null 2>&1 || fail "run --trace with room"
"$bin" sweep "$work/sweep.json" --out "$disk/sweep" --jobs 2 --quiet >/dev/null 2>&1 || fail "sweep with room"
calibrate "$work/cal" "$disk/fit/fitted.json" --jobs 2 >/dev/null 2>&1 || fail "calibrate with room"
earlier=(run/report.json run/resolved_config.json trace/trace.json trace/report.json sweep/results.csv
         sweep/results.json fit/fitted.json fit/fitted.meta.json)
(cd "$disk" && sha256sum "${earlier[@]}") >"$work/earlier.sha256" || fail "an earlier result is missing"

# The largest file under $1 (bytes): what the command writes at most in one file.
largest_file() { find "$1" -type f -printf '%s\n' | sort -n | tail -1; }
# fill_leaving BYTES: a filler file takes all free space but BYTES (rounded down to pages).
fill_leaving() {
  rm -f "$disk/filler"
  local free
  free=$(($(stat -f -c '%a * %S' "$disk")))
  head -c "$((free > $1 ? free - $1 : 0))" /dev/zero >"$disk/filler" 2>/dev/null
  sync
}

# Every result file on the disk whole: no temporary file, every JSON and JSON line parses.
check_nothing_partial() {
  local what="$1" tmp
  tmp="$(find "$disk" -name '*.tmp.*')"
  [ -z "$tmp" ] || fail "$what: temporary files left: $tmp"
  /usr/bin/python3 - "$disk" <<'PY' || fail "$what: a truncated result file is left"
import json, pathlib, sys
bad = []
for p in pathlib.Path(sys.argv[1]).rglob("*.json*"):
    try:
        if p.suffix == ".jsonl":
            [json.loads(line) for line in p.read_text().splitlines()]
        else:
            json.loads(p.read_text())
    except Exception as e:  # noqa: BLE001 - any failure to parse is the finding
        bad.append(f"{p}: {e}")
if bad:
    print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
  (cd "$disk" && sha256sum --quiet -c "$work/earlier.sha256") || fail "$what: an earlier result changed"
}

# expect_full_disk WHAT FOLDER LEAVE_BYTES COMMAND...: exit 3 naming a file under FOLDER.
expect_full_disk() {
  local what="$1" folder="$2" leave="$3"
  shift 3
  fill_leaving "$leave"
  "$@" >"$work/out.log" 2>"$work/err.log"
  local code=$?
  [ "$code" -eq 3 ] || fail "$what (free $leave bytes): exit $code, expected 3: $(cat "$work/err.log")"
  grep -q "$folder/[^ ]*" "$work/err.log" || fail "$what (free $leave bytes): the message names no file in $folder: $(cat "$work/err.log")"
  check_nothing_partial "$what (free $leave bytes)"
  echo "ok: $what, $leave bytes free: exit 3: $(tail -1 "$work/err.log")"
}

run_size=$(largest_file "$disk/run")
trace_size=$(largest_file "$disk/trace")
sweep_size=$(largest_file "$disk/sweep")
fit_size=$(largest_file "$disk/fit")
for leave in 0 half; do
  l() { [ "$leave" = 0 ] && echo 0 || echo $(($1 / 2)); }
  expect_full_disk "run" "$disk/run" "$(l "$run_size")" "$bin" run "$config" --out "$disk/run" --quiet
  expect_full_disk "run --trace" "$disk/trace" "$(l "$trace_size")" \
    "$bin" run "$config" --out "$disk/trace" --trace --quiet
  expect_full_disk "sweep" "$disk/sweep" "$(l "$sweep_size")" \
    "$bin" sweep "$work/sweep.json" --out "$disk/sweep" --jobs 2 --quiet
  expect_full_disk "calibrate" "$disk/fit" "$(l "$fit_size")" calibrate "$work/cal" "$disk/fit/fitted.json" --jobs 2
done
echo "PASS: run, run --trace, sweep and calibrate on a full tmpfs: exit 3 naming the file, nothing partial, earlier results intact"
