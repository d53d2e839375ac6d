#pragma once
// A windowed convolution's geometry as its GEMM sees it, and what one tile's block of that GEMM
// reads of the input (plain C++).
//
// poplin's planner (graphcore/poplibs tag sdk/poplar/2.4.0, lib/poplin/ConvModel.cpp,
// addExchangeCycleEstimates lines 899-1080) charges a tile the input elements
// `totalInputFieldSize x batchSize x numInChans x numConvGroups` (line 978), the input field per
// dimension being getMaxInputRangeSize's (lines 14-45): `(outputRange - 1) x stride + kernel`,
// clipped to the whole input range. The im2col view of the GEMM would send every input pixel
// kernel^2 times; the planner sends it once per tile that reads it, unless it expands the
// kernel into the input channels (expandDims, lib/poplin/ConvPlan.cpp lines 549-591: then the
// tile receives im2col rows, `transformedDims`, ConvModel.cpp line 957).
//
// The AMP's input-channel grouping (lib/poplin/ConvVertexType.cpp lines 44-74 and 233-348):
// an AMP vertex takes `inChansPerGroup` input channels per pass, a divisor of the conv unit's
// weights (16 halves, 8 floats) whose bits are a multiple of the 64-bit data path (4, 8, 16
// halves; 2, 4, 8 floats); the channels are zero-padded to a multiple of it. With fewer than
// the unit's weights, the vertex fills the unit with weights / inChansPerGroup kernel rows
// (ConvModel.cpp addTileLevelTransformEstimates lines 829-858: the kernel height padded to a
// multiple of that), so a pass covers that many kernel rows of one kernel column.
#include <cstdint>

namespace ipusim {

/// A windowed convolution (square kernel, "same" padding) behind a GEMM: out pixels along one
/// GEMM dimension, input channels x kernel^2 along another. kernel <= 1 = no window (plain GEMMs,
/// 1x1 convolutions, input gradients).
struct ConvWindow {
  double kernel = 0;            ///< kernel side (elements)
  double stride = 1;            ///< stride in both dimensions
  double in_h = 0, in_w = 0;    ///< input field of one image (pixels)
  double out_h = 0, out_w = 0;  ///< output field of one image (pixels)
  double in_channels = 0;       ///< input channels (the Cin of k = Cin x kernel^2)
  /// False: the forward GEMM (pixels along m, Cin x kernel^2 along k). True: the weight
  /// gradient, its transpose (Cin x kernel^2 along m, pixels along k).
  bool pixels_along_k = false;
  /// True when the GEMM has a window its input field shrinks.
  bool windowed() const {
    return kernel > 1 && in_channels > 0 && in_h > 0 && in_w > 0 && out_h > 0 && out_w > 0;
  }
};

/// Input elements of one dimension that `out` consecutive outputs read:
/// `(out - 1) x stride + kernel`, at most `in` (getMaxInputRangeSize, ConvModel.cpp l. 14-45).
double input_range(double out, double stride, double kernel, double in);

/// Input pixels (per channel) the `pixels` output pixels of one tile read. ASSUMPTION: a tile's
/// pixels are one square patch of one image (the planner splits the field by height and width;
/// a square patch has the least halo), or whole images when it has at least one (then the whole
/// input of each, padding not exchanged).
double input_field_pixels(const ConvWindow& w, double pixels);

/// Elements of the first GEMM operand of a block (bm x bk) of a windowed convolution whose
/// GEMM's channel dimension (k, or m for the weight gradient) is `channel_dim` long (Cin x
/// kernel^2, or the AMP's padded form): the input field of the block's pixels times the input
/// channels its share of the channel dimension covers, at most bm x bk. Without a window, bm x bk.
double conv_input_operand_elements(const ConvWindow& w, double bm, double bk, double channel_dim);

/// The AMP's input channels per pass for `in_channels` channels: among the groupings the AMP
/// accepts (divisors of `weights_per_unit` of a whole number of 64-bit loads: multiples of 4
/// halves or 2 floats), the one of fewest passes over a `kernel` x `kernel` window (ties: the
/// larger grouping).
std::uint32_t amp_in_chans_per_group(double in_channels, double kernel,
                                     std::uint32_t weights_per_unit, bool float_activations);

/// The GEMM inner dimension the AMP streams for a convolution it does not expand: passes x
/// weights_per_unit, with kernel columns x ceil(kernel / rows per pass) x ceil(Cin /
/// inChansPerGroup) passes (rows per pass = weights_per_unit / inChansPerGroup). Equals
/// Cin x kernel^2 when Cin is a multiple of weights_per_unit.
double amp_unexpanded_k(const ConvWindow& w, std::uint32_t weights_per_unit,
                        bool float_activations);

}  // namespace ipusim
