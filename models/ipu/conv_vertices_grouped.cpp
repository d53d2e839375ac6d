// SLIC, VMAC and HMAC vertex estimates and the planner's choice among them (poplibs tag
// sdk/poplar/2.4.0; PE = lib/poplin/PerformanceEstimation.hpp, line numbers that file's).
//
// The tile's output field is taken as one row of `field` elements (batch x output pixels):
// poplin's worker partition (partitionConvPartialByWorker, and the HMAC / VMAC estimators'
// own row split, PE 1424-1490) then gives each of the six workers one contiguous run. A real
// field has one worklist entry per output row, each paying the vertex's per-entry cycles
// (SLIC 10 + 15, HMAC 19 + 7 per kernel position): the one-row field is the estimators' least
// cost for the share, a lower bound (the GEMM shape the model carries has no output width).
#include "models/ipu/conv_vertices_grouped.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "models/ipu/conv_vertices.hpp"

namespace ipusim {
namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return b == 0 ? a : (a + b - 1) / b; }

/// Bits a tile's data path loads a cycle (poplar Target getDataPathWidth: 64 on Mk1 and Mk2).
constexpr std::uint64_t kDataPathBits = 64;
/// FP16 elements of one 64-bit vector (Target getVectorWidth(HALF), ConvVertexType.cpp l. 206).
constexpr std::uint32_t kHalfVectorWidth = 4;

bool float_partials(ComputeDType d) { return d != ComputeDType::Float16; }
bool float_activations(ComputeDType d) { return d == ComputeDType::Float32; }

// ---- HMAC -------------------------------------------------------------------------------

/// PE 53-95 getDenseDotProductCycles: one output's dot product over `size` input channels.
std::uint64_t dense_dot_cycles(bool fa, bool fp, std::uint64_t size) {
  const std::uint64_t inner = 1 + 2 + 3 + 1;
  if (fa) return inner + (size % 2 == 0 ? size : 2 * size);
  if (fp) return inner + (size % 4 == 0 ? size / 4 : size);
  if (size % 4 == 0) return 2 * (1 + 2) + 1 + 3 + 1 + size / 4;
  return 2 + 2 * (1 + 2) + 3 + 1 + size;
}

/// PE 109-127: one worker's cycles for one kernel position over the worklist entries
/// `conv_sizes` (here one entry of `conv_size` outputs, or none). Half partials process two
/// output channels in the inner loop (line 118).
std::uint64_t hmac_position_cycles(bool fa, bool fp, std::uint64_t in_chans,
                                   std::uint64_t out_chans, std::uint64_t conv_size) {
  std::uint64_t cycles = 16;
  if (conv_size == 0) return cycles + 7;
  if (!fp) out_chans /= 2;
  return cycles + 19 + conv_size * (7 + out_chans * dense_dot_cycles(fa, fp, in_chans));
}

}  // namespace

std::string to_string(ConvMethod m) {
  switch (m) {
    case ConvMethod::Amp:
      return "amp";
    case ConvMethod::Slic:
      return "slic";
    case ConvMethod::Hmac:
      return "hmac";
    case ConvMethod::Vmac:
      return "vmac";
  }
  return "amp";
}

std::uint64_t hmac_tile_cycles(const ChipParams& chip, ComputeDType dtype, const ConvTileShare& s,
                               std::uint32_t in_chans_per_group) {
  const bool fa = float_activations(dtype), fp = float_partials(dtype);
  const std::uint64_t w = std::max<std::uint32_t>(1, chip.worker_threads);
  // ConvVertexType.cpp lines 134-139: one partial channel a group, two for half partials.
  const std::uint64_t out_per_group = fp ? 1 : 2;
  const std::uint64_t in_groups = ceil_div(s.in_chans, in_chans_per_group);
  const std::uint64_t out_groups = ceil_div(s.out_chans, out_per_group);
  // ConvModel.cpp 409-419 with one output row: PE 1424-1456 splits the row over the workers
  // (rowSplitFactor = workers) and builds one worker's list, an entry of ceil(field / w)
  // outputs for each kernel position; a list for one context only gives w x that worker.
  const std::uint64_t part = ceil_div(s.field, w);
  const std::uint64_t kernel = s.kernel_h * s.kernel_w;
  const std::uint64_t worker =
      kernel * hmac_position_cycles(fa, fp, in_chans_per_group, out_per_group, part) + 16;
  const std::uint64_t inner = w * worker;  // PE 146-174
  // PE 1405-1422 and 129-144: the partials zeroed, ceil(field x out chans / w) a worker at two
  // floats a cycle (the estimate passes isFloat = true), 14 - 9 (retention) fixed.
  const std::uint64_t zero_worker =
      ceil_div(ceil_div(s.field * out_per_group, w), kDataPathBits / 32) + 14 - 9;
  const std::uint64_t zero = zero_worker * w * out_groups * s.conv_groups;
  // PE 176-186 (overhead 23-25: 58 float / 63 half activations; retention 49-51).
  return (fa ? 58 : 63) + w * (fp ? 9 : 10) +
         s.conv_groups * (23 + in_groups * (15 + out_groups * (10 + inner))) + zero;
}

// ---- VMAC -------------------------------------------------------------------------------

namespace {

/// PE 204-216: the dot product of one worklist entry of `size` kernel columns.
std::uint64_t vmac_dot_cycles(std::uint64_t size, std::uint64_t chans) {
  if (chans >= 8) return 3 + 3 * (size - 1) * (chans / 8);
  return 3 + 2 * (size - 1) * (chans / 4);
}

/// PE 218-262: one worker's cycles over its worklist `sizes` (entry count x entry size).
std::uint64_t vmac_worker_cycles(bool fp, std::uint32_t g, std::uint64_t entries,
                                 std::uint64_t size, std::uint64_t part_entries,
                                 std::uint64_t part_size) {
  if (g >= 8 && !fp) {
    const auto per = [&](std::uint64_t sz) { return 7 + 15 + vmac_dot_cycles(sz, 8); };
    const std::uint64_t per8 = entries * per(size) + part_entries * per(part_size);
    return (g == 8 ? 13 : 25) + per8 * (g == 8 ? 1 : 2);
  }
  const auto per = [&](std::uint64_t sz) { return 7 + (fp ? 5 : 3) + vmac_dot_cycles(sz, g); };
  return (fp ? 19 : 18) + entries * per(size) + part_entries * per(part_size);
}

}  // namespace

std::uint64_t vmac_tile_cycles(const ChipParams& chip, ComputeDType dtype, const ConvTileShare& s,
                               std::uint32_t groups_per_group) {
  if (s.out_chans > 1) return 0;  // ConvModel.cpp line 451
  const bool fp = float_partials(dtype);
  const std::uint64_t w = std::max<std::uint32_t>(1, chip.worker_threads);
  const std::uint64_t in_groups = s.in_chans;  // one input channel a group (line 204)
  const std::uint64_t conv_groups = ceil_div(s.conv_groups, groups_per_group);
  // PE 1458-1490: field rows (here the field's elements) split over the workers; one worker's
  // list: per kernel row, its whole rows as entries of kernel_w and its part rows as entries
  // of ceil(kernel_w / split); one context's list gives w x that worker (PE 273-294).
  const std::uint64_t rows = s.field;
  const std::uint64_t split = w / std::gcd(w, rows);
  const std::uint64_t max_part = ceil_div(rows * split, w);
  const std::uint64_t whole = max_part / split, part = max_part % split;
  const std::uint64_t worker =
      vmac_worker_cycles(fp, groups_per_group, s.kernel_h * whole, s.kernel_w, s.kernel_h * part,
                         ceil_div(s.kernel_w, split));
  const std::uint64_t inner = w * worker;
  // PE 298-303: every worker zeroes all the outputs (4 halves or 2 floats a cycle).
  const std::uint64_t zero = 4 + ceil_div(s.field, fp ? 2 : 4);
  // PE 264-271, 305-314: the workers' partials reduced, ceil(field / w) elements a worker.
  const std::uint64_t per_worker = ceil_div(s.field, w);
  const std::uint64_t red =
      10 - (fp ? 1 : 0) +
      ((7 + 2 * (fp ? 1 : 0) + (fp ? 2 : 1) * (w - 1)) * per_worker) / groups_per_group;
  // PE 316-327. Line 322 reads `25 + floatPartials ? 1 : 0`, which C++ parses as
  // (25 + floatPartials) ? 1 : 0, i.e. 1: the estimate's value is followed.
  return 61 + 14 + 1 + (zero + 32 + in_groups * (24 + inner) + red) * conv_groups;
}

// ---- SLIC -------------------------------------------------------------------------------

namespace {

/// PE 782-785: brnzdec stalls of a loop of n iterations.
std::uint64_t brnzdec(std::uint64_t n) { return 6 * (n - 1) + 1; }

/// PE 856-958 for one worker's list of one entry of `n` field elements (n > 0), stride 1.
std::uint64_t slic_inner_cycles(std::uint64_t w, std::uint32_t chains, std::uint32_t g, bool fp,
                                std::uint64_t n, std::uint64_t total, bool zeroing) {
  const std::uint64_t passes = chains == 4 ? 1 : 2;
  const bool half8 = chains == 2 && !fp;
  const std::uint64_t threshold = half8 ? 6 : 5;
  std::uint64_t worker =
      2 + (half8 ? 2 : 3) + 1 + 2 + 4 + 2 + 2 + 1 + (half8 ? 1 : 0) + (g > 4 ? 4 : 0);
  if (n > 0) {
    worker += (half8 ? 9 : 10) + (zeroing ? 1 : 0);
    std::uint64_t row = 0;
    if (n < threshold) {
      // Lines 904-913; for n >= 2 the (4 - n) and (3 - (4 - n)) terms sum to 3 (the estimator
      // wraps them in unsigned arithmetic when n = 5, to the same 3).
      row = zeroing ? 10 + (n > 1 ? n : 0) + 3 : 7 + (n == 1 ? 6 : 1 + (n - 1) + 2 + 2 + 3 + 3);
    } else {
      row = 15 + (n - 5) + (!zeroing && half8 ? 3 : 0);
    }
    if (fp) row -= 1;
    worker += (fp ? 3 : 0) + row * passes;
  }
  worker += half8 ? 2 : 0;
  const std::uint64_t copy = half8 && zeroing ? 2 + 2 * total : 0;
  return worker * w + copy;
}

/// PE 734-768: supervisor cycles to load one sub-kernel's weights.
std::uint64_t slic_weight_load_cycles(std::uint64_t w, std::uint32_t g, std::uint32_t chans) {
  if (chans == 4) return 6 + 6 + 6 + 16;
  const std::uint64_t per_worker = (g == 2 ? 12 : 10) + (g > 4 ? 1 : 0);
  return 9 + 6 + per_worker * w + 6 + 16;
}

}  // namespace

std::uint64_t slic_tile_cycles(const ChipParams& chip, ComputeDType dtype, const ConvTileShare& s,
                               std::uint32_t g, std::uint32_t chans, std::uint32_t chains) {
  if (s.in_chans > chans || s.out_chans > chans) return 0;  // ConvModel.cpp line 335
  const bool fp = float_partials(dtype);
  const std::uint64_t w = std::max<std::uint32_t>(1, chip.worker_threads);
  const std::uint64_t groups = ceil_div(s.conv_groups, g);
  // Lines 346-355: the kernel width in 1x4 windows, times the other kernel dimensions.
  const std::uint64_t sub_kernels = ceil_div(s.kernel_w, 4) * s.kernel_h;
  const std::uint64_t n = ceil_div(s.field, w);  // the busiest worker's run of the one row
  const std::uint64_t inner_zero = slic_inner_cycles(w, chains, g, fp, n, s.field, true);
  std::uint64_t inner = slic_inner_cycles(w, chains, g, fp, n, s.field, false);
  const std::uint64_t load = slic_weight_load_cycles(w, g, chans);
  // PE 770-850.
  const bool half8 = chains == 2 && !fp;
  const std::uint64_t preamble = half8 ? 25 : 28;
  std::uint64_t group_body = half8 ? 12 : 15;
  std::uint64_t sub_kernel_body = 0;
  if (g <= 4) {
    sub_kernel_body = load + (half8 ? 0 : 3) + 2 + (half8 ? 0 : 1) + 6 + 1 + 6 + 1;
  } else {
    const std::uint64_t strides = g / 4;
    const std::uint64_t stride_body = load + 6 + 1 + 6 + 2 + 6;
    sub_kernel_body = stride_body * strides + brnzdec(strides) + 2 + 2 + 6 + 3 + 2;
    group_body += 2 + 6;
    inner *= strides;  // line 830: the non-zeroing passes only, as the estimator has it
  }
  return preamble + group_body * groups + brnzdec(groups) + sub_kernel_body * sub_kernels +
         brnzdec(sub_kernels) + groups * inner_zero + groups * (sub_kernels - 1) * inner;
}

// ---- the choice -------------------------------------------------------------------------

VertexChoice cheapest_non_amp_vertex(const ChipParams& chip, ComputeDType dtype, double groups,
                                     double field, const ConvTileShare& per_group, double tiles) {
  VertexChoice best;
  if (chip.poplar_sdk != PoplarSdk::V2_4_0 || groups <= 0 || field <= 0 || tiles <= 0) {
    return best;
  }
  const bool fa = float_activations(dtype), fp = float_partials(dtype);
  const std::uint32_t units = conv_path(chip, dtype).conv_units;
  // The share of a candidate taking G groups a pass: at least G groups a tile when the
  // convolution has them (its field split the more), else the groups an even split gives.
  const auto share = [&](std::uint32_t g, bool expand) {
    ConvTileShare s = per_group;
    const double least = std::max(1.0, std::ceil(groups / tiles - 1e-9));
    const double on_tile = std::min(groups, std::max(least, static_cast<double>(g)));
    s.conv_groups = static_cast<std::uint64_t>(on_tile);
    const double f = std::ceil(field * groups / (tiles * on_tile) - 1e-9);
    s.field = static_cast<std::uint64_t>(std::clamp(f, 1.0, field));
    if (expand) {  // every kernel dimension folded into the input channels (expandDims)
      s.in_chans *= s.kernel_h * s.kernel_w;
      s.kernel_h = s.kernel_w = 1;
    }
    return s;
  };
  const auto consider = [&](ConvMethod m, std::uint32_t g, std::uint32_t c, std::uint64_t cyc) {
    if (cyc > 0 && (best.tile_cycles == 0 || cyc < best.tile_cycles)) best = {m, g, c, cyc};
  };
  for (const bool expand : {false, true}) {
    // SLIC (ConvVertexType.cpp 383-502): FP16 inputs; 4 chains with FP16 partials on 16 units.
    if (!fa) {
      for (const std::uint32_t chains : {4u, 2u}) {
        if (chains == 4 && (fp || units != 16)) continue;
        for (const auto& [g, c] :
             {std::pair<std::uint32_t, std::uint32_t>{1, 4}, {2, 2}, {4, 1}, {8, 1}, {16, 1}}) {
          if (g > 4 && (fp || units != 16)) continue;  // lines 478-481
          consider(ConvMethod::Slic, g, c,
                   slic_tile_cycles(chip, dtype, share(g, expand), g, c, chains));
        }
      }
      // VMAC (178-231): FP16 inputs; the vector width's grouping, and 8 and 16 for FP16 partials.
      for (const std::uint32_t g : {kHalfVectorWidth, 8u, 16u}) {
        if (g != kHalfVectorWidth && fp) continue;
        consider(ConvMethod::Vmac, g, 1, vmac_tile_cycles(chip, dtype, share(g, expand), g));
      }
    }
    // HMAC (77-176): input channels a group from the grain up, each that lowers the groups.
    const ConvTileShare s = share(1, expand);
    const std::uint64_t grain = fa ? 1 : 2;
    const std::uint64_t rounded = ceil_div(s.in_chans, grain) * grain;
    std::uint64_t previous = 0;
    for (std::uint64_t c = grain; c <= rounded; c += grain) {
      const std::uint64_t in_groups = ceil_div(rounded, c);
      if (in_groups == previous) continue;
      previous = in_groups;
      consider(ConvMethod::Hmac, 1, static_cast<std::uint32_t>(c),
               hmac_tile_cycles(chip, dtype, s, static_cast<std::uint32_t>(c)));
    }
  }
  return best;
}

}  // namespace ipusim
