#!/usr/bin/python3
"""Prints docs/other_models.md's table: Graphcore's published training throughput against ipusim.

Usage: tools/other_models.py [--ipusim BIN] [--rows FILE] [--only TEXT]
  --ipusim BIN  the ipusim binary (default: build/ci/tools/ipusim of this checkout)
  --rows FILE   the rows (default: configs/validation/published_models/rows.json)
  --only TEXT   run only the rows whose set-up path contains TEXT (the table's shape is the same)

The rows are the training-throughput tables of Graphcore's "Performance Results" pages as the
stored copies show them (rows.json keeps each row's model, variant, platform, SDK, framework,
dataset, global batch, precision, throughput, the page's address and version). A row with a
`setup` is run: its ipusim set-up follows the public config of the run (graphcore/examples at the
SDK the row names; the set-up's description cites file and lines, and says what it does not
model). A row with `not_expressed` says why it is not run.

None of these rows is a validation case: nothing is fitted or tuned on them, and no parameter was
chosen by them. The table shows how the calibrated model does on models, sequence lengths, batch
sizes and SDKs it was not calibrated on.

Error = (simulated - measured) / measured: + means the model is too fast. The step columns are
the set-up's samples per step over each throughput (docs/other_models.md reads them).
"""
import argparse
import json
import math
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import out_of_sample  # noqa: E402  (ROOT, simulate, work_and_steps)

ROOT = out_of_sample.ROOT
DEFAULT_ROWS = os.path.join(ROOT, "configs/validation/published_models/rows.json")
ROW_KEYS = {"model", "variant", "platform", "sdk", "framework", "dataset", "global_batch",
            "precision", "throughput_per_s", "unit", "url", "page_version", "last_updated"}
UNITS = {"images/s", "sequences/s", "items/s"}
P = "configs/validation/published_models/"

# Series run at two sizes with one config but for replicas and accumulation (Pod16 and Pod64;
# ResNet-50 SDK 3.0 also changes micro-batch 22 -> 20): (series, unit of work, the two set-ups).
# The split step = a x units + b through the two rows, simulated and measured alike, is
# out_of_sample.py's: units are micro-batches per replica for a pipeline (BERT, ViT) and images
# per IPU for data-parallel ResNet-50.
SPLITS = [
    ("BERT-Large Ph1 SL128, Pre-SDK2.5", "micro-batch",
     (P + "bow_bert_large_ph1_sl128_pod16_sdk24.json", P + "bow_bert_large_ph1_sl128_pod64_sdk24.json")),
    ("BERT-Large Ph2 SL384, Pre-SDK2.5", "micro-batch",
     (P + "bow_bert_large_ph2_sl384_pod16_sdk24.json", P + "bow_bert_large_ph2_sl384_pod64_sdk24.json")),
    ("BERT-Large Ph2 SL512 packed, SDK 3.1", "micro-batch",
     (P + "bow_bert_large_ph2_sl512_packed_pod16_sdk31.json",
      P + "bow_bert_large_ph2_sl512_packed_pod64_sdk31.json")),
    ("ViT-B/16 pre-training, SDK 3.0", "micro-batch",
     (P + "bow_vit_b16_pretrain_pod16_sdk30.json", P + "bow_vit_b16_pretrain_pod64_sdk30.json")),
    ("ResNet-50, SDK 3.0", "image per IPU",
     (P + "bow_resnet50_pod16_sdk30.json", P + "bow_resnet50_pod64_sdk30.json")),
]


class RowsError(ValueError):
    """A rows file that is not what this script reads: the message names file and JSON path."""


def load_rows(path: str) -> list:
    """The rows of `path`, each checked: the keys of ROW_KEYS and exactly one of `setup` (an
    existing file, used by no other row) or `not_expressed` (a reason), nothing else."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except json.JSONDecodeError as e:
        raise RowsError(f"{path}: not JSON: {e}") from e
    if not isinstance(doc, dict) or not isinstance(doc.get("rows"), list):
        raise RowsError(f"{path}: /rows: expected a list of rows")
    seen = {}
    for i, row in enumerate(doc["rows"]):
        where = f"{path}: /rows/{i}"
        if not isinstance(row, dict):
            raise RowsError(f"{where}: expected an object")
        missing = sorted(ROW_KEYS - row.keys())
        if missing:
            raise RowsError(f"{where}: missing {', '.join(missing)}")
        extra = sorted(row.keys() - ROW_KEYS - {"setup", "not_expressed"})
        if extra:
            raise RowsError(f"{where}/{extra[0]}: unknown key (expected one of "
                            f"{', '.join(sorted(ROW_KEYS))}, setup, not_expressed)")
        if ("setup" in row) == ("not_expressed" in row):
            raise RowsError(f"{where}: expected exactly one of setup and not_expressed")
        if row["unit"] not in UNITS:
            raise RowsError(f"{where}/unit: expected one of {', '.join(sorted(UNITS))}, "
                            f"got {row['unit']!r}")
        value = row["throughput_per_s"]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
            raise RowsError(f"{where}/throughput_per_s: expected a positive number, got {value!r}")
        if "setup" in row:
            if not os.path.isfile(os.path.join(ROOT, row["setup"])):
                raise RowsError(f"{where}/setup: no file {row['setup']}")
            if row["setup"] in seen:
                raise RowsError(f"{where}/setup: {row['setup']} is already row {seen[row['setup']]}'s")
            seen[row["setup"]] = i
    return doc["rows"]


def label(row: dict) -> str:
    """The row's name in the table: model, variant, framework, platform and page SDK."""
    variant = f" {row['variant']}" if row["variant"] else ""
    return f"{row['model']}{variant}, {row['framework']}, {row['platform']}, {row['sdk']}"


def costed_sdk(config: str) -> str:
    """The poplar_sdk_version a set-up resolves to: its own, else the last include's that sets
    one (later includes override earlier ones), or 'preset' if none does."""
    path = config if os.path.isabs(config) else os.path.join(ROOT, config)
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    sdk = doc.get("software", {}).get("poplar_sdk_version")
    if sdk:
        return sdk
    for inc in reversed(doc.get("$include", [])):
        found = costed_sdk(os.path.normpath(os.path.join(os.path.dirname(path), inc)))
        if found != "preset":
            return found
    return "preset"


def units_of_work(kind: str, w: dict) -> float:
    """Units of work per step: micro-batches per replica (the accumulation count) for a
    pipeline, images per IPU (micro-batch x accumulation) for one IPU per replica."""
    if kind == "bert" or w.get("ipus_per_replica", 1) > 1:
        return w["accumulation_factor"]
    return w["micro_batch"] * w["accumulation_factor"]


def print_splits(points: dict) -> None:
    """The split table (ms) of each series whose two rows were run."""
    lines = []
    for series, unit, (small, large) in SPLITS:
        if small not in points or large not in points:
            continue
        cells = [out_of_sample.per_step_split((points[small][0], points[small][i]),
                                              (points[large][0], points[large][i]))
                 for i in (1, 2)]
        lines.append(f"| {series} | {1e3 * cells[0][0]:.4f} / {1e3 * cells[1][0]:.4f} ms per "
                     f"{unit} | {1e3 * cells[0][1]:.1f} / {1e3 * cells[1][1]:.1f} ms |")
    if lines:
        print("\n| series | per unit of work, simulated / measured "
              "| per step, simulated / measured |")
        print("|---|---|---|")
        print("\n".join(lines))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ipusim", default=os.path.join(ROOT, "build/ci/tools/ipusim"))
    ap.add_argument("--rows", default=DEFAULT_ROWS)
    ap.add_argument("--only", default="", help="run only rows whose set-up path contains this")
    return out_of_sample.run_reporting_errors("other_models.py", report, ap.parse_args())


def report(args: argparse.Namespace) -> int:
    """Prints the table and the geometric mean of |error| over the rows run."""
    rows = load_rows(args.rows)
    run = [r for r in rows if "setup" in r and args.only in r["setup"]]
    if not run:
        raise ValueError(f"{args.rows}: no row with a setup matches --only {args.only!r}")
    skipped = sum(1 for r in rows if "not_expressed" in r)
    print("| row | global batch | SDK costed | measured per s | simulated per s | error "
          "| step ms, simulated / measured |")
    print("|---|---|---|---|---|---|---|")
    logs, points = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        for i, row in enumerate(run):
            w = out_of_sample.simulate(args.ipusim, row["setup"], [], os.path.join(tmp, str(i)))
            w = w["workload"]
            kind = "bert" if row["unit"] == "sequences/s" else "resnet"
            sim = w["sequences_per_s"] if kind == "bert" else w["samples_per_s"]
            measured = float(row["throughput_per_s"])
            err = (sim - measured) / measured
            logs.append(math.log1p(abs(err)))
            _, sim_step, meas_step = out_of_sample.work_and_steps(kind, w, measured)
            points[row["setup"]] = (units_of_work(kind, w), sim_step, meas_step)
            print(f"| {label(row)} | {row['global_batch']:,} | {costed_sdk(row['setup'])} | "
                  f"{measured:,.0f} | {sim:,.0f} | {100 * err:+.1f} % | "
                  f"{1e3 * sim_step:,.1f} / {1e3 * meas_step:,.1f} |")
    print(f"\ngeometric mean of |error| over {len(logs)}: "
          f"{100 * math.expm1(sum(logs) / len(logs)):.1f} % (error = (simulated - measured) / "
          "measured; + means the model is too fast)")
    print(f"rows on the pages: {len(rows)}; run: {len(run)}; not expressed: {skipped} "
          "(rows.json says why)")
    print_splits(points)
    return 0


if __name__ == "__main__":
    sys.exit(main())
