#pragma once
// The tiles of one IPU (plain C++). In per_tile fidelity it keeps every tile's SRAM use,
// compute cycles and exchange bytes (counters with O(1) range additions); in aggregated fidelity it
// keeps one balanced block (totals and the per-tile maximum only).
#include <cstdint>
#include <utility>
#include <vector>

#include "models/ipu/compute.hpp"
#include "models/ipu/exchange.hpp"
#include "models/ipu/tile_counters.hpp"
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
  /// Cycles of a compute step (busiest tile); adds each active tile's cycles. In per_tile
  /// fidelity a spec with `mapped_bytes` spreads its work by Poplar's linear mapping, so an
  /// unevenly mapped output makes the busiest tile (and the step) slower than in aggregated.
  std::uint64_t compute(const ComputeSpec& spec);
  /// What a run of compute() calls did to the tile state: replayed by apply() exactly as the
  /// calls would redo it (a training step repeats each model op every micro-batch and layer).
  struct ComputeEffect {
    std::uint64_t computes = 0;    ///< compute steps
    std::uint64_t agg_cycles = 0;  ///< aggregated: busiest-tile cycles added
    /// per_tile: (tile, delta) entries of the per-cycle difference array, by tile, merged.
    std::vector<std::pair<std::uint32_t, std::uint64_t>> cycle_differences;
  };
  /// Records every later compute() into `effect` as well, until called with nullptr (which
  /// merges the recorded differences).
  void record_computes(ComputeEffect* effect);
  /// Applies a recorded effect: the state compute() calls with the same specs would leave.
  void apply(const ComputeEffect& effect);
  /// Cycles of an on-chip copy of `bytes` between the IO tiles (the last `io_tiles` tiles) and
  /// the compute tiles (IoTileCopy; `to_compute` gives the direction). In per_tile fidelity both
  /// sides hold the data by the linear mapping in grains of `grain_bytes` and the busiest tile
  /// bounds the copy; aggregated spreads it evenly. Adds the bytes sent and received.
  std::uint64_t io_copy(std::uint64_t bytes, std::uint32_t io_tiles, bool to_compute,
                        std::uint64_t grain_bytes);
  /// Places `bytes` of SRAM data evenly over `tiles` tiles (0 = all), starting at tile 0.
  void allocate_sram(std::uint64_t bytes, std::uint32_t tiles = 0);
  /// Places `bytes` on one tile (per_tile fidelity; aggregated spreads them evenly).
  void allocate_sram_on_tile(std::uint32_t tile, std::uint64_t bytes);
  /// Records a peak SRAM use computed elsewhere (the training memory account): every compute
  /// tile holds `compute_tile_bytes` and each of the last `io_tiles` tiles `io_tile_bytes` at
  /// some point; the per-tile maximum rises to it. Makes the SRAM fields of the stats appear.
  void note_sram_peak(std::uint64_t compute_tile_bytes, std::uint64_t io_tile_bytes,
                      std::uint32_t io_tiles);
  /// Adds the compute and exchange activity of `twin` (an IPU running the same SPMD program):
  /// totals, per-tile vectors and the busiest tile's cycles. SRAM is not copied.
  void add_activity_of(const TileArray& twin);
  /// True once SRAM was placed or noted (SRAM fields are absent from the stats before).
  bool sram_known() const { return sram_known_; }
  /// Largest SRAM use of any tile.
  std::uint64_t max_sram_per_tile_bytes() const;
  /// True if no tile uses more than its SRAM.
  bool sram_fits() const { return max_sram_per_tile_bytes() <= chip_->sram_per_tile_bytes; }

  std::uint64_t total_bytes_sent() const { return total_sent_; }
  std::uint64_t total_bytes_received() const { return total_received_; }
  /// Per-tile vectors (empty in aggregated fidelity).
  const std::vector<std::uint64_t>& bytes_sent() const { return sent_.values(); }
  const std::vector<std::uint64_t>& bytes_received() const { return received_.values(); }
  const std::vector<std::uint64_t>& compute_cycles() const { return cycles_.values(); }
  const std::vector<std::uint64_t>& sram_used() const { return sram_; }

  /// Summary stats: totals and, per tile, max and mean of cycles, bytes and SRAM. Only what
  /// was recorded appears: exchange bytes after an exchange or copy, compute cycles after a
  /// compute step, SRAM after an allocation (a field that would read 0 only because nothing
  /// went through the model is absent, not zero).
  void collect_stats(Json& out) const;
  /// Process-wide: when on, collect_stats() also gives per_tile.sram_bytes_histogram
  /// ({"bin_bytes", "counts"}: tiles per 1/32 of the SRAM, the last count above it) for the
  /// --html pages; the CLI takes it out of report.json, which stays as without it.
  static void set_sram_histogram_in_stats(bool on);

 private:
  const ChipParams* chip_;
  Fidelity fidelity_;
  TileCounters sent_, received_, cycles_;  // range adds in O(1) (see tile_counters.hpp)
  std::vector<std::uint64_t> sram_;
  std::uint64_t total_sent_ = 0, total_received_ = 0;
  std::uint64_t agg_max_cycles_ = 0;            // aggregated: busiest tile's accumulated cycles
  std::uint64_t agg_sram_total_ = 0;            // aggregated: SRAM bytes, spread evenly
  std::uint64_t agg_sram_max_ = 0;              // aggregated: largest per-tile share placed so far
  std::uint64_t exchanges_ = 0, computes_ = 0;  // steps recorded (decide which stats exist)
  bool sram_known_ = false;
  ComputeEffect* record_ = nullptr;  // see record_computes()
  /// cycles_.add_range() that record_computes() also records.
  void add_cycles(std::uint32_t first, std::uint32_t end, std::uint64_t c);
};

}  // namespace ipusim
