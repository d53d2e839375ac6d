#!/usr/bin/python3
"""Prints docs/validation.md's table of throughput per IPU from one Pod to four (markdown).

Usage: tools/scale_falloff.py [[--ipusim] IPUSIM [CHECKOUT]]
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

A second table splits ResNet-50's step (one configuration at every size; only the
accumulation count differs) into a time per image per IPU and a time per step, solved through
Pod16 and Pod64 (one IPU-Link domain each), simulated and measured alike; what Pod128 and Pod256
take beyond that split is what their second (and further) domains cost per step. Below it, the
GW-Link latency per traversal at which the simulated Pod128 fall-off would equal the measured
one. Every GW-Link sync crosses the GW-Links out and back and holds every IPU (BSP), so the step
is linear in the latency (about 2 x syncs per step ns per ns); the slope is taken from a second
Pod128 run with 1 us more. A reading of what a source would have to show, not a fit: no
calibration case crosses the GW-Links.
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


def per_step_split(small: tuple, large: tuple) -> tuple:
    """(time per sample per IPU, time per step) of the line step = a x samples + b through two
    (samples per IPU per step, step time) points of one domain each."""
    a = (small[1] - large[1]) / (small[0] - large[0])
    return a, large[1] - a * large[0]


def beyond_split(split: tuple, point: tuple) -> float:
    """Step time of `point` (samples per IPU per step, step time) beyond the per-step split."""
    return point[1] - (split[0] * point[0] + split[1])


def breakeven_latency_ns(latency_ns: float, base: tuple, sim: tuple, fall_off: float,
                         slope: float) -> float:
    """GW-Link latency per traversal at which the simulated per-IPU fall-off from `base` to
    `sim` (each (samples per IPU per step, step time in ns)) equals `fall_off` (a fraction):
    the step it needs is base step x (sim samples / base samples) / (1 - fall_off), and the
    step grows `slope` ns per ns of latency."""
    target_ns = base[1] * (sim[0] / base[0]) / (1.0 - fall_off)
    return latency_ns + (target_ns - sim[1]) / slope


def gw_link_latency_ns(ipusim: str) -> float:
    """The registry's /machine/gw_link/latency_ns (ipusim params --json)."""
    out = subprocess.run([ipusim, "params", "--json"], check=True, capture_output=True, text=True,
                         env=dict(os.environ, SC_COPYRIGHT_MESSAGE="DISABLE"))
    return next(p["default"] for p in json.loads(out.stdout)
                if p["path"] == "/machine/gw_link/latency_ns")


def print_split(rows: list, ipusim: str, root: str) -> None:
    """The second table (ResNet-50 only) and the break-even GW-Link latency."""
    res = {r[1]: r for r in rows if r[0] == "ResNet-50"}
    print()
    print("| ResNet-50 | per image per IPU | per step | Pod128 beyond the split "
          "| Pod256 beyond the split |")
    print("|---|---|---|---|---|")
    # Row layout: (model, system, step_ns, per-IPU sim /s, per-IPU measured /s, gw, samples).
    for label, pick in (("simulated", lambda r: (r[6], r[2])),
                        ("measured", lambda r: (r[6], r[6] / r[4] * 1e9) if r[4] else None)):
        pts = {s: pick(res[s]) for s in res}
        split = per_step_split(pts["Pod16"], pts["Pod64"])
        extra = [f"{beyond_split(split, pts[s]) / 1e6:+.2f} ms" if pts[s] else "–"
                 for s in ("Pod128", "Pod256")]
        print(f"| {label} | {split[0] / 1e6:.4f} ms | {split[1] / 1e6:.2f} ms | {extra[0]} | "
              f"{extra[1]} |")
    p64, p128 = res["Pod64"], res["Pod128"]
    fall = 1 - p128[4] / p64[4]
    latency = gw_link_latency_ns(ipusim)
    _, _, _, config, sets, _, _ = next(r for r in RUNS if r[:2] == ("ResNet-50", "Pod128"))
    more = run(ipusim, root, config,
               sets + ["--set", f"machine.gw_link.latency_ns={latency + 1000}"])
    slope = (more["workload"]["step_time_ns"] - p128[2]) / 1000.0
    need = breakeven_latency_ns(latency, (p64[6], p64[2]), (p128[6], p128[2]), fall, slope)
    print()
    print(f"GW-Link latency per traversal at which the simulated Pod128 fall-off equals the "
          f"measured {100 * fall:.1f} points: {need:.0f} ns (shipped: {latency:.0f} ns; the step "
          f"grows {slope:.0f} ns per ns, {p128[5][0]:.0f} GW-Link syncs per step counted).")


def main() -> int:
    if any(a in ("-h", "--help") for a in sys.argv[1:]):
        print(__doc__)
        return 0
    args = sys.argv[1:]
    # `--ipusim BIN` as tools/out_of_sample.py takes it, or the binary as the first argument.
    if args[:1] == ["--ipusim"]:
        if len(args) < 2:
            print("scale_falloff.py: --ipusim needs the path of an ipusim binary", file=sys.stderr)
            return 2
        args = args[1:]
    ipusim = args[0] if args else os.path.join(ROOT, "build/ci/tools/ipusim")
    if not os.path.isfile(ipusim):
        print(f"scale_falloff.py: no ipusim binary at '{ipusim}' (build it, or pass its path)",
              file=sys.stderr)
        return 2
    root = args[1] if len(args) > 1 else ROOT
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
                     measured / ipus if measured else None, gw_syncs,
                     w.get("samples_per_step", 0) / ipus))
    base = {model: (sim, meas) for model, system, _, sim, meas, _, _ in rows if system == "Pod64"}
    for model, system, step_ns, sim, meas, (n_gw, gw_ns), _ in rows:
        fall = 100 * (1 - sim / base[model][0])
        mfall = f"{100 * (1 - meas / base[model][1]):.1f}" if meas else "–"
        print(f"| {model} | {system} | {step_ns / 1e6:.2f} ms | {sim:.1f}/s | "
              f"{fall:.1f} | {f'{meas:.1f}/s' if meas else '–'} | {mfall} | "
              f"{n_gw:.0f} ({gw_ns / 1e6:.2f} ms) |")
    if all(r[6] for r in rows):
        print_split(rows, ipusim, root)  # older binaries report no samples_per_step
    return 0


if __name__ == "__main__":
    sys.exit(main())
