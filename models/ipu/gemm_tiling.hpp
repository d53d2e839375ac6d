#pragma once
// How a matmul/convolution, as a GEMM, is split over the tiles of one IPU: the block of the
// iteration space the busiest tile computes (plain C++, no parameters).
//
// A poplibs-style planner splits out[m x n] = in[m x k] x w[k x n] (times `groups` independent
// GEMMs) into one block per tile and picks the split that moves the fewest operand bytes: for a
// block of volume V = m k n / T that is a cube of side V^(1/3), unless a dimension is shorter
// than the side, in which case the block takes the whole dimension and the others share the
// rest (a 1x1 convolution with 64 output channels keeps all 64 on each tile). Independent GEMMs
// are split first: with more groups than tiles a tile computes whole GEMMs.
namespace ipusim {

/// The busiest tile's block of a GEMM split over tiles.
struct GemmTileBlock {
  double m = 0;  ///< rows of the input block (elements)
  double k = 0;  ///< inner (reduction) dimension of the block: one partial sum's length
  double n = 0;  ///< columns of the weight block (elements)
  /// Whole (m x k x n) blocks the tile computes: groups / tiles when there are more independent
  /// GEMMs than tiles, else 1.
  double count = 1;
  /// Tiles that each hold a partial of the same outputs (k / block k, >= 1): their partials
  /// are exchanged and summed.
  double k_splits = 1;
};

/// The block of the GEMM (m, k, n, groups) on `tiles` tiles (`tiles` may be fractional: the
/// inverse of a busiest tile's share of the work). All arguments > 0.
GemmTileBlock gemm_tile_block(double m, double k, double n, double groups, double tiles);

}  // namespace ipusim
