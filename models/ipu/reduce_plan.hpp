#pragma once
// The plan popops::reduce builds for a sum over tiles (plain C++): a tensor of `rows` x `cols`
// elements, one row per tile, summed over its rows (graphcore/poplibs lib/popops/reduction/,
// tag 1.0.49, the SDK of the Citadel report, and sdk-release-3.4; read, not copied):
//
//   - every column's partials lie on several tiles, so the reduction runs in stages
//     (Reduction.cpp reduceFirstDim2D); before each, calculateNextStep (ReductionPlan.cpp)
//     goes straight to the output stage when the widest column has fewer than 2 sqrt(tiles per
//     IPU) partials spread over more than 3/4 of an IPU's tiles, adds an intermediate stage
//     when more than 32 partials per output remain (64 from SDK 1.4 on,
//     reductionFactorThresholdToAddMoreStages), and otherwise ends;
//   - an intermediate stage (ReductionStages.cpp intermediateToIntermediate, calculateSplit)
//     cuts the columns into pieces of at least 2 x vector width columns (4 floats, 8 halves)
//     and each piece's rows into N groups: N = rows x cols / (all partials / target tiles),
//     lowered so that a group holds at least 64 partials and 2 rows; each group goes to its
//     own tile, round robin from tile 0, whose vertex sums it (FP32 partials from there on);
//   - the output stage (intermediateToOutput) maps the output linearly (at least 4 x vector
//     width elements per tile, from the output's first tile) and each output tile sums every
//     partial of its columns.
// A stage is one compute set: one BSP superstep of sync, exchange (the partials that are not
// on their reducing tile) and the reducing tiles' vertices (models/ipu/popops_vertices.hpp).
#include <cstdint>
#include <vector>

#include "models/params/hw_params.hpp"

namespace ipusim {

/// The partials one tile of a stage sums: columns [col_begin, col_end) of the rows held by the
/// `sources` tiles (global tile indices: IPU i's tile t is i x tiles per IPU + t).
struct ReducePiece {
  std::uint64_t tile = 0;
  std::uint64_t col_begin = 0, col_end = 0;
  std::vector<std::uint64_t> sources;
  std::uint64_t cols() const { return col_end - col_begin; }
};

/// One stage of the plan: the pieces of its reducing tiles and the bytes of one partial element
/// they receive (the input's dtype in the first stage, FP32 after it).
struct ReduceStage {
  std::vector<ReducePiece> pieces;
  std::uint32_t elem_bytes = 4;
};

/// Threshold of partials per output above which popops adds an intermediate stage (1.0.49).
inline constexpr std::uint64_t kReduceStageThreshold = 32;

/// The stages of popops::reduce summing the rows held by `source_tiles` (each a row of `cols`
/// elements of `elem_bytes` bytes, 2 = FP16, 4 = FP32) on a target of `target_tiles` tiles,
/// `tiles_per_ipu` per IPU, into an output mapped from tile `out_tile` on.
std::vector<ReduceStage> plan_popops_reduce(const std::vector<std::uint64_t>& source_tiles,
                                            std::uint64_t cols, std::uint32_t elem_bytes,
                                            std::uint64_t target_tiles, std::uint64_t tiles_per_ipu,
                                            std::uint64_t out_tile);

/// Clock cycles of the busiest reducing tile's vertices in `stage` (the stage's compute phase).
std::uint64_t reduce_stage_compute_cycles(const ChipParams& chip, const ReduceStage& stage);

/// Cycles of a reduction of one FP32 partial on each of `tiles` tiles of one IPU into one value
/// (the second half of a reduction to a scalar), stage by stage: the internal sync, the on-chip
/// exchange phase of the busiest tile's partials (models/ipu/exchange.hpp, destinations not
/// listed) and the stage's vertices. 0 for fewer than two tiles.
double scalar_reduce_cycles(const ChipParams& chip, std::uint64_t tiles);

/// Stages (compute sets) of that reduction: the plan's stage count, 0 for fewer than two tiles.
std::uint64_t scalar_reduce_stages(const ChipParams& chip, std::uint64_t tiles);

}  // namespace ipusim
