#!/usr/bin/python3
"""Prints docs/validation.md's out-of-sample table: MLPerf Training runs in none of the project's files.

Usage: tools/out_of_sample.py [--ipusim BIN] [--logs DIR]
  --ipusim BIN  the ipusim binary (default: build/ci/tools/ipusim of this checkout)
  --logs DIR    re-derive every measured value from the MLPerf results logs and check it
                against the value held here (exit 1 if one differs by more than 0.05 %).
                DIR holds training_results_v1.0, training_results_v1.1 and
                training_results_v2.0 (github.com/mlcommons), each a clone (work tree) or a
                bare/mirror git directory (read with `git show HEAD:PATH`).

Each reading is a Graphcore submission's steady-state throughput, derived as
shared/reference/measurements.md section 2 derives the calibration figures: the throughput of
each timed training block (evaluation excluded), the first block of each run dropped as a
warm-up, the median over the remaining blocks of all runs pooled. A BERT block runs from
`block_start` to `block_stop`, and its sequences are the increase of the `epoch_num` of the
`eval_accuracy` logged after it (the run's cumulative training sequences). A ResNet-50 block
is an epoch, `epoch_start` to `epoch_stop`, counted as the 1,281,167 ImageNet training images
(as measurements.md counts them; docs/scale_history.md, "What the measured ResNet-50 steps
contain", discusses the difference to a whole number of steps). On the logs of
measurements.md's own systems this reproduces its figures (BERT POD16 1,420.1, POD64 4,237.2; ResNet-50 POD16 29,465.0, Pod64
108,015.1, Pod128 180,927.6 per s) except BERT POD128: 9,027.1 against its 9,006, which is the
median with each run's first block kept.

None of these is a validation case and nothing is fitted on them: the table shows how the
calibrated model generalises to other systems, SDKs and the Bow generation. Each reading's
ipusim set-up (configs/validation/setups/) cites the config file it follows.

A second table splits the step of each series that runs one model and optimizer on two
one-domain Pods (Pod16 and Pod64; for BERT v1.0 POD16, the open division's accumulation 96
against the closed division's 192, a calibration case) into a time per unit of work
(ResNet-50: per image per IPU, micro-batch x accumulation; BERT: per micro-batch of the
pipeline, the accumulation count) and a time per step that does not depend on it, simulated
and measured alike, and shows what Pod128 and Pod256 take beyond that split
(tools/scale_falloff.py's reading, on these series).
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
S = "configs/validation/setups/"
IMAGENET_TRAIN_IMAGES = 1281167

# (label, generation, SDK, results repository, results folder, log kind, measured per s,
#  ipusim config, extra ipusim arguments). Measured values: `--logs` re-derives them.
READINGS = [
    ("ResNet-50 v1.0 POD16", "IPU-M2000", "2.1", "training_results_v1.0",
     "Graphcore/results/ipu-pod16-TF1/resnet", "resnet", 27515.9,
     S + "mlperf_v1.0_resnet50_pod16.json", []),
    ("ResNet-50 v1.0 POD64", "IPU-M2000", "2.1", "training_results_v1.0",
     "Graphcore/results/ipu-pod64-TF1/resnet", "resnet", 83420.2,
     S + "mlperf_v1.0_resnet50_pod64.json", []),
    ("BERT-Large v1.0 POD16 open", "IPU-M2000", "2.1", "training_results_v1.0",
     "Graphcore/results/ipu-pod16-POPART-open/bert", "bert", 1415.5,
     S + "mlperf_v1.0_bert_pod16_open.json", []),
    ("BERT-Large v1.1 POD16", "IPU-M2000", "2.3", "training_results_v1.1",
     "Graphcore/results/ipu-pod16-POPART-closed/bert", "bert", 1523.9,
     S + "mlperf_v1.1_bert_pod16.json", []),
    ("BERT-Large v1.1 POD64", "IPU-M2000", "2.3", "training_results_v1.1",
     "Graphcore/results/ipu-pod64-POPART-closed/bert", "bert", 4807.6,
     S + "mlperf_v1.1_bert_pod64.json", []),
    ("ResNet-50 v1.1 POD256", "IPU-M2000", "2.3", "training_results_v1.1",
     "Graphcore/results/ipu-pod256-TF1/resnet", "resnet", 335151.9,
     S + "mlperf_v1.1_resnet50_pod128.json",
     ["--system", "pod256", "--set", "workload.session.replicatedGraphCount=256"]),
    ("BERT-Large v2.0 Bow Pod16", "Bow-2000", "2.5.1", "training_results_v2.0",
     "Graphcore/results/ipu-pod16-POPART-closed/bert", "bert", 2303.8,
     S + "mlperf_v2.0_bert_bow_pod16.json", []),
    ("BERT-Large v2.0 Bow Pod64", "Bow-2000", "2.5.1", "training_results_v2.0",
     "Graphcore/results/ipu-pod64-POPART-closed/bert", "bert", 7414.5,
     S + "mlperf_v2.0_bert_bow_pod64.json", []),
    ("BERT-Large v2.0 Bow Pod128", "Bow-2000", "2.5.1", "training_results_v2.0",
     "Graphcore/results/ipu-pod128-POPART-closed/bert", "bert", 12695.2,
     S + "mlperf_v2.0_bert_bow_pod128.json", []),
    ("BERT-Large v2.0 Bow Pod256", "Bow-2000", "2.5.1", "training_results_v2.0",
     "Graphcore/results/ipu-pod256-POPART-closed/bert", "bert", 19074.3,
     S + "mlperf_v2.0_bert_bow_pod256.json", []),
    ("ResNet-50 v2.0 Bow Pod16", "Bow-2000", "2.5.1", "training_results_v2.0",
     "Graphcore/results/ipu-pod16-TF1-closed/resnet", "resnet", 43145.7,
     S + "mlperf_v2.0_resnet50_bow_pod16.json", []),
    ("ResNet-50 v2.0 Bow Pod64", "Bow-2000", "2.5.1", "training_results_v2.0",
     "Graphcore/results/ipu-pod64-TF1-closed/resnet", "resnet", 146018.6,
     S + "mlperf_v2.0_resnet50_bow_pod64.json", []),
    ("ResNet-50 v2.0 Bow Pod128", "Bow-2000", "2.5.1", "training_results_v2.0",
     "Graphcore/results/ipu-pod128-TF1-closed/resnet", "resnet", 230467.2,
     S + "mlperf_v2.0_resnet50_bow_pod128.json", []),
    ("ResNet-50 v2.0 Bow Pod256", "Bow-2000", "2.5.1", "training_results_v2.0",
     "Graphcore/results/ipu-pod256-TF1-closed/resnet", "resnet", 425637.6,
     S + "mlperf_v2.0_resnet50_bow_pod256.json", []),
]


# Calibration runs (measurements.md section 2) that a split below pairs with a reading above;
# simulated like the readings, never in the out-of-sample table: (label, kind, measured per s,
# ipusim config, extra ipusim arguments).
IN_SAMPLE = [
    ("BERT-Large v1.0 POD16 closed", "bert", 1420, "configs/workloads/mlperf_v1.0_bert_pod16.json",
     []),
]

# (series, unit of work, the two one-domain readings the split goes through, further readings)
SPLITS = [
    ("BERT-Large v1.0 POD16, closed (calibration) / open", "micro-batch",
     ("BERT-Large v1.0 POD16 closed", "BERT-Large v1.0 POD16 open"), ()),
    ("ResNet-50 v1.0", "image per IPU", ("ResNet-50 v1.0 POD16", "ResNet-50 v1.0 POD64"), ()),
    ("ResNet-50 v2.0 Bow", "image per IPU",
     ("ResNet-50 v2.0 Bow Pod16", "ResNet-50 v2.0 Bow Pod64"),
     ("ResNet-50 v2.0 Bow Pod128", "ResNet-50 v2.0 Bow Pod256")),
    ("BERT-Large v2.0 Bow", "micro-batch",
     ("BERT-Large v2.0 Bow Pod16", "BERT-Large v2.0 Bow Pod64"),
     ("BERT-Large v2.0 Bow Pod128", "BERT-Large v2.0 Bow Pod256")),
]


def mllog_events(text: str) -> list:
    """The MLPerf logging events (`:::MLLOG {json}`) of one result file, in order."""
    events = []
    for line in text.splitlines():
        at = line.find(":::MLLOG ")
        if at >= 0:
            events.append(json.loads(line[at + len(":::MLLOG "):]))
    return events


def bert_block_rates(text: str) -> list:
    """Sequences per s of each training block of a BERT log, in order: the block's
    `block_start` to `block_stop` time, and the sequences its next `eval_accuracy` adds to
    the cumulative `epoch_num` (the evaluation between blocks is outside both)."""
    rates, start, seconds, done = [], None, None, 0
    for e in mllog_events(text):
        if e["key"] == "block_start":
            start = e["time_ms"]
        elif e["key"] == "block_stop" and start is not None:
            seconds, start = (e["time_ms"] - start) / 1000.0, None
        elif e["key"] == "eval_accuracy" and seconds is not None:
            total = e["metadata"]["epoch_num"]
            rates.append((total - done) / seconds)
            done, seconds = total, None
    return rates


def resnet_epoch_rates(text: str) -> list:
    """Images per s of each epoch of a ResNet-50 log, in order: 1,281,167 images over the
    epoch's `epoch_start` to `epoch_stop` time (measurements.md's count)."""
    rates, starts = [], {}
    for e in mllog_events(text):
        if e["key"] == "epoch_start":
            starts[e["metadata"]["epoch_num"]] = e["time_ms"]
        elif e["key"] == "epoch_stop":
            seconds = (e["time_ms"] - starts[e["metadata"]["epoch_num"]]) / 1000.0
            rates.append(IMAGENET_TRAIN_IMAGES / seconds)
    return rates


def steady_state(runs: list) -> float:
    """The median over all runs' blocks, each run's first (warm-up) block left out."""
    pooled = [rate for blocks in runs for rate in blocks[1:]]
    if not pooled:
        raise ValueError("no timed block after the warm-up block")
    return statistics.median(pooled)


def read_results(repo: str, folder: str) -> list:
    """The texts of `folder`/result_*.txt in `repo` (a work tree or a bare git directory)."""
    if os.path.isdir(os.path.join(repo, folder)):
        names = sorted(n for n in os.listdir(os.path.join(repo, folder))
                       if n.startswith("result_") and n.endswith(".txt"))
        texts = []
        for n in names:
            with open(os.path.join(repo, folder, n), encoding="utf-8") as f:
                texts.append(f.read())
        return texts
    if not os.path.isfile(os.path.join(repo, "HEAD")):
        raise FileNotFoundError(f"{repo}: expected a clone holding {folder}/result_*.txt or a "
                                "bare git directory of the results repository")
    git = ["git", "--git-dir", repo]
    listing = subprocess.run(git + ["ls-tree", "--name-only", "HEAD", folder + "/"],
                             check=True, capture_output=True, text=True).stdout.split()
    names = sorted(p for p in listing if os.path.basename(p).startswith("result_"))
    return [subprocess.run(git + ["show", "HEAD:" + p], check=True, capture_output=True,
                           text=True).stdout for p in names]


def derive(logs: str, repo: str, folder: str, kind: str) -> tuple:
    """(steady-state throughput, runs, timed blocks kept) of one results folder."""
    texts = read_results(os.path.join(logs, repo), folder)
    if not texts:
        raise FileNotFoundError(f"{os.path.join(logs, repo)}: no {folder}/result_*.txt")
    parse = bert_block_rates if kind == "bert" else resnet_epoch_rates
    runs = [parse(t) for t in texts]
    return steady_state(runs), len(runs), sum(max(len(r) - 1, 0) for r in runs)


def work_and_steps(kind: str, workload: dict, measured: float) -> tuple:
    """(units of work per step, simulated step s, measured step s) of one reading: the units
    are images per IPU (micro-batch x accumulation) for ResNet-50 and micro-batches per
    replica (the accumulation count) for a BERT pipeline; the measured step is the set-up's
    samples per step (BERT: packs x sequences per pack) over the measured throughput."""
    sim_step = workload["step_time_ns"] / 1e9
    if kind == "bert":
        sequences = workload["samples_per_step"] * workload["sequences_per_sample"]
        return workload["accumulation_factor"], sim_step, sequences / measured
    units = workload["micro_batch"] * workload["accumulation_factor"]
    return units, sim_step, workload["samples_per_step"] / measured


def per_step_split(small: tuple, large: tuple) -> tuple:
    """(time per unit, time per step) of step = a x units + b through two (units, step) points."""
    a = (small[1] - large[1]) / (small[0] - large[0])
    return a, large[1] - a * large[0]


def print_splits(points: dict) -> None:
    """The per-step split table (ms) from each reading's (units, simulated, measured) steps."""
    print("\n| series | per unit of work, simulated / measured | per step, simulated / measured "
          "| Pod128 beyond the split | Pod256 beyond the split |")
    print("|---|---|---|---|---|")
    for series, unit, (small, large), beyond in SPLITS:
        cells = []
        splits = [per_step_split((points[small][0], points[small][i]),
                                 (points[large][0], points[large][i])) for i in (1, 2)]
        cells.append(f"{1e3 * splits[0][0]:.4f} / {1e3 * splits[1][0]:.4f} ms per {unit}")
        cells.append(f"{1e3 * splits[0][1]:.2f} / {1e3 * splits[1][1]:.2f} ms")
        for label in beyond:
            units = points[label][0]
            over = [1e3 * (points[label][i] - (s[0] * units + s[1]))
                    for i, s in zip((1, 2), splits)]
            cells.append(f"{over[0]:+.2f} / {over[1]:+.2f} ms")
        cells += ["–"] * (5 - 1 - len(cells))
        print(f"| {series} | " + " | ".join(cells) + " |")


def simulate(ipusim: str, config: str, extra: list, out: str) -> dict:
    """The report of one ipusim run of `config` (written under `out`, printed as JSON)."""
    res = subprocess.run([ipusim, "run", os.path.join(ROOT, config), "--json", "--quiet",
                          "--out", out] + extra, check=True, capture_output=True, text=True,
                         env=dict(os.environ, SC_COPYRIGHT_MESSAGE="DISABLE"))
    return json.loads(res.stdout)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ipusim", default=os.path.join(ROOT, "build/ci/tools/ipusim"))
    ap.add_argument("--logs", help="folder holding the training_results_vX.Y repositories")
    return run_reporting_errors("out_of_sample.py", report, ap.parse_args())


def run_reporting_errors(tool: str, report_fn, args: argparse.Namespace) -> int:
    """Runs report_fn(args); a failed file read, simulator run or bad value prints one line
    naming the tool (and the simulator's own message) and gives exit status 2."""
    try:
        return report_fn(args)
    except (OSError, subprocess.CalledProcessError, ValueError, KeyError) as e:
        detail = e.stderr.strip() if isinstance(e, subprocess.CalledProcessError) else ""
        print(f"{tool}: {e}" + (f": {detail}" if detail else ""), file=sys.stderr)
        return 2


def report(args: argparse.Namespace) -> int:
    """Prints the tables (and, with --logs, the check of the measured values): 0, or 1 if a
    re-derived value differs from the one held here."""
    status = 0
    if args.logs:
        print("| reading | runs | timed blocks | derived per s | held here | |")
        print("|---|---|---|---|---|---|")
        for label, _, _, repo, folder, kind, held, _, _ in READINGS:
            value, runs, blocks = derive(args.logs, repo, folder, kind)
            ok = abs(value - held) <= 5e-4 * held
            status |= 0 if ok else 1
            print(f"| {label} | {runs} | {blocks} | {value:,.1f} | {held:,.1f} | "
                  f"{'ok' if ok else 'DIFFERS'} |")
        print()

    print("| reading | machines | SDK | measured per s | simulated per s | error |")
    print("|---|---|---|---|---|---|")
    logs, points = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        for i, (label, machine, sdk, _, _, kind, measured, config, extra) in \
                enumerate(READINGS):
            w = simulate(args.ipusim, config, extra, os.path.join(tmp, str(i)))["workload"]
            sim = w["sequences_per_s"] if kind == "bert" else w["samples_per_s"]
            err = (sim - measured) / measured
            logs.append(math.log1p(abs(err)))
            points[label] = work_and_steps(kind, w, measured)
            print(f"| {label} | {machine} | {sdk} | {measured:,.0f} | {sim:,.0f} | "
                  f"{100 * err:+.1f} % |")
        for j, (label, kind, measured, config, extra) in enumerate(IN_SAMPLE):
            w = simulate(args.ipusim, config, extra, os.path.join(tmp, f"in{j}"))["workload"]
            points[label] = work_and_steps(kind, w, measured)
    print(f"\ngeometric mean of |error| over {len(logs)}: "
          f"{100 * math.expm1(sum(logs) / len(logs)):.1f} % (error = (simulated - measured) / "
          "measured; + means the model is too fast)")
    print_splits(points)
    return status


if __name__ == "__main__":
    sys.exit(main())
