// A windowed convolution's GEMM planned as poplin's planner plans it: unexpanded (AMP channels
// padded, the input field exchanged) against expanded (im2col), the cheaper kept.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

#include "models/ipu/gemm_tiling.hpp"
#include "tests/unit/models/ipu/amp_test_chip.hpp"

using namespace ipusim;

using test::amp_test_chip;
using test::square_window;

TEST_CASE("expandDims by cost: the stem, nx1 unexpanded against 1x1 expanded",
          "[compute][amp][tiling][conv_window]") {
  // The stem (7x7 /2, 3 channels) on one tile, a 4 x 4 output patch (16 pixels of a 112 x 112
  // image), 16 output channels. Unexpanded: the nx1 vertex, 14 passes (224 inputs a row),
  // 9460 cycles at SDK 2.4.0 (conv_vertices_nx1_test), its kernel padded to 8 rows (464
  // elements written), the field (3 x 2 + 7 = 13)^2 = 169 pixels x 3 channels = 507 elements;
  // expanded: the 1x1 vertex over 10 passes (147 inputs) and the im2col block 16 x 147 = 2352.
  // With an exchange so fast it costs nothing the vertices decide: expanded.
  const ConvWindow stem = square_window(7, 2, 224, 3);
  const ChipParams fast = amp_test_chip(1e9);
  const GemmTileBlock b = gemm_tile_block(fast, ComputeDType::Float16, 16, 147, 16, 1, 1, stem);
  const GemmTileBlock rows = gemm_tile_block(fast, ComputeDType::Float16, 16, 147, 16, 1, 1);
  CHECK(b.expanded);
  CHECK(b.k == 147);
  CHECK(b.input_elements == 16 * 147);
  CHECK(b.padding_elements == 0);
  CHECK(b.cycles() == Approx(rows.cycles()));
  CHECK(rows.amp_cycles < 9460 / 0.5);
  // With a slow exchange the operands decide: 507 + 224 x 16 + 464 = 4555 elements unexpanded
  // against 2352 + 147 x 16 = 4704 expanded, so the field wins, costed with the nx1 vertex.
  const ChipParams slow = amp_test_chip(1e-3);
  const GemmTileBlock s = gemm_tile_block(slow, ComputeDType::Float16, 16, 147, 16, 1, 1, stem);
  CHECK_FALSE(s.expanded);
  CHECK(s.k == 224);
  CHECK(s.input_elements == 507);
  CHECK(s.padding_elements == 464);
  CHECK(s.amp_cycles == Approx(9460 / 0.5));
  CHECK(s.exchange_cycles == Approx((507 + 224 * 16 + 464) * 2 / 1e-3));
}

TEST_CASE("expandDims by cost: a 3x3 of 64 channels, nx1 against 1x1 and the exchange",
          "[compute][amp][tiling][conv_window]") {
  // 64 channels: 36 passes either way (576 inputs). 100 pixels of a 56 x 56 image on one tile
  // (a 10 x 10 patch, rows of 10), 16 outputs, SDK 2.4.0.
  // nx1: workers 130 / 159 / 134 (16 + 4 x outputs + 25 a run: runs {10, 6}, {4, 10, 3},
  // {7, 10}, ...), pass max(954, 780 + 9) = 954; inner 3 x 14 + 9 x (12 + 82 + 954) = 9474;
  // outer 103 + 24 + 60 + 18 + 1 + 16 + 4 x (14 + 14 + 9474) = 38230; zeroing (ceil(ceil(1600
  // / 6) / 4) + 5) x 6 = 432: 38662 cycles. 1x1 over 100 x 576 x 16 (36 in groups, 17 / 16 rows
  // a worker: 522 / 516 inner cycles): 50 + 6 x (7 + 3 x 35) + 13 + 35 x (15 + 611) + (11 + 605)
  // = 23261. Exchange: the field 12 x 12 x 64 = 9216 + 576 x 16 against 57600 + 9216.
  const ConvWindow c3 = square_window(3, 1, 56, 64);
  const double nx1 = 38662 / 0.5, one = 23261 / 0.5;
  for (const double rate : {1e9, 4.0, 3.0, 1e-3}) {
    const GemmTileBlock b =
        gemm_tile_block(amp_test_chip(rate), ComputeDType::Float16, 100, 576, 16, 1, 1, c3);
    const double field = nx1 + (9216 + 9216) * 2 / rate;
    const double rows = one + (57600 + 9216) * 2 / rate;
    INFO("rate " << rate);
    CHECK(b.expanded == (rows < field));
    CHECK(b.cycles() == Approx(std::min(rows, field)));
    CHECK(b.amp_cycles == Approx(b.expanded ? one : nx1));
    CHECK(b.input_elements == (b.expanded ? 57600 : 9216));
  }
  // The break-even: 48384 elements x 2 B against 30802 cycles, 3.14 B a cycle; GC200's 4 B
  // expands this block, 3 B keeps it unexpanded.
  CHECK(
      gemm_tile_block(amp_test_chip(4.0), ComputeDType::Float16, 100, 576, 16, 1, 1, c3).expanded);
  CHECK_FALSE(
      gemm_tile_block(amp_test_chip(3.0), ComputeDType::Float16, 100, 576, 16, 1, 1, c3).expanded);
  // The weight gradient (pixels along k) always receives the field (the 1x1 vertex): 9216.
  ConvWindow t = c3;
  t.pixels_along_k = true;
  const GemmTileBlock w =
      gemm_tile_block(amp_test_chip(4), ComputeDType::Float16, 576, 100, 16, 1, 1, t);
  CHECK_FALSE(w.expanded);
  CHECK(w.input_elements == 9216);
  CHECK(w.padding_elements == 0);
}

TEST_CASE("a windowed GEMM split over tiles sends each tile its pixels' field",
          "[compute][amp][tiling][conv_window]") {
  // A 3x3 on 10 x 10 images: m = 200 pixels (two images), k = 144 (16 channels), n = 16 on 2
  // tiles. Whatever the split, a block's first operand is never more than its im2col block and,
  // unless the planner expanded it (then im2col rows), equals the field of its pixels times its
  // channels.
  const ConvWindow w = square_window(3, 1, 10, 16);
  const GemmTileBlock b =
      gemm_tile_block(amp_test_chip(4), ComputeDType::Float16, 200, 144, 16, 1, 2, w);
  CHECK(b.input_elements <= b.m * b.k);
  CHECK(b.input_elements ==
        (b.expanded ? b.m * b.k : conv_input_operand_elements(w, b.m, b.k, 144)));
}
