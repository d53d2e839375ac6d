#pragma once
// Compute cost (plain C++): an op's cycles on a tile are its work on that tile divided by the
// tile's throughput for the dtype and unit, divided by the efficiency, plus a fixed per-vertex
// overhead. An op ends when its busiest tile ends.
#include <cstdint>
#include <string>

#include "models/hw_params.hpp"

namespace ipusim {

/// One compute step on one IPU, spread evenly over `tiles` tiles.
struct ComputeSpec {
  double flops = 0;          ///< total floating-point operations
  std::uint64_t bytes = 0;   ///< total bytes read and written (memory-bound ops)
  ComputeDType dtype = ComputeDType::Float16;
  ComputeUnit unit = ComputeUnit::Amp;
  std::uint32_t tiles = 0;   ///< 0 = all tiles
};

ComputeDType parse_compute_dtype(const std::string& s);
ComputeUnit parse_compute_unit(const std::string& s);

/// Peak flops per cycle per tile for a dtype on a unit.
double flops_per_cycle_per_tile(const ChipParams& chip, ComputeDType dtype, ComputeUnit unit);

/// Cycles of one tile that does `flops` and touches `bytes` (0 if it does nothing).
std::uint64_t tile_compute_cycles(const ChipParams& chip, double flops, double bytes, ComputeDType dtype,
                                  ComputeUnit unit);

/// Active tiles of a spec (checked against the chip).
std::uint32_t compute_tiles(const ChipParams& chip, const ComputeSpec& spec);

/// Cycles of the whole step: the busiest tile, work balanced over the active tiles.
std::uint64_t compute_cycles(const ChipParams& chip, const ComputeSpec& spec);

}  // namespace ipusim
