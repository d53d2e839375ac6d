#!/usr/bin/env bash
# Runs one libFuzzer target for SECONDS: tools/fuzz.sh config|cbr|sweep|graph|onnx SECONDS [JOBS]
# (JOBS > 1 uses libFuzzer's -fork mode; a timeout is 30 s, generous for a loaded machine).
# tools/fuzz.sh TARGET merge: minimises what the runs learnt (build/fuzz/corpus/TARGET)
# into tests/fuzz/corpus/TARGET (libFuzzer -merge=1: only inputs that add coverage are
# added; named seeds and findings stay), then tops it up to 1,000 inputs with distinct
# inputs of at most 4 KB from the run's corpus, in SHA-1 order (files named by SHA-1).
# Builds build/fuzz with Debian's clang (-fsanitize=fuzzer,address,undefined; libraries
# with fuzzer-no-link so coverage reaches the loader) the first time. Seeds come from
# tests/fuzz/corpus/TARGET/; new interesting inputs go to build/fuzz/corpus/TARGET/ and
# crashers to build/fuzz/crashes/TARGET/ — copy every crasher into tests/fuzz/corpus/TARGET/
# after fixing it, so that the fuzz_replay CTest keeps it fixed.
# -h / --help: print this header and exit (nothing is installed, built or run).
set -euo pipefail
if [ "${1:-}" = -h ] || [ "${1:-}" = --help ]; then
  sed -n '2,/^set -euo pipefail/{/^#/s/^# \{0,1\}//p}' "$0"
  exit 0
fi
target=${1:?usage: tools/fuzz.sh config|cbr|sweep|graph SECONDS|merge [JOBS]}
seconds=${2:?usage: tools/fuzz.sh TARGET SECONDS|merge [JOBS]}
jobs=${3:-1}
case "$target" in config|cbr|sweep|graph|onnx) ;; *) echo "fuzz.sh: unknown target '$target'" >&2; exit 2 ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build/fuzz"
command -v clang++ >/dev/null || { echo "fuzz.sh: needs clang++ (Debian package clang)" >&2; exit 2; }
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" -DIPUSIM_FUZZ=ON >/dev/null
fi
flock /tmp/ipusim_build.lock cmake --build "$build" --target "fuzz_$target" -j2
mkdir -p "$build/corpus/$target" "$build/crashes/$target"
cd "$build/crashes/$target"
# Leaks are not crashes here: SystemC's and the registry's singletons live until exit.
export ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
if [ "$seconds" = merge ]; then
  committed="$root/tests/fuzz/corpus/$target"
  merged="$build/merged/$target"
  rm -rf "$merged" && mkdir -p "$merged" && cp "$committed"/* "$merged"/
  "$build/tests/fuzz/replay/fuzz_$target" -merge=1 -rss_limit_mb=2048 -timeout=30 -max_len=65536 \
    "$merged" "$build/corpus/$target"
  after_merge=$(find "$merged" -type f | wc -l)
  declare -A have
  for f in "$merged"/*; do have[$(sha1sum <"$f" | cut -c1-40)]=1; done
  count=$after_merge
  while IFS= read -r f; do
    ((count < 1000)) || break
    [ "$(stat -c %s "$f")" -le 4096 ] || continue
    sum=$(sha1sum <"$f" | cut -c1-40)
    [ -z "${have[$sum]:-}" ] || continue
    have[$sum]=1
    cp "$f" "$merged/$sum"
    count=$((count + 1))
  done < <(find "$build/corpus/$target" -type f | sort)
  rm -rf "$committed" && cp -r "$merged" "$committed"
  echo "fuzz.sh: $target: $(find "$committed" -type f | wc -l) inputs in tests/fuzz/corpus/$target" \
    "($after_merge after -merge=1, $(du -sb "$committed" | cut -f1) bytes)"
  exit 0
fi
"$build/tests/fuzz/replay/fuzz_$target" "$build/corpus/$target" "$root/tests/fuzz/corpus/$target" \
  -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=30 -max_len=65536 -print_final_stats=1 \
  -artifact_prefix="$build/crashes/$target/" $( [ "$jobs" -gt 1 ] && echo "-fork=$jobs" )
