"""tools/cnn_cost_probe.py: the ResNet-50 op list it costs and the model formulas it mirrors
(models/ipu/gemm_tiling.cpp, compute.cpp), each value worked by hand below; no ipusim run."""
import importlib.util
import math
import os

import pytest

from conftest import ROOT

SPEC = importlib.util.spec_from_file_location("cnn_cost_probe",
                                              os.path.join(ROOT, "tools", "cnn_cost_probe.py"))
probe = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(probe)


def test_one_micro_batch_has_the_generators_577_compute_ops():
    # Forward: stem conv, bn, relu, max pool (4); 16 blocks of conv, bn, relu x 2, conv, bn,
    # add, relu (10) and 4 projections of conv + bn (8); head pool, FC, bias, loss (4): 176.
    # Recomputation repeats the stem and the blocks: 172. Backward: head loss, bias, FC input and
    # weight, pool (5); per block relu, bn, 2 convs x 3 and the gradient sum (13), per
    # projection bn + 2 convs (3): 16 x 13 + 4 x 3 = 220; stem pool, relu, bn, weight
    # gradient (4). 176 + 172 + 5 + 220 + 4 = 577.
    for mb in (2, 20):
        ops = probe.ops(mb)
        assert len(ops) == 577
        assert sum(1 for o in ops if o[1] == "fwd") == 176
        assert sum(1 for o in ops if o[1] == "rec") == 172


def test_cube_block_of_stage_ones_first_convolution():
    # m = 2 x 56 x 56 = 6272, k = n = 64 on 1472 tiles: volume 6272 x 64 x 64 / 1472 =
    # 17453.9 per tile, cube side 17453.9^(1/3) = 25.94 < 64, so all three dimensions are split
    # to the side; the inner dimension is split over 64 / 25.94 = 2.467 tiles.
    bm, bk, bn, ks = probe.cube_block(6272, 64, 64, 1472)
    side = (6272 * 64 * 64 / 1472) ** (1 / 3)
    assert side == pytest.approx(25.94, abs=0.01)
    assert (bm, bk, bn) == pytest.approx((side, side, side))
    assert ks == pytest.approx(64 / 25.94, rel=1e-3)


def test_amp_term_of_a_64_cube_block_with_the_fill():
    # m = 1472 x 64, k = n = 64: the volume per tile is 64^3, k and n are taken whole, m gets
    # 64. FP16 at 128 flop/cycle: 2 x 64^3 / 128 = 4096 cycles at peak, times the fill
    # (64 + 58.1) / 64 = 1.9078: 7814.4 (amp_efficiency applies later, in cost()). Operands
    # (64 x 64 + 64 x 64) x 2 B / 4 B per cycle = 4096 exchange cycles; no partials.
    c = probe.chip()
    t = probe.amp_model(c, 1472 * 64, 64, 64, 58.1)
    assert t["amp"] == pytest.approx(4096 * 122.1 / 64)
    assert t["exch"] == pytest.approx(4096)
    # (the cube side comes out a hair under 64 in floating point, as in gemm_tiling.cpp, so
    # the "partials" are 1e-13 cycles)
    assert t["red"] == pytest.approx(0, abs=1e-6)


def test_vector_op_costs_read_from_poplibs():
    # ReLU HALF {3 cycles, 4 per loop}: 3 / 4 = 0.75 tile cycles per element against the
    # model's 1 flop / 4 flop per cycle = 0.25: 3 x. Batch norm forward >= 2 x 0.25 + 4 x 0.5 =
    # 2.5 against 5 / 4 = 1.25: 2 x.
    assert probe.VEC_POPLIBS_RATIO["relu"] == pytest.approx(0.75 / 0.25)
    assert probe.VEC_POPLIBS_RATIO["bn"] == pytest.approx((2 * 0.25 + 4 * 0.5) / (5 / 4))
    # The pass: 6 workers x 18 + 7 + 18 + 32 + 11 = 176 cycles; 24 cycles per 6 rows.
    assert probe.PASS_CYCLES == 6 * 18 + 7 + 18 + 32 + 11
    assert probe.ROW_CYCLES == 24 / 6


def test_measured_line_reads_the_pearc_cases():
    # mb 2: 2 / 786 img/s = 2.545 ms; mb 20: 20 / 2130 = 9.390 ms (the cases' values).
    meas = probe.measured()
    assert sorted(meas) == [2, 4, 8, 14, 16, 18, 20]
    assert meas[2] == pytest.approx(2 / 786 * 1e3)
    assert meas[20] == pytest.approx(20 / 2130 * 1e3)
    slope, intercept = probe.line({1: 3.0, 3: 7.0})  # two points: slope 2, intercept 1
    assert (slope, intercept) == pytest.approx((2.0, 1.0))
