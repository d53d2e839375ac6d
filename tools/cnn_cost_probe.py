#!/usr/bin/python3
"""Reads where one ResNet-50 micro-batch's time goes in the compute model (docs/cnn_cost.md).

Usage: tools/cnn_cost_probe.py [--help]
Rebuilds, in Python, the op list runtime/generators/model_gen_cnn.cpp emits for the PEARC'22
one-IPU set-up (configs/validation/setups/pearc22_resnet50_1ipu.json: FP16, half partials,
forward, standard recomputation of the forward, backward) and costs each op by the formulas of
models/ipu/compute.cpp and gemm_tiling.cpp at main 1da7929 with the GC200 values of that
commit (configs/chips/gc200.json's rates; the compute values pinned in MODEL_1DA7929).
It leaves out what is not per op class (the gradient accumulators' adds, the optimizer and the
host loads), so its totals run about 0.24 ms per micro-batch below `ipusim run`'s.

Prints (1) each op class's time per micro-batch split into op overhead, AMP, operand exchange,
partial reduction and vector work, for micro-batches 2, 8 and 20; (2) the share of the AMP time
that the inner-dimension fill (amp_inner_dim_half) adds; (3) the straight line t(mb) = slope x
mb + intercept through the seven PEARC points, measured (the cases'
values) and for variants of the model whose amp_efficiency and op_overhead_cycles are
least-squares fitted on the three PEARC calibration cases (2, 8, 20) only:
  shipped      the model as it is (fill 58.1, nothing re-fitted)
  fill         the model's formulas, re-fitted
  no-fill      amp_inner_dim_half = 0
  vec-poplibs  no fill, and the vector ops at the per-element cycles of poplibs' vertices
  pass-plan    the AMP as poplibs' ConvPartial1x1 vertex costs it, a fixed cost per 16 x 16
               weight pass amortised over the rows streamed through it, with the tile split
               that minimises the op's cycles (a poplin planner's objective) instead of the cube
A reading, not a fit of the shipped model: nothing here is written to a parameter file.
"""
import glob
import json
import math
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MBS = (2, 4, 8, 14, 16, 18, 20)
CALIB = (2, 8, 20)

# Tile cycles per element of the vector ops at poplibs' estimates (graphcore/poplibs
# sdk/poplar/2.4.0, dbc4d442), FP16: a worker's loop over `unroll` elements costs `cycles` worker
# cycles and the tile runs 6 workers round-robin, so cycles / unroll tile cycles per element.
# RELU HALF {3, false, 4} (popopsCycleEstimators.hpp line 206): 0.75; ADD HALF {1, true} + 2
# for load / store and loop (popopsCycleEstimators.cpp lines 61-81) on 4 halves: 0.75. Batch
# norm (poplin/Norms.cpp): forward = reduceMany of ADD and SQUARE_ADD (lines 181-217, the
# reduce vertices' 2 worker cycles per 8 halves: 0.25 each), normWhiten's sub and mulInPlace and
# normalise's mul and addInPlace (lines 331-372: 4 passes of at least 0.5, the in-place fast
# path's 1 + 1 cycles per 4 halves) >= 2.5 vs the model's 5 flops / 4 = 1.25; the backward
# (lines 373-545) as many passes again. Lower bounds as ratios to the model's cost per element:
VEC_POPLIBS_RATIO = {"relu": 3.0, "add": 3.0, "bn": 2.0}
# poplibs' ConvPartial1x1 (poplin/PerformanceEstimation.hpp lines 355-535), FP16 activations,
# 16 conv units: a worker's run of n output rows costs 37 + 4 (n - 3) - 7 (retention) =
# 18 + 4 n worker cycles; the supervisor adds per output pass 7 + 18 + the weight loads (16
# units x 16 weights x 2 B / 16 B per cycle = 32; the target's load width is not in poplibs:
# ASSUMPTION) and per input group 11. Per 16 x 16 weight pass on a tile: 6 x 18 + 7 + 18 + 32
# + 11 = 176 cycles, and 24 cycles per 6 rows (4 per row).
PASS_CYCLES = 176.0
ROW_CYCLES = 4.0


# The compute values of the model the probe reads (gc200.json at main 1da7929): the AMP fill
# amp_inner_dim_half was removed from the model afterwards (branch amppass: poplibs' pass cost
# under a cycle-minimising split) and the compute group re-fitted, so they are pinned here.
MODEL_1DA7929 = {"amp_efficiency": 0.6855, "amp_inner_dim_half": 58.1,
                 "op_overhead_cycles": 1585, "vector_efficiency": 1}


def chip():
    """The GC200 values the model used at 1da7929 (configs/chips/gc200.json's rates)."""
    c = json.load(open(os.path.join(ROOT, "configs/chips/gc200.json")))["chip"]
    return {"tiles": c["tiles"], "clock": c["clock_GHz"],
            "amp": c["flops_per_cycle_per_tile"]["float16"],
            "vec": c["vector_flops_per_cycle_per_tile"]["float16"],
            "mem": c["memory_bytes_per_cycle_per_tile"],
            "exch": c["exchange_bytes_per_cycle_per_tile"], **MODEL_1DA7929}


def measured():
    """Micro-batch -> ms per micro-batch, from the PEARC cases (mb / img/s)."""
    out = {}
    cases = "configs/validation/cases/pearc22_resnet50_1ipu_mb*.json"
    for f in glob.glob(os.path.join(ROOT, cases)):
        d = json.load(open(f))
        mb = int(d["set"][0].split("=")[1])
        out[mb] = mb / d["measured"]["value"] * 1e3
    return out


def cube_block(m, k, n, tiles):
    """models/ipu/gemm_tiling.cpp: shortest dimension whole while shorter than the cube side."""
    dims = [m, k, n]
    blk = list(dims)
    vol = m * k * n / tiles
    left = 3
    for i, d in enumerate(sorted(range(3), key=lambda j: dims[j])):
        side = vol ** (1.0 / left)
        if dims[d] <= side:
            vol /= dims[d]
            left -= 1
            continue
        for e in sorted(range(3), key=lambda j: dims[j])[i:]:
            blk[e] = side
        break
    return blk[0], blk[1], blk[2], max(1.0, k / blk[1])


def exchange_terms(c, bm, bk, bn, ks):
    """Operand and partial exchange and the partials' vector additions (FP16 partials)."""
    split = 1 - 1 / ks if ks > 1 else 0
    exch = ((bm * bk + bk * bn) * 2 + bm * bn * split * 2) / c["exch"]
    return exch, bm * bn * split / c["vec"]


def amp_model(c, m, k, n, half):
    bm, bk, bn, ks = cube_block(m, k, n, c["tiles"])
    inner = bk / (bk + half) if half > 0 else 1.0
    exch, red = exchange_terms(c, bm, bk, bn, ks)
    return {"amp": 2 * m * k * n / c["tiles"] / (c["amp"] * inner), "exch": exch, "red": red}


PLAN_MEMO = {}


def amp_planned(c, m, k, n):
    """Cycle-minimising split over power-of-two tile counts of k and n (m takes the rest)."""
    key = (m, k, n)
    if key not in PLAN_MEMO:
        best = None
        for tk in (2 ** i for i in range(12)):
            for tn in (2 ** i for i in range(12)):
                tm = c["tiles"] // (tk * tn)
                if tm < 1:
                    continue
                bm, bk, bn = math.ceil(m / tm), math.ceil(k / tk), math.ceil(n / tn)
                passes = math.ceil(bk / 16) * math.ceil(bn / 16)
                amp = passes * (PASS_CYCLES + ROW_CYCLES * bm)
                exch, red = exchange_terms(c, bm, bk, bn, min(tk, k))
                cost = amp / c["amp_efficiency"] + exch + red
                if best is None or cost < best[0]:
                    best = (cost, {"amp": amp, "exch": exch, "red": red})
        PLAN_MEMO[key] = best[1]
    return dict(PLAN_MEMO[key])


def ops(mb):
    """(class, pass, kind, args) of one micro-batch, as model_gen_cnn.cpp emits them."""
    out = []
    def conv(ps, cin, h, cout, kern, stride, dx=True):
        oh = (h + stride - 1) // stride
        m, k, n = mb * oh * oh, cin * kern * kern, cout
        cls = "conv%dx%d" % (kern, kern)
        if ps != "bwd":
            out.append((cls, ps, "amp", (m, k, n)))
            return
        if dx:
            out.append((cls, ps, "amp", (m, n, k)))
        out.append((cls, ps, "amp", (k, m, n)))
    def vec(cls, ps, flops, nbytes):
        out.append((cls, ps, "vec", (flops, nbytes)))
    def el(ch, h):
        return mb * ch * h * h
    def bn(ps, ch, h):
        e = el(ch, h)
        vec("bn", ps, *((9 * e, 10 * e) if ps == "bwd" else (5 * e, 6 * e)))
    def relu(ps, ch, h):
        e = el(ch, h)
        vec("relu", ps, e, (6 if ps == "bwd" else 4) * e)
    def add(ps, ch, h):
        vec("add", ps, el(ch, h), 6 * el(ch, h))
    def stem(ps):
        pool_out, pool_in = el(64, 56), el(64, 112)
        if ps == "bwd":
            vec("pool", ps, 9 * pool_out, 4 * pool_in + 4 * pool_out)
            relu(ps, 64, 112)
            bn(ps, 64, 112)
            conv(ps, 3, 224, 64, 7, 2, dx=False)
            return
        conv(ps, 3, 224, 64, 7, 2)
        bn(ps, 64, 112)
        relu(ps, 64, 112)
        vec("pool", ps, 8 * pool_out, 2 * pool_in + 2 * pool_out)
    blocks, ch, h = [], 64, 56
    for stage, (count, width) in enumerate(zip((3, 4, 6, 3), (64, 128, 256, 512))):
        for i in range(count):
            s = 2 if stage > 0 and i == 0 else 1
            blocks.append((ch, h, width, s))
            ch, h = 4 * width, (h + s - 1) // s
    def block(ps, cin, h, w, s):
        ho, proj = (h + s - 1) // s, s != 1 or cin != 4 * w
        if ps != "bwd":
            conv(ps, cin, h, w, 1, 1), bn(ps, w, h), relu(ps, w, h)
            conv(ps, w, h, w, 3, s), bn(ps, w, ho), relu(ps, w, ho)
            conv(ps, w, ho, 4 * w, 1, 1), bn(ps, 4 * w, ho)
            if proj:
                conv(ps, cin, h, 4 * w, 1, s), bn(ps, 4 * w, ho)
            add(ps, 4 * w, ho), relu(ps, 4 * w, ho)
            return
        relu(ps, 4 * w, ho), bn(ps, 4 * w, ho), conv(ps, w, ho, 4 * w, 1, 1)
        relu(ps, w, ho), bn(ps, w, ho), conv(ps, w, h, w, 3, s)
        relu(ps, w, h), bn(ps, w, h), conv(ps, cin, h, w, 1, 1)
        if proj:
            bn(ps, 4 * w, ho), conv(ps, cin, h, 4 * w, 1, s)
        add(ps, cin, h)
    stem("fwd")
    for b in blocks:
        block("fwd", *b)
    e, logits = el(2048, 7), mb * 1000
    vec("head", "fwd", e + mb * 2048, 2 * e + 2 * mb * 2048)
    out.append(("head", "fwd", "amp", (mb, 2048, 1000)))
    vec("head", "fwd", logits, 4 * logits + 2000)
    vec("head", "fwd", 5 * logits, 6 * logits)
    vec("head", "bwd", 2 * logits, 4 * logits)
    vec("head", "bwd", logits, 2 * logits)
    out.append(("head", "bwd", "amp", (mb, 1000, 2048)))
    out.append(("head", "bwd", "amp", (2048, mb, 1000)))
    vec("head", "bwd", e, 2 * e + 2 * mb * 2048)
    for b in reversed(blocks):
        block("rec", *b)
        block("bwd", *b)
    stem("rec")
    stem("bwd")
    return out


def cost(c, mb, variant):
    """Per (class, term) cycles of one micro-batch under a variant."""
    terms = {}
    for cls, _, kind, args in ops(mb):
        if kind == "amp":
            if variant == "pass-plan":
                t = amp_planned(c, *args)
                t["amp"] /= c["amp_efficiency"]
            else:
                half = 0 if variant in ("no-fill", "vec-poplibs") else c["amp_inner_dim_half"]
                t = amp_model(c, *args, half)
                t["amp"] /= c["amp_efficiency"]
        else:
            flops, nbytes = args
            v = max(flops / c["tiles"] / c["vec"], math.ceil(nbytes / c["tiles"]) / c["mem"])
            if variant == "vec-poplibs":
                v *= VEC_POPLIBS_RATIO.get(cls, 1.0)
            t = {"vec": v / c["vector_efficiency"]}
        t["overhead"] = c["op_overhead_cycles"]
        for k, v in t.items():
            terms[(cls, k)] = terms.get((cls, k), 0.0) + v
    return terms


def ms(c, cycles):
    return cycles / c["clock"] / 1e6


def line(points):
    xs = sorted(points)
    mx, my = sum(xs) / len(xs), sum(points[x] for x in xs) / len(xs)
    s = sum((x - mx) * (points[x] - my) for x in xs) / sum((x - mx) ** 2 for x in xs)
    return s, my - s * mx


def fit(c, variant, meas):
    """amp_efficiency and op_overhead_cycles by least squares of the relative error on the
    calibration micro-batches (t is linear in 1 / amp_efficiency and the overhead, except for
    pass-plan, whose split depends on the efficiency: a grid over it)."""
    best = None
    effs = [0.30 + 0.01 * i for i in range(71)] if variant == "pass-plan" else [None]
    for eff in effs:
        base = dict(c, op_overhead_cycles=0, amp_efficiency=eff or 1.0)
        if variant == "pass-plan":
            PLAN_MEMO.clear()
        rows = []
        for mb in CALIB:
            terms = cost(base, mb, variant)
            amp = sum(v for (_, k), v in terms.items() if k == "amp")
            other = sum(v for (_, k), v in terms.items() if k not in ("amp", "overhead"))
            nops = sum(1 for _ in ops(mb))
            rows.append((mb, amp, other, nops))
        # Minimise sum ((a x + b + n y) / t - 1)^2 over x = 1 / eff (fixed on the grid), y.
        def solve():
            if eff is not None:
                num = sum((meas[mb] / 1e3 * c["clock"] * 1e9 - a - b) * n / (meas[mb] ** 2)
                          for mb, a, b, n in rows)
                den = sum(n * n / (meas[mb] ** 2) for mb, a, b, n in rows)
                return 1.0, num / den
            sxx = sxy = syy = sx1 = sy1 = 0.0
            for mb, a, b, n in rows:
                t = meas[mb] / 1e3 * c["clock"] * 1e9
                w = 1 / t ** 2
                r = t - b
                sxx += w * a * a; sxy += w * a * n; syy += w * n * n
                sx1 += w * a * r; sy1 += w * n * r
            det = sxx * syy - sxy * sxy
            return (sx1 * syy - sy1 * sxy) / det, (sxx * sy1 - sxy * sx1) / det
        x, y = solve()
        fitted = dict(c, amp_efficiency=(eff if eff is not None else 1 / x), op_overhead_cycles=y)
        if variant == "pass-plan":
            PLAN_MEMO.clear()
        t = {mb: ms(c, sum(cost(fitted, mb, variant).values())) for mb in MBS}
        err = sum(math.log(t[mb] / meas[mb]) ** 2 for mb in CALIB)
        if best is None or err < best[0]:
            best = (err, fitted, t)
    return best[1], best[2]


def main():
    if len(sys.argv) > 1:
        if sys.argv[1] in ("-h", "--help"):
            print(__doc__)
            return 0
        sys.stderr.write("cnn_cost_probe.py: unexpected argument '%s' (it takes none; --help)\n"
                         % sys.argv[1])
        return 2
    c, meas = chip(), measured()
    print("## One micro-batch by op class (ms; model as shipped)\n")
    for mb in (2, 8, 20):
        terms = cost(c, mb, "fill")
        classes = sorted({k for k, _ in terms})
        print("micro-batch %d: %.3f ms" % (mb, ms(c, sum(terms.values()))))
        print("| class | overhead | AMP | exchange | partials | vector | sum |")
        print("|---|---|---|---|---|---|---|")
        keys = ("overhead", "amp", "exch", "red", "vec")
        for cls in classes:
            row = [terms.get((cls, k), 0.0) for k in keys]
            cells = " | ".join("%.3f" % ms(c, v) for v in row)
            print("| %s | %s | %.3f |" % (cls, cells, ms(c, sum(row))))
        total = [sum(v for (_, k), v in terms.items() if k == t) for t in keys]
        cells = " | ".join("%.3f" % ms(c, v) for v in total)
        print("| all | %s | %.3f |\n" % (cells, ms(c, sum(total))))
        no_fill = sum(v for (_, k), v in cost(c, mb, "no-fill").items() if k == "amp")
        print("AMP %.3f ms, of which the inner-dimension fill %.1f %% (%.3f ms per image)\n" % (
            ms(c, total[1]), 100 * (1 - no_fill / total[1]), ms(c, total[1]) / mb))
    print("## t(mb) = slope x mb + intercept through micro-batches %s\n" % ", ".join(map(str, MBS)))
    print("| variant | amp_efficiency | op_overhead_cycles | slope ms | intercept ms "
          "| errors (mb: %) |")
    print("|---|---|---|---|---|---|")
    s, i = line(meas)
    print("| measured | | | %.3f | %.3f | |" % (s, i))
    shipped = {mb: ms(c, sum(cost(c, mb, "fill").values())) for mb in MBS}
    variants = [("shipped", c, shipped)] + [(v, *fit(c, v, meas)) for v in
                                            ("fill", "no-fill", "vec-poplibs", "pass-plan")]
    for name, p, t in variants:
        s, i = line(t)
        errs = " ".join("%d: %+.1f" % (mb, 100 * (meas[mb] / t[mb] - 1)) for mb in MBS)
        print("| %s | %.3f | %.0f | %.3f | %.3f | %s |" % (
            name, p["amp_efficiency"], p["op_overhead_cycles"], s, i, errs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
