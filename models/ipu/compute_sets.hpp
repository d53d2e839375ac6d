#pragma once
// How many compute sets poplibs builds for each op class the model costs (plain C++), the one
// home of each count. Under `/chip/compute/op_overhead_per compute_set` an op pays
// /chip/compute/op_overhead_cycles once per compute set instead of once per op. Counts read
// from graphcore/poplibs at the SDKs the set-ups ran (tags 1.0.49, sdk/poplar/2.1.0, 2.3.0,
// 2.4.0, 2.5.1; read, not copied); the table with line numbers is docs/compute_sets.md.
#include <cstdint>

namespace ipusim {

/// poplin's reduction stages for partials `depth` deep (the input channels split over `depth`
/// tiles): lib/poplin/ConvReducePlan.cpp getNumReduceStages (2.1.0 l. 10-27), 3 from 125
/// partials, 2 from 16, else 1; 0 when nothing is split. Each stage is its own compute set
/// (ConvReduce.cpp multiStageGroupedReduce, 2.1.0 l. 191-221: "Reduce<i>", plan.size() + 1).
constexpr std::uint32_t poplin_reduce_stages(double depth) {
  if (depth < 1.5) return 0;
  if (depth >= 125) return 3;
  if (depth >= 16) return 2;
  return 1;
}

/// Compute sets of one poplin convolution / matmul (forward or a gradient, each a convolution
/// in poplin): the "Convolve" compute set (Convolution.cpp 2.1.0 l. 1951), then, when the
/// input channels are split over `k_splits` tiles, the reduction stages; when they are not and
/// FP32 partials meet an FP16 result (`cast_partials`), one "Cast" compute set (l. 2355-2361).
constexpr std::uint32_t gemm_compute_sets(double k_splits, bool cast_partials) {
  const std::uint32_t reduce = poplin_reduce_stages(k_splits);
  return 1 + (reduce > 0 ? reduce : (cast_partials ? 1 : 0));
}

/// ASSUMPTION: compute sets of a popops::reduce of an activation-sized tensor spread over the
/// tiles to per-channel values: the tile-local first stage and one output stage (Reduction.cpp
/// reduceFirstDim2D; the model plans the stages only for reductions to a scalar).
inline constexpr std::uint32_t kSpreadReduceComputeSets = 2;
/// A popops::reduce along rows that each lie on one tile (a softmax's rows): one stage, no
/// exchange (Reduction.cpp's tile-local path).
inline constexpr std::uint32_t kRowReduceComputeSets = 1;

/// Batch / layer / group norm forward (popnn BatchNorm.cpp, GroupNorm.cpp -> poplin Norms.cpp
/// 2.1.0): statistics by reduceMany (mean and power share compute sets, l. 205-217), the
/// inverse standard deviation (l. 75, one), whitening sub + mulInPlace (l. 344-346, two), gamma
/// mul + beta addInPlace (l. 366-368, two).
inline constexpr std::uint32_t kNormForwardComputeSets = kSpreadReduceComputeSets + 5;
/// Norm backward: normParamGradients (mul + reduce, l. 389-407) for gamma and beta, then
/// normGradients' mul (l. 439) and normStatisticsGradients: normParamGradients again, then
/// mul, mulInPlace, addInPlace, scaledAddTo, mulInPlace (l. 514-527).
inline constexpr std::uint32_t kNormBackwardComputeSets = 2 * (1 + kSpreadReduceComputeSets) + 6;

/// Stable softmax forward (popnn NonLinearity.cpp softmaxImpl 2.1.0 l. 68-146): reduce max,
/// sub, exp, reduce add, inv, cast (an FP16 softmax), mulInPlace.
inline constexpr std::uint32_t kSoftmaxForwardComputeSets = 2 * kRowReduceComputeSets + 5;
/// Softmax gradient (softmaxInputGradientImpl l. 149-183): mul, reduce add, mul, subInPlace.
inline constexpr std::uint32_t kSoftmaxBackwardComputeSets = kRowReduceComputeSets + 3;

/// One popops element-wise op, map expression, non-linearity or its gradient, embedding
/// multiSlice / multiUpdateAdd, or optimizer update: one compute set (popops ElementWise.cpp,
/// popnn NonLinearity.cpp l. 355 and 553, popops DynamicSlice.cpp). A step the model builds of
/// several such ops already pays one overhead per op (ComputeSpec::chained_ops).
inline constexpr std::uint32_t kElementwiseComputeSets = 1;

}  // namespace ipusim
