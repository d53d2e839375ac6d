// /chip/compute/gemm_memory_bound: poplin's availableMemoryProportion bound on a tile's
// temporary bytes (poplibs tag 1.0.49 ConvPlan.cpp l. 1138-1156, 2003-2043, 4064-4080), worked
// by hand on amp_test_chip (FP16 on 16 conv units of 16 halves, AMP efficiency 0.5, 4 B a cycle
// of exchange) and on the Citadel GEMM of docs/citadel_gemm_memory_bound.py.
#include <catch2/catch.hpp>

#include "models/ipu/gemm_tiling.hpp"
#include "tests/unit/models/ipu/amp_test_chip.hpp"

using namespace ipusim;

namespace {

/// amp_test_chip with the bound on: `sram_bytes` per tile, proportion 0.5.
ChipParams bounded_chip(std::uint64_t sram_bytes) {
  ChipParams c = test::amp_test_chip();
  c.gemm_memory_bound = GemmMemoryBound::AvailableMemoryProportion;
  c.available_memory_proportion = 0.5;
  c.sram_per_tile_bytes = sram_bytes;
  return c;
}

}  // namespace

TEST_CASE("GEMM memory bound: off by default", "[compute][amp][tiling][memory]") {
  CHECK(registry_hw_params().chip.gemm_memory_bound == GemmMemoryBound::None);
  CHECK(registry_hw_params().chip.available_memory_proportion == 0.6);  // ConvOptions.hpp l. 34
}

TEST_CASE("GEMM memory bound: a split that fits is unchanged", "[compute][amp][tiling][memory]") {
  // gemm_tiling_test's first case: m 12, k 32, n 16 on 2 tiles picks the k split, block 12 x
  // 16 x 16, 1190 cycles. Its temporaries: (12 x 16 + 16 x 16) x 2 B + 12 x 16 x 2 B (FP16
  // partials) = 1280 B; the m split's (6 x 32 + 32 x 16) x 2 + 6 x 16 x 2 = 1600 B. A bound of
  // 0.5 x 2600 = 1300 B keeps the k split, a serial count of 1.
  const GemmTileBlock b =
      gemm_tile_block(bounded_chip(2600), ComputeDType::Float16, 12, 32, 16, 1, 2);
  CHECK(b.k == 16);
  CHECK(b.n == 16);
  CHECK(b.k_splits == 2);
  CHECK(b.serial_splits == 1);
  CHECK(gemm_temp_bytes(ComputeDType::Float16, b) == Approx(1280));
  CHECK(b.cycles() == Approx(1190));
}

TEST_CASE("GEMM memory bound: a serial split of 2", "[compute][amp][tiling][memory]") {
  // m 12, k 16, n 32 on one tile (1.5 tiles: one per GEMM, through the split search; a tile
  // of whole GEMMs, groups >= tiles, is not bounded): the block is the whole GEMM. Serial 1: (12 x
  // 16 + 16 x 32) x 2 B + 12 x 32 x 2 B = 2176 B, over the 0.5 x 4000 = 2000 B bound. Serial 2 (n
  // 16 a slice, one conv-unit group): (192 + 256) x 2 + 192 x 2 = 1280 B, fits (16 conv units leave
  // no serial count above 2 for n 32). Each slice is gemm_tiling_test's 12 x 16 x 16 vertex, 423
  // cycles, / 0.5 = 846, and receives (192 + 256) x 2 B / 4 = 224 cycles of operands again; no
  // partials: 2 x (846 + 224) = 2140.
  const GemmTileBlock b =
      gemm_tile_block(bounded_chip(4000), ComputeDType::Float16, 12, 16, 32, 1, 1.5);
  CHECK(b.serial_splits == 2);
  CHECK(b.n == 16);
  CHECK(gemm_temp_bytes(ComputeDType::Float16, b) == Approx(1280));
  CHECK(b.amp_cycles == Approx(2 * 846));
  CHECK(b.exchange_cycles == Approx(2 * 224));
  CHECK(b.reduction_cycles == 0);
  CHECK(b.cycles() == Approx(2140));
  // With 0.5 x 4400 = 2200 B the whole block fits: one pass of 32 outputs.
  const GemmTileBlock one =
      gemm_tile_block(bounded_chip(4400), ComputeDType::Float16, 12, 16, 32, 1, 1.5);
  CHECK(one.serial_splits == 1);
  CHECK(one.n == 32);
  // Nothing fits 0.5 x 2000 = 1000 B (serial 2 needs 1280): the plan of fewest bytes, serial 2.
  const GemmTileBlock least =
      gemm_tile_block(bounded_chip(2000), ComputeDType::Float16, 12, 16, 32, 1, 1.5);
  CHECK(least.serial_splits == 2);
}

TEST_CASE("GEMM memory bound: the Citadel n = 2944 FP16.32 GEMM on GC2",
          "[compute][amp][tiling][memory]") {
  // docs/citadel_gemm_memory_bound.py: GC2 (1216 tiles, 256 KiB, 8 conv units, SDK 1.0.49) at
  // availableMemoryProportion 0.6, 157,286 B. Unbounded, the split 6 x 8 x 25 (block 491 x 368
  // x 118, at the fitted values) needs 491 x 368 x 2 + 368 x 118 x 2 + 491 x 118 x 4 = 679,976 B.
  // The replica's bounded plan: 18 x 11 x 6 tiles, block 164 x 268 x 55 in 9 serial slices of the
  // tile's 491 out channels (ceil(2944 / 6) = 491, ceil(491 / 9) = 55), 164 x 268 x 2 + 268 x 55 x
  // 2 + 164 x 55 x 4 = 153,464 B.
  ChipParams gc2 = registry_hw_params().chip;
  gc2.tiles = 1216;
  gc2.sram_per_tile_bytes = 262144;
  gc2.amp_flops_per_cycle_fp16 = gc2.amp_flops_per_cycle_fp16_32 = 64;
  gc2.amp_flops_per_cycle_fp32 = 16;
  gc2.amp_conv_units_fp16 = gc2.amp_conv_units_fp16_32 = gc2.amp_conv_units_fp32 = 8;
  gc2.exchange_bytes_per_cycle_per_tile = 4;
  gc2.poplar_sdk = PoplarSdk::V1_0_49;
  gc2.amp_efficiency = 1;
  // The unbounded plan's block at the fitted values (docs/citadel_gemm.md section 3(a)).
  GemmTileBlock free;
  free.m = 491;
  free.k = 368;
  free.n = 118;
  free.input_elements = 491.0 * 368;
  CHECK(gemm_temp_bytes(ComputeDType::Float16_32, free) == Approx(679976));
  gc2.gemm_memory_bound = GemmMemoryBound::AvailableMemoryProportion;
  gc2.available_memory_proportion = 0.6;
  const GemmTileBlock b = gemm_tile_block(gc2, ComputeDType::Float16_32, 2944, 2944, 2944, 1, 1216);
  CHECK(b.m == 164);
  CHECK(b.k == 268);
  CHECK(b.n == 55);
  CHECK(b.k_splits == 11);
  CHECK(b.serial_splits == 9);
  CHECK(gemm_temp_bytes(ComputeDType::Float16_32, b) == Approx(153464));
  CHECK(gemm_temp_bytes(ComputeDType::Float16_32, b) <= 0.6 * 262144);
}
