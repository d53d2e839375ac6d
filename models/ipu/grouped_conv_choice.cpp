// A grouped convolution's vertex: the AMP block's, or poplin's cheapest other candidate.
#include "models/ipu/grouped_conv_choice.hpp"

#include <cmath>

namespace ipusim {

bool conv_share_of_group(const ComputeSpec& spec, ConvTileShare& out) {
  if (!spec.gemm_known() || spec.kernel_h < 1 || spec.kernel_w < 1) return false;
  const double kernel = spec.kernel_h * spec.kernel_w;
  const double in = spec.kernel_in_n ? spec.k : spec.k / kernel;
  const double outc = spec.kernel_in_n ? spec.n / kernel : spec.n;
  if (in < 1 || outc < 1 || in != std::floor(in) || outc != std::floor(outc)) return false;
  out.conv_groups = 1;
  out.field = static_cast<std::uint64_t>(spec.m);
  out.in_chans = static_cast<std::uint64_t>(in);
  out.out_chans = static_cast<std::uint64_t>(outc);
  out.kernel_h = static_cast<std::uint64_t>(spec.kernel_h);
  out.kernel_w = static_cast<std::uint64_t>(spec.kernel_w);
  return true;
}

ConvMethod choose_grouped_conv_vertex(const ChipParams& chip, const ComputeSpec& spec,
                                      double volume_tiles, GemmTileBlock& block) {
  ConvTileShare group;
  if (spec.groups <= 1 || !conv_share_of_group(spec, group)) return ConvMethod::Amp;
  const VertexChoice v =
      cheapest_non_amp_vertex(chip, spec.dtype, spec.groups, spec.m, group, volume_tiles);
  if (v.tile_cycles == 0) return ConvMethod::Amp;
  const double cycles = static_cast<double>(v.tile_cycles) / chip.amp_efficiency;
  if (cycles >= block.amp_cycles) return ConvMethod::Amp;
  block.amp_cycles = cycles;
  return v.method;
}

}  // namespace ipusim
