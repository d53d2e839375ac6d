#pragma once
// How a matmul/convolution, as a GEMM, is split over the tiles of one IPU, and what the busiest
// tile's block costs (plain C++).
//
// poplin's planner splits out[m x n] = in[m x k] x w[k x n] (times `groups` independent GEMMs)
// over the tiles and picks, among the splits it can build, the one its cost model says takes
// the fewest cycles. Here the split is (tm, tk, tn) tile counts of m, k and n with
// tm x tk x tn <= tiles per GEMM, and its cost the busiest tile's:
//   AMP     the ConvPartial1x1 vertex over its block bm x bk x bn (models/ipu/conv_vertices.hpp)
//           / amp_efficiency;
//   + exchange  the operand slices it receives, bm bk + bk bn elements, and, when k is split
//           over tk tiles, the partials of the outputs it sums, bm bn (1 - 1/tk), over
//           exchange_bytes_per_cycle_per_tile;
//   + partial sums  those bm bn (1 - 1/tk) additions at popops' ADD vertex's cycles per element
//           (models/ipu/popops_vertices.hpp: 0.75 per FP16, 1.5 per FP32 partial).
// Compute, exchange and reduction are separate BSP phases: their cycles add. Independent GEMMs
// are split first: with at least as many groups as tiles a tile computes whole GEMMs.
#include "models/params/hw_params.hpp"

namespace ipusim {

/// The busiest tile's block of a GEMM split over tiles, and its cycles.
struct GemmTileBlock {
  double m = 0;  ///< rows of the input block (elements)
  double k = 0;  ///< inner (reduction) dimension of the block: one partial sum's length
  double n = 0;  ///< columns of the weight block (elements)
  /// Whole (m x k x n) blocks the tile computes: groups / tiles when there are at least as
  /// many independent GEMMs as tiles, else 1.
  double count = 1;
  /// Tiles that each hold a partial of the same outputs (tk, >= 1): their partials are
  /// exchanged and summed.
  double k_splits = 1;
  double amp_cycles = 0;        ///< the vertex's tile cycles / amp_efficiency
  double exchange_cycles = 0;   ///< operand and partial exchange of the block
  double reduction_cycles = 0;  ///< partial-sum additions of the block
  /// The block's cycles: amp + exchange + reduction.
  double cycles() const { return amp_cycles + exchange_cycles + reduction_cycles; }
};

/// The cycle-minimising split of the GEMM (m, k, n, groups) in `dtype` on `tiles` tiles
/// (`tiles` may be fractional: the inverse of a busiest tile's share of the work; a fraction
/// of a tile per GEMM is not split) and its busiest tile's block. All dimensions > 0.
/// Deterministic (the first split of least cycles in a fixed order) and memoised per shape and
/// chip values, per thread.
GemmTileBlock gemm_tile_block(const ChipParams& chip, ComputeDType dtype, double m, double k,
                              double n, double groups, double tiles);

/// The cost of one given block (its m, k, n, count and k_splits set): fills its cycle fields.
void cost_gemm_block(const ChipParams& chip, ComputeDType dtype, GemmTileBlock& block);

}  // namespace ipusim
