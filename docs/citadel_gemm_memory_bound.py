#!/usr/bin/python3
"""The numbers of docs/citadel_gemm.md section 3(b) and 3(d): the simulator's GEMM planner on
GC2 (models/ipu/gemm_tiling.cpp and conv_vertices.cpp, replicated here), with and without the
per-tile memory bound of poplin's planner at SDK 1.0.49, for the Citadel n = 2944 GEMMs.

    /usr/bin/python3 docs/citadel_gemm_memory_bound.py

Without the bound it reproduces `ipusim validate` to the cycle on branch citgemm (check it
against the citadel_gemm_* rows at the same amp_efficiency, op overhead and vector_efficiency);
the merged tree (2026-11-28) sums the FP32 partials at popops' ADD vertex cost instead of
vector_efficiency, so its rows differ by that term. The bound
(poplibs tag 1.0.49): temporary bytes per tile = inputs x input bytes + weights x input bytes +
partials x partial bytes (ConvPlan.cpp lines 1138-1156) <= availableMemoryProportion 0.6 x
bytes per tile (lines 4064-4080; ConvOptions.hpp line 34), per iteration of an out-channel
serial split that repeats the whole estimate, exchange included (lines 2003-2043).
A sketch for the document, not part of the simulator.
"""
import math

N = 2944
TILES = 1216
CLOCK_GHZ = 1.6
WORKERS = 6
EXCHANGE_BYTES_PER_CYCLE = 4.0  # /chip/exchange_bytes_per_cycle_per_tile
BOUND_BYTES = int(0.6 * 262144)  # availableMemoryProportion x GC2's 256 KiB
MEASURED = {"float32": 18.9, "float16_32": 58.55}  # TFLOP/s, measurements.md section 4


def cdiv(a, b):
    return (a + b - 1) // b


def worker_sdk1(fp32_in, rows, zeroing):
    """SDK 1.0.49's worker cycles (PerformanceEstimation.hpp lines 139-172), FP32 partials."""
    z = 1 if zeroing else 0
    if fp32_in:
        if rows <= 2:
            return 50 + (2 + 8 * rows) * z
        return 50 + (2 + 8 * rows) * z + (rows - 3) * 8
    if rows == 1:
        return 41 + 6 * z
    if rows == 2:
        return 42 + 10 * z
    return 43 + (2 + 4 * rows) * z + (rows - 3) * 4


def vertex_sdk1(dtype, rows, inputs, outputs):
    """SDK 1.0.49's ConvPartial1x1 tile cycles, 8 outputs a pass (lines 173-212)."""
    fp32_in = dtype == "float32"
    in_groups = cdiv(inputs, 8 if fp32_in else 16)
    out_groups = cdiv(outputs, 8)
    loads = 8  # numLoads, lines 196-199, for both dtypes on 8 units

    def inner(zeroing):
        most = WORKERS * worker_sdk1(fp32_in, cdiv(rows, WORKERS), zeroing)
        least = WORKERS * worker_sdk1(fp32_in, rows // WORKERS, zeroing) if rows >= WORKERS else 0
        return max(most, least + 14)

    return (61 + (in_groups - 1) * (13 + out_groups * (24 + loads + inner(False))) +
            10 + out_groups * (24 + loads + inner(True)))


def tile_counts(elems, grain, max_tiles):
    """gemm_tiling.cpp tile_counts(): the fewest tiles for each number of grains per tile."""
    out = []
    for g in range(1, cdiv(elems, grain) + 1):
        t = cdiv(elems, g * grain)
        if t > max_tiles:
            continue
        if not out or t < out[-1]:
            out.append(t)
        if t == 1:
            break
    return out


def plan(dtype, amp_eff, vector_eff, bound, exchange_rate=EXCHANGE_BYTES_PER_CYCLE):
    """The cycle-minimising split; with a bound, also out-channel serial splits."""
    operand_bytes = 4 if dtype == "float32" else 2
    grain_k = 8 if dtype == "float32" else 16
    best = None
    for tk in tile_counts(N, grain_k, TILES):
        for tn in tile_counts(N, 8, TILES // tk):
            tm = min(N, TILES // (tk * tn))
            bm, bk, bn = cdiv(N, tm), cdiv(N, tk), cdiv(N, tn)
            for serial in range(1, cdiv(bn, 8) + 1) if bound else [1]:
                bns = cdiv(bn, serial)
                if serial > 1 and cdiv(bn, bns) != serial:
                    continue
                temp = (bm * bk + bk * bns) * operand_bytes + bm * bns * 4
                if bound and temp > bound:
                    continue
                partials = bm * bns * (1 - 1 / tk) if tk > 1 else 0
                amp = vertex_sdk1(dtype, bm, bk, bns) / amp_eff
                exchange = ((bm * bk + bk * bns) * operand_bytes + partials * 4) / exchange_rate
                reduction = partials / 2.0 / vector_eff  # FP32 adds, 2 flop/cycle
                cycles = serial * (amp + exchange + reduction)
                if best is None or cycles < best["cycles"]:
                    best = dict(cycles=cycles, split=(tm, tk, tn, serial),
                                block=(bm, bk, bns), temp=temp)
    return best


def main():
    params = [(0.7246, 1378, 0.3521), (0.724, 1361, 0.3431), (1.0, 1378, 0.3521)]
    for amp_eff, overhead, vector_eff in params:
        for bound in (None, BOUND_BYTES):
            row = {}
            for dtype in ("float32", "float16_32"):
                p = plan(dtype, amp_eff, vector_eff, bound)
                total = math.ceil(p["cycles"] - 1e-9) + overhead  # compute.cpp total_cycles()
                tflops = 2.0 * N**3 * CLOCK_GHZ / total * 1e-3  # flops per ns / 1e3
                row[dtype] = tflops
                print(f"amp_efficiency {amp_eff} bound {bound}: {dtype} {tflops:.2f} TFLOP/s "
                      f"({(tflops / MEASURED[dtype] - 1) * 100:+.1f} %), tiles m x k x n x serial "
                      f"{p['split']}, block {p['block']}, temporary {p['temp']} B")
            print(f"  ratio FP16.32 / FP32 {row['float16_32'] / row['float32']:.3f} "
                  f"(measured {MEASURED['float16_32'] / MEASURED['float32']:.3f})")
    # Section 3(d): a slower operand exchange (no source gives one) at the fitted values.
    for rate in (4.0, 3.0, 2.0):
        t = {}
        for dtype in ("float32", "float16_32"):
            total = math.ceil(plan(dtype, 0.7246, 0.3521, None, rate)["cycles"] - 1e-9) + 1378
            t[dtype] = 2.0 * N**3 * CLOCK_GHZ / total * 1e-3
        print(f"exchange {rate} B/cycle: FP32 {t['float32']:.2f}, FP16.32 {t['float16_32']:.2f} "
              f"TFLOP/s, ratio {t['float16_32'] / t['float32']:.3f}")


if __name__ == "__main__":
    main()
