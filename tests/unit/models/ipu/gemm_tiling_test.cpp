// The cycle-minimising split of a GEMM over tiles on small cases whose best split is worked out
// by hand (conv_vertices_test's vertex counts; FP16 on 16 conv units of 16 halves).
#include "models/ipu/gemm_tiling.hpp"

#include <catch2/catch.hpp>

#include "tests/unit/models/ipu/amp_test_chip.hpp"

using namespace ipusim;

using test::amp_test_chip;

TEST_CASE("GEMM split: a k split beats an m split when it saves a weight pass",
          "[compute][amp][tiling]") {
  // m 12, k 32, n 16 on 2 tiles. The splits: k in 2 (block 12 x 16 x 16) or m in 2 (6 x 32 x
  // 16); n (one group of 16) is not split.
  // Weight loads 16 units x 32 B / 8 B a cycle = 64 a pass (conv_vertices.hpp).
  // k split: one pass of 12 rows (2 per worker: 6 x (41 - 7) + 14 = 218), vertex 50 + 42 + 13
  // + (11 + 18 + 7 + 64 + 218) = 423, AMP 423 / 0.5 = 846; exchange (12x16 + 16x16) x 2 B +
  // partials 12 x 16 x 1/2 x 2 B = 1088 B / 4 = 272; partial sums 96 x 0.75 (popops' ADD, 3 cycles
  // per 4 halves) = 72: 1190. m split: two passes of 6 rows (1 per worker: zeroing 6 x 25 + 14 =
  // 164, then 6 x 26 + 14 = 170), vertex 50 + 6 x (7 + 3) + 13 + (15 + 19 + 6 + 64 + 170) + (11 +
  // 18 + 7 + 64 + 164) = 661, AMP 1322; exchange (6x32 + 32x16) x 2 / 4 = 352: 1674.
  const GemmTileBlock b = gemm_tile_block(amp_test_chip(), ComputeDType::Float16, 12, 32, 16, 1, 2);
  CHECK(b.m == 12);
  CHECK(b.k == 16);
  CHECK(b.n == 16);
  CHECK(b.k_splits == 2);
  CHECK(b.count == 1);
  CHECK(b.amp_cycles == Approx(846));
  CHECK(b.exchange_cycles == Approx(272));
  CHECK(b.reduction_cycles == Approx(72));
  CHECK(b.cycles() == Approx(1190));
}

TEST_CASE("GEMM split: an m split wins once the rows amortise the passes",
          "[compute][amp][tiling]") {
  // m 120, k 32, n 16 on 2 tiles.
  // k split: 120 x 16 x 16, 20 rows per worker (37 + 17 x 4 - 7 = 98: 6 x 98 + 14 = 602),
  // vertex 92 + 13 + 11 + 89 + 602 = 807 (89 = 18 + 7 + 64 loads), AMP 1614; exchange ((1920 +
  // 256) x 2 + 960 x 2) / 4 = 1568; partial sums 960 x 0.75 = 720: 3902.
  // m split: 60 x 32 x 16, 10 rows per worker (zeroing 362, then 368), vertex 110 + 13 + (15 +
  // 89 + 368) + (11 + 89 + 362) = 1057, AMP 2114; exchange (1920 + 512) x 2 / 4 = 1216: 3330.
  const GemmTileBlock b =
      gemm_tile_block(amp_test_chip(), ComputeDType::Float16, 120, 32, 16, 1, 2);
  CHECK(b.m == 60);
  CHECK(b.k == 32);
  CHECK(b.k_splits == 1);
  CHECK(b.cycles() == Approx(3330));
  // The memo returns the same block.
  CHECK(gemm_tile_block(amp_test_chip(), ComputeDType::Float16, 120, 32, 16, 1, 2).cycles() ==
        b.cycles());
  // A changed chip value is a different key: exchange twice as fast halves the exchange term.
  ChipParams fast = amp_test_chip();
  fast.exchange_bytes_per_cycle_per_tile = 8;
  CHECK(gemm_tile_block(fast, ComputeDType::Float16, 120, 32, 16, 1, 2).exchange_cycles ==
        Approx(608));
}

TEST_CASE("GEMM split: more independent GEMMs than tiles run whole", "[compute][amp][tiling]") {
  // 32 GEMMs of 16^3 on 16 tiles: 2 whole GEMMs per tile, vertex 423 each (compute_model_test),
  // AMP 2 x 423 / 0.5 = 1692; operands 2 x 512 x 2 B / 4 = 512.
  const GemmTileBlock b =
      gemm_tile_block(amp_test_chip(), ComputeDType::Float16, 16, 16, 16, 32, 16);
  CHECK(b.count == 2);
  CHECK(b.k_splits == 1);
  CHECK(b.amp_cycles == Approx(1692));
  CHECK(b.exchange_cycles == Approx(512));
  CHECK(b.reduction_cycles == 0);
}
