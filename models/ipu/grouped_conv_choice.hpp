#pragma once
// The vertex of a grouped convolution's tile block: the AMP's (models/ipu/gemm_tiling.hpp) or,
// when cheaper by poplibs' estimates, SLIC / VMAC / HMAC (models/ipu/conv_vertices_grouped.hpp),
// as poplin's planner picks by its own estimates (plain C++).
//
// Of the planner's search (lib/poplin/ConvPlan.cpp, ConvModel.cpp at sdk/poplar/2.4.0) this
// keeps: the candidate vertex types of ConvVertexType.cpp and their partial-calculation
// estimates on the tile's share, the kernel as given or folded into the input channels. Not
// modelled: the tile split is the AMP block's (gemm_tiling.hpp) re-packed to the candidate's
// conv-group grouping, not searched per candidate; the exchange and partial-sum terms stay
// the AMP block's; the transforms' costs (expandDims, the padding of channels and groups to
// the grouping, the rearrangements between passes), serial splits, the output row structure
// (the field is one row) and the weight-update pass (its GEMM carries no kernel: AMP).
#include "models/ipu/compute.hpp"
#include "models/ipu/conv_vertices_grouped.hpp"
#include "models/ipu/gemm_tiling.hpp"

namespace ipusim {

/// One group's convolution of `spec` in poplin's terms (kernel, channels, field), from a
/// grouped convolution's GEMM: in = k / kernel, out = n (forward), or in = k, out = n / kernel
/// (data gradient, `kernel_in_n`). False when the spec is no convolution with a kernel that
/// divides its GEMM (then the AMP's cost stands).
bool conv_share_of_group(const ComputeSpec& spec, ConvTileShare& out);

/// For a grouped convolution (groups > 1 and a kernel), the cheapest non-AMP vertex on
/// `volume_tiles` tiles; its cycles / amp_efficiency (the same vertex-to-measured factor as the
/// AMP's, so the choice is the estimates') replace the block's AMP cycles when fewer. Returns
/// the method the block is costed by.
ConvMethod choose_grouped_conv_vertex(const ChipParams& chip, const ComputeSpec& spec,
                                      double volume_tiles, GemmTileBlock& block);

}  // namespace ipusim
