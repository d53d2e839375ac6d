// Compute cycles from work, tile throughput, efficiency and vertex overhead.
#include "models/compute.hpp"

#include <algorithm>
#include <cmath>

#include "sim/errors.hpp"

namespace ipusim {

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
    return dtype == ComputeDType::Float16 ? chip.vector_flops_per_cycle_fp16 : chip.vector_flops_per_cycle_fp32;
  }
  switch (dtype) {
    case ComputeDType::Float16: return chip.amp_flops_per_cycle_fp16;
    case ComputeDType::Float32: return chip.amp_flops_per_cycle_fp32;
    case ComputeDType::Float16_32: return chip.amp_flops_per_cycle_fp16_32;
  }
  return chip.amp_flops_per_cycle_fp32;
}

std::uint64_t tile_compute_cycles(const ChipParams& chip, double flops, double bytes, ComputeDType dtype,
                                  ComputeUnit unit) {
  if (flops <= 0 && bytes <= 0) return 0;
  const double eff = chip.compute_efficiency;
  const double by_flops = flops / (flops_per_cycle_per_tile(chip, dtype, unit) * eff);
  const double by_bytes = bytes / (chip.memory_bytes_per_cycle_per_tile * eff);
  const double cycles = std::max(by_flops, by_bytes);
  return static_cast<std::uint64_t>(std::ceil(cycles - 1e-9)) + chip.vertex_overhead_cycles;
}

std::uint32_t compute_tiles(const ChipParams& chip, const ComputeSpec& spec) {
  const std::uint32_t n = spec.tiles == 0 ? chip.tiles : spec.tiles;
  if (n > chip.tiles) {
    throw ConfigError("compute: tiles = " + std::to_string(n) + " but the IPU has " + std::to_string(chip.tiles) +
                      " tiles");
  }
  return n;
}

std::uint64_t compute_cycles(const ChipParams& chip, const ComputeSpec& spec) {
  const std::uint32_t n = compute_tiles(chip, spec);
  // Bytes are whole: the busiest tile gets the rounded-up share.
  const double bytes_busiest = static_cast<double>((spec.bytes + n - 1) / n);
  return tile_compute_cycles(chip, spec.flops / n, bytes_busiest, spec.dtype, spec.unit);
}

}  // namespace ipusim
