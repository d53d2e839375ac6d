// Cycles of poplin's ConvPartialnx1 AMP vertex from poplibs' estimator (line numbers: tag
// sdk/poplar/2.4.0, lib/poplin/PerformanceEstimation.hpp, unless named; see the header).
#include "models/ipu/conv_vertices_nx1.hpp"

#include <algorithm>
#include <cmath>

namespace ipusim {
namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return b == 0 ? a : (a + b - 1) / b; }

/// Whole elements of a (possibly fractional) count, at least 1.
std::uint64_t whole(double x) {
  return static_cast<std::uint64_t>(std::max(1.0, std::ceil(x - 1e-9)));
}

/// The IPU's data path, bits (poplar Target's getDataPathWidth; the 64-bit loads the AMP's
/// channel grouping also follows, ConvVertexType.cpp l. 68-72).
constexpr std::uint64_t kDataPathBits = 64;

/// Cycles of one worklist item of `n` outputs, before the retention saving.
std::uint64_t item_cycles(const ConvPath& p, std::uint64_t n) {
  const bool fa = p.float_activations;
  if (p.sdk == PoplarSdk::V1_0_49) {  // 1.0.49 l. 296-311
    if (n == 0) return 18;
    if (n == 1) return fa ? 34 : 30;
    if (n == 2) return fa ? 45 : 34;
    return fa ? 46 + (n - 3) * 8 : 35 + (n - 3) * 4;
  }
  // The core loop: 4 cycles an output for halves, 8 for floats, halved with 4 conv units up to
  // 2.4.0 (l. 565-570; 2.5.1 l. 745-746 drops the halving).
  std::uint64_t core = fa ? 8 : 4;
  if (p.conv_units == 4 && p.sdk != PoplarSdk::V2_5_1) core /= 2;
  // 2.3.0-2.5.1: one more special stride on two item shapes (l. 572-577); 2.1.0 l. 586-587 none.
  const bool hh16 = !fa && !p.float_partials && p.conv_units == 16;
  const bool hf8 = !fa && p.float_partials && p.conv_units == 8;
  const std::uint64_t stride = (hh16 || hf8) && p.sdk != PoplarSdk::V2_1_0 ? 1 : 0;
  if (n == 0) return 17;                     // l. 585-587
  if (n == 1) return fa ? 33 : 29;           // l. 588-590
  if (n == 2) return fa ? 44 : 33 + stride;  // l. 591-593
  return (fa ? 45 : 34) + (n - 3) * core;    // l. 594-598
}

/// Worker start cycles and per-item set-up and retention (l. 579-601; 2.1.0 l. 576-595;
/// 1.0.49 l. 293-311).
struct WorkerCosts {
  std::uint64_t start = 0;
  std::uint64_t per_item = 0;
  std::uint64_t retained = 0;
};

WorkerCosts worker_costs(const ConvPath& p) {
  const std::uint64_t half_partials = p.float_partials ? 0 : 1;
  switch (p.sdk) {
    case PoplarSdk::V1_0_49:
      return {19 + half_partials, 0, 0};
    case PoplarSdk::V2_1_0:
      return {17 + half_partials, 0, 6};  // convnx1WorkerRetentionSavings 6 (2.1.0 l. 43-47)
    default:
      return {15 + half_partials, 7, 4};  // convnx1WorkerRetentionSavings 4 (l. 43-47)
  }
}

/// The filter height's cycles in the supervisor's innermost loop besides the weight load
/// (l. 682-699: 60 / 46 / 15 for heights 4 / 2 / 1, else 20 a row, + 3 at 2.x).
std::uint64_t filter_height_cycles(const ConvPath& p, std::uint32_t fh) {
  const std::uint64_t extra = fh == 4 ? 60 : fh == 2 ? 46 : fh == 1 ? 15 : 20ull * fh;
  return extra + (p.sdk == PoplarSdk::V1_0_49 ? 0 : 3);
}

/// Zeroing the partials (the estimator's first term): every worker zeroes ceil(zerosInfo / 6)
/// partials a vector of the data path at a time, per out group (l. 129-144; 1.0.49 l. 60-73).
std::uint64_t zero_cycles(const ConvPath& p, std::uint64_t workers, const Nx1Shape& s) {
  const std::uint64_t zeros = p.conv_units * s.out_pixels;  // ConvVertices.cpp l. 588
  const std::uint64_t vector = kDataPathBits / (p.float_partials ? 32 : 16);
  const std::uint64_t vectors = ceil_div(ceil_div(zeros, workers), vector);
  if (p.sdk == PoplarSdk::V1_0_49) return (vectors + 5) * s.out_groups * workers + 12;
  // (isFloat ? 14 : 15) - zeroPartialsRetentionSavings (9 / 10): 5 either way.
  const std::uint64_t per_worker = vectors + (p.float_partials ? 14 - 9 : 15 - 10);
  return per_worker * workers * s.out_groups;
}

}  // namespace

std::uint64_t nx1_worker_cycles(const ConvPath& p, std::uint64_t begin, std::uint64_t end,
                                std::uint64_t row_width) {
  const WorkerCosts c = worker_costs(p);
  const std::uint64_t w = std::max<std::uint64_t>(1, row_width);
  std::uint64_t cycles = c.start;
  // One item per row run (ConvUtilInternal.cpp l. 114-140): the first row from begin, the
  // last to end, whole rows between.
  for (std::uint64_t e = begin; e < end;) {
    const std::uint64_t row_end = std::min(end, (e / w + 1) * w);
    cycles += c.per_item + item_cycles(p, row_end - e) - c.retained;
    e = row_end;
  }
  return cycles;
}

std::uint64_t conv_nx1_tile_cycles(const ChipParams& chip, ComputeDType dtype, const Nx1Shape& s) {
  if (s.out_pixels == 0 || s.in_groups == 0 || s.out_groups == 0) return 0;
  const ConvPath p = conv_path(chip, dtype);
  const std::uint64_t workers = std::max<std::uint32_t>(1, chip.worker_threads);
  // The workers' pass at one kernel position: outputs split as evenly as
  // partitionConvPartialByWorker splits them (worker i: [i N / W, (i + 1) N / W)), every
  // context counted, one with no outputs at its start cycles (l. 640-664).
  std::uint64_t most = 0, least = 0;
  for (std::uint64_t i = 0; i < workers; ++i) {
    const std::uint64_t cycles =
        workers * nx1_worker_cycles(p, i * s.out_pixels / workers, (i + 1) * s.out_pixels / workers,
                                    s.row_width);
    most = std::max(most, cycles);
    least = i == 0 ? cycles : std::min(least, cycles);
  }
  const std::uint64_t pass = std::max(most, least + 9);
  // The weight load (l. 455-470): the 1x1 vertex's (conv_path(), 8 B a cycle; the filter
  // height 4 halving applies only above 8 B a cycle).
  const std::uint64_t innermost = p.weight_load_cycles + filter_height_cycles(p, s.filter_height);
  const std::uint64_t positions = s.kernel_outer * s.kernel_inner;
  if (p.sdk == PoplarSdk::V1_0_49) {
    // 1.0.49 l. 280-322: 15 a kernel row, 20 a position, loads and workers per out pass;
    // outer loop l. 235-243: 95 + 16 + 23 per in group, 23 per out group.
    const std::uint64_t inner = s.kernel_outer * 15 + positions * (20 + innermost + pass);
    return zero_cycles(p, workers, s) + 95 + 16 + s.in_groups * (23 + s.out_groups * (23 + inner));
  }
  // l. 703-710: 14 a kernel row, 12 a position, then per out pass the loads and the workers.
  const std::uint64_t inner = s.kernel_outer * 14 + positions * (12 + innermost + pass);
  const WorkerCosts c = worker_costs(p);
  const std::uint64_t zero_retained = p.float_partials ? 9 : 10;  // l. 49-51
  // l. 543-556 with one convolution group.
  const std::uint64_t outer = 103 + workers * c.retained + workers * zero_retained +
                              (s.out_groups * 17 + (s.out_groups - 1) * 6 + 1) + 1 +
                              (16 + s.in_groups * (14 + s.out_groups * (14 + inner)));
  return zero_cycles(p, workers, s) + outer;
}

Nx1Shape nx1_shape(const ConvWindow& w, const ConvPath& path, double bm, double bk, double bn) {
  Nx1Shape s;
  const std::uint32_t c = amp_in_chans_per_group(w.in_channels, w.kernel, path.weights_per_unit,
                                                 path.float_activations);
  s.filter_height = path.weights_per_unit / c;
  const std::uint64_t kernel = whole(w.kernel);
  s.out_pixels = whole(bm);
  // The tile's rows: whole images' rows with at least one image, else the square patch
  // input_field_pixels() assumes.
  const double image = w.out_h * w.out_w;
  s.row_width = bm >= image ? whole(w.out_w) : std::min(whole(w.out_w), whole(std::sqrt(bm)));
  s.out_groups = ceil_div(whole(bn), path.conv_units);
  const std::uint64_t passes = ceil_div(whole(bk), path.weights_per_unit);
  const std::uint64_t per_group = kernel * ceil_div(kernel, s.filter_height);
  if (passes >= per_group) {
    s.in_groups = ceil_div(passes, per_group);
    s.kernel_inner = kernel;
    s.kernel_outer = ceil_div(kernel, s.filter_height);
  } else {
    s.in_groups = 1;
    s.kernel_inner = std::min(kernel, passes);
    s.kernel_outer = ceil_div(passes, s.kernel_inner);
  }
  return s;
}

double nx1_padding_elements(const ConvWindow& w, const Nx1Shape& s, std::uint32_t in_chans,
                            double bn) {
  if (s.filter_height <= 1) return 0;
  const std::uint64_t kernel = whole(w.kernel);
  const std::uint64_t kp = (s.filter_height - kernel % s.filter_height) % s.filter_height;
  if (kp == 0) return 0;
  const double chans = static_cast<double>(s.in_groups) * in_chans;
  const double kernel_zeros = static_cast<double>(kp * kernel) * chans * whole(bn);
  // The input's kp extra rows of the tile's output width, per image (at least one).
  const double images =
      static_cast<double>(std::max<std::uint64_t>(1, s.out_pixels / whole(w.out_h * w.out_w)));
  const double input_zeros = images * static_cast<double>(kp * s.row_width) * chans;
  return kernel_zeros + input_zeros;
}

}  // namespace ipusim
