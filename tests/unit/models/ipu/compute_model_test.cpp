// The per-op-class compute model against closed forms worked out by hand.
#include <catch2/catch.hpp>
#include <cmath>

#include "models/ipu/compute.hpp"
#include "tests/unit/models/ipu/amp_test_chip.hpp"
#include "tests/unit/models/ipu/reduction_chip.hpp"

using namespace ipusim;

namespace {

/// A chip with round numbers: 16 tiles, FP16 AMP 128 flop/cycle, vector FP16 4 flop/cycle,
/// 24 B/cycle memory, 4 B/cycle exchange.
ChipParams small_chip() {
  ChipParams c = registry_hw_params().chip;
  c.tiles = 16;
  c.amp_efficiency = 0.5;
  c.op_overhead_cycles = 2000;
  // The exchange, sync and workers a reduction's stages use (set here, not the fitted ones).
  return test::with_round_reduction_costs(c);
}

}  // namespace

TEST_CASE("AMP GEMM by hand: overhead + the best split's vertex, exchange and partial sums",
          "[compute][amp]") {
  // The split of gemm_tiling_test's first case (m 12, k 32, n 16, FP16 on 2 tiles: k split in
  // two, each tile a 12 x 16 x 16 block) at amp_efficiency 0.5: vertex 423 / 0.5 = 846 (64
  // cycles of weight loads a pass: 16 units x 32 B / 8 B a cycle, conv_vertices.hpp),
  // exchange (12x16 + 16x16) x 2 B + the other tile's FP16 partials 96 x 2 B = 1088 B / 4 =
  // 272, partial sums 96 x 0.75 (popops' ADD, 3 cycles per 4 halves) = 72.
  ChipParams c = small_chip();
  c.tiles = 2;
  ComputeSpec s = test::two_tile_k_split_gemm();
  CHECK(gemm_operand_exchange_cycles(c, s, 2) == Approx(272.0));
  CHECK(compute_cycles(c, s) == 2000 + 846 + 272 + 72);
  // 32 GEMMs of 16^3 on 16 tiles: two whole GEMMs per tile. One vertex of 16 rows (3, 3, 3,
  // 3, 2, 2 per worker): the busiest worker 6 x (37 - 7) = 180, the 2-row workers 6 x (41 -
  // 7) = 204, + 14 = 218 (line 450); 50 + 6 x 7 + 13 + 11 + (18 + 7 + 64 + 218) = 423.
  // AMP 2 x 423 / 0.5 = 1692; operands 2 x (256 + 256) x 2 B / 4 = 512; no partials.
  c = small_chip();
  const ComputeSpec g = test::sixteen_tile_batched_gemm();
  CHECK(compute_cycles(c, g) == 2000 + 1692 + 512);
  // Uneven split: the 12 x 32 x 16 GEMM on 16 tiles whose busiest tile does 1/2 of the work
  // costs what the even split over 2 tiles costs.
  s.tiles = 16;
  CHECK(compute_cycles_with_share(c, s, 0.5) == 2000 + 846 + 272 + 72);
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

TEST_CASE("vector op: bound by bytes or by popops' ADD cycles per counted flop",
          "[compute][vector]") {
  const ChipParams c = small_chip();
  ComputeSpec s;
  s.unit = ComputeUnit::Vector;
  s.tiles = 16;
  // Bytes-bound: 16 x 4800 B -> 4800 / 24 = 200 cycles; flops 16 x 200 -> 200 x 0.75 (the ADD
  // vertex's 3 cycles per 4 halves) = 150.
  s.bytes = 16 * 4800;
  s.flops = 16 * 200;
  CHECK(compute_cycles(c, s) == 2000 + 200);
  // Flops-bound: 16 x 4000 flops -> 4000 x 0.75 = 3000 cycles > 200.
  s.flops = 16 * 4000;
  CHECK(compute_cycles(c, s) == 2000 + 3000);
  // FP32: 3 cycles per 2 floats, 1.5 per flop: 6000 cycles; float16_32 as FP32.
  s.dtype = ComputeDType::Float32;
  CHECK(compute_cycles(c, s) == 2000 + 6000);
  s.dtype = ComputeDType::Float16_32;
  CHECK(compute_cycles(c, s) == 2000 + 6000);
  // A GEMM shape on a vector op is ignored (no k factor, no operand exchange).
  s.m = s.k = s.n = 8;
  CHECK(compute_cycles(c, s) == 2000 + 6000);
  // Without the per-op overhead (a step whose sync is modelled elsewhere).
  s.op_overhead = false;
  CHECK(compute_cycles(c, s) == 6000);
  // No work, no time (not even the overhead).
  ComputeSpec none;
  none.unit = ComputeUnit::Vector;
  CHECK(compute_cycles(c, none) == 0);
}

/// A flops-bound FP16 vector op of 16 x 4000 flops on 16 tiles of small_chip(): 4000 x 0.75 =
/// 3000 cycles of element work, plus the 2000-cycle op overhead.
ComputeSpec vector_op_16_tiles() {
  ComputeSpec s;
  s.unit = ComputeUnit::Vector;
  s.tiles = 16;
  s.flops = 16 * 4000;  // flops-bound FP16: 4000 x 0.75 = 3000 cycles of element work
  return s;
}

TEST_CASE("vector op with reductions to a scalar (LARS norms) by hand", "[compute][vector]") {
  ChipParams c = small_chip();
  ComputeSpec s = vector_op_16_tiles();
  CHECK(compute_cycles(c, s) == 2000 + 3000);
  // One reduction: the partials' compute set 2000 (op overhead), then popops::reduce of the
  // 16 FP32 partials (16 <= 32: one stage, models/ipu/reduce_plan.hpp): sync 150, tile 0
  // receives 15 x 4 B = 15 cycles against a flight of ceil(1 x 15) + 1 = 16 over the 16
  // columns: 100 + 16 = 116, and its vertex, 6 workers x (3 + 6 + 2 x 4 + 5 + 0 + 3) = 150:
  // 2000 + 416 = 2416.
  s.scalar_reductions = 1;
  CHECK(scalar_reduction_cycles(c, s, 16) == Approx(2416));
  CHECK(compute_cycles(c, s) == 5000 + 2416);
  // Two (a weight's and its gradient's norm) cost twice that.
  s.scalar_reductions = 2;
  CHECK(compute_cycles(c, s) == 5000 + 2 * 2416);
  // On 8 tiles: 7 x 4 B = 7 cycles, under the flight (116), and a vertex of 8 partials,
  // 6 x (3 + 6 + 4 + 5 + 0 + 3) = 126: 2000 + 150 + 116 + 126 = 2392 each.
  s.tiles = 8;
  CHECK(scalar_reduction_cycles(c, s, 8) == Approx(2 * 2392));
  CHECK(compute_cycles(c, s) == 2 * 3000 + 2000 + 2 * 2392);
  // None requested: nothing added.
  s.scalar_reductions = 0;
  CHECK(scalar_reduction_cycles(c, s, 8) == 0);
}

TEST_CASE("an op run as a chain of separate ops pays the op overhead once per op",
          "[compute][vector]") {
  ChipParams c = small_chip();
  ComputeSpec s = vector_op_16_tiles();
  CHECK(compute_cycles(c, s) == 2000 + 3000);
  // Nine ops (a replicated LARS weight's update in TensorFlow): 9 x 2000 overhead, the same
  // element work (it is split among the ops, not repeated).
  s.chained_ops = 9;
  CHECK(compute_cycles(c, s) == 9 * 2000 + 3000);
  // With a norm: the reduction's own compute sets are unchanged (2416, by hand in the test
  // above).
  s.scalar_reductions = 1;
  CHECK(compute_cycles(c, s) == 9 * 2000 + 3000 + 2416);
  // 0 counts as one op.
  s.scalar_reductions = 0;
  s.chained_ops = 0;
  CHECK(compute_cycles(c, s) == 2000 + 3000);
}

TEST_CASE("compute tiles above the chip's tile count are an error", "[compute]") {
  const ChipParams c = small_chip();
  ComputeSpec s;
  s.flops = 1;
  s.tiles = 17;
  CHECK_THROWS(compute_cycles(c, s));
}

TEST_CASE("vector op with poplibs' vertex cycles: the busiest tile's share, no efficiency",
          "[compute][vector]") {
  const ChipParams c = small_chip();
  ComputeSpec s;
  s.unit = ComputeUnit::Vector;
  s.tiles = 16;
  // A FP16 ReLU over 16 x 4000 elements: 1 flop and 4 B each; poplibs' 0.75 cycles per element
  // = 48000 tile cycles, 3000 on each of the 16 tiles (the generic formula gives the same:
  // max(4000 x 0.75, 16000 / 24) = 3000; a GELU's 1.25 per element below differs).
  s.flops = 16 * 4000;
  s.bytes = 16 * 16000;
  s.vector_tile_cycles = 0.75 * 16 * 4000;
  CHECK(compute_cycles(c, s) == 2000 + 3000);
  // Per-tile fidelity: the busiest tile does a quarter of the work: 12000 cycles.
  CHECK(compute_cycles_with_share(c, s, 0.25) == 2000 + 12000);
}
