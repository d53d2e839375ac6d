// The op overhead paid per compute set (/chip/compute/op_overhead_per compute_set) against
// counts read from poplibs' source and worked by hand (docs/compute_sets.md).
#include "models/ipu/compute_sets.hpp"

#include <catch2/catch.hpp>

#include "models/ipu/compute.hpp"
#include "models/ipu/reduce_plan.hpp"
#include "tests/unit/models/ipu/amp_test_chip.hpp"
#include "tests/unit/models/ipu/reduction_chip.hpp"

using namespace ipusim;

namespace {

/// compute_model_test's round chip: amp_efficiency 0.5, op overhead 2000 cycles.
ChipParams round_chip(OpOverheadPer per) {
  ChipParams c = registry_hw_params().chip;
  c.tiles = 16;
  c.amp_efficiency = 0.5;
  c.op_overhead_cycles = 2000;
  c.op_overhead_per = per;
  return test::with_round_reduction_costs(c);
}

}  // namespace

TEST_CASE("poplin's reduction stages by partials depth (ConvReducePlan.cpp getNumReduceStages)",
          "[compute][compute_sets]") {
  // No split: no reduction; 2..15 partials one stage, 16..124 two, from 125 three.
  CHECK(poplin_reduce_stages(1) == 0);
  CHECK(poplin_reduce_stages(2) == 1);
  CHECK(poplin_reduce_stages(15) == 1);
  CHECK(poplin_reduce_stages(16) == 2);
  CHECK(poplin_reduce_stages(124) == 2);
  CHECK(poplin_reduce_stages(125) == 3);
  // Convolve, then the reduction stages, or a Cast when FP32 partials meet an FP16 result.
  CHECK(gemm_compute_sets(1, false) == 1);
  CHECK(gemm_compute_sets(1, true) == 2);
  CHECK(gemm_compute_sets(2, true) == 2);
  CHECK(gemm_compute_sets(16, false) == 3);
}

TEST_CASE("a norm's and a softmax's compute sets, counted by hand from poplin / popnn",
          "[compute][compute_sets]") {
  // Forward: reduceMany's 2 stages + iStdDev 1 + sub, mulInPlace + mul, addInPlace = 7.
  CHECK(kNormForwardComputeSets == 2 + 1 + 2 + 2);
  // Backward: 2 x (mul + 2 reduce stages) + normGradients' mul + 5 element-wise = 12.
  CHECK(kNormBackwardComputeSets == 2 * 3 + 1 + 5);
  // Softmax: max, sub, exp, sum, inv, cast, mul = 7; gradient: mul, sum, mul, sub = 4.
  CHECK(kSoftmaxForwardComputeSets == 7);
  CHECK(kSoftmaxBackwardComputeSets == 4);
}

TEST_CASE("a matmul pays the overhead per compute set: with and without a k split",
          "[compute][compute_sets]") {
  // compute_model_test's hand GEMM: m 12, k 32, n 16 FP16 on 2 tiles, k split in two; vertex
  // 846 + exchange 272 + partial sums 72 = 1190. Per op: 2000 + 1190. Per compute set:
  // Convolve and one reduction stage (2 partials), 2 x 2000 + 1190.
  for (const OpOverheadPer per : {OpOverheadPer::Op, OpOverheadPer::ComputeSet}) {
    ChipParams c = round_chip(per);
    c.tiles = 2;
    const ComputeSpec s = test::two_tile_k_split_gemm();
    CHECK(compute_cycles(c, s) == (per == OpOverheadPer::Op ? 2000u : 4000u) + 1190);
  }
  // 32 GEMMs of 16^3 on 16 tiles, two whole GEMMs a tile: no k split, FP16 partials, so one
  // Convolve compute set either way: 2000 + 1692 + 512.
  for (const OpOverheadPer per : {OpOverheadPer::Op, OpOverheadPer::ComputeSet}) {
    const ChipParams c = round_chip(per);
    const ComputeSpec g = test::sixteen_tile_batched_gemm();
    CHECK(compute_cycles(c, g) == 2000 + 1692 + 512);
  }
}

TEST_CASE("a layer norm and a reduction to a scalar per compute set", "[compute][compute_sets]") {
  // A flops-bound FP16 vector op of 16 x 4000 flops on 16 tiles: 3000 cycles of element work.
  ComputeSpec s;
  s.unit = ComputeUnit::Vector;
  s.tiles = 16;
  s.flops = 16 * 4000;
  s.extra_compute_sets = kNormForwardComputeSets - 1;
  // Per op the extra compute sets are free: 2000 + 3000.
  CHECK(compute_cycles(round_chip(OpOverheadPer::Op), s) == 2000 + 3000);
  // Per compute set, a layer norm's 7: 7 x 2000 + 3000.
  const ChipParams c = round_chip(OpOverheadPer::ComputeSet);
  CHECK(compute_cycles(c, s) == 7 * 2000 + 3000);
  // A reduction to a scalar over 16 tiles (compute_model_test: 2000 + 416 per op) is the
  // partials' compute set and one popops stage (16 <= 32 partials): 2 x 2000 + 416.
  s.extra_compute_sets = 0;
  s.scalar_reductions = 1;
  CHECK(scalar_reduce_stages(c, 16) == 1);
  CHECK(scalar_reduction_cycles(c, s, 16) == Approx(2 * 2000 + 416));
}

TEST_CASE("the Citadel reduce on one GC2 is two popops stages", "[compute][compute_sets]") {
  // 1216 FP32 partials (docs/citadel_latencies.md, SDK 1.0.49): 1216 > 32 -> an intermediate
  // stage of 19 groups of 64, then 19 <= 32 -> the output stage. Per compute set the reduce
  // pays 2 x 1278 cycles, one more overhead than per op (the step's 2,380 cycles = 1,487.5 ns
  // at 1.6 GHz become 3,658 = 2,286.25 ns).
  ChipParams c = registry_hw_params().chip;
  c.tiles = 1216;
  CHECK(scalar_reduce_stages(c, 1216) == 2);
  CHECK(scalar_reduce_stages(c, 1) == 0);
}
