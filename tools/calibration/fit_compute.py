#!/usr/bin/python3
"""Re-fits the compute group of configs/calibration/assumptions.json on its 7 calibration cases.

    /usr/bin/python3 tools/calibration/fit_compute.py --ipusim build/ci/tools/ipusim [--apply]

The compute parameters (/chip/compute/*) move only the MLPerf and PEARC cases (README,
"Calibration and validation"), so they are fitted on those alone, each from its assumption:
  1. writes G_compute (the /chip/compute/ entries of assumptions.json) to
     out/calibration/G_compute.json;
  2. runs ipusim calibrate on the MLPerf BERT / ResNet-50 POD16 and POD64 and the PEARC
     micro-batch 2 / 8 / 20 calibration cases with --params-from G_compute
     (--out out/calibration/fitted_compute.json);
  3. prints, per parameter, unit, range, assumption, value before (configs/calibration/
     fitted.json) and after, and each case's error at the start and at the fitted point;
  4. with --apply, writes the fitted values, rounded to 4 significant digits, into the registry
     defaults and presets (refit.py's helpers) and into configs/calibration/fitted.json and
     fitted.meta.json (the compute entries; the host group's stay as they are).
Then rebuild, regenerate the goldens and README numbers, and commit them separately.
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import refit  # noqa: E402  (set_registry_default, set_preset, rounded)

ROOT = refit.ROOT
PREFIX = "/chip/compute/"
CASES = ["mlperf_v1.0_bert_pod16", "mlperf_v1.0_bert_pod64", "mlperf_v1.1_resnet50_pod16",
         "mlperf_v1.1_resnet50_pod64", "pearc22_resnet50_1ipu_mb2", "pearc22_resnet50_1ipu_mb8",
         "pearc22_resnet50_1ipu_mb20"]


def before_values():
    """The shipped fit of each compute parameter (configs/calibration/fitted.json)."""
    meta = json.load(open(os.path.join(ROOT, "configs/calibration/fitted.meta.json")))
    return {p: row.get("value") for p, row in meta["parameters"].items() if p.startswith(PREFIX)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ipusim", default=os.path.join(ROOT, "build", "ci", "tools", "ipusim"))
    ap.add_argument("--max-evals", type=int, default=240, help="objective evaluations of the fit")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--apply", action="store_true", help="write the fitted values as the defaults")
    ap.add_argument("--resume", action="store_true",
                    help="reuse the evaluations cached by the last run (only with the same ipusim build)")
    args = ap.parse_args()
    os.chdir(ROOT)
    os.makedirs("out/calibration", exist_ok=True)
    assumptions = json.load(open("configs/calibration/assumptions.json"))
    group = dict(assumptions)
    group["parameters"] = {p: v for p, v in assumptions["parameters"].items() if p.startswith(PREFIX)}
    g_file = "out/calibration/G_compute.json"
    with open(g_file, "w") as f:
        json.dump(group, f, indent=2)
    out = "out/calibration/fitted_compute.json"
    cases = ["configs/validation/cases/%s.json" % c for c in CASES]
    fit = subprocess.run([args.ipusim, "calibrate"] + cases +
                         ["--params-from", g_file, "--out", out, "--max-evals", str(args.max_evals),
                          "--jobs", str(args.jobs), "--json"] + (["--resume"] if args.resume else []),
                         stdout=subprocess.PIPE, text=True)
    if fit.returncode != 0:
        sys.exit(fit.returncode)
    result = json.loads(fit.stdout)
    before = before_values()
    print("parameter | unit | range | assumption | before | after | set-ups | determined by")
    for path, row in result["parameters"].items():
        print("%s | %s | [%g, %g] | %g | %s | %.6g | %d | %s" % (
            path, row["unit"], row["min"], row["max"], row["start"], before.get(path, "-"), row["value"],
            row.get("setups", 0), ", ".join(row["cases"])))
    meta_file = out[:-len(".json")] + ".meta.json"
    meta = json.load(open(meta_file)) if os.path.exists(meta_file) else {}
    print("objective %s -> %s (%s evaluations, %s)" % (meta.get("objective_start"), meta.get("objective_fitted"),
                                                       meta.get("evaluations"), meta.get("stop_reason")))
    for c in meta.get("cases", []):
        sim, start = c.get("simulated_fitted"), c.get("simulated_start")
        print("%s: measured %s %s, at the assumptions %s, fitted %s (%+.2f %%)" % (
            c["name"], c["measured"], c.get("unit", ""), start, sim,
            100 * (sim / c["measured"] - 1) if sim and c["measured"] else float("nan")))
    if not args.apply:
        print("fit written to %s (defaults untouched; --apply writes them)" % out)
        return
    shipped = json.load(open("configs/calibration/fitted.json"))
    shipped_meta = json.load(open("configs/calibration/fitted.meta.json"))
    for path, row in result["parameters"].items():
        if row["status"] != "fitted":
            continue
        integer = isinstance(row["value"], int)
        text = refit.rounded(row["value"], integer)
        if not refit.set_registry_default(path, row["unit"], text):
            print("warning: no registry default found for %s" % path, file=sys.stderr)
        refit.set_preset(path, text)
        node = shipped
        keys = path.strip("/").split("/")
        for k in keys[:-1]:
            node = node.setdefault(k, {})
        node[keys[-1]] = row["value"]
        if path in meta.get("parameters", {}):
            shipped_meta["parameters"][path] = meta["parameters"][path]
    fitted_cases = {c["name"]: c for c in meta.get("cases", [])}
    shipped_meta["cases"] = [fitted_cases.pop(c["name"], c) for c in shipped_meta.get("cases", [])]
    shipped_meta["cases"] += list(fitted_cases.values())
    shipped_meta["groups"] = [g for g in shipped_meta.get("groups", []) if not g.startswith("compute group")]
    shipped_meta["groups"].insert(0, "compute group: %d cases, %s evaluations, objective %.6g -> %.6g (%s; "
                                     "tools/calibration/fit_compute.py)" % (
                                         len(CASES), meta.get("evaluations"), meta.get("objective_start", 0),
                                         meta.get("objective_fitted", 0), meta.get("stop_reason")))
    with open("configs/calibration/fitted.json", "w") as f:
        json.dump(shipped, f, indent=2)
        f.write("\n")
    with open("configs/calibration/fitted.meta.json", "w") as f:
        json.dump(shipped_meta, f, indent=2)
        f.write("\n")
    print("defaults updated (registry, presets, configs/calibration/fitted*.json): rebuild, then regenerate "
          "the goldens")


if __name__ == "__main__":
    main()
