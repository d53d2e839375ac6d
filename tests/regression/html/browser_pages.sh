#!/bin/bash
# CTest html:browser:KIND — writes one kind of --html page with the CLI and opens it in real
# headless Chromium (browser_check.py): every chart drawn, no console error, no request
# leaving the file; the screenshot stays in OUT_DIR/KIND.png.
#   browser_pages.sh IPUSIM_BIN SOURCE_DIR OUT_DIR KIND [--timing]
# KIND: run_phased | run_pipelined | collective | collective_scan | sweep | validate | largest
set -euo pipefail
bin=$1 src=$2 out=$3 kind=$4 timing=${5:-}
check="/usr/bin/python3 $src/tests/regression/html/browser_check.py"
if ! command -v chromium >/dev/null; then
  echo "SKIP: Chromium not installed (tools/setup.sh ci installs Debian's chromium)"
  exit 77
fi
dir=$out/$kind
rm -rf "$dir"
mkdir -p "$dir"
run_charts=breakdown,timeline,streaming_memory,busiest_links,topology
case $kind in
  run_phased)  # execution phases, RTS, streaming memory: every section of a run page
    "$bin" run "$src/configs/workloads/mnist_phased.json" --out "$dir" --html -q
    charts=$run_charts,tile_memory,ipu_memory,collectives ;;
  run_pipelined)  # pipeline cycles with their ramp-up and ramp-down bubbles
    "$bin" run "$src/configs/workloads/mlperf_v1.0_bert_pod16.json" --out "$dir" --html -q
    charts=$run_charts,tile_memory,ipu_memory,collectives ;;
  collective)
    "$bin" collective --system pod16 --op allreduce --bytes 64MiB --algorithm best --out "$dir" --html -q
    charts=breakdown,time_by_tier,time_by_phase,algorithms,busiest_links,topology ;;
  collective_scan)  # bus bandwidth against size over a nccl-tests style scan
    "$bin" collective --system pod16 --op allreduce --min-bytes 1KiB --max-bytes 64MiB \
      --step-factor 8 --algorithm best --out "$dir" --html -q -j 2
    charts=bus_bandwidth,time_by_size ;;
  sweep)
    "$bin" sweep "$src/tests/regression/html/bert_pod16_sweep.json" --out "$dir" --html -q -j 2
    charts=pareto_sram,pareto_streaming
    timing="$timing --click pareto_sram" ;;  # a mouse click on a point copies its configuration
  validate)
    rc=0  # exit 1 (a case outside its tolerance) is not this test's concern; 2 or 3 is
    "$bin" validate "$src/configs/validation/cases/ipulink_partner_bandwidth.json" \
      "$src/configs/validation/cases/mlperf_v1.0_bert_pod16.json" --html "$dir/report.html" -q -j 2 \
      >/dev/null || rc=$?
    if [ "$rc" -gt 1 ]; then echo "FAIL: validate exited $rc"; exit 1; fi
    charts=predicted_vs_measured,case_errors ;;
  largest)  # the largest preset's page (GPT-3 175B on a Pod256): size and load time
    "$bin" run "$src/configs/workloads/gpt3_175b_pod256.json" --out "$dir" --html -q
    charts=$run_charts,tile_memory,ipu_memory,collectives
    size=$(stat -c %s "$dir/report.html")
    echo "page size: $size bytes"
    if [ "$size" -gt 5000000 ]; then echo "FAIL: the page is larger than 5 MB"; exit 1; fi ;;
  *) echo "unknown kind $kind"; exit 2 ;;
esac
$check "$dir/report.html" --charts "$charts" --screenshot "$out/$kind.png" $timing
