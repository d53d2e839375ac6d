#!/usr/bin/python3
"""Derives `auto`'s small-message thresholds from the model and checks `auto` against `best`.

Usage: tools/auto_thresholds.py [--ipusim PATH] [--jobs N] [--readme | --wide]
                                [--before OLD_IPUSIM] [--save FILE | --load FILE]
  (default binary: build/ci/tools/ipusim of this checkout; --save / --load keep the scan as
  JSON lines, e.g. to print the tables again without re-running it)

Runs `ipusim collective --system S --op OP --bytes B --algorithm best --json` for every op
(allreduce, reduce_scatter, all_gather, broadcast), every shape (pod4: an open ladder; pod16,
pod64: a torus, one IPU-Link domain; pod128, pod256 and bow_pod128, bow_pod256: two and four
domains; all replicas, one IPU each, float32) and every size from 256 B to 64 MiB of input per replica in 1/8 octaves
(sizes the simulator refuses, e.g. a pod256 all_gather of 16 GiB of output, are reported and
left out); `best` simulates every candidate, so one run gives every algorithm's time. Then it
prints:

1. Per op and span (auto_select.hpp's GroupSpan; over several domains per number of domains,
   domains2 and domains4, except a broadcast's one rule), the threshold: the scanned size
   that makes auto's worst slowdown against best over the span's shapes and every size
   smallest (ties: the smallest sum of slowdowns), with direct at or below it and above it what auto runs
   otherwise (GCL's ring table, or hierarchical over several domains). Over several domains a
   broadcast also has a threshold per group member up to which it runs hierarchical (a direct
   broadcast per tier) before a ring. Beside each, every shape's crossover (the largest
   scanned size where direct, or hierarchical, is at least as fast as the alternative / the
   next size) in the rule's unit (the input; all_gather: the output = input x group size; a
   broadcast over several domains: the input x the members outside the root's domain).
   These are the values of the table in collectives/algorithms/auto_select.cpp.
2. The model's crossover between meet-in-the-middle and the bidirectional pair beside GCL's
   table (reference section 4.5, PLRC's rules, kept as GCL's: not derived here).
3. Per op and shape, auto's worst slowdown against best over the scan with this binary, and
   the geometric mean of auto / best - 1 over every scanned size.

--wide prints instead the eight- and sixteen-domain rows of the table (pod1024, a leaf/spine
fabric, with 512 replicas and with all): per op, a bisection over the scanned sizes up to
4 MiB for the last one where direct is at least as fast as hierarchical (each probe runs
direct, hierarchical and auto), and auto against the faster of the two at the probed sizes.

--readme prints instead docs/collectives.md's auto-against-best table (pod4, pod16, pod64, pod128,
pod256 x ops x 1 KiB, 1 MiB, 64 MiB); with --before, an older binary's auto beside it, and (without --readme)
every scanned size where auto's choice differs between the two binaries, with both times.
"""
import argparse
import concurrent.futures
import json
import math
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPS = ["allreduce", "reduce_scatter", "all_gather", "broadcast"]
SHAPES = {"pod4": 4, "pod16": 16, "pod64": 64, "pod128": 128, "pod256": 256,  # group size
          "bow_pod128": 128, "bow_pod256": 256}
# auto_select.hpp's GroupSpan of each preset's groups: an open ladder, a torus, several
# IPU-Link domains (two, four; 64 IPUs each, the M2000 and the Bow-2000 systems).
SPANS = {"ladder": ["pod4"], "torus": ["pod16", "pod64"],
         "domains": ["pod128", "pod256", "bow_pod128", "bow_pod256"]}
ILD_MEMBERS = 64  # members per IPU-Link domain of every preset above (16 machines x 4 IPUs)
# More domains: no preset has 8, and `best` there simulates rings over 512 or 1024 members
# (seconds each), so these are scanned by bisection for the crossover of direct and
# hierarchical only (leaf/spine GW fabric; the pod128 / pod256 switch is the same per link).
WIDE = {"pod1024_r512": (["--system", "pod1024", "--replicas", "512"], 512, 8),
        "pod1024": (["--system", "pod1024"], 1024, 16)}  # ipusim arguments, group, domains
GROUP = dict(SHAPES, **{w: g for w, (_, g, _) in WIDE.items()})
DOMAINS = {"pod128": 2, "pod256": 4, "bow_pod128": 2, "bow_pod256": 4,  # IPU-Link domains
           **{w: d for w, (_, _, d) in WIDE.items()}}
# Input bytes per replica: 256 B x 2^(k/8), k = 0..144 (to 64 MiB), a multiple of 4 B.
SIZES = sorted({int(round(256 * 2 ** (k / 8) / 4)) * 4 for k in range(145)})
GCL_RING = {  # reference section 4.5: A (ranks <= 4), B (<= 8), C (<= 16), bytes per IPU
    "all_gather": (622592, 2490368, 19922944),
    "reduce_scatter": (1245184, 4980736, 39845888),
}


def best(ipusim: str, system: str, op: str, nbytes: int) -> dict:
    cmd = [ipusim, "collective", "--system", system, "--op", op, "--bytes", str(nbytes),
           "--algorithm", "best", "--json"]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:  # e.g. a pod256 all_gather's output over 2^32 elements
        return {"error": out.stderr.strip().splitlines()[-1]}
    b = json.loads(out.stdout)["best"]
    return {"times": {c["algorithm"]: c["time_ns"] for c in b["candidates"]},
            "auto": b["auto_choice"], "auto_ns": b["auto_time_ns"], "best": b["chosen"],
            "best_ns": b["chosen_time_ns"]}


def timed(ipusim: str, shape: str, op: str, nbytes: int, algorithm: str):
    """One wide shape's time (ns) and chosen algorithm, or None where the simulator refuses."""
    cmd = [ipusim, "collective", *WIDE[shape][0], "--op", op, "--bytes", str(nbytes),
           "--algorithm", algorithm, "--json"]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        return None
    r = json.loads(out.stdout)
    return r["time_ns"], r["algorithm"]


def wide_crossover(ipusim: str, shape: str, op: str) -> dict:
    """Bisection over the scanned sizes for the last one where direct is at least as fast as
    hierarchical (both costs are affine in the bytes, direct's with the larger slope), with
    auto's choice and time at every size probed."""
    sizes = [n for n in SIZES if n <= (1 << 22)]  # every crossover lies below 4 MiB
    probes = {}

    def probe(i: int) -> bool:
        n = sizes[i]
        d, h, a = (timed(ipusim, shape, op, n, alg) for alg in ("direct", "hierarchical", "auto"))
        if d is None or h is None or a is None:
            return False
        probes[n] = {"direct": d[0], "hierarchical": h[0], "auto": a[1], "auto_ns": a[0]}
        return d[0] <= h[0]

    lo, hi = -1, len(sizes)  # direct wins at lo (or none), loses at hi (or none)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if probe(mid) else (lo, mid)
    return {"threshold": unit(op, shape, sizes[lo]) if lo >= 0 else 0,
            "next": unit(op, shape, sizes[hi]) if hi < len(sizes) else None, "probes": probes}


def wide(ipusim: str, jobs: int) -> dict:
    """Every op's direct threshold on the wide shapes, and auto there against the faster of
    direct and hierarchical at the probed sizes."""
    keys = [(w, op) for w in WIDE for op in OPS]
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        found = dict(zip(keys, pool.map(lambda k: wide_crossover(ipusim, *k), keys)))
    print("\nMore domains (pod1024: a leaf/spine GW fabric; --replicas 512: eight domains):")
    print("direct's threshold in the rule's unit (the last scanned size where it is at least as")
    print("fast as hierarchical / the next), by bisection; auto against the faster of the two at")
    print("the sizes probed (this binary): worst slowdown, geomean")
    for (w, op), r in found.items():
        slow = [p["auto_ns"] / min(p["direct"], p["hierarchical"]) for p in r["probes"].values()]
        geo = math.exp(sum(map(math.log, slow)) / len(slow)) - 1
        print(f"  {op:15} {w:13} {DOMAINS[w]:2} domains: threshold {r['threshold']}/{r['next']}; "
              f"auto worst {100 * (max(slow) - 1):.1f} %, geomean {100 * geo:.2f} % over "
              f"{len(slow)} sizes")
    return found


def scan(ipusim: str, jobs: int, systems, ops, sizes) -> dict:
    """Every (system, op, bytes) that runs; the ones the simulator refuses are reported and
    left out."""
    keys = [(s, op, n) for s in systems for op in ops for n in sizes]
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        results = dict(zip(keys, pool.map(lambda k: best(ipusim, *k), keys)))
    for key, r in results.items():
        if "error" in r:
            print(f"left out {key[0]} {key[1]} {key[2]} B: {r['error']}")
    return {k: r for k, r in results.items() if "error" not in r}


def unit(op: str, system: str, nbytes: int) -> int:
    """The small-message rule's unit: all_gather's output, every other op's input; over
    several domains a broadcast's copies over the root's GW-Links: the input x the members
    outside the root's domain (what direct sends over them beyond hierarchical's one copy per
    domain grows with them; the rest of both costs barely moves with the domains)."""
    if op == "broadcast" and system in DOMAINS:
        return nbytes * (GROUP[system] - ILD_MEMBERS)
    return nbytes * GROUP[system] if op == "all_gather" else nbytes


def per_member(op: str, system: str, nbytes: int) -> int:
    """The tiered broadcast's unit: bytes per group member."""
    return nbytes // SHAPES[system]


def gcl_ring(op: str, system: str, nbytes: int) -> str:
    """The ring GCL's rules 3-4 pick (auto_select.cpp pick_ring_method; one IPU per replica,
    the default link configuration): ranks = members per IPU-Link domain (64 at most)."""
    ranks = min(SHAPES[system], 64)
    a, b, c = GCL_RING["all_gather" if op in ("all_gather", "broadcast") else "reduce_scatter"]
    per = nbytes // ranks if op == "broadcast" else nbytes  # a broadcast's ring gathers pieces
    if ranks <= 2:
        return "clockwise"
    if per < a or (ranks > 4 and per < b) or (ranks > 8 and per < c) or ranks > 16:
        return "meet_in_the_middle"
    return "bidirectional_pair"


def fallback(op: str, system: str, nbytes: int, tiered: int) -> str:
    """What auto runs above the direct threshold: over several domains hierarchical (a
    broadcast only up to `tiered` bytes per group member), else GCL's ring."""
    if system in SPANS["domains"] and (op != "broadcast" or nbytes <= tiered * SHAPES[system]):
        return "hierarchical"
    return gcl_ring(op, system, nbytes)


def choose(data: dict, op: str, shapes: list, pick, unit=unit) -> tuple:
    """The threshold T (a scanned size in the rule's unit, or 0) whose rule `pick(T, system,
    bytes)` makes auto's worst slowdown against best over `shapes` and every size smallest
    (then the sum of the slowdowns); returns (T, worst slowdown, where)."""
    keys = [(s, n) for s in shapes for n in SIZES if (s, op, n) in data]
    outcome = {}  # threshold: ((worst slowdown, where), sum of slowdowns)
    for t in sorted({0} | {unit(op, s, n) for s, n in keys}):
        worst, total = (0.0, ""), 0.0
        for s, n in keys:
            r = data[(s, op, n)]
            slow = r["times"][pick(t, s, n)] / r["best_ns"] - 1
            total += slow
            if slow > worst[0] + 1e-12:
                worst = (slow, f"{s} {n} B")
        outcome[t] = (worst, total)
    # Ties in the worst case (set elsewhere, e.g. by GCL's ring table) go to the smallest sum.
    t = min(outcome, key=lambda c: (round(outcome[c][0][0], 6), round(outcome[c][1], 6), c))
    return t, outcome[t][0][0], outcome[t][0][1]


def crossover(data: dict, op: str, system: str, few: str, other, unit=unit) -> str:
    """The largest scanned size (rule's unit) where `few` is at least as fast as `other(n)`,
    and the next scanned size."""
    row = [(unit(op, system, n), data[(system, op, n)]["times"][few] <=
            data[(system, op, n)]["times"][other(n)]) for n in SIZES if (system, op, n) in data]
    up = max((u for u, wins in row if wins), default=0)
    nxt = min((u for u, wins in row if not wins and u > up), default=None)
    return f"{up}/{nxt}"


def thresholds(data: dict) -> dict:
    print("Small-message rule: direct at or below the threshold, above it what auto runs")
    print("otherwise (GCL's ring; over several domains hierarchical, for a broadcast only up")
    print("to its own threshold, then a ring). Crossover: the largest scanned size where direct")
    print("(hierarchical) is at least as fast as what auto runs above it / the next size, in the")
    print("rule's unit (all_gather: the output; other ops: the input; bytes per replica).")
    print("Threshold: the scanned size that makes auto's worst slowdown against best over the")
    print("span's shapes and every size smallest (ties: the smallest sum of slowdowns).\n")
    print(f"{'op':15} {'span':8} {'threshold':>10} {'worst':>7}  crossovers")
    derived = {}
    for op in OPS:
        spans = dict(SPANS)
        if op != "broadcast":  # one threshold per domain count (see below), else one rule
            del spans["domains"]
            for d in sorted({DOMAINS[s] for s in SPANS["domains"]}):
                spans[f"domains{d}"] = [s for s in SPANS["domains"] if DOMAINS[s] == d]
        for span, shapes in spans.items():
            tiered = 0
            if span == "domains" and op == "broadcast":
                # Per group member: a ring's supersteps grow with the group, hierarchical's
                # do not, nor do the bytes on its busiest link (one domain's direct broadcast).
                tiered, worst, where = choose(
                    data, op, shapes,
                    lambda t, s, n: "hierarchical" if n <= t * SHAPES[s] else gcl_ring(op, s, n),
                    per_member)
                cells = [f"{s} {crossover(data, op, s, 'hierarchical', lambda n, s=s: gcl_ring(op, s, n), per_member)}"
                         for s in shapes]
                print(f"{op:15} {span:8} {tiered:>10} {100 * worst:6.1f} %  hierarchical, B per member: "
                      + ", ".join(cells) + (f"; worst at {where}" if where else ""))
                derived[(op, span, "tiered")] = tiered
            t, worst, where = choose(
                data, op, shapes,
                lambda t, s, n: "direct" if unit(op, s, n) <= t else fallback(op, s, n, tiered))
            cells = [f"{s} {crossover(data, op, s, 'direct', lambda n, s=s: fallback(op, s, n, tiered))}"
                     for s in shapes]
            print(f"{op:15} {span:8} {t:>10} {100 * worst:6.1f} %  direct: " + ", ".join(cells) +
                  (f"; worst at {where}" if where else ""))
            derived[(op, span, "direct")] = t
    return derived


def ring_crossovers(data: dict) -> None:
    print("\nMeet-in-the-middle against the bidirectional pair (one domain), bytes per IPU in")
    print("GCL's unit (all_gather and broadcast: the piece; reduce ops: the whole tensor): the")
    print("model's crossover (the first scanned size from which the pair is faster) beside")
    print("GCL's table (kept):\n")
    for op in OPS:
        table = GCL_RING["reduce_scatter" if op in ("allreduce", "reduce_scatter") else
                         "all_gather"]
        for s, n_ranks in SHAPES.items():
            if s in DOMAINS:
                continue
            gcl = table[0] if n_ranks <= 4 else table[1] if n_ranks <= 8 else \
                table[2] if n_ranks <= 16 else None
            per = [(n // n_ranks if op == "broadcast" else n,
                    data[(s, op, n)]["times"]["bidirectional_pair"] <
                    data[(s, op, n)]["times"]["meet_in_the_middle"]) for n in SIZES if (s, op, n) in data]
            first = next((u for i, (u, faster) in enumerate(per)
                          if all(f for _, f in per[i:])), None)
            print(f"  {op:15} {s:6} model {first if first else 'never (to 64 MiB)'}, "
                  f"GCL {gcl if gcl else 'never (> 16 ranks)'}")


def check(data: dict) -> None:
    print("\nauto against best over the scan (this binary): worst slowdown, where; geomean:")
    print("exp(mean(ln(auto / best))) - 1 over every scanned size")
    for op in OPS:
        for s in SHAPES:
            rows = [(data[(s, op, n)]["auto_ns"] / data[(s, op, n)]["best_ns"] - 1, n)
                    for n in SIZES if (s, op, n) in data]
            slow, n = max(rows)
            geo = math.exp(sum(math.log1p(x) for x, _ in rows) / len(rows)) - 1
            r = data[(s, op, n)]
            print(f"  {op:15} {s:10} {100 * slow:5.1f} % at {n} B (auto {r['auto']}, "
                  f"best {r['best']}); geomean {100 * geo:.2f} %")


def switches(data: dict, before: dict) -> None:
    print("\nSizes where auto's choice changed (before -> now, µs):")
    for key, r in data.items():
        b = before[key]
        if b["auto"] != r["auto"]:
            print(f"  {key[0]:6} {key[1]:15} {key[2]:>9} B  {b['auto']} {b['auto_ns'] / 1e3:.2f}"
                  f" -> {r['auto']} {r['auto_ns'] / 1e3:.2f}")


def readme(ipusim: str, before_bin: str, jobs: int) -> None:
    systems, sizes = ["pod4", "pod16", "pod64", "pod128", "pod256"], [1024, 1 << 20, 1 << 26]
    now = scan(ipusim, jobs, systems, OPS, sizes)
    old = scan(before_bin, jobs, systems, OPS, sizes) if before_bin else None
    names = {1024: "1 KiB", 1 << 20: "1 MiB", 1 << 26: "64 MiB"}
    head = "| system | op | size |" + (" auto before (µs) |" if old else "")
    print(head + " auto (µs) | best (µs) | auto slower |")
    print("|---" * (head.count("|") + 2) + "|")
    for s in systems:
        for op in OPS:
            for n in sizes:
                if (s, op, n) not in now:  # left out (reported above the table)
                    continue
                r = now[(s, op, n)]
                cells = [s, op, names[n]]
                if old:
                    o = old[(s, op, n)]
                    cells.append(f"{o['auto_ns'] / 1e3:.2f} ({o['auto']})")
                cells += [f"{r['auto_ns'] / 1e3:.2f} ({r['auto']})",
                          f"{r['best_ns'] / 1e3:.2f} ({r['best']})",
                          f"{100 * (r['auto_ns'] / r['best_ns'] - 1):.1f} %"]
                print("| " + " | ".join(cells) + " |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ipusim", default=os.path.join(ROOT, "build/ci/tools/ipusim"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--readme", action="store_true")
    ap.add_argument("--before")
    ap.add_argument("--save", help="also write the scan (JSON lines) here")
    ap.add_argument("--load", help="read a saved scan instead of running one")
    ap.add_argument("--wide", action="store_true",
                    help="only the eight- and sixteen-domain crossovers (bisection, pod1024)")
    a = ap.parse_args()
    if a.readme:
        readme(a.ipusim, a.before, a.jobs)
        return
    if a.wide:
        wide(a.ipusim, a.jobs)
        return
    if a.load:
        with open(a.load) as f:
            data = {tuple(r["key"]): r for r in map(json.loads, f)}
    else:
        data = scan(a.ipusim, a.jobs, SHAPES, OPS, SIZES)
    if a.save:
        with open(a.save, "w") as f:
            for key, r in data.items():
                f.write(json.dumps(dict(r, key=list(key))) + "\n")
    thresholds(data)
    ring_crossovers(data)
    check(data)
    if a.before:
        switches(data, scan(a.before, a.jobs, SHAPES, OPS, SIZES))


if __name__ == "__main__":
    main()
