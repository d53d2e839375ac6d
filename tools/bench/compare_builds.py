#!/usr/bin/python3
"""CPU time (and optionally instructions) of the run_benchmarks.sh scenarios for two builds.

Usage:
  tools/bench/compare_builds.py BASE_CHECKOUT [NEW_CHECKOUT] [--runs N] [--instructions]
                                [--only NAME ...]

Each checkout is a source tree with its release build (build/release/tools/ipusim); every
scenario runs from its own tree with its own configs. Runs are interleaved (base, new, base,
...) so that both builds see the same machine load, and the best of N user+system CPU times is
kept (the least disturbed run). --instructions also counts each scenario's instructions once
under valgrind's callgrind: deterministic, so a change of a few per cent shows even on a noisy
machine where 40 ms runs vary by +-7 % in CPU time. Prints one line per scenario and the
ratio new / base. Not a test: exits 0 unless a run fails or a build is missing (2).
"""
import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile


def fail(message):
    """Exit 2 with the message on stderr (a missing build or a failed run)."""
    print("compare_builds.py: " + message, file=sys.stderr)
    sys.exit(2)

WORKLOADS = ["sharded_weight_pod256", "bert_large_phased_pod64", "gpt3_175b_pod256",
             "mlperf_v1.0_bert_pod16", "mlperf_v1.0_bert_pod64",
             "mlperf_v1.1_resnet50_pod16", "mlperf_v1.1_resnet50_pod64"]
SCENARIOS = [
    ("allreduce_256MiB_pod64", ["collective", "--system", "configs/systems/pod64.json", "--bytes", "268435456"]),
    ("allreduce_hier_1024ipus", ["collective", "--system", "configs/systems/multipod.json", "--set",
                                 "system.num_ilds=16", "--bytes", "268435456"]),
    ("allreduce_flat_ring_4096ipus", ["collective", "--system", "configs/systems/multipod.json", "--bytes",
                                      "268435456", "--algorithm", "clockwise"]),
] + [(w, ["run", "configs/workloads/%s.json" % w]) for w in WORKLOADS]


def binary(root):
    b = os.path.join(root, "build", "release", "tools", "ipusim")
    if not os.access(b, os.X_OK):
        fail("%s is not built (cmake --preset release && cmake --build build/release --target ipusim)" % b)
    return b


def run_cpu_s(root, args, out_dir):
    """User + system CPU seconds of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([binary(root)] + args + ["--out", out_dir, "--quiet"], cwd=root,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          env=dict(os.environ, SC_COPYRIGHT_MESSAGE="DISABLE"))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        fail("%s %s failed (exit %d): %s" % (root, " ".join(args), done.returncode, done.stderr.strip()[-300:]))
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def instructions(root, args, out_dir):
    """Instructions of one run under callgrind (PROGRAM TOTALS)."""
    prof = os.path.join(out_dir, "callgrind.out")
    subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + prof, binary(root)] + args +
                   ["--out", os.path.join(out_dir, "o"), "--quiet"], cwd=root, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env=dict(os.environ, SC_COPYRIGHT_MESSAGE="DISABLE"))
    text = subprocess.run(["callgrind_annotate", prof], check=True, capture_output=True, text=True).stdout
    m = re.search(r"^\s*([\d,]+)\s.*PROGRAM TOTALS", text, re.M)
    return int(m.group(1).replace(",", "")) if m else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("base", help="checkout of the earlier build")
    ap.add_argument("new", nargs="?", default=os.path.join(os.path.dirname(__file__), "..", ".."),
                    help="checkout of the build to compare (default: this one)")
    ap.add_argument("--runs", type=int, default=5, help="runs per build and scenario (best kept)")
    ap.add_argument("--instructions", action="store_true", help="also count instructions (callgrind)")
    ap.add_argument("--only", nargs="*", default=[], help="scenario names to run")
    a = ap.parse_args()
    if a.instructions and not (shutil.which("valgrind") and shutil.which("callgrind_annotate")):
        fail("--instructions needs valgrind (apt install valgrind)")
    roots = {"base": os.path.abspath(a.base), "new": os.path.abspath(a.new)}
    for r in roots.values():
        binary(r)
    with tempfile.TemporaryDirectory() as tmp:
        for name, args in SCENARIOS:
            if a.only and name not in a.only:
                continue
            best = {}
            for _ in range(max(1, a.runs)):
                for k, root in roots.items():
                    best[k] = min(best.get(k, float("inf")), run_cpu_s(root, args, os.path.join(tmp, k)))
            line = "%-30s CPU base %7.3f s  new %7.3f s  ratio %.3f" % (name, best["base"], best["new"],
                                                                        best["new"] / best["base"])
            if a.instructions:
                ib, inew = (instructions(roots[k], args, tmp) for k in ("base", "new"))
                line += "   instructions base %6.1f M  new %6.1f M  ratio %.3f" % (ib / 1e6, inew / 1e6, inew / ib)
            print(line, flush=True)


if __name__ == "__main__":
    main()
