// A windowed convolution's GEMM planned as poplin's planner plans it: unexpanded (AMP channels
// padded, the input field exchanged) against expanded (im2col), the cheaper kept.
#include <catch2/catch.hpp>
#include <cmath>

#include "models/ipu/gemm_tiling.hpp"
#include "tests/unit/models/ipu/amp_test_chip.hpp"

using namespace ipusim;

using test::amp_test_chip;
using test::square_window;

TEST_CASE("expandDims by cost: the stem expands when the AMP's passes decide",
          "[compute][amp][tiling][conv_window]") {
  // The stem (7x7 /2, 3 channels) on one tile, a 4 x 4 output patch (16 pixels of a 112 x 112
  // image), 16 output channels. Unexpanded: 14 passes (224 inputs a row, conv_window_test) and
  // the field (3 x 2 + 7 = 13)^2 = 169 pixels x 3 channels = 507 elements; expanded: 10 passes
  // (147 inputs) and the im2col block 16 x 147 = 2352. With an exchange so fast it costs
  // nothing, the AMP decides: 10 passes < 14, so expanded.
  const ConvWindow stem = square_window(7, 2, 224, 3);
  const ChipParams fast = amp_test_chip(1e9);
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
  const ChipParams slow = amp_test_chip(1e-3);
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
  const ConvWindow c3 = square_window(3, 1, 56, 64);
  for (const double rate : {1e9, 4.0, 1e-3}) {
    const GemmTileBlock b =
        gemm_tile_block(amp_test_chip(rate), ComputeDType::Float16, 100, 576, 16, 1, 1, c3);
    CHECK_FALSE(b.expanded);
    CHECK(b.k == 576);
    CHECK(b.input_elements == 9216);
  }
  // The weight gradient (pixels along k) always receives the field: the same 9216.
  ConvWindow t = c3;
  t.pixels_along_k = true;
  const GemmTileBlock w =
      gemm_tile_block(amp_test_chip(4), ComputeDType::Float16, 576, 100, 16, 1, 1, t);
  CHECK_FALSE(w.expanded);
  CHECK(w.input_elements == 9216);
}

TEST_CASE("a windowed GEMM split over tiles sends each tile its pixels' field",
          "[compute][amp][tiling][conv_window]") {
  // A 3x3 on 10 x 10 images: m = 200 pixels (two images), k = 144 (16 channels), n = 16 on 2
  // tiles. Whatever the split, a block's first operand is never more than its im2col block and
  // equals the field of its pixels times its channels.
  const ConvWindow w = square_window(3, 1, 10, 16);
  const GemmTileBlock b =
      gemm_tile_block(amp_test_chip(4), ComputeDType::Float16, 200, 144, 16, 1, 2, w);
  CHECK(b.input_elements <= b.m * b.k);
  CHECK(b.input_elements == conv_input_operand_elements(w, b.m, b.k, 144));
}
