// Cycles of poplin's ConvPartial1x1 AMP vertex from poplibs' estimator (sdk/poplar/2.4.0,
// lib/poplin/PerformanceEstimation.hpp; line numbers below are that file's, except in the
// *_sdk1 functions: that file at tag 1.0.49).
#include "models/ipu/conv_vertices.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "models/ipu/compute.hpp"

namespace ipusim {
namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return b == 0 ? a : (a + b - 1) / b; }

/// Bytes of weights the supervisor loads into the conv units per cycle with 64-bit loads, the
/// default of every release (use128BitConvUnitLoad false): the target's 16 B halved, as both the
/// vertex's estimator and the planner take it (see the header).
constexpr std::uint32_t kCoeffLoadBytesPerCycle64BitLoads = 8;

/// Whether the path is costed by SDK 2.1.0's estimate (tag sdk/poplar/2.1.0).
bool sdk_2_1(const ConvPath& p) { return p.sdk == PoplarSdk::V2_1_0; }

/// Worker cycles state retention saves (conv1x1WorkerRetentionSavings, lines 32-42): the total,
/// and the part per input group after the first; SDK 2.1.0: 10 and 2 (its lines 33-41).
std::pair<std::uint64_t, std::uint64_t> retention_savings(const ConvPath& p) {
  if (!p.float_activations && (p.float_partials || p.conv_units == 16)) {
    return sdk_2_1(p) ? std::pair<std::uint64_t, std::uint64_t>{10, 2}
                      : std::pair<std::uint64_t, std::uint64_t>{7, 3};
  }
  return {0, 0};
}

/// "The code paths for half activations, half partials and 16 conv units is = half
/// activations, float partials and 8 conv units" (lines 378-381, 489-492).
bool common_half_float_partials_path(const ConvPath& p) {
  return (!p.float_activations && p.conv_units == 16) || p.float_partials;
}

/// Peak AMP flops per tile cycle of a dtype (the chip preset's sourced rates; the one table is
/// compute.cpp's flops_per_cycle_per_tile).
double amp_peak(const ChipParams& chip, ComputeDType dtype) {
  return flops_per_cycle_per_tile(chip, dtype, ComputeUnit::Amp);
}

}  // namespace

ConvPath conv_path(const ChipParams& chip, ComputeDType dtype) {
  ConvPath p;
  p.float_activations = dtype == ComputeDType::Float32;
  p.float_partials = dtype != ComputeDType::Float16;
  p.weights_per_unit = p.float_activations ? 8 : 16;
  p.core_cycles = p.float_activations ? 8 : 4;  // line 360
  // The preset's count (poplar Target's); without one, peak = 2 x weights_per_unit x
  // conv_units / core_cycles (see the header).
  const std::uint32_t preset = dtype == ComputeDType::Float16   ? chip.amp_conv_units_fp16
                               : dtype == ComputeDType::Float32 ? chip.amp_conv_units_fp32
                                                                : chip.amp_conv_units_fp16_32;
  const double units = amp_peak(chip, dtype) * p.core_cycles / (2.0 * p.weights_per_unit);
  p.conv_units = preset > 0 ? preset : static_cast<std::uint32_t>(std::max(1.0, std::round(units)));
  // Lines 361-364: the 8x4 vertex of 4 conv units runs its core loop in half the cycles.
  if (p.conv_units == 4) p.core_cycles /= 2;
  // Lines 467-468: numConvUnits x weightBytesPerConvUnit / the coefficient-load bytes per
  // cycle, which the vertex's estimator halves unless use128BitConvUnitLoad is set
  // (poplinCycleEstimators.cpp lines 204-208; default false, ConvOptions.hpp line 42; no run
  // sets it): 8 B, one ld64putcs a cycle (see the header).
  const std::uint32_t weight_bytes = p.weights_per_unit * (p.float_activations ? 4 : 2);
  p.weight_load_cycles = p.conv_units * weight_bytes / kCoeffLoadBytesPerCycle64BitLoads;
  p.sdk = chip.poplar_sdk;
  return p;
}

std::uint64_t conv1x1_worker_cycles(const ConvPath& p, std::uint64_t rows, bool zeroing) {
  const bool common = common_half_float_partials_path(p);
  const std::uint64_t z = zeroing ? 1 : 0;
  // The common path's extra cycles for 0-2 rows (zeroing / not): 1 / 2, SDK 2.1.0 2 / 4; for 3
  // or more rows its fixed cycles, 37 / 38, SDK 2.1.0 38 / 40 (2.1.0 lines 322-420).
  const std::uint64_t common_extra = sdk_2_1(p) ? (zeroing ? 2 : 4) : (zeroing ? 1 : 2);
  const std::uint64_t common_fixed = sdk_2_1(p) ? (zeroing ? 38 : 40) : (zeroing ? 37 : 38);
  // Lines 375-377: cycles per row to zero the partials.
  const std::uint64_t zero_per_row = p.float_activations && p.conv_units == 16 ? 8
                                     : p.float_partials                        ? 4
                                                                               : 2;
  switch (rows) {
    case 0:  // lines 390-400
      if (p.float_activations) return 24;
      return common ? 20 + common_extra : 24;
    case 1:  // lines 401-411
      if (p.float_activations) return 47 + (2 + zero_per_row) * z;
      return common ? 31 + common_extra : 39 + (2 + zero_per_row) * z;
    case 2:  // lines 412-423
      if (p.float_activations) return 46 + (2 + zero_per_row * 2) * z;
      return common ? 40 + common_extra : 40 + (2 + zero_per_row * 2) * z;
    default:  // lines 424-439
      if (p.float_activations) {
        return 46 + (2 + zero_per_row * rows) * z + (rows - 3) * p.core_cycles;
      }
      if (common) return common_fixed + (rows - 3) * p.core_cycles;
      return 41 + (2 + zero_per_row * rows) * z + (rows - 3) * p.core_cycles;
  }
}

std::uint64_t conv1x1_inner_loop_cycles(const ConvPath& p, std::uint64_t rows,
                                        std::uint32_t workers, bool zeroing) {
  const std::uint64_t w = std::max<std::uint32_t>(1, workers);
  const std::uint64_t saving = retention_savings(p).first;  // line 440
  auto worker = [&](std::uint64_t r) {
    return w * (conv1x1_worker_cycles(p, r, zeroing) - saving);
  };
  // The rows split as evenly as possible: rows mod w workers get one more. A worker with no
  // rows has no worklist item and costs nothing (lines 370-372, 387).
  const std::uint64_t most = worker(ceil_div(rows, w));
  const std::uint64_t least = rows >= w ? worker(rows / w) : 0;
  return std::max(most, least + 14);  // line 450: the tag cost goes to the least busy worker
}

std::uint64_t conv1x1_worker_cycles_sdk1(const ConvPath& p, std::uint64_t rows, bool zeroing) {
  const std::uint64_t z = zeroing ? 1 : 0;
  // Lines 135-136: partials zeroed at 4 cycles a row (FP32) or 2 (FP16); FP16 partials cost 2
  // more a row item. FP32 inputs: 8 a row, their own branch.
  const std::uint64_t zero_per_row = p.float_partials ? 4 : 2;
  const std::uint64_t half_partials = p.float_partials ? 0 : 2;
  switch (rows) {
    case 0:  // line 146
      return 28;
    case 1:  // lines 148-154
      if (p.float_activations) return 50 + (2 + 8) * z;
      return 41 + (2 + zero_per_row) * z + half_partials;
    case 2:  // lines 155-162
      if (p.float_activations) return 50 + (2 + 8 * 2) * z;
      return 42 + (2 + zero_per_row * 2) * z + half_partials;
    default:  // lines 163-171
      if (p.float_activations) return 50 + (2 + 8 * rows) * z + (rows - 3) * 8;
      return 43 + (2 + zero_per_row * rows) * z + (rows - 3) * 4 + half_partials;
  }
}

std::uint64_t conv1x1_tile_cycles_sdk1(const ConvPath& p, std::uint32_t workers, std::uint64_t rows,
                                       std::uint64_t inputs, std::uint64_t outputs) {
  if (rows == 0 || inputs == 0 || outputs == 0) return 0;
  const std::uint64_t w = std::max<std::uint32_t>(1, workers);
  // Lines 173-180 with one worklist item a worker (the rows split as evenly as
  // partitionConvPartialByWorker splits them, ConvUtilInternal.cpp lines 87-135): the busiest
  // worker, and the least busy one + 14 (a worker without rows costs 0).
  auto inner = [&](bool zeroing) {
    const std::uint64_t most = w * conv1x1_worker_cycles_sdk1(p, ceil_div(rows, w), zeroing);
    const std::uint64_t least =
        rows >= w ? w * conv1x1_worker_cycles_sdk1(p, rows / w, zeroing) : 0;
    return std::max(most, least + 14);
  };
  // Lines 196-199: numLoads = input load elements (4 halves, 2 floats) x 4 x units x bytes /
  // coefficient-load bytes per cycle, which the vertex's estimator halves without 128-bit loads
  // (poplinCycleEstimators.cpp lines 131-134 at 1.0.49): 16 halves or 8 floats of 2 or 4 B a
  // unit at 8 B per cycle, conv_path()'s weight_load_cycles (32 for 8 units).
  const std::uint64_t loads = p.weight_load_cycles;
  const std::uint64_t in_groups = ceil_div(inputs, p.weights_per_unit);
  const std::uint64_t out_groups = ceil_div(outputs, p.conv_units);
  // Lines 200-212, one convolution group, one pass per out group (outChansPerGroup = units).
  return 50 + 11 + (in_groups - 1) * (13 + out_groups * (18 + 6 + loads + inner(false))) +
         (10 + out_groups * (18 + 6 + loads + inner(true)));
}

std::uint64_t conv1x1_tile_cycles(const ChipParams& chip, ComputeDType dtype, std::uint64_t rows,
                                  std::uint64_t inputs, std::uint64_t outputs) {
  if (rows == 0 || inputs == 0 || outputs == 0) return 0;
  const ConvPath p = conv_path(chip, dtype);
  if (chip.poplar_sdk == PoplarSdk::V1_0_49) {
    return conv1x1_tile_cycles_sdk1(p, chip.worker_threads, rows, inputs, outputs);
  }
  const std::uint64_t in_groups = ceil_div(inputs, p.weights_per_unit);
  const std::uint64_t out_groups = ceil_div(outputs, p.conv_units);
  const std::uint32_t workers = chip.worker_threads;
  const std::uint64_t inner_zero = conv1x1_inner_loop_cycles(p, rows, workers, true);
  const std::uint64_t inner = conv1x1_inner_loop_cycles(p, rows, workers, false);
  const auto saving = retention_savings(p);
  // 2.3.0 added the common path's +1 / -1 / -1 (lines 489-492); 2.1.0 has none.
  const std::uint64_t c = common_half_float_partials_path(p) && !sdk_2_1(p) ? 1 : 0;
  const std::uint64_t loads = p.weight_load_cycles;
  const std::uint64_t w = std::max<std::uint32_t>(1, workers);
  // Lines 494-513, one convolution group and one output pass per out group (the out group is
  // the conv units' width): the first in group zeroes the partials, the others accumulate.
  return 50                                                      // supervisor non-loop
         + w * (saving.first + saving.second * (in_groups - 1))  // retention, restored
         + 12 + c                                                // per convolution group
         + (in_groups - 1) * (15 - c + 1 + out_groups * (19 + 6 + loads + inner))  //
         + (10 + 1 + out_groups * (19 - c + 7 + loads + inner_zero));
}

}  // namespace ipusim
