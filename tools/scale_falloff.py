#!/usr/bin/python3
"""Prints the README's table of throughput per IPU from one Pod to four (markdown).

Usage: tools/scale_falloff.py [IPUSIM [CHECKOUT]]
  (defaults: build/ci/tools/ipusim of this checkout, and this checkout's configs; naming an
  older binary and its checkout prints the table as that version had it)
Runs the MLPerf ResNet-50 and BERT-Large set-ups on Pod16, Pod64, Pod128 and Pod256 and
prints, per model and system, the step time, the throughput per IPU and its fall-off from
one Pod64 in points (100 x (1 - per-IPU throughput / Pod64's); Pod16's is negative), simulated
and, where a
measurement is in shared/reference/measurements.md (sections 2 and 6), measured; and the
simulated BSP syncs per step that cross the GW-Links, with their time (stats.system.sync.gw_link:
with one graph compile domain over several IPU-Link domains every collective superstep's).
Pod256 set-ups follow training_results_v1.1: ResNet-50 mk2_resnet50_mlperf_pod256_lars
(256 replicas, micro-batch 20, accumulation 2) and BERT pod256-closed.json (32 replicas of 8
IPUs, accumulation 96) with one graph compile domain per IPU-Link domain as on Pod128
(scripts/pod128-run.sh, --num-gcds 2; ASSUMPTION for Pod256: the same one per domain).
"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
V = "configs/validation/setups/"
W = "configs/workloads/"

# (model, system, IPUs, config, --set overrides, report key, measured per s or None)
RUNS = [
    ("ResNet-50", "Pod16", 16, W + "mlperf_v1.1_resnet50_pod16.json", [], "samples_per_s", 29465),
    ("ResNet-50", "Pod64", 64, W + "mlperf_v1.1_resnet50_pod64.json", [], "samples_per_s", 108015),
    ("ResNet-50", "Pod128", 128, V + "mlperf_v1.1_resnet50_pod128.json", [], "samples_per_s",
     180928),
    ("ResNet-50", "Pod256", 256, V + "mlperf_v1.1_resnet50_pod128.json",
     ["--system", "pod256", "--set", "workload.session.replicatedGraphCount=256"],
     "samples_per_s", None),
    ("BERT-Large", "Pod16", 16, W + "mlperf_v1.0_bert_pod16.json", [], "sequences_per_s", 1420),
    ("BERT-Large", "Pod64", 64, W + "mlperf_v1.0_bert_pod64.json", [], "sequences_per_s", 4237),
    ("BERT-Large", "Pod128", 128, V + "mlperf_v1.1_bert_pod128.json", [], "sequences_per_s",
     9006),
    ("BERT-Large", "Pod256", 256, V + "mlperf_v1.1_bert_pod128.json",
     ["--system", "pod256", "--set", "workload.session.replicatedGraphCount=32", "--set",
      "system.num_gcds=4"], "sequences_per_s", None),
]


def run(ipusim: str, root: str, config: str, extra: list) -> dict:
    if "system.num_gcds=4" in extra and "num_gcds" not in open(os.path.join(root, config)).read():
        extra = extra[:-2]  # a checkout from before /system/num_gcds
    out = subprocess.run([ipusim, "run", os.path.join(root, config), "--json", "--quiet"] + extra,
                         check=True, capture_output=True, text=True,
                         env=dict(os.environ, SC_COPYRIGHT_MESSAGE="DISABLE"))
    return json.loads(out.stdout)


def main() -> int:
    ipusim = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build/ci/tools/ipusim")
    root = sys.argv[2] if len(sys.argv) > 2 else ROOT
    print("| model | system | step time | per IPU, simulated | fall-off from Pod64, simulated "
          "| per IPU, measured | fall-off from Pod64, measured | GW-Link syncs per step |")
    print("|---|---|---|---|---|---|---|---|")
    rows = []
    for model, system, ipus, config, extra, key, measured in RUNS:
        report = run(ipusim, root, config, extra)
        w = report["workload"]
        steps = w["run_time_ns"] / w["step_time_ns"]
        gw = report.get("stats", {}).get("system", {}).get("sync", {}).get("gw_link", {})
        clock = report["simulated"]["clock_GHz"]
        gw_syncs = (gw.get("syncs", 0) / steps, gw.get("cycles", 0) / clock / steps)
        rows.append((model, system, w["step_time_ns"], w[key] / ipus,
                     measured / ipus if measured else None, gw_syncs))
    base = {model: (sim, meas) for model, system, _, sim, meas, _ in rows if system == "Pod64"}
    for model, system, step_ns, sim, meas, (n_gw, gw_ns) in rows:
        fall = 100 * (1 - sim / base[model][0])
        mfall = f"{100 * (1 - meas / base[model][1]):.1f}" if meas else "–"
        print(f"| {model} | {system} | {step_ns / 1e6:.2f} ms | {sim:.1f}/s | "
              f"{fall:.1f} | {f'{meas:.1f}/s' if meas else '–'} | {mfall} | "
              f"{n_gw:.0f} ({gw_ns / 1e6:.2f} ms) |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
