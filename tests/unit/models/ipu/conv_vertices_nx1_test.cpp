// poplin's ConvPartialnx1 estimate, worked by hand from poplibs' source (graphcore/poplibs
// sdk/poplar/2.4.0 lib/poplin/PerformanceEstimation.hpp l. 538-713, poplinCycleEstimators.cpp
// l. 64-159; 2.1.0 l. 499-627; 1.0.49 l. 235-342; docs/conv_nx1.md).
#include "models/ipu/conv_vertices_nx1.hpp"

#include <catch2/catch.hpp>

#include "models/params/hw_params.hpp"

using namespace ipusim;

namespace {

/// FP16 on 16 conv units of 16 halves (64 cycles of weight loads a pass at 8 B a cycle), six
/// workers, at `sdk`.
ChipParams chip(PoplarSdk sdk) {
  ChipParams c = registry_hw_params().chip;
  c.worker_threads = 6;
  c.amp_flops_per_cycle_fp16 = 128;
  c.amp_conv_units_fp16 = 16;
  c.poplar_sdk = sdk;
  return c;
}

ConvWindow window(double kernel, double stride, double in, double cin) {
  ConvWindow w;
  w.kernel = kernel;
  w.stride = stride;
  w.in_h = w.in_w = in;
  w.out_h = w.out_w = in / stride;
  w.in_channels = cin;
  return w;
}

}  // namespace

TEST_CASE("nx1 worker: one item per row run, 7 + 34 + 4 (n - 3) - 4 cycles each",
          "[compute][amp][nx1]") {
  const ConvPath p = conv_path(chip(PoplarSdk::V2_4_0), ComputeDType::Float16);
  // Outputs [522, 1045) of rows of 56: runs of 38, 8 x 56 and 37 (10 items, 523 outputs):
  // 16 (FP16 partials) + 4 x 523 + 25 x 10 = 2358.
  CHECK(nx1_worker_cycles(p, 522, 1045, 56) == 2358);
  // One run of 1 output and one of 2 (hh16: one more stride cycle): 16 + 32 + 37 = 85.
  CHECK(nx1_worker_cycles(p, 2, 5, 4) == 85);
  CHECK(nx1_worker_cycles(p, 3, 3, 4) == 16);  // no outputs: the start only
}

TEST_CASE("nx1: a 3x3 of 64 channels on a whole 56 x 56 image, FP16, SDK 2.4.0",
          "[compute][amp][nx1]") {
  const ChipParams c = chip(PoplarSdk::V2_4_0);
  const ConvPath p = conv_path(c, ComputeDType::Float16);
  // 64 channels: 16 a group (36 passes), filter height 1; 4 in groups of 3 x 3 positions, 64
  // outputs in 4 out groups, 3136 outputs in rows of 56.
  const Nx1Shape s = nx1_shape(window(3, 1, 56, 64), p, 3136, 576, 64);
  CHECK(s.filter_height == 1);
  CHECK(s.in_groups == 4);
  CHECK(s.kernel_outer == 3);
  CHECK(s.kernel_inner == 3);
  CHECK(s.out_groups == 4);
  CHECK(s.row_width == 56);
  // Workers: 522 or 523 outputs in 10 runs, 2354 or 2358 cycles; pass max(6 x 2358, 6 x 2354
  // + 9) = 14148. Innermost 64 + 15 + 3 = 82; inner 3 x 14 + 9 x (12 + 82 + 14148) = 128220.
  // Outer 103 + 6 x 4 + 6 x 10 + (4 x 17 + 3 x 6 + 1) + 1 + 16 + 4 x (14 + 4 x (14 + 128220))
  // = 2052091. Zeroing: 16 x 3136 partials, ceil(ceil(50176 / 6) / 4) + 5 = 2096 a worker,
  // x 6 x 4 = 50304. Total 2102395 (the AMP's bare 144 passes x 3136 x 4 = 1806336).
  CHECK(conv_nx1_tile_cycles(c, ComputeDType::Float16, s) == 2102395);
  CHECK(nx1_padding_elements(window(3, 1, 56, 64), s, 16, 64) == 0);
}

TEST_CASE("nx1: the stem's 4 x 4 patch by SDK (filter height 4)", "[compute][amp][nx1]") {
  // 7x7 /2, 3 channels: 4 a group, 4 kernel rows a pass, 2 x 7 = 14 positions; 16 outputs in
  // rows of 4, split 2 / 3 / 3 / 2 / 3 / 3: runs {2}, {2, 1}, {3}, {2}, {2, 1}, {3}.
  const ConvWindow stem = window(7, 2, 224, 3);
  const ChipParams c24 = chip(PoplarSdk::V2_4_0);
  const Nx1Shape s = nx1_shape(stem, conv_path(c24, ComputeDType::Float16), 16, 224, 16);
  CHECK(s.filter_height == 4);
  CHECK(s.kernel_outer == 2);
  CHECK(s.kernel_inner == 7);
  CHECK(s.in_groups == 1);
  CHECK(s.row_width == 4);
  // 2.4.0: workers 53 / 85 (16 + 37, + 32), pass max(510, 318 + 9) = 510; innermost 64 + 60 +
  // 3 = 127; inner 2 x 14 + 14 x (12 + 127 + 510) = 9114; outer 103 + 24 + 60 + 18 + 1 + 16 +
  // 14 + 14 + 9114 = 9364; zeroing (ceil(ceil(256 / 6) / 4) + 5) x 6 = 96: 9460.
  CHECK(conv_nx1_tile_cycles(c24, ComputeDType::Float16, s) == 9460);
  // 2.1.0: start 18, items 29 / 33 / 34 - 6, no set-up: workers 45 / 68 / 46, pass 408; inner
  // 28 + 14 x (12 + 127 + 408) = 7686; outer 103 + 6 x 6 + 60 + 18 + 1 + 16 + 28 + 7686 = 7948;
  // + 96 = 8044.
  CHECK(conv_nx1_tile_cycles(chip(PoplarSdk::V2_1_0), ComputeDType::Float16, s) == 8044);
  // 1.0.49: start 20, items 30 / 34 / 35: workers 54 / 84 / 55, pass 504; innermost 64 + 60;
  // inner 2 x 15 + 14 x (20 + 124 + 504) = 9102; outer 95 + 16 + 23 + 23 + 9102 = 9259;
  // zeroing (11 + 5) x 6 + 12 = 108: 9367.
  CHECK(conv_nx1_tile_cycles(chip(PoplarSdk::V1_0_49), ComputeDType::Float16, s) == 9367);
  // Kernel padded 7 -> 8 rows: 1 x 7 x 4 channels x 16 outputs + 1 row x 4 wide x 4 = 464.
  CHECK(nx1_padding_elements(stem, s, 4, 16) == 464);
}
