#!/usr/bin/env bash
# Runs one libFuzzer target for SECONDS: tools/fuzz.sh config|cbr|sweep|graph SECONDS [JOBS]
# (JOBS > 1 uses libFuzzer's -fork mode; a timeout is 30 s, generous for a loaded machine).
# Builds build/fuzz with Debian's clang (-fsanitize=fuzzer,address,undefined; libraries
# with fuzzer-no-link so coverage reaches the loader) the first time. Seeds come from
# tests/fuzz/corpus/TARGET/; new interesting inputs go to build/fuzz/corpus/TARGET/ and
# crashers to build/fuzz/crashes/TARGET/ — copy every crasher into tests/fuzz/corpus/TARGET/
# after fixing it, so that the fuzz_replay CTest keeps it fixed.
set -euo pipefail
target=${1:?usage: tools/fuzz.sh config|cbr|sweep|graph SECONDS [JOBS]}
seconds=${2:?usage: tools/fuzz.sh TARGET SECONDS [JOBS]}
jobs=${3:-1}
case "$target" in config|cbr|sweep|graph) ;; *) echo "fuzz.sh: unknown target '$target'" >&2; exit 2 ;; esac
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
ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  "$build/tests/fuzz/replay/fuzz_$target" "$build/corpus/$target" "$root/tests/fuzz/corpus/$target" \
  -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=30 -max_len=65536 -print_final_stats=1 \
  -artifact_prefix="$build/crashes/$target/" $( [ "$jobs" -gt 1 ] && echo "-fork=$jobs" )
