// The cycle-minimising split of a GEMM over tiles and its busiest tile's block.
#include "models/ipu/gemm_tiling.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <vector>

#include "models/ipu/conv_vertices.hpp"
#include "models/ipu/conv_vertices_nx1.hpp"
#include "models/ipu/popops_vertices.hpp"

namespace ipusim {
namespace {

/// Whole elements of a (possibly fractional) dimension.
std::uint64_t whole(double x) {
  return static_cast<std::uint64_t>(std::max(1.0, std::ceil(x - 1e-9)));
}

/// Bytes of one operand element (float16_32 reads FP16 operands).
double operand_bytes(ComputeDType dtype) { return dtype == ComputeDType::Float32 ? 4.0 : 2.0; }

/// Bytes of one partial sum: FP16.16 accumulates in FP16, the rest in FP32.
double partial_bytes(ComputeDType dtype) { return dtype == ComputeDType::Float16 ? 2.0 : 4.0; }

/// Tile cycles per partial added (the accumulator's dtype): popops' ADD vertex
/// (models/ipu/popops_vertices.hpp).
double partial_add_cycles(ComputeDType dtype, PoplarSdk sdk) {
  return vector_op_cycles_per_element(
      VectorOpKind::Add, dtype == ComputeDType::Float16 ? dtype : ComputeDType::Float32, sdk);
}

/// The tile counts worth trying for a dimension of `elems` elements that the vertex takes
/// `grain` at a time, at most `max_tiles`: for each number g of grains per tile, the fewest
/// tiles that leave no tile more than g grains (ceil(elems / (g grain))), largest first.
std::vector<std::uint64_t> tile_counts(std::uint64_t elems, std::uint64_t grain,
                                       std::uint64_t max_tiles) {
  std::vector<std::uint64_t> out;
  const std::uint64_t grains = (elems + grain - 1) / grain;
  for (std::uint64_t g = 1; g <= grains; ++g) {
    const std::uint64_t t = (elems + g * grain - 1) / (g * grain);
    if (t > max_tiles) continue;
    if (out.empty() || t < out.back()) out.push_back(t);
    if (t == 1) break;
  }
  return out;
}

/// The memo's key: the shape and every chip value the cost reads.
using PlanKey = std::array<double, 27>;

PlanKey plan_key(const ChipParams& chip, ComputeDType dtype, double m, double k, double n,
                 double groups, double tiles, const ConvWindow& w) {
  return {w.kernel,
          w.stride,
          w.in_h,
          w.in_w,
          w.out_h,
          w.out_w,
          w.in_channels,
          w.pixels_along_k ? 1.0 : 0.0,
          m,
          k,
          n,
          groups,
          tiles,
          static_cast<double>(dtype),
          chip.amp_efficiency,
          chip.amp_flops_per_cycle_fp16,
          chip.amp_flops_per_cycle_fp32,
          chip.amp_flops_per_cycle_fp16_32,
          chip.exchange_bytes_per_cycle_per_tile,
          static_cast<double>(chip.worker_threads),
          static_cast<double>(chip.amp_conv_units_fp16),
          static_cast<double>(chip.amp_conv_units_fp32),
          static_cast<double>(chip.amp_conv_units_fp16_32),
          static_cast<double>(chip.poplar_sdk),
          static_cast<double>(chip.gemm_memory_bound),
          chip.available_memory_proportion,
          static_cast<double>(chip.sram_per_tile_bytes)};
}

/// The bytes a tile may give a plan's temporaries, or 0 with no bound (ConvPlan.cpp l.
/// 4064-4080 at poplibs 1.0.49: availableMemoryProportion x the tile's memory).
double temp_bound_bytes(const ChipParams& chip) {
  if (chip.gemm_memory_bound != GemmMemoryBound::AvailableMemoryProportion) return 0;
  return chip.available_memory_proportion * static_cast<double>(chip.sram_per_tile_bytes);
}

/// One candidate of the bounded search: (tk, tn) tiles over k and n (m takes the rest), each
/// tile's block of n run in `serial` slices of `slice_n` columns.
void cost_slices(const ChipParams& chip, ComputeDType dtype, GemmTileBlock& b, double serial,
                 const ConvWindow& window, double channel_dim) {
  cost_gemm_block(chip, dtype, b, window, channel_dim);
  b.serial_splits = serial;
  // An out-channel serial split repeats the whole estimate, exchange included (ConvPlan.cpp
  // l. 2003-2043): each slice receives its operands again.
  b.amp_cycles *= serial;
  b.exchange_cycles *= serial;
  b.reduction_cycles *= serial;
}

/// The cycle-minimising split of (m, k, n), the block's first operand per `window` and
/// `channel_dim` (see cost_gemm_block()). With a memory bound: the fastest split (out-channel
/// serial slices included) whose temporary bytes fit, else the one of fewest temporary bytes.
GemmTileBlock search(const ChipParams& chip, ComputeDType dtype, double m, double k, double n,
                     double groups, double tiles, const ConvWindow& window, double channel_dim) {
  GemmTileBlock best;
  best.m = m;
  best.k = k;
  best.n = n;
  if (groups >= tiles) {
    // Each tile computes whole GEMMs: no operand is shared and no partial is split.
    best.count = groups / tiles;
    cost_gemm_block(chip, dtype, best, window, channel_dim);
    return best;
  }
  const auto per_gemm =
      static_cast<std::uint64_t>(std::max(1.0, std::floor(tiles / groups + 1e-9)));
  const ConvPath path = conv_path(chip, dtype);
  const std::uint64_t wm = whole(m), wk = whole(k), wn = whole(n);
  const double bound = temp_bound_bytes(chip);
  bool have = false, fits = false;
  double best_cycles = 0, best_temp = 0;
  for (const std::uint64_t tk : tile_counts(wk, path.weights_per_unit, per_gemm)) {
    for (const std::uint64_t tn : tile_counts(wn, path.conv_units, per_gemm / tk)) {
      // m takes the tiles k and n leave: more rows per tile only add cycles.
      const std::uint64_t tm = std::min(wm, per_gemm / (tk * tn));
      if (tm == 0) continue;
      GemmTileBlock b;
      b.m = static_cast<double>((wm + tm - 1) / tm);
      b.k = static_cast<double>((wk + tk - 1) / tk);
      b.k_splits = static_cast<double>(tk);
      const std::uint64_t bn = (wn + tn - 1) / tn;
      if (bound <= 0) {
        b.n = static_cast<double>(bn);
        cost_gemm_block(chip, dtype, b, window, channel_dim);
        if (!have || b.cycles() < best_cycles) {
          best = b;
          best_cycles = b.cycles();
          have = true;
        }
        continue;
      }
      // Serial slices of the tile's out channels, whole conv-unit groups each; a count whose
      // slices would leave one empty is the same as a smaller count.
      const std::uint64_t max_serial = (bn + path.conv_units - 1) / path.conv_units;
      for (std::uint64_t serial = 1; serial <= max_serial; ++serial) {
        const std::uint64_t slice = (bn + serial - 1) / serial;
        if ((bn + slice - 1) / slice != serial) continue;
        b.n = static_cast<double>(slice);
        cost_slices(chip, dtype, b, static_cast<double>(serial), window, channel_dim);
        const double temp = gemm_temp_bytes(dtype, b);
        const bool ok = temp <= bound;
        // A fitting split beats any that does not; among those that do not, fewest bytes.
        const bool better = !have || (ok && (!fits || b.cycles() < best_cycles)) ||
                            (!ok && !fits && temp < best_temp);
        if (better) {
          best = b;
          best_cycles = b.cycles();
          best_temp = temp;
          fits = ok;
          have = true;
        }
      }
    }
  }
  return best;
}

GemmTileBlock plan(const ChipParams& chip, ComputeDType dtype, double m, double k, double n,
                   double groups, double tiles, const ConvWindow& window) {
  if (!window.windowed()) return search(chip, dtype, m, k, n, groups, tiles, {}, 0);
  // The weight gradient: expanding would only enlarge its exchange (its AMP work is the same
  // either way here), so the tile receives the input field.
  if (window.pixels_along_k) return search(chip, dtype, m, k, n, groups, tiles, window, m);
  // The forward, planned both ways; the planner keeps the cheaper (ConvPlan.cpp l. 1035-1100).
  const ConvPath path = conv_path(chip, dtype);
  const double k_unexpanded =
      amp_unexpanded_k(window, path.weights_per_unit, path.float_activations);
  const GemmTileBlock field =
      search(chip, dtype, m, k_unexpanded, n, groups, tiles, window, k_unexpanded);
  GemmTileBlock rows = search(chip, dtype, m, k, n, groups, tiles, {}, 0);
  rows.expanded = true;
  return rows.cycles() < field.cycles() ? rows : field;
}

}  // namespace

double gemm_temp_bytes(ComputeDType dtype, const GemmTileBlock& b) {
  const double operands = (b.input_elements + b.k * b.n) * b.count;
  return operands * operand_bytes(dtype) + b.m * b.n * b.count * partial_bytes(dtype);
}

void cost_gemm_block(const ChipParams& chip, ComputeDType dtype, GemmTileBlock& b,
                     const ConvWindow& window, double channel_dim) {
  // The forward with its kernel left in the field runs ConvPartialnx1 (the planner's
  // canUseConvPartial1x1Vertex, ConvModel.cpp l. 40-103, admits only a kernel of one element
  // on the tile), with the AMP's kernel-height padding written first (its elements, costed as
  // an exchange as the planner costs them); the rest runs ConvPartial1x1.
  const bool nx1 = window.windowed() && !window.pixels_along_k && channel_dim > 0;
  double vertex = 0, padding = 0;
  if (nx1) {
    const ConvPath path = conv_path(chip, dtype);
    const Nx1Shape shape = nx1_shape(window, path, b.m, b.k, b.n);
    vertex = static_cast<double>(conv_nx1_tile_cycles(chip, dtype, shape));
    padding =
        nx1_padding_elements(window, shape,
                             amp_in_chans_per_group(window.in_channels, window.kernel,
                                                    path.weights_per_unit, path.float_activations),
                             b.n);
  } else {
    vertex =
        static_cast<double>(conv1x1_tile_cycles(chip, dtype, whole(b.m), whole(b.k), whole(b.n)));
  }
  b.amp_cycles = vertex * b.count / chip.amp_efficiency;
  // Each output's k_splits partials need k_splits - 1 additions, spread over those tiles.
  const double partials = b.k_splits > 1 ? b.m * b.n * b.count * (1.0 - 1.0 / b.k_splits) : 0;
  b.input_elements = conv_input_operand_elements(window, b.m, b.k, channel_dim);
  b.padding_elements = padding * b.count;
  const double operands = (b.input_elements + b.k * b.n + padding) * b.count;
  b.exchange_cycles = (operands * operand_bytes(dtype) + partials * partial_bytes(dtype)) /
                      chip.exchange_bytes_per_cycle_per_tile;
  b.reduction_cycles = partials * partial_add_cycles(dtype, chip.poplar_sdk);
}

GemmTileBlock gemm_tile_block(const ChipParams& chip, ComputeDType dtype, double m, double k,
                              double n, double groups, double tiles, const ConvWindow& window) {
  // A training step has hundreds of GEMM shapes and a calibration or plan sweep re-costs them
  // thousands of times; the split search is a few thousand vertex estimates, so keep each.
  thread_local std::map<PlanKey, GemmTileBlock> memo;
  const PlanKey key = plan_key(chip, dtype, m, k, n, groups, tiles, window);
  const auto it = memo.find(key);
  if (it != memo.end()) return it->second;
  if (memo.size() >= (1u << 16)) memo.clear();  // bound the memory of long sweeps
  const GemmTileBlock b = plan(chip, dtype, m, k, n, groups, tiles, window);
  memo.emplace(key, b);
  return b;
}

}  // namespace ipusim
