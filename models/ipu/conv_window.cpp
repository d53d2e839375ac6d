// A windowed convolution's input field and the AMP's input-channel grouping.
#include "models/ipu/conv_window.hpp"

#include <algorithm>
#include <cmath>

namespace ipusim {
namespace {

/// Whole elements of a (possibly fractional) count, at least 1.
double whole(double x) { return std::max(1.0, std::ceil(x - 1e-9)); }

}  // namespace

double input_range(double out, double stride, double kernel, double in) {
  return std::min(in, (whole(out) - 1) * stride + kernel);
}

double input_field_pixels(const ConvWindow& w, double pixels) {
  const double image = w.out_h * w.out_w;
  // At least one whole image: the tile reads each of its images' whole input.
  if (pixels >= image) return whole(pixels / image) * w.in_h * w.in_w;
  // A square patch: side ceil(sqrt(pixels)) along the width, the rows it needs along the
  // height, each no larger than the output field.
  const double patch_w = std::min(w.out_w, whole(std::sqrt(pixels)));
  const double patch_h = std::min(w.out_h, whole(pixels / patch_w));
  return input_range(patch_h, w.stride, w.kernel, w.in_h) *
         input_range(patch_w, w.stride, w.kernel, w.in_w);
}

double conv_input_operand_elements(const ConvWindow& w, double bm, double bk, double channel_dim) {
  const double im2col = bm * bk;
  if (!w.windowed() || channel_dim <= 0) return im2col;
  const double pixels = w.pixels_along_k ? bk : bm;
  const double channel_share = w.pixels_along_k ? bm : bk;
  // The channels a block covers: its share of the channel dimension, in whole channels.
  const double channels =
      std::min(w.in_channels, whole(w.in_channels * channel_share / channel_dim));
  return std::min(im2col, input_field_pixels(w, pixels) * channels);
}

std::uint32_t amp_in_chans_per_group(double in_channels, double kernel,
                                     std::uint32_t weights_per_unit, bool float_activations) {
  // A pass's inputs are loaded 64 bits at a time (ConvVertexType.cpp lines 68-72).
  const std::uint32_t load_grain = float_activations ? 2 : 4;
  std::uint32_t best = weights_per_unit;
  double best_passes = -1;
  for (std::uint32_t c = weights_per_unit; c >= load_grain; --c) {
    if (weights_per_unit % c != 0 || c % load_grain != 0) continue;
    const double rows_per_pass = static_cast<double>(weights_per_unit / c);
    const double passes = kernel * whole(kernel / rows_per_pass) * whole(in_channels / c);
    if (best_passes < 0 || passes < best_passes) {
      best = c;
      best_passes = passes;
    }
  }
  return best;
}

double amp_unexpanded_k(const ConvWindow& w, std::uint32_t weights_per_unit,
                        bool float_activations) {
  const std::uint32_t c =
      amp_in_chans_per_group(w.in_channels, w.kernel, weights_per_unit, float_activations);
  const double rows_per_pass = static_cast<double>(weights_per_unit / c);
  const double passes = w.kernel * whole(w.kernel / rows_per_pass) * whole(w.in_channels / c);
  return passes * static_cast<double>(weights_per_unit);
}

}  // namespace ipusim
