// poplin's ConvPartial1x1 vertex estimate against cycle counts worked out by hand from
// PerformanceEstimation.hpp (sdk/poplar/2.4.0; line numbers are that file's). Weight loads take
// 8 B a cycle: poplinCycleEstimators.cpp (lines 204-208) halves the target's 16 B because
// use128BitConvUnitLoad is false by default, the vertex's 64-bit ld64putcs (one per 8 B:
// conv_partial_1x1_supervisor.S's LOAD_WEIGHTS_1X1 has 32 for 8 units, 64 for 16).
#include "models/ipu/conv_vertices.hpp"

#include <catch2/catch.hpp>

#include "models/params/hw_params.hpp"

using namespace ipusim;

namespace {

/// A chip with 6 workers and the AMP peaks given (flops per tile cycle), conv units derived
/// from the peaks (no preset counts).
ChipParams chip_with_peaks(double fp16, double fp16_32, double fp32) {
  ChipParams c = registry_hw_params().chip;
  c.worker_threads = 6;
  c.amp_conv_units_fp16 = 0;
  c.amp_conv_units_fp32 = 0;
  c.amp_conv_units_fp16_32 = 0;
  c.amp_flops_per_cycle_fp16 = fp16;
  c.amp_flops_per_cycle_fp16_32 = fp16_32;
  c.amp_flops_per_cycle_fp32 = fp32;
  return c;
}

}  // namespace

TEST_CASE("conv path: conv units from the AMP peak, weight loads at 8 B per cycle",
          "[compute][amp][conv]") {
  // GC200 peaks 128 / 64 / 32: units = peak x core cycles / (2 x weights per unit).
  const ChipParams gc200 = chip_with_peaks(128, 64, 32);
  ConvPath p = conv_path(gc200, ComputeDType::Float16);
  CHECK(p.conv_units == 16);  // 128 x 4 / 32
  CHECK(p.weights_per_unit == 16);
  CHECK(p.core_cycles == 4);
  CHECK(p.weight_load_cycles == 64);  // 16 units x 16 halves x 2 B / 8: 64 ld64putcs
  p = conv_path(gc200, ComputeDType::Float16_32);
  CHECK(p.conv_units == 8);           // 64 x 4 / 32
  CHECK(p.weight_load_cycles == 32);  // 8 x 16 x 2 / 8: 32 ld64putcs
  CHECK(p.float_partials);
  CHECK_FALSE(p.float_activations);
  p = conv_path(gc200, ComputeDType::Float32);
  CHECK(p.conv_units == 16);  // 32 x 8 / 16
  CHECK(p.weights_per_unit == 8);
  CHECK(p.core_cycles == 8);
  CHECK(p.weight_load_cycles == 64);  // 16 units x 8 floats x 4 B / 8
  // GC2 peaks 64 / 64 / 16: 8 units on every path.
  const ChipParams gc2 = chip_with_peaks(64, 64, 16);
  CHECK(conv_path(gc2, ComputeDType::Float16).conv_units == 8);
  CHECK(conv_path(gc2, ComputeDType::Float16_32).conv_units == 8);
  CHECK(conv_path(gc2, ComputeDType::Float32).conv_units == 8);  // 16 x 8 / 16
}

TEST_CASE("conv 1x1 inner loop: workers' rows, retention and the tag cost",
          "[compute][amp][conv]") {
  const ConvPath p = conv_path(chip_with_peaks(128, 64, 32), ComputeDType::Float16);
  // 7 rows on 6 workers: one worker 2 rows (40 + 1 - 7 = 34), five 1 row (31 + 1 - 7 = 25):
  // max(6 x 34, 6 x 25 + 14) = 204.
  CHECK(conv1x1_inner_loop_cycles(p, 7, 6, true) == 204);
  // 3 rows: three workers 1 row each, three idle (0): max(6 x 25, 0 + 14) = 150.
  CHECK(conv1x1_inner_loop_cycles(p, 3, 6, true) == 150);
  // 60 rows, 10 each: zeroing 37 + 7 x 4 - 7 = 58, all equal: 6 x 58 + 14 = 362.
  CHECK(conv1x1_inner_loop_cycles(p, 60, 6, true) == 362);
  CHECK(conv1x1_inner_loop_cycles(p, 60, 6, false) == 368);  // 38 + 28 - 7 = 59
  // Lines 386-440 directly: FP32 default branch 46 + (2 + 8 x 4) + 1 x 8 = 88 for 4 rows.
  const ConvPath f = conv_path(chip_with_peaks(128, 64, 32), ComputeDType::Float32);
  CHECK(conv1x1_worker_cycles(f, 4, true) == 88);
  CHECK(conv1x1_worker_cycles(f, 4, false) == 54);  // 46 + 1 x 8
}

TEST_CASE("conv 1x1 vertex by hand: FP16, FP16.32 and FP32 on GC200, FP16 on GC2",
          "[compute][amp][conv]") {
  const ChipParams gc200 = chip_with_peaks(128, 64, 32);
  // FP16, 60 rows x 32 inputs x 32 outputs: 2 in groups x 2 out groups, common path (c = 1),
  // retention (7, 3), 64 load cycles a pass: 50 + 6 x (7 + 3) + 12 + 1 + 1 x (15 - 1 + 1 + 2 x
  // (19 + 6 + 64 + 368)) + (10 + 1 + 2 x (19 - 1 + 7 + 64 + 362)) = 110 + 13 + 929 + 913 =
  // 1965 (with 128-bit loads, 32 a pass: 1837).
  CHECK(conv1x1_tile_cycles(gc200, ComputeDType::Float16, 60, 32, 32) == 1965);
  // FP16.32, 12 rows x 16 x 8: one pass on 8 units, 2 rows per worker (41 - 7 = 34: 6 x 34 +
  // 14 = 218): 50 + 42 + 13 + (11 + 18 + 7 + 32 + 218) = 391.
  CHECK(conv1x1_tile_cycles(gc200, ComputeDType::Float16_32, 12, 16, 8) == 391);
  // FP32, 24 rows x 8 x 16: one pass, no retention, 4 rows per worker (88: 6 x 88 + 14 =
  // 542): 50 + 13 + (11 + 18 + 7 + 64 + 542) = 705.
  CHECK(conv1x1_tile_cycles(gc200, ComputeDType::Float32, 24, 8, 16) == 705);
  // GC2 FP16 (8 units, half partials: the other path, no retention, 2 zeroing cycles per row),
  // 12 rows x 16 x 8: 2 rows per worker 40 + (2 + 2 x 2) = 46 (6 x 46 + 14 = 290);
  // 50 + 12 + (11 + 19 + 7 + 32 + 290) = 421.
  CHECK(conv1x1_tile_cycles(chip_with_peaks(64, 64, 16), ComputeDType::Float16, 12, 16, 8) == 421);
  CHECK(conv1x1_tile_cycles(gc200, ComputeDType::Float16, 0, 16, 16) == 0);
}

TEST_CASE("conv path: the preset's conv units (4 FP32 units: the 8x4 vertex of 2.4.0)",
          "[compute][amp][conv]") {
  ChipParams gc2 = chip_with_peaks(64, 64, 16);
  gc2.amp_conv_units_fp16 = 8;
  gc2.amp_conv_units_fp32 = 4;
  gc2.amp_conv_units_fp16_32 = 8;
  CHECK(conv_path(gc2, ComputeDType::Float16).conv_units == 8);
  CHECK(conv_path(gc2, ComputeDType::Float16_32).conv_units == 8);
  const ConvPath f = conv_path(gc2, ComputeDType::Float32);
  CHECK(f.conv_units == 4);
  CHECK(f.core_cycles == 4);          // the 8x4 vertex, lines 361-364: 8 / 2
  CHECK(f.weight_load_cycles == 16);  // 4 units x 8 floats x 4 B / 8
  // Peak unchanged: 2 x 8 weights x 4 units / 4 cycles = 16 flops per cycle, the preset's.
  CHECK(2.0 * f.weights_per_unit * f.conv_units / f.core_cycles == 16.0);
  // 24 rows x 8 inputs x 4 outputs, one pass: 4 rows per worker, zeroing 46 + (2 + 4 x 4) +
  // 1 x 4 = 68 (6 x 68 = 408, all equal: 408 + 14 = 422); no retention (float activations);
  // 50 + 13 + (10 + 1 + (19 - 1 + 7 + 16 + 422)) = 537.
  CHECK(conv1x1_worker_cycles(f, 4, true) == 68);
  CHECK(conv1x1_tile_cycles(gc2, ComputeDType::Float32, 24, 8, 4) == 537);
}

TEST_CASE("SDK 1.0.49's conv 1x1 estimate by hand (GC2: 8 outputs a pass for every dtype)",
          "[compute][amp][conv]") {
  // Line numbers: lib/poplin/PerformanceEstimation.hpp at poplibs tag 1.0.49.
  ChipParams gc2 = chip_with_peaks(64, 64, 16);
  gc2.amp_conv_units_fp16 = 8;
  gc2.amp_conv_units_fp32 = 8;
  gc2.amp_conv_units_fp16_32 = 8;
  gc2.poplar_sdk = PoplarSdk::V1_0_49;
  const ConvPath h = conv_path(gc2, ComputeDType::Float16_32);
  const ConvPath f = conv_path(gc2, ComputeDType::Float32);
  CHECK(f.conv_units == 8);
  CHECK(f.core_cycles == 8);  // no 8x4 halving with 8 units: 2 x 8 x 8 / 8 = 16 flop/cycle
  // Worker cycles, lines 139-172. FP16.32, 2 rows: 42, zeroing + (2 + 4 x 2) = 52;
  // 10 rows: 43 + 7 x 4 = 71, zeroing + (2 + 4 x 10) = 113.
  CHECK(conv1x1_worker_cycles_sdk1(h, 2, false) == 42);
  CHECK(conv1x1_worker_cycles_sdk1(h, 2, true) == 52);
  CHECK(conv1x1_worker_cycles_sdk1(h, 10, false) == 71);
  CHECK(conv1x1_worker_cycles_sdk1(h, 10, true) == 113);
  // FP32, 4 rows: 50 + 1 x 8 = 58, zeroing + (2 + 8 x 4) = 92; 1 row: 50, zeroing 60.
  CHECK(conv1x1_worker_cycles_sdk1(f, 4, false) == 58);
  CHECK(conv1x1_worker_cycles_sdk1(f, 4, true) == 92);
  CHECK(conv1x1_worker_cycles_sdk1(f, 1, true) == 60);
  // FP16.32, 12 rows x 16 inputs x 8 outputs: one pass, 2 rows a worker, zeroing inner loop
  // max(6 x 52, 6 x 52 + 14) = 326; numLoads 4 x 4 x 8 x 2 / (16 / 2) = 32 (lines 196-199,
  // the vertex estimator's halved coefficient rate, poplinCycleEstimators.cpp lines 129-134 at
  // 1.0.49: the codelet's 32 ld64putcs); 50 + 11 + (10 + 18 + 6 + 32 + 326) = 453.
  CHECK(conv1x1_tile_cycles_sdk1(h, 6, 12, 16, 8) == 453);
  CHECK(conv1x1_tile_cycles(gc2, ComputeDType::Float16_32, 12, 16, 8) == 453);
  // 7 rows: the busiest worker 2 rows (6 x 52 = 312) against five of 1 row
  // (41 + 2 + 4 = 47: 6 x 47 + 14 = 296): 312; 61 + 10 + 56 + 312 = 439.
  CHECK(conv1x1_tile_cycles(gc2, ComputeDType::Float16_32, 7, 16, 8) == 439);
  // FP32, 24 rows x 16 inputs x 8 outputs: 2 in groups, 1 out group, 4 rows a worker:
  // inner 6 x 58 + 14 = 362, zeroing 6 x 92 + 14 = 566; numLoads 2 x 4 x 8 x 4 / 8 = 32;
  // 50 + 11 + 1 x (13 + 18 + 6 + 32 + 362) + (10 + 18 + 6 + 32 + 566) = 61 + 431 + 632 = 1124.
  CHECK(conv1x1_tile_cycles(gc2, ComputeDType::Float32, 24, 16, 8) == 1124);
  // FP16.16 (half partials, 2 more a row item, 2 zeroing cycles a row), 12 x 16 x 8:
  // 42 + (2 + 2 x 2) + 2 = 50, 6 x 50 + 14 = 314; 61 + 10 + 56 + 314 = 441.
  CHECK(conv1x1_tile_cycles(gc2, ComputeDType::Float16, 12, 16, 8) == 441);
  CHECK(conv1x1_tile_cycles(gc2, ComputeDType::Float32, 0, 16, 8) == 0);
  // The same block on 2.4.0's estimate differs (the dispatch reads the run's release).
  gc2.poplar_sdk = PoplarSdk::V2_4_0;
  CHECK(conv1x1_tile_cycles(gc2, ComputeDType::Float16_32, 12, 16, 8) != 453);
}

TEST_CASE("SDK 2.1.0's conv 1x1 estimate by hand (the MLPerf v1.0 runs' release)",
          "[compute][amp][conv]") {
  // Tag sdk/poplar/2.1.0 (840ea5d5), lib/poplin/PerformanceEstimation.hpp: retention savings
  // 10 and 2 (lines 33-41), the common path's 2 / 4 extra cycles for 0-2 rows and 38 / 40 fixed
  // cycles for 3 or more (lines 322-420), no +1 / -1 / -1 in the outer loop (lines 439-475).
  ChipParams gc200 = chip_with_peaks(128, 64, 32);
  gc200.poplar_sdk = PoplarSdk::V2_1_0;
  const ConvPath p = conv_path(gc200, ComputeDType::Float16);
  CHECK(conv1x1_worker_cycles(p, 0, true) == 22);   // 20 + 2 (2.4.0: 21)
  CHECK(conv1x1_worker_cycles(p, 1, false) == 35);  // 31 + 4 (2.4.0: 33)
  CHECK(conv1x1_worker_cycles(p, 5, true) == 46);   // 38 + 2 x 4 (2.4.0: 45)
  CHECK(conv1x1_worker_cycles(p, 5, false) == 48);  // 40 + 2 x 4 (2.4.0: 46)
  // 60 rows, 10 a worker: zeroing 38 + 7 x 4 - 10 = 56, 6 x 56 + 14 = 350; else 40 + 28 - 10
  // = 58, 362.
  CHECK(conv1x1_inner_loop_cycles(p, 60, 6, true) == 350);
  CHECK(conv1x1_inner_loop_cycles(p, 60, 6, false) == 362);
  // FP16, 60 x 32 x 32 (2.4.0: 1965): 50 + 6 x (10 + 2) + 12 + 1 x (15 + 1 + 2 x (19 + 6 + 64
  // + 362)) + (10 + 1 + 2 x (19 + 7 + 64 + 350)) = 122 + 12 + 918 + 891 = 1943 (the same 8 B a
  // load cycle: 2.1.0's poplinCycleEstimators.cpp lines 206-207).
  CHECK(conv1x1_tile_cycles(gc200, ComputeDType::Float16, 60, 32, 32) == 1943);
  // FP16.32, 12 x 16 x 8 on 8 units (2.4.0: 391): 2 rows a worker 40 + 2 - 10 = 32, 6 x 32 +
  // 14 = 206; 50 + 6 x 10 + 12 + (11 + 19 + 7 + 32 + 206) = 397.
  CHECK(conv1x1_tile_cycles(gc200, ComputeDType::Float16_32, 12, 16, 8) == 397);
  // FP32 inputs: the same worker branch and no retention in both releases; with one input
  // group the outer loop's +1 and -1 cancel: 705, as 2.4.0.
  CHECK(conv1x1_tile_cycles(gc200, ComputeDType::Float32, 24, 8, 16) == 705);
  // 2.3.0 and 2.5.1 cost as 2.4.0 (the estimator is unchanged from 2.3.0 to 2.5.1).
  for (PoplarSdk sdk : {PoplarSdk::V2_3_0, PoplarSdk::V2_5_1}) {
    gc200.poplar_sdk = sdk;
    CHECK(conv1x1_tile_cycles(gc200, ComputeDType::Float16, 60, 32, 32) == 1965);
    CHECK(conv1x1_tile_cycles(gc200, ComputeDType::Float16_32, 12, 16, 8) == 391);
  }
}
