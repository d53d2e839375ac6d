#pragma once
// One IPU: a plain object (no SystemC module: it has no processes, and a 65,536-IPU system
// would register as many names) that owns its tile array and turns exchange, compute and
// sync requests into cycle counts (callers wait for them); its machine reports its stats. It is
// also a contended resource: BSP gives its compute tiles one thing at a time (a compute set, an
// exchange phase or a sync), so callers reserve the compute tiles for each such step; the IO
// tiles are not part of the reservation and overlap with it.
#include <cstdint>

#include "models/ipu/compute.hpp"
#include "models/ipu/exchange.hpp"
#include "models/ipu/tile_array.hpp"
#include "models/params/hw_params.hpp"
#include "sim/clock.hpp"
#include "sim/stats.hpp"

namespace ipusim {

/// A simulated IPU (GC2, GC200 or Bow) in a system.
class Ipu : public StatsProvider {
 public:
  Ipu(std::uint32_t id, const ChipParams& chip, Fidelity fidelity);

  std::uint32_t id() const { return id_; }
  const ChipParams& chip() const { return *chip_; }
  const ClockDomain& clock() const { return clock_; }
  TileArray& tiles() { return tiles_; }
  const TileArray& tiles() const { return tiles_; }

  /// Cycles of an exchange phase on this IPU (recorded in the stats).
  std::uint64_t exchange(const ExchangeSpec& spec);
  /// Cycles of a compute step on this IPU (recorded in the stats).
  std::uint64_t compute(const ComputeSpec& spec);
  /// What a run of compute() calls did to this IPU: the cycles they returned, and their
  /// effect on the stats and the tiles. Applying it to an IPU of the same chip and fidelity
  /// leaves the state the same calls would.
  struct ComputeEffect {
    std::uint64_t cycles = 0;  ///< sum of the cycles the calls returned
    std::uint64_t steps = 0;
    TileArray::ComputeEffect tiles;
  };
  /// Records every later compute() into `effect` as well, until called with nullptr.
  void record_computes(ComputeEffect* effect);
  /// Applies a recorded effect (see ComputeEffect); returns its cycles.
  std::uint64_t apply(const ComputeEffect& effect);
  /// Cycles of an IoTileCopy of `bytes` between the IO and compute tiles (recorded as an
  /// exchange phase; see TileArray::io_copy).
  std::uint64_t io_copy(std::uint64_t bytes, std::uint32_t io_tiles, bool to_compute,
                        std::uint64_t grain_bytes);
  /// Records a sync this IPU took part in.
  void note_sync(std::uint64_t cycles, std::uint64_t times = 1);

  /// Reserves the compute tiles for `duration_ns`, starting at the first instant at or after
  /// `ready_ns` when they are free (steps issued together run one after another in issue
  /// order, as Poplar runs separate compute sets and exchanges), and returns that start.
  double occupy_compute_tiles(double ready_ns, double duration_ns);
  /// When the compute tiles are next free, ns.
  double compute_tiles_free_ns() const { return tiles_free_ns_; }

  /// Adds the compute and exchange activity of `twin`, an IPU that ran the same SPMD program
  /// (replicas of a training step are identical, so one IPU per virtual graph is timed
  /// through the models and its activity is credited to the others at the end).
  void add_activity_of(const Ipu& twin);

  void collect_stats(Json& out) const override;

 private:
  std::uint32_t id_;
  const ChipParams* chip_;
  ClockDomain clock_;
  TileArray tiles_;
  std::uint64_t exchanges_ = 0, exchange_cycles_ = 0;
  std::uint64_t computes_ = 0, compute_cycles_ = 0;
  std::uint64_t syncs_ = 0, sync_cycles_ = 0;
  double tiles_free_ns_ = 0;
  ComputeEffect* record_ = nullptr;  // see record_computes()
};

}  // namespace ipusim
