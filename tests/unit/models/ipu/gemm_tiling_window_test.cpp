// A windowed convolution's GEMM planned as poplin's planner plans it: unexpanded (AMP channels
// padded, the input field exchanged) against expanded (im2col), the cheaper kept.
#include <catch2/catch.hpp>
#include <cmath>

#include "models/ipu/gemm_tiling.hpp"
#include "models/params/hw_params.hpp"

using namespace ipusim;

namespace {

/// gemm_tiling_test's chip: FP16 on 16 conv units of 16 halves, AMP efficiency 0.5, and the
/// exchange at `bytes_per_cycle`.
ChipParams chip(double bytes_per_cycle) {
  ChipParams c = registry_hw_params().chip;
  c.worker_threads = 6;
  c.amp_flops_per_cycle_fp16 = 128;
  c.amp_efficiency = 0.5;
  c.exchange_bytes_per_cycle_per_tile = bytes_per_cycle;
  c.vector_flops_per_cycle_fp16 = 4;
  return c;
}

ConvWindow window(double kernel, double stride, double in, double cin) {
  ConvWindow w;
  w.kernel = kernel;
  w.stride = stride;
  w.in_h = w.in_w = in;
  w.out_h = w.out_w = std::ceil(in / stride);
  w.in_channels = cin;
  return w;
}

}  // namespace

TEST_CASE("expandDims by cost: the stem expands when the AMP's passes decide",
          "[compute][amp][tiling][conv_window]") {
  // The stem (7x7 /2, 3 channels) on one tile, a 4 x 4 output patch (16 pixels of a 112 x 112
  // image), 16 output channels. Unexpanded: 14 passes (224 inputs a row, conv_window_test) and
  // the field (3 x 2 + 7 = 13)^2 = 169 pixels x 3 channels = 507 elements; expanded: 10 passes
  // (147 inputs) and the im2col block 16 x 147 = 2352. With an exchange so fast it costs
  // nothing, the AMP decides: 10 passes < 14, so expanded.
  const ConvWindow stem = window(7, 2, 224, 3);
  const ChipParams fast = chip(1e9);
  const GemmTileBlock b = gemm_tile_block(fast, ComputeDType::Float16, 16, 147, 16, 1, 1, stem);
  const GemmTileBlock rows = gemm_tile_block(fast, ComputeDType::Float16, 16, 147, 16, 1, 1);
  const GemmTileBlock field = gemm_tile_block(fast, ComputeDType::Float16, 16, 224, 16, 1, 1);
  CHECK(rows.amp_cycles < field.amp_cycles);
  CHECK(b.expanded);
  CHECK(b.k == 147);
  CHECK(b.input_elements == 16 * 147);
  CHECK(b.cycles() == Approx(rows.cycles()));
  // With a slow exchange the operands decide: 507 + 224 x 16 = 4091 elements unexpanded
  // against 2352 + 147 x 16 = 4704 expanded, so the field wins (its extra passes are worth
  // fewer cycles than the 613 elements at 1/1000 B a cycle).
  const ChipParams slow = chip(1e-3);
  const GemmTileBlock s = gemm_tile_block(slow, ComputeDType::Float16, 16, 147, 16, 1, 1, stem);
  CHECK_FALSE(s.expanded);
  CHECK(s.k == 224);
  CHECK(s.input_elements == 507);
  CHECK(s.exchange_cycles == Approx((507 + 224 * 16) * 2 / 1e-3));
}

TEST_CASE("expandDims by cost: a 3x3 of 64 channels stays unexpanded",
          "[compute][amp][tiling][conv_window]") {
  // 64 channels: 36 passes either way (576 inputs), so only the exchange differs and the
  // field (smaller) wins at any exchange rate. 100 pixels of a 56 x 56 image, one tile:
  // 12 x 12 x 64 = 9216 elements, not 100 x 576 = 57600.
  const ConvWindow c3 = window(3, 1, 56, 64);
  for (const double rate : {1e9, 4.0, 1e-3}) {
    const GemmTileBlock b =
        gemm_tile_block(chip(rate), ComputeDType::Float16, 100, 576, 16, 1, 1, c3);
    CHECK_FALSE(b.expanded);
    CHECK(b.k == 576);
    CHECK(b.input_elements == 9216);
  }
  // The weight gradient (pixels along k) always receives the field: the same 9216.
  ConvWindow t = c3;
  t.pixels_along_k = true;
  const GemmTileBlock w = gemm_tile_block(chip(4), ComputeDType::Float16, 576, 100, 16, 1, 1, t);
  CHECK_FALSE(w.expanded);
  CHECK(w.input_elements == 9216);
}

TEST_CASE("a windowed GEMM split over tiles sends each tile its pixels' field",
          "[compute][amp][tiling][conv_window]") {
  // A 3x3 on 10 x 10 images: m = 200 pixels (two images), k = 144 (16 channels), n = 16 on 2
  // tiles. Whatever the split, a block's first operand is never more than its im2col block and
  // equals the field of its pixels times its channels.
  const ConvWindow w = window(3, 1, 10, 16);
  const GemmTileBlock b = gemm_tile_block(chip(4), ComputeDType::Float16, 200, 144, 16, 1, 2, w);
  CHECK(b.input_elements <= b.m * b.k);
  CHECK(b.input_elements == conv_input_operand_elements(w, b.m, b.k, 144));
}
