// The per-op-class compute model against closed forms worked out by hand.
#include <catch2/catch.hpp>
#include <cmath>

#include "models/ipu/compute.hpp"
#include "models/ipu/gemm_tiling.hpp"
#include "tests/unit/models/ipu/reduction_chip.hpp"

using namespace ipusim;

namespace {

/// A chip with round numbers: 16 tiles, FP16 AMP 128 flop/cycle, vector FP16 4 flop/cycle,
/// 24 B/cycle memory, 4 B/cycle exchange.
ChipParams small_chip() {
  ChipParams c = registry_hw_params().chip;
  c.tiles = 16;
  c.amp_efficiency = 0.5;
  c.amp_inner_dim_half = 64;
  c.op_overhead_cycles = 2000;
  c.vector_efficiency = 0.5;
  // The exchange, sync and workers a reduction's stages use (set here, not the fitted ones).
  return test::with_round_reduction_costs(c);
}

}  // namespace

TEST_CASE("GEMM tile block: a cube, clamped by short dimensions, whole GEMMs per tile",
          "[compute][amp]") {
  // 64^3 on 8 tiles: volume 32768 = 32^3 per tile, k split in 2.
  GemmTileBlock b = gemm_tile_block(64, 64, 64, 1, 8);
  CHECK(b.m == Approx(32));
  CHECK(b.k == Approx(32));
  CHECK(b.n == Approx(32));
  CHECK(b.count == 1);
  CHECK(b.k_splits == Approx(2));
  // m 1024, k 256, n 16 on 16 tiles: volume 262144, cube side 64 > n = 16, so n is whole and
  // m x k share 262144 / 16 = 16384 = 128^2: block 128 x 128 x 16, k split 256 / 128 = 2.
  b = gemm_tile_block(1024, 256, 16, 1, 16);
  CHECK(b.m == Approx(128));
  CHECK(b.k == Approx(128));
  CHECK(b.n == 16);
  CHECK(b.k_splits == Approx(2));
  // 32 groups on 16 tiles: two whole GEMMs per tile, nothing split.
  b = gemm_tile_block(16, 16, 16, 32, 16);
  CHECK(b.m == 16);
  CHECK(b.k == 16);
  CHECK(b.n == 16);
  CHECK(b.count == 2);
  CHECK(b.k_splits == 1);
}

TEST_CASE("AMP GEMM by hand: overhead + work / inner factor + exchange + partial sums",
          "[compute][amp]") {
  const ChipParams c = small_chip();
  // m = n = k = 64, one group, FP16 on 8 tiles: block 32 x 32 x 32, k split in 2.
  ComputeSpec s;
  s.m = 64;
  s.k = 64;
  s.n = 64;
  s.groups = 1;
  s.flops = 2.0 * 64 * 64 * 64;  // 524288
  s.tiles = 8;
  // Work: 65536 flops per tile at 128 x 0.5 x 32/(32+64) = 21.33 flop/cycle -> 3072 cycles.
  // Exchange: operands (32x32 + 32x32) x 2 B = 4096 B, FP16 partials 32x32 x 1/2 x 2 B = 1024 B
  // -> 5120 B / 4 B/cycle = 1280 cycles. Partial sums: 512 adds / 4 flop/cycle / 0.5 = 256.
  CHECK(amp_inner_dim_factor(c, 32, ComputeDType::Float16) == Approx(1.0 / 3.0));
  CHECK(gemm_operand_exchange_cycles(c, s, 8) == Approx(1280.0));
  CHECK(compute_cycles(c, s) == 2000 + 3072 + 1280 + 256);
  // FP32: peak 32 flop/cycle; k_half 64 x 2/4 = 32 elements -> factor 1/2, rate 8 -> 8192.
  // Exchange (2048 x 4 B + 512 x 4 B) / 4 = 2560; partial sums 512 / 2 / 0.5 = 512.
  s.dtype = ComputeDType::Float32;
  CHECK(amp_inner_dim_half_elements(c, ComputeDType::Float32) == Approx(32.0));
  CHECK(compute_cycles(c, s) == 2000 + 8192 + 2560 + 512);
  // FP16 in / FP32 accumulate: FP16 operands and k_half, FP32 partials and sums, at the
  // float16_32 rate (64): 65536 / (64 x 0.5 / 3) = 6144; exchange (4096 + 2048) / 4 = 1536;
  // partial sums 512 / 2 / 0.5 = 512.
  s.dtype = ComputeDType::Float16_32;
  CHECK(compute_cycles(c, s) == 2000 + 6144 + 1536 + 512);
}

TEST_CASE("AMP GEMM: a skinny shape, groups and an uneven split", "[compute][amp]") {
  const ChipParams c = small_chip();
  // m 1024, k 256, n 16, FP16 on 16 tiles: block 128 x 128 x 16 (see the block test).
  ComputeSpec s;
  s.m = 1024;
  s.k = 256;
  s.n = 16;
  s.flops = 2.0 * 1024 * 256 * 16;  // 8388608 -> 524288 per tile
  s.tiles = 16;
  // Work 524288 / (128 x 0.5 x 128/192) = 12288; exchange (128x128 + 128x16) x 2 B = 36864 B
  // + partials 128 x 16 x 1/2 x 2 B = 2048 B -> 9728 cycles; partial sums 1024 / 4 / 0.5 = 512.
  CHECK(compute_cycles(c, s) == 2000 + 12288 + 9728 + 512);
  // 32 GEMMs of 16^3 on 16 tiles: two whole GEMMs per tile, 16384 flops at
  // 128 x 0.5 x 16/80 = 12.8 flop/cycle -> 1280; operands 2 x 512 x 2 B / 4 = 512; no partials.
  ComputeSpec g;
  g.m = g.k = g.n = 16;
  g.groups = 32;
  g.flops = 2.0 * 16 * 16 * 16 * 32;
  g.tiles = 16;
  CHECK(compute_cycles(c, g) == 2000 + 1280 + 512);
  // Uneven split: 64^3 on 16 tiles whose busiest tile does 1/8 of the work costs what the
  // even split over 8 tiles costs (first hand-worked case: 2000 + 3072 + 1280 + 256).
  ComputeSpec u;
  u.m = u.k = u.n = 64;
  u.flops = 2.0 * 64 * 64 * 64;
  u.tiles = 16;
  CHECK(compute_cycles_with_share(c, u, 1.0 / 8.0) == 2000 + 3072 + 1280 + 256);
}

TEST_CASE("AMP: shape terms vanish when the GEMM shape is unknown", "[compute][amp]") {
  const ChipParams c = small_chip();
  ComputeSpec s;
  s.flops = 2.0 * 64 * 64 * 64;
  s.tiles = 8;
  // Without a shape: 65536 / (128 x 0.5) = 1024 cycles, no exchange term, no k factor.
  CHECK(gemm_operand_exchange_cycles(c, s, 8) == 0.0);
  CHECK(compute_cycles(c, s) == 2000 + 1024);
  s.m = 64;  // partly known is unknown
  s.n = 64;
  CHECK(compute_cycles(c, s) == 2000 + 1024);
}

TEST_CASE("AMP efficiency halves at a partial of amp_inner_dim_half 16-bit elements",
          "[compute][amp]") {
  ChipParams c = small_chip();
  c.amp_inner_dim_half = 256;
  CHECK(amp_inner_dim_factor(c, 256, ComputeDType::Float16) == 0.5);
  CHECK(amp_inner_dim_factor(c, 768, ComputeDType::Float16) == Approx(0.75));
  // 32-bit operands: the same fill covers 128 elements.
  CHECK(amp_inner_dim_factor(c, 128, ComputeDType::Float32) == 0.5);
  CHECK(amp_inner_dim_factor(c, 0, ComputeDType::Float16) == 1.0);
  c.amp_inner_dim_half = 0;
  CHECK(amp_inner_dim_factor(c, 16, ComputeDType::Float16) == 1.0);
  // Work term alone (exchange 0 by a huge exchange rate, no overhead, one tile so nothing is
  // split): a partial of k = 256 costs twice the flop-only time.
  c = small_chip();
  c.amp_inner_dim_half = 256;
  c.op_overhead_cycles = 0;
  c.exchange_bytes_per_cycle_per_tile = 1e30;
  ComputeSpec s;
  s.m = 16;
  s.k = 256;
  s.n = 16;
  s.flops = 2.0 * 16 * 256 * 16;  // 131072
  s.tiles = 1;
  CHECK(compute_cycles(c, s) == 2 * static_cast<std::uint64_t>(131072 / (128 * 0.5)));
}

TEST_CASE("vector op: bound by bytes or by flops, divided by vector efficiency",
          "[compute][vector]") {
  const ChipParams c = small_chip();
  ComputeSpec s;
  s.unit = ComputeUnit::Vector;
  s.tiles = 16;
  // Bytes-bound: 16 x 4800 B -> 4800 / 24 = 200 cycles; flops 16 x 400 -> 400 / 4 = 100.
  s.bytes = 16 * 4800;
  s.flops = 16 * 400;
  CHECK(compute_cycles(c, s) == 2000 + 200 / 0.5);
  // Flops-bound: 16 x 4000 flops -> 1000 cycles > 200.
  s.flops = 16 * 4000;
  CHECK(compute_cycles(c, s) == 2000 + 1000 / 0.5);
  // FP32 halves the vector rate: 4000 / 2 = 2000 cycles.
  s.dtype = ComputeDType::Float32;
  CHECK(compute_cycles(c, s) == 2000 + 2000 / 0.5);
  // A GEMM shape on a vector op is ignored (no k factor, no operand exchange).
  s.m = s.k = s.n = 8;
  CHECK(compute_cycles(c, s) == 2000 + 2000 / 0.5);
  // Without the per-op overhead (a step whose sync is modelled elsewhere).
  s.op_overhead = false;
  CHECK(compute_cycles(c, s) == 2000 / 0.5);
  // No work, no time (not even the overhead).
  ComputeSpec none;
  none.unit = ComputeUnit::Vector;
  CHECK(compute_cycles(c, none) == 0);
}

/// A flops-bound FP16 vector op of 16 x 4000 flops on 16 tiles of small_chip(): 2000 cycles of
/// element work, plus the 2000-cycle op overhead.
ComputeSpec vector_op_16_tiles() {
  ComputeSpec s;
  s.unit = ComputeUnit::Vector;
  s.tiles = 16;
  s.flops = 16 * 4000;  // flops-bound FP16: 1000 / 0.5 = 2000 cycles of element work
  return s;
}

TEST_CASE("vector op with reductions to a scalar (LARS norms) by hand", "[compute][vector]") {
  ChipParams c = small_chip();
  ComputeSpec s = vector_op_16_tiles();
  CHECK(compute_cycles(c, s) == 2000 + 2000);
  // One reduction: the partials' compute set 2000 (op overhead), then popops::reduce of the
  // 16 FP32 partials (16 <= 32: one stage, models/ipu/reduce_plan.hpp): sync 150, tile 0
  // receives 15 x 4 B = 15 cycles against a flight of ceil(1 x 15) + 1 = 16 over the 16
  // columns: 100 + 16 = 116, and its vertex, 6 workers x (3 + 6 + 2 x 4 + 5 + 0 + 3) = 150:
  // 2000 + 416 = 2416.
  s.scalar_reductions = 1;
  CHECK(scalar_reduction_cycles(c, s, 16) == Approx(2416));
  CHECK(compute_cycles(c, s) == 4000 + 2416);
  // Two (a weight's and its gradient's norm) cost twice that.
  s.scalar_reductions = 2;
  CHECK(compute_cycles(c, s) == 4000 + 2 * 2416);
  // On 8 tiles: 7 x 4 B = 7 cycles, under the flight (116), and a vertex of 8 partials,
  // 6 x (3 + 6 + 4 + 5 + 0 + 3) = 126: 2000 + 150 + 116 + 126 = 2392 each.
  s.tiles = 8;
  CHECK(scalar_reduction_cycles(c, s, 8) == Approx(2 * 2392));
  CHECK(compute_cycles(c, s) == 2 * 2000 + 2000 + 2 * 2392);
  // None requested: nothing added.
  s.scalar_reductions = 0;
  CHECK(scalar_reduction_cycles(c, s, 8) == 0);
}

TEST_CASE("an op run as a chain of separate ops pays the op overhead once per op",
          "[compute][vector]") {
  ChipParams c = small_chip();
  ComputeSpec s = vector_op_16_tiles();
  CHECK(compute_cycles(c, s) == 2000 + 2000);
  // Nine ops (a replicated LARS weight's update in TensorFlow): 9 x 2000 overhead, the same
  // element work (it is split among the ops, not repeated).
  s.chained_ops = 9;
  CHECK(compute_cycles(c, s) == 9 * 2000 + 2000);
  // With a norm: the reduction's own compute sets are unchanged (2416, by hand in the test
  // above).
  s.scalar_reductions = 1;
  CHECK(compute_cycles(c, s) == 9 * 2000 + 2000 + 2416);
  // 0 counts as one op.
  s.scalar_reductions = 0;
  s.chained_ops = 0;
  CHECK(compute_cycles(c, s) == 2000 + 2000);
}

TEST_CASE("compute tiles above the chip's tile count are an error", "[compute]") {
  const ChipParams c = small_chip();
  ComputeSpec s;
  s.flops = 1;
  s.tiles = 17;
  CHECK_THROWS(compute_cycles(c, s));
}
