#pragma once
// One IPU: an sc_module without processes that owns its tile array and turns exchange,
// compute and sync requests into cycle counts (callers wait for them).
#include <cstdint>

#include <systemc>

#include "models/ipu/compute.hpp"
#include "models/ipu/exchange.hpp"
#include "models/params/hw_params.hpp"
#include "models/ipu/tile_array.hpp"
#include "sim/clock.hpp"
#include "sim/stats.hpp"

namespace ipusim {

/// A simulated IPU (GC2, GC200 or Bow) in a system.
class Ipu : public sc_core::sc_module, public StatsProvider {
 public:
  Ipu(sc_core::sc_module_name name, std::uint32_t id, const ChipParams& chip, Fidelity fidelity);

  std::uint32_t id() const { return id_; }
  const ChipParams& chip() const { return *chip_; }
  const ClockDomain& clock() const { return clock_; }
  TileArray& tiles() { return tiles_; }
  const TileArray& tiles() const { return tiles_; }

  /// Cycles of an exchange phase on this IPU (recorded in the stats).
  std::uint64_t exchange(const ExchangeSpec& spec);
  /// Cycles of a compute step on this IPU (recorded in the stats).
  std::uint64_t compute(const ComputeSpec& spec);
  /// Records a sync this IPU took part in.
  void note_sync(std::uint64_t cycles, std::uint64_t times = 1);

  void collect_stats(Json& out) const override;

 private:
  std::uint32_t id_;
  const ChipParams* chip_;
  ClockDomain clock_;
  TileArray tiles_;
  std::uint64_t exchanges_ = 0, exchange_cycles_ = 0;
  std::uint64_t computes_ = 0, compute_cycles_ = 0;
  std::uint64_t syncs_ = 0, sync_cycles_ = 0;
};

}  // namespace ipusim
