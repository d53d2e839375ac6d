#!/usr/bin/python3
"""Re-fits every parameter of configs/calibration/assumptions.json and makes the result the default.

One command after any change to the model or to the parameter list:

    /usr/bin/python3 tools/calibration/refit.py --ipusim build/ci/tools/ipusim

It runs, from the source tree,
  1. ipusim calibrate configs/validation/cases --params-from configs/calibration/assumptions.json
     --out out/calibration/fitted.json   (refuses a parameter fewer than two set-ups move)
  2. ipusim validate configs/validation/cases --cross-validate --params-from ... --json
     (leave-one-out over every calibration case, each fold from the assumptions; a fold fits a
     parameter that the remaining cases of one set-up move, configs/calibration/README.md)
  3. writes each fitted value, rounded to 4 significant digits, as the default of its registry
     entry (the number after the path and unit in models/params/*.cpp) and of the presets that
     set it (configs/chips/gc200.json, configs/machines/m2000.json; GC2 and Bow inherit them),
     copies fitted.json and fitted.meta.json into
     configs/calibration/, and prints a summary (parameter, unit, range, assumption, fitted
     value, determining cases; every error).
With --group NAME it fits one group of parameters on that group's cases only (GROUPS below),
starting from the group's entries of assumptions.json (written to out/calibration/G_NAME.json),
cross-validates those cases, and merges the result into configs/calibration/fitted*.json,
leaving the other groups' values as they are:

    /usr/bin/python3 tools/calibration/refit.py --group compute --max-evals 240 --cv-max-evals 60

Then rebuild, regenerate the goldens whose values change and commit them separately.
A new fitted parameter needs only an entry in assumptions.json (start, unit, source) and an
"ASSUMPTION" in its registry description.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PRESETS = ["configs/chips/gc200.json", "configs/machines/m2000.json"]
CASES = "configs/validation/cases/"
# Parameter groups whose objectives separate (no case of one group moves another group's
# parameters), each with the calibration cases that move its parameters.
GROUPS = {
    "compute": {
        "prefix": "/chip/compute/",
        "cases": [CASES + n + ".json" for n in (
            "mlperf_v1.0_bert_pod16", "mlperf_v1.0_bert_pod64", "mlperf_v1.1_resnet50_pod16",
            "mlperf_v1.1_resnet50_pod64", "pearc22_resnet50_1ipu_mb2", "pearc22_resnet50_1ipu_mb8",
            "pearc22_resnet50_1ipu_mb20", "citadel_gemm_fp32_2944", "citadel_gemm_fp16_32_2944")],
    },
    "exchange": {
        # The on-chip exchange's fixed cost and propagation: the Citadel on-chip latencies and
        # collectives (the partner latency's exchange phase hides under the IPU-Link hop). The
        # training cases move them too, by far less than their tolerance (docs/components.md,
        # "Component microbenchmarks"): the group is fitted on the component cases.
        "prefix": "/chip/exchange_",
        "cases": [CASES + n + ".json" for n in (
            "citadel_latency_on_chip", "citadel_latency_on_chip_loaded", "citadel_gather_1ipu",
            "citadel_scatter_1ipu")],
    },
    "external": {
        # The fixed cost of an exchange phase whose data leaves the IPU: every step that
        # crosses IPUs pays it after both barriers (tile steps and collective ring steps). The
        # cases whose calibrate sensitivity reaches 0.01: the Citadel partner latency,
        # gc-iputraffictest, and the ResNet-50 Pod16 / Pod64 cases through their collectives
        # (they are the compute group's cases too: the two groups share them, so re-fit one
        # after the other).
        "prefix": "/chip/external_exchange_fixed_cycles",
        "cases": [CASES + n + ".json" for n in (
            "citadel_latency_partner_ipu", "gc_iputraffictest_m2000", "mlperf_v1.1_resnet50_pod16",
            "mlperf_v1.1_resnet50_pod64")],
    },
    "host": {
        "prefix": "/machine/",
        # gc-hosttraffictest's four sides and the C2 card's host -> IPU bandwidth (the IPUs'
        # PCIe efficiency; the C2 latency row moves no fitted value and is not in the group).
        "cases": [CASES + "gc_hosttraffictest_%s.json" % n for n in (
            "d2h_host_side", "d2h_tile_side", "h2d_host_side", "h2d_tile_side")] + [
            CASES + "citadel_host_to_ipu_bandwidth.json"],
    },
}


def rounded(value, integer):
    if integer:
        return str(int(round(value)))
    text = "%.4g" % value
    return text if "e" not in text else repr(float(text))


def set_registry_default(path, unit, text):
    """Replaces the default in `real("PATH", "UNIT", DEFAULT,` / `integer(...)`; True if found."""
    pattern = re.compile(r'((?:real|integer)\(\s*"' + re.escape(path) + r'",\s*"' + re.escape(unit) +
                         r'",\s*)([-+0-9.eE]+)')
    folder = os.path.join(ROOT, "models", "params")
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".cpp"):
            continue
        file = os.path.join(folder, name)
        source = open(file).read()
        new, count = pattern.subn(lambda m: m.group(1) + text, source, count=1)
        if count:
            open(file, "w").write(new)
            return True
    return False


def set_preset(path, value):
    """Sets the key at JSON pointer `path` in every preset that already has it."""
    keys = path.strip("/").split("/")
    for rel in PRESETS:
        file = os.path.join(ROOT, rel)
        text = open(file).read()
        doc = json.loads(text)
        node = doc
        for k in keys[:-1]:
            node = node.get(k) if isinstance(node, dict) else None
            if node is None:
                break
        if not isinstance(node, dict) or keys[-1] not in node:
            continue
        # Edit the number in place so the file keeps its layout.
        key = re.escape('"' + keys[-1] + '"')
        old = json.dumps(node[keys[-1]])
        text, n = re.subn(key + r'(\s*:\s*)' + re.escape(old), lambda m: '"' + keys[-1] + '"' + m.group(1) + value,
                          text, count=1)
        if n:
            open(file, "w").write(text)


def merge_into(dst, src):
    """Copies the nested keys of src into dst (dicts merged, values replaced)."""
    for k, v in src.items():
        if isinstance(v, dict) and isinstance(dst.get(k), dict):
            merge_into(dst[k], v)
        else:
            dst[k] = v


def merge_group(out, group):
    """Merges one group's fit (out, out .meta.json) into configs/calibration/fitted*.json."""
    with open(out) as f:
        values = json.load(f)
    with open(out.replace(".json", ".meta.json")) as f:
        meta = json.load(f)
    target = os.path.join("configs", "calibration", "fitted.json")
    with open(target) as f:
        shipped = json.load(f)
    merge_into(shipped, values)
    with open(target, "w") as f:
        json.dump(shipped, f, indent=2)
        f.write("\n")
    target_meta = os.path.join("configs", "calibration", "fitted.meta.json")
    with open(target_meta) as f:
        shipped_meta = json.load(f)
    shipped_meta["parameters"].update(meta["parameters"])
    names = {c["name"] for c in meta["cases"]}
    shipped_meta["cases"] = [c for c in shipped_meta["cases"] if c["name"] not in names] + meta["cases"]
    line = "%s group: %d cases, %d evaluations, objective %g -> %g (%s)" % (
        group, len(meta["cases"]), meta["evaluations"], meta["objective_start"], meta["objective_fitted"],
        meta["stop_reason"])
    shipped_meta["groups"] = [g for g in shipped_meta.get("groups", []) if not g.startswith(group + " group")] + [line]
    shipped_meta["date"] = meta["date"]
    with open(target_meta, "w") as f:
        json.dump(shipped_meta, f, indent=2)
        f.write("\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ipusim", default=os.path.join(ROOT, "build", "ci", "tools", "ipusim"))
    ap.add_argument("--max-evals", type=int, default=400, help="objective evaluations of the fit")
    ap.add_argument("--cv-max-evals", type=int, default=150, help="per leave-one-out fold")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--no-apply", action="store_true", help="fit and cross-validate only")
    ap.add_argument("--group", choices=sorted(GROUPS), help="fit only this group on its cases")
    args = ap.parse_args()
    os.chdir(ROOT)
    assumptions = "configs/calibration/assumptions.json"
    cases = ["configs/validation/cases"]
    out = "out/calibration/fitted.json"
    if args.group:
        group = GROUPS[args.group]
        with open(assumptions) as f:
            doc = json.load(f)
        doc["parameters"] = {k: v for k, v in doc["parameters"].items() if k.startswith(group["prefix"])}
        os.makedirs("out/calibration", exist_ok=True)
        assumptions = "out/calibration/G_%s.json" % args.group
        with open(assumptions, "w") as f:
            json.dump(doc, f, indent=2)
        cases = group["cases"]
        out = "out/calibration/fitted_%s.json" % args.group
    # The fit is written under out/ (with its evaluation cache) and copied into
    # configs/calibration/ only when the defaults are applied.
    fit = subprocess.run([args.ipusim, "calibrate"] + cases + ["--params-from", assumptions, "--out", out,
                          "--max-evals", str(args.max_evals), "--jobs", str(args.jobs), "--json"],
                         stdout=subprocess.PIPE, text=True)
    if fit.returncode != 0:
        sys.exit(fit.returncode)
    result = json.loads(fit.stdout)
    # Validate at the fitted point (--set), and leave each calibration case out in turn.
    fitted_sets = []
    for path, row in result["parameters"].items():
        fitted_sets += ["--set", "%s=%s" % (path, json.dumps(row["value"]))]
    cv = subprocess.run([args.ipusim, "validate"] + cases + ["--cross-validate", "--params-from", assumptions,
                         "--max-evals", str(args.cv_max_evals), "--jobs", str(args.jobs), "--json", "--quiet"]
                        + fitted_sets, stdout=subprocess.PIPE, text=True)
    with open(out.replace(".json", ".validation.json"), "w") as f:
        f.write(cv.stdout)
    validation = json.loads(cv.stdout) if cv.stdout.strip() else {}
    print("parameter | unit | range | start (assumption) | fitted | set-ups | determined by")
    for path, row in result["parameters"].items():
        print("%s | %s | [%g, %g] | %g | %.6g | %d | %s" % (path, row["unit"], row["min"], row["max"], row["start"],
                                                          row["value"], row.get("setups", 0),
                                                          ", ".join(row["cases"])))
    for section in ("calibration", "prediction"):
        block = validation.get(section, {})
        for c in block.get("cases", []):
            err = c.get("error")
            print("%s %s: %s %%" % (section, c["name"], "-" if err is None else "%.2f" % (100 * err)))
        if block:
            print("%s geometric-mean |error|: %.2f %%" % (section, 100 * block.get("geomean_abs_error", 0)))
    cross = validation.get("cross_validation", {})
    for c in cross.get("cases", []):
        err = c.get("error")
        print("leave-one-out %s: %s %%" % (c["name"], "-" if err is None else "%.2f" % (100 * err)))
    if cross:
        print("leave-one-out geometric-mean |error|: %.2f %%" % (100 * cross.get("geomean_abs_error", 0)))
    if args.no_apply:
        print("fit written to %s (configs/calibration/ untouched: --no-apply)" % out)
        return
    if args.group:
        merge_group(out, args.group)
    else:
        for name in ("fitted.json", "fitted.meta.json"):
            shutil.copyfile(os.path.join("out", "calibration", name), os.path.join("configs", "calibration", name))
    for path, row in result["parameters"].items():
        if row["status"] != "fitted":
            continue
        integer = isinstance(row["value"], int)
        text = rounded(row["value"], integer)
        if not set_registry_default(path, row["unit"], text):
            print("warning: no registry default found for %s" % path, file=sys.stderr)
        set_preset(path, text)
    print("defaults updated (registry and %s): rebuild, then regenerate the goldens" % ", ".join(PRESETS))


if __name__ == "__main__":
    main()
