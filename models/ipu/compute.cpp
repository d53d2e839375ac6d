// Compute cycles per op class: AMP ops as GEMMs, vector-bound ops by flops or bytes.
#include "models/ipu/compute.hpp"

#include <algorithm>
#include <cmath>

#include "models/ipu/compute_sets.hpp"
#include "models/ipu/gemm_tiling.hpp"
#include "models/ipu/grouped_conv_choice.hpp"
#include "models/ipu/popops_vertices.hpp"
#include "models/ipu/reduce_plan.hpp"
#include "sim/errors.hpp"

namespace ipusim {
namespace {

/// Work cycles of one tile without the fixed overhead and shape terms.
double work_cycles(const ChipParams& chip, double flops, double bytes, ComputeDType dtype,
                   ComputeUnit unit) {
  const double by_bytes = bytes / chip.memory_bytes_per_cycle_per_tile;
  if (unit == ComputeUnit::Vector) {
    // Without a vertex cost of its own, each counted flop is one element of a popops
    // element-wise vertex (models/ipu/popops_vertices.hpp vector_cycles_per_flop).
    return std::max(flops * vector_cycles_per_flop(dtype, chip.poplar_sdk), by_bytes);
  }
  const double by_flops =
      flops / (flops_per_cycle_per_tile(chip, dtype, unit) * chip.amp_efficiency);
  // A GEMM is flop-bound; the memory term only matters for degenerate AMP steps given bytes
  // and almost no flops (microbenchmarks), where it keeps the time from dropping to zero.
  return std::max(by_flops, by_bytes);
}

std::uint64_t total_cycles(std::uint64_t overhead_cycles, double cycles) {
  return overhead_cycles + static_cast<std::uint64_t>(std::ceil(cycles - 1e-9));
}

/// The fixed cycles a step pays: none, or a training op's (times its chained ops). Per compute
/// set, the step's further compute sets too: `gemm_sets` of an AMP op (models/ipu/
/// compute_sets.hpp gemm_compute_sets; 1 for any other op) and its `extra_compute_sets`.
std::uint64_t step_overhead_cycles(const ChipParams& chip, const ComputeSpec& spec,
                                   std::uint32_t gemm_sets = 1) {
  if (!spec.op_overhead) return 0;
  std::uint64_t sets = std::max<std::uint64_t>(1, spec.chained_ops);
  if (chip.op_overhead_per == OpOverheadPer::ComputeSet)
    sets += spec.extra_compute_sets + (gemm_sets > 0 ? gemm_sets - 1 : 0);
  return chip.op_overhead_cycles * sets;
}

}  // namespace

ComputeDType parse_compute_dtype(const std::string& s) {
  if (s == "float16") return ComputeDType::Float16;
  if (s == "float32") return ComputeDType::Float32;
  if (s == "float16_32") return ComputeDType::Float16_32;
  throw ConfigError("unknown compute dtype '" + s + "'");
}

ComputeUnit parse_compute_unit(const std::string& s) {
  if (s == "amp") return ComputeUnit::Amp;
  if (s == "vector") return ComputeUnit::Vector;
  throw ConfigError("unknown compute unit '" + s + "'");
}

double flops_per_cycle_per_tile(const ChipParams& chip, ComputeDType dtype, ComputeUnit unit) {
  if (unit == ComputeUnit::Vector) {
    // The vector unit has no mixed-precision mode: FP16-in/FP32-acc runs at the FP32 rate.
    return dtype == ComputeDType::Float16 ? chip.vector_flops_per_cycle_fp16
                                          : chip.vector_flops_per_cycle_fp32;
  }
  switch (dtype) {
    case ComputeDType::Float16:
      return chip.amp_flops_per_cycle_fp16;
    case ComputeDType::Float32:
      return chip.amp_flops_per_cycle_fp32;
    case ComputeDType::Float16_32:
      return chip.amp_flops_per_cycle_fp16_32;
  }
  return chip.amp_flops_per_cycle_fp32;
}

double compute_dtype_bytes(ComputeDType dtype) {
  return dtype == ComputeDType::Float32 ? 4.0 : 2.0;
}

namespace {

/// The busiest tile's block of the spec's GEMM on `volume_tiles` tiles (shape known). A
/// grouped convolution's vertex is the cheapest of the AMP block's and poplin's other
/// candidates (models/ipu/grouped_conv_choice.hpp).
GemmTileBlock spec_block(const ChipParams& chip, const ComputeSpec& spec, double volume_tiles) {
  const double groups = spec.groups > 0 ? spec.groups : 1.0;
  // The window reaches the planner only when selected: the default plans the im2col GEMM once.
  const ConvWindow window =
      chip.conv_input_exchange == ConvInputExchange::InputField ? spec.window : ConvWindow{};
  GemmTileBlock b =
      gemm_tile_block(chip, spec.dtype, spec.m, spec.k, spec.n, groups, volume_tiles, window);
  choose_grouped_conv_vertex(chip, spec, volume_tiles, b);
  return b;
}

}  // namespace

double gemm_operand_exchange_cycles(const ChipParams& chip, const ComputeSpec& spec,
                                    std::uint32_t tiles) {
  if (tiles == 0 || !spec.gemm_known()) return 0;
  return spec_block(chip, spec, static_cast<double>(tiles)).exchange_cycles;
}

std::uint64_t tile_compute_cycles(const ChipParams& chip, double flops, double bytes,
                                  ComputeDType dtype, ComputeUnit unit) {
  if (flops <= 0 && bytes <= 0) return 0;
  return total_cycles(chip.op_overhead_cycles, work_cycles(chip, flops, bytes, dtype, unit));
}

std::uint32_t compute_tiles(const ChipParams& chip, const ComputeSpec& spec) {
  const std::uint32_t n = spec.tiles == 0 ? chip.tiles : spec.tiles;
  if (n > chip.tiles) {
    throw ConfigError("compute: tiles = " + std::to_string(n) + " but the IPU has " +
                      std::to_string(chip.tiles) + " tiles");
  }
  return n;
}

double scalar_reduction_cycles(const ChipParams& chip, const ComputeSpec& spec, double tiles) {
  if (spec.scalar_reductions == 0 || tiles <= 0) return 0;
  // popops reduces a tensor spread over the tiles to one value in compute sets: each tile's
  // partial (its elements' work is in the step's flops and bytes; the compute set costs one op
  // overhead), then the tiles' FP32 partials summed over the stages popops::reduce plans, each
  // a superstep of sync, exchange and reduction vertices (models/ipu/reduce_plan.hpp).
  const auto partial_tiles = static_cast<std::uint64_t>(std::llround(tiles));
  // Per compute set, each of popops' stages pays the overhead as well.
  const std::uint64_t sets = 1 + (chip.op_overhead_per == OpOverheadPer::ComputeSet
                                      ? scalar_reduce_stages(chip, partial_tiles)
                                      : 0);
  const double one = static_cast<double>(chip.op_overhead_cycles * sets) +
                     scalar_reduce_cycles(chip, partial_tiles);
  return one * static_cast<double>(spec.scalar_reductions);
}

namespace {

/// The step's cycles given the busiest tile's flops and bytes and its GEMM volume divisor
/// (the number of tiles an even split would use).
std::uint64_t cycles_on_busiest(const ChipParams& chip, const ComputeSpec& spec,
                                double flops_per_tile, double bytes_busiest, double volume_tiles) {
  if (spec.unit == ComputeUnit::Vector) {
    // poplibs' vertex cost when the op has one: the busiest tile's share of it.
    const double work =
        spec.vector_tile_cycles > 0 && spec.flops > 0
            ? spec.vector_tile_cycles * flops_per_tile / spec.flops
            : work_cycles(chip, flops_per_tile, bytes_busiest, spec.dtype, spec.unit);
    return total_cycles(step_overhead_cycles(chip, spec),
                        work + scalar_reduction_cycles(chip, spec, volume_tiles));
  }
  if (!spec.gemm_known() || volume_tiles <= 0) {
    return total_cycles(step_overhead_cycles(chip, spec),
                        work_cycles(chip, flops_per_tile, bytes_busiest, spec.dtype, spec.unit));
  }
  // The busiest tile's block of the cycle-minimising split sets the AMP vertex's passes, the
  // operand and partial exchange and the partial reduction (models/ipu/gemm_tiling.hpp).
  // Compute, exchange and reduction are separate BSP phases: their cycles add. The memory
  // term keeps a degenerate step given bytes and almost no flops from costing nothing.
  const GemmTileBlock block = spec_block(chip, spec, volume_tiles);
  const double by_bytes = bytes_busiest / chip.memory_bytes_per_cycle_per_tile;
  const double cycles =
      std::max(block.amp_cycles, by_bytes) + block.exchange_cycles + block.reduction_cycles;
  const std::uint32_t sets =
      gemm_compute_sets(block.k_splits, spec.dtype == ComputeDType::Float16_32);
  return total_cycles(step_overhead_cycles(chip, spec, sets), cycles);
}

}  // namespace

std::uint64_t compute_cycles(const ChipParams& chip, const ComputeSpec& spec) {
  if (spec.flops <= 0 && spec.bytes == 0) return 0;
  const std::uint32_t n = compute_tiles(chip, spec);
  // Bytes are whole: the busiest tile gets the rounded-up share.
  const double bytes_busiest = static_cast<double>((spec.bytes + n - 1) / n);
  return cycles_on_busiest(chip, spec, spec.flops / n, bytes_busiest, static_cast<double>(n));
}

std::uint64_t compute_cycles_with_share(const ChipParams& chip, const ComputeSpec& spec,
                                        double busiest_share) {
  if (spec.flops <= 0 && spec.bytes == 0) return 0;
  const double bytes_busiest = std::ceil(static_cast<double>(spec.bytes) * busiest_share - 1e-9);
  return cycles_on_busiest(chip, spec, spec.flops * busiest_share, bytes_busiest,
                           busiest_share > 0 ? 1.0 / busiest_share : 0.0);
}

}  // namespace ipusim
