#pragma once
// How a matmul/convolution, as a GEMM, is split over the tiles of one IPU, and what the busiest
// tile's block costs (plain C++).
//
// poplin's planner splits out[m x n] = in[m x k] x w[k x n] (times `groups` independent GEMMs)
// over the tiles and picks, among the splits it can build, the one its cost model says takes
// the fewest cycles. Here the split is (tm, tk, tn) tile counts of m, k and n with
// tm x tk x tn <= tiles per GEMM, and its cost the busiest tile's:
//   AMP     the ConvPartial1x1 vertex over its block bm x bk x bn (models/ipu/conv_vertices.hpp)
//           / amp_efficiency; a windowed forward planned unexpanded: the ConvPartialnx1 vertex
//           (models/ipu/conv_vertices_nx1.hpp) / amp_efficiency, and its kernel-height padding
//           in the exchange;
//   + exchange  the operand slices it receives, bm bk + bk bn elements (a windowed
//           convolution's first operand: the input field its pixels read, models/ipu/
//           conv_window.hpp), and, when k is split over tk tiles, the partials of the outputs it
//           sums, bm bn (1 - 1/tk), over exchange_bytes_per_cycle_per_tile;
//   + partial sums  those bm bn (1 - 1/tk) additions at popops' ADD vertex's cycles per element
//           (models/ipu/popops_vertices.hpp: 0.75 per FP16, 1.5 per FP32 partial).
// Compute, exchange and reduction are separate BSP phases: their cycles add. Independent GEMMs
// are split first: with at least as many groups as tiles a tile computes whole GEMMs.
//
// With `/chip/compute/gemm_memory_bound` available_memory_proportion the search keeps, as
// poplin's planner does (poplibs tag 1.0.49 ConvPlan.cpp l. 4064-4080), the fastest split whose
// temporary bytes per tile (gemm_temp_bytes()) stay under availableMemoryProportion x the tile's
// SRAM, splitting a tile's out channels into serial slices that each cost the whole estimate
// again, exchange included (l. 2003-2043); if none fits, the split of fewest temporary bytes.
// Whole GEMMs per tile (groups >= tiles) are not bounded (docs/gemm_memory_bound.md).
//
// A windowed convolution's forward GEMM is planned both ways poplin's planner tries it
// (ConvPlan.cpp lines 549-591 and 1035-1100: every subset of the field dimensions to expand,
// each planned, the cheapest kept): unexpanded (the AMP's input channels padded to its grouping,
// the tile receiving the input field) or with the kernel expanded into the channels (the im2col
// GEMM as given, the tile receiving im2col rows); the cheaper block is kept, the unexpanded
// one costed with the nx1 vertex, the expanded one with the 1x1 vertex, as the planner costs
// them. Only the two extremes are tried (both field dimensions or none), and the input
// rearrangements (ConvModel.cpp l. 1292-1420) are not costed (the model has no term for them).
#include "models/ipu/conv_window.hpp"
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
  /// Elements of the first operand the block receives (bm x bk, or a windowed convolution's
  /// input field x channels), per GEMM.
  double input_elements = 0;
  /// Elements of the AMP's kernel-height padding the block writes before an nx1 vertex
  /// (models/ipu/conv_vertices_nx1.hpp; 0 otherwise), in its exchange cycles.
  double padding_elements = 0;
  /// Out-channel serial slices the tile runs its block in (n is one slice's; the cycle fields
  /// are all slices'): 1 unless the memory bound asks for more.
  double serial_splits = 1;
  /// A windowed convolution planned with its kernel expanded into the channels (im2col rows).
  bool expanded = false;
  /// The block's cycles: amp + exchange + reduction.
  double cycles() const { return amp_cycles + exchange_cycles + reduction_cycles; }
};

/// The cycle-minimising split of the GEMM (m, k, n, groups) in `dtype` on `tiles` tiles
/// (`tiles` may be fractional: the inverse of a busiest tile's share of the work; a fraction
/// of a tile per GEMM is not split) and its busiest tile's block. All dimensions > 0.
/// Deterministic (the first split of least cycles in a fixed order) and memoised per shape and
/// chip values, per thread. `window`: the convolution behind the GEMM, if windowed (its first
/// operand is then the input field; the forward is planned unexpanded and expanded).
GemmTileBlock gemm_tile_block(const ChipParams& chip, ComputeDType dtype, double m, double k,
                              double n, double groups, double tiles, const ConvWindow& window = {});

/// A block's temporary bytes on its tile as poplin's planner counts them (poplibs tag 1.0.49
/// ConvPlan.cpp l. 1138-1156): its first operand and weights in the input type plus its partials
/// in the partial type, one serial slice's (the block's m, k, n, count; cost fields filled).
double gemm_temp_bytes(ComputeDType dtype, const GemmTileBlock& block);

/// The cost of one given block (its m, k, n, count and k_splits set): fills its cycle fields.
/// `window` / `channel_dim`: a windowed convolution's geometry and the length of its GEMM's
/// channel dimension (see conv_input_operand_elements()); none = the im2col operand.
void cost_gemm_block(const ChipParams& chip, ComputeDType dtype, GemmTileBlock& block,
                     const ConvWindow& window = {}, double channel_dim = 0);

}  // namespace ipusim
