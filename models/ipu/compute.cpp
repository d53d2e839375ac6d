// Compute cycles per op class: AMP ops as GEMMs, vector-bound ops by flops or bytes.
#include "models/ipu/compute.hpp"

#include <algorithm>
#include <cmath>

#include "sim/errors.hpp"

namespace ipusim {
namespace {

/// Work cycles of one tile without the fixed overhead and shape terms; the AMP unit's
/// inner-dimension factor is passed in (1 without a shape).
double work_cycles(const ChipParams& chip, double flops, double bytes, ComputeDType dtype,
                   ComputeUnit unit, double inner_factor) {
  const double by_bytes = bytes / chip.memory_bytes_per_cycle_per_tile;
  if (unit == ComputeUnit::Vector) {
    const double by_flops = flops / flops_per_cycle_per_tile(chip, dtype, unit);
    return std::max(by_flops, by_bytes) / chip.vector_efficiency;
  }
  const double by_flops =
      flops / (flops_per_cycle_per_tile(chip, dtype, unit) * chip.amp_efficiency * inner_factor);
  // A GEMM is flop-bound; the memory term only matters for degenerate AMP steps given bytes
  // and almost no flops (microbenchmarks), where it keeps the time from dropping to zero.
  return std::max(by_flops, by_bytes);
}

std::uint64_t total_cycles(std::uint64_t overhead_cycles, double cycles) {
  return overhead_cycles + static_cast<std::uint64_t>(std::ceil(cycles - 1e-9));
}

/// The fixed cycles a step pays: none, a reduction vertex's, or a training op's.
std::uint64_t step_overhead_cycles(const ChipParams& chip, const ComputeSpec& spec) {
  if (!spec.op_overhead) return 0;
  return spec.reduction_vertex ? chip.reduction_overhead_cycles : chip.op_overhead_cycles;
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

double amp_inner_dim_factor(const ChipParams& chip, double k) {
  // Short inner dimensions leave the AMP's accumulators partly idle and add partial sums to
  // reduce: efficiency k / (k + k_half), which halves at k = k_half and tends to 1 for long k.
  if (k <= 0 || chip.amp_inner_dim_half <= 0) return 1.0;
  return k / (k + chip.amp_inner_dim_half);
}

namespace {

/// Operand exchange of a GEMM whose iteration space is split over `volume_tiles` tiles.
double operand_exchange_cycles(const ChipParams& chip, const ComputeSpec& spec,
                               double volume_tiles) {
  if (!spec.gemm_known() || volume_tiles <= 0) return 0;
  // A poplibs-style planner splits the m x n x k iteration space (times groups) into one
  // block per tile and picks the split that minimises exchange: a cube of volume
  // V = m n k groups / T, side V^(1/3). The tile then needs its slice of both operands,
  // an s x s block of the input and one of the weights: 2 V^(2/3) elements brought in by
  // the on-chip exchange at exchange_bytes_per_cycle_per_tile. No free parameter: the
  // shape, the dtype and the exchange rate decide it.
  const double groups = spec.groups > 0 ? spec.groups : 1.0;
  const double volume = spec.m * spec.n * spec.k * groups / volume_tiles;
  const double elements = 2.0 * std::pow(volume, 2.0 / 3.0);
  return elements * compute_dtype_bytes(spec.dtype) / chip.exchange_bytes_per_cycle_per_tile;
}

}  // namespace

double gemm_operand_exchange_cycles(const ChipParams& chip, const ComputeSpec& spec,
                                    std::uint32_t tiles) {
  if (tiles == 0) return 0;
  return operand_exchange_cycles(chip, spec, static_cast<double>(tiles));
}

std::uint64_t tile_compute_cycles(const ChipParams& chip, double flops, double bytes,
                                  ComputeDType dtype, ComputeUnit unit) {
  if (flops <= 0 && bytes <= 0) return 0;
  return total_cycles(chip.op_overhead_cycles, work_cycles(chip, flops, bytes, dtype, unit, 1.0));
}

std::uint32_t compute_tiles(const ChipParams& chip, const ComputeSpec& spec) {
  const std::uint32_t n = spec.tiles == 0 ? chip.tiles : spec.tiles;
  if (n > chip.tiles) {
    throw ConfigError("compute: tiles = " + std::to_string(n) + " but the IPU has " +
                      std::to_string(chip.tiles) + " tiles");
  }
  return n;
}

namespace {

/// The step's cycles given the busiest tile's flops and bytes and its GEMM volume divisor
/// (the number of tiles an even split would use).
std::uint64_t cycles_on_busiest(const ChipParams& chip, const ComputeSpec& spec,
                                double flops_per_tile, double bytes_busiest, double volume_tiles) {
  if (spec.unit == ComputeUnit::Vector) {
    return total_cycles(
        step_overhead_cycles(chip, spec),
        work_cycles(chip, flops_per_tile, bytes_busiest, spec.dtype, spec.unit, 1.0));
  }
  const double inner = spec.gemm_known() ? amp_inner_dim_factor(chip, spec.k) : 1.0;
  // The busiest tile's block of the iteration space sets the operand exchange.
  const double cycles =
      work_cycles(chip, flops_per_tile, bytes_busiest, spec.dtype, spec.unit, inner) +
      operand_exchange_cycles(chip, spec, volume_tiles);
  return total_cycles(step_overhead_cycles(chip, spec), cycles);
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
