#pragma once
// Cycles of the vertices poplin's planner weighs besides the AMP for a grouped (depthwise,
// ResNeXt-style) convolution, and the planner's choice among them (plain C++), from poplibs'
// own estimators: graphcore/poplibs tag sdk/poplar/2.4.0 (dbc4d442),
//   candidates  lib/poplin/ConvVertexType.cpp: HMAC lines 77-176, VMAC 178-231, SLIC 383-502,
//               the method list 631-657;
//   per tile    lib/poplin/ConvModel.cpp addPartialCalcCycleEstimate: SLIC lines 315-385, HMAC
//               386-440, VMAC 441-491 (the tile's share -> the estimators' arguments);
//   estimates   lib/poplin/PerformanceEstimation.hpp ("PE"): HMAC 23-25, 49-51, 53-95, 109-202,
//               1405-1456; VMAC 204-353, 1458-1490; SLIC 734-958.
// The AMP (ConvPartial1x1) is models/ipu/conv_vertices.hpp's. No parameter is fitted here:
// every constant is the estimator's (each function names its lines). See
// docs/grouped_convolutions.md for what is and is not modelled.
#include <cstdint>
#include <string>

#include "models/params/hw_params.hpp"

namespace ipusim {

/// poplin's Plan::Method of a convolution vertex.
enum class ConvMethod { Amp, Slic, Hmac, Vmac };

/// "amp", "slic", "hmac", "vmac".
std::string to_string(ConvMethod m);

/// One tile's share of a grouped convolution, in poplin's terms: `conv_groups` groups, each
/// with `in_chans` input and `out_chans` output channels, a kernel_h x kernel_w kernel and
/// `field` output elements (batch x output pixels), taken as one row (see the .cpp).
struct ConvTileShare {
  std::uint64_t conv_groups = 1;
  std::uint64_t field = 1;
  std::uint64_t in_chans = 1;
  std::uint64_t out_chans = 1;
  std::uint64_t kernel_h = 1;
  std::uint64_t kernel_w = 1;
};

/// SLIC (ConvPartial1xNSLIC) tile cycles for `s` with `groups_per_group` conv groups and `chans`
/// channels per group on `chains` conv chains (ConvModel.cpp lines 315-385; PE 734-958; window
/// width 4, output stride 1); 0 when the vertex cannot take the share (more than one input or
/// output channel group on the tile, line 335).
std::uint64_t slic_tile_cycles(const ChipParams& chip, ComputeDType dtype, const ConvTileShare& s,
                               std::uint32_t groups_per_group, std::uint32_t chans,
                               std::uint32_t chains);

/// VMAC (ConvPartialVerticalMac) tile cycles for `s` with `groups_per_group` conv groups per
/// group, one input and one output channel per group (ConvModel.cpp lines 441-491; PE 204-353,
/// 1458-1490); 0 when the share has more than one output channel a group (line 451).
std::uint64_t vmac_tile_cycles(const ChipParams& chip, ComputeDType dtype, const ConvTileShare& s,
                               std::uint32_t groups_per_group);

/// HMAC (ConvPartialHorizontalMac) tile cycles for `s` with `in_chans_per_group` input
/// channels a group (ConvModel.cpp lines 386-440; PE 109-202, 1405-1456).
std::uint64_t hmac_tile_cycles(const ChipParams& chip, ComputeDType dtype, const ConvTileShare& s,
                               std::uint32_t in_chans_per_group);

/// The cheapest non-AMP candidate of one method.
struct VertexChoice {
  ConvMethod method = ConvMethod::Amp;
  std::uint32_t groups_per_group = 1;  ///< conv groups a vertex pass takes
  std::uint32_t chans_per_group = 0;   ///< input channels per group of the candidate
  std::uint64_t tile_cycles = 0;       ///< 0 = no candidate
};

/// The candidates ConvVertexType.cpp generates for `dtype` on `chip` (SLIC and VMAC for FP16
/// inputs only, the 8- and 16-group SLIC and VMAC groupings for FP16 partials only), each
/// costed on the tile share its grouping gives: `groups` groups of `field` outputs over
/// `tiles` tiles, a candidate of G groups per group taking at least G groups a tile (the
/// field split the more), and of the candidates of least cycles the first. Both the kernel
/// as given and the kernel folded into the input channels (poplin's expandDims of every
/// kernel dimension) are tried. Returns tile_cycles 0 when the SDK has no table here (only
/// 2.4.0's estimates are modelled) or no candidate fits.
VertexChoice cheapest_non_amp_vertex(const ChipParams& chip, ComputeDType dtype, double groups,
                                     double field, const ConvTileShare& per_group, double tiles);

}  // namespace ipusim
