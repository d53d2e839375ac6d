#pragma once
// The tiles of one IPU (plain C++). In per_tile fidelity it keeps every tile's SRAM use,
// compute cycles and exchange bytes in plain vectors; in aggregated fidelity it keeps one
// balanced block (totals and the per-tile maximum only).
#include <cstdint>
#include <vector>

#include "models/ipu/compute.hpp"
#include "models/ipu/exchange.hpp"
#include "models/params/hw_params.hpp"
#include "sim/json.hpp"

namespace ipusim {

/// Per-tile (or aggregated) state of an IPU's tiles.
class TileArray {
 public:
  TileArray(const ChipParams& chip, Fidelity fidelity);

  Fidelity fidelity() const { return fidelity_; }
  std::uint32_t tiles() const { return chip_->tiles; }

  /// Cycles of an exchange phase; adds each tile's bytes sent and received.
  std::uint64_t exchange(const ExchangeSpec& spec);
  /// Cycles of a compute step (busiest tile); adds each active tile's cycles.
  std::uint64_t compute(const ComputeSpec& spec);
  /// Places `bytes` of SRAM data evenly over `tiles` tiles (0 = all), starting at tile 0.
  void allocate_sram(std::uint64_t bytes, std::uint32_t tiles = 0);
  /// Places `bytes` on one tile (per_tile fidelity; aggregated spreads them evenly).
  void allocate_sram_on_tile(std::uint32_t tile, std::uint64_t bytes);
  /// Largest SRAM use of any tile.
  std::uint64_t max_sram_per_tile_bytes() const;
  /// True if no tile uses more than its SRAM.
  bool sram_fits() const { return max_sram_per_tile_bytes() <= chip_->sram_per_tile_bytes; }

  std::uint64_t total_bytes_sent() const { return total_sent_; }
  std::uint64_t total_bytes_received() const { return total_received_; }
  /// Per-tile vectors (empty in aggregated fidelity).
  const std::vector<std::uint64_t>& bytes_sent() const { return sent_; }
  const std::vector<std::uint64_t>& bytes_received() const { return received_; }
  const std::vector<std::uint64_t>& compute_cycles() const { return cycles_; }
  const std::vector<std::uint64_t>& sram_used() const { return sram_; }

  /// Summary stats: totals and, per tile, max and mean of cycles, bytes and SRAM.
  void collect_stats(Json& out) const;

 private:
  const ChipParams* chip_;
  Fidelity fidelity_;
  std::vector<std::uint64_t> sent_, received_, cycles_, sram_;
  std::uint64_t total_sent_ = 0, total_received_ = 0;
  std::uint64_t agg_max_cycles_ = 0;   // aggregated: busiest tile's accumulated cycles
  std::uint64_t agg_sram_total_ = 0;   // aggregated: SRAM bytes, spread evenly
  std::uint64_t agg_sram_max_ = 0;     // aggregated: largest per-tile share placed so far
};

}  // namespace ipusim
